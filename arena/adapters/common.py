"""What every adapter shares: naming a game, action ids, and what a seat sees as text and numbers.

Why this module exists: a framework wants a fixed action space and a fixed-size observation,
while a GENSTRAT deal has menus of action *names* that change from decision to decision and an
information state that grows.  ``AdapterGame`` is the one translation, used by the PettingZoo,
Gymnasium and TextArena adapters alike:

- **Naming** (:func:`load_game`): everything ``arena.games`` names (a seed under a generation
  configuration, a preset, a spec file, ``openspiel:<name>``) and a game of a release's
  benchmark by its token (``release=``: the release folder or its
  ``tables/benchmark_games.parquet``; the spec the release carries, never a regenerated one).
- **Actions**: a generated game's action id is its index in
  ``engines.solve.openspiel_bridge.action_vocabulary`` (every action string any phase can offer,
  from the spec alone, the ids OpenSpiel's solvers see); an OpenSpiel game's ids are OpenSpiel's.
- **Text**: the seat's view exactly as the LLM players are prompted with it
  (``engines.gbg.render.turn_prompt``; ``engines.openspiel.text.turn_prompt`` when the seat is
  to move, else its observation and the moves so far).
- **Numbers**: a fixed-size float32 vector, a function of the seat's information state only (a
  test groups states by ``information_state`` and requires equal vectors).  For a generated
  game, every entry is in [0, 1] (layout in :class:`GbgGame`); for an OpenSpiel game, OpenSpiel's
  information-state tensor (else its observation tensor), flattened.
- **Deals**: ``new_deal(play_seed)`` is the project's deal of that seed: the same cards as a
  tournament's match with that play seed, whichever seat a player takes.

Bad input raises ``ValueError`` naming what was wrong; the adapters turn it into their
framework's convention.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from arena.games import catalogue_from_table, catalogued_game, resolve_any_game
from engines.gbg.engine import PUBLIC, State, new_deal
from engines.gbg.generator import GenerationConfig
from engines.gbg.render import turn_prompt
from engines.gbg.rulebook import rulebook
from engines.gbg.rules import game_rules
from engines.gbg.spec import SEATS, AuctionPhase, GameSpec, PositionPhase
from engines.openspiel import text as openspiel_text
from engines.openspiel.spec import OpenSpielSpec
from engines.openspiel.state import OpenSpielState
from engines.solve.openspiel_bridge import action_vocabulary, max_game_length

Vector = npt.NDArray[np.float32]

AGENTS = ("player_0", "player_1")
"""PettingZoo's agent names: ``player_0`` is seat 0 (Alice, who acts first), ``player_1`` Bob."""

TEXT_LIMIT = 1 << 20
"""The longest text view a space admits (characters); a longer view is a bug, not a truncation."""

RELEASE_TABLE = Path("tables") / "benchmark_games.parquet"

# How a seat knows a position's holder (``engines.gbg.state.position_as_known``), in column order.
POSITION_KNOWLEDGE = ("you", "opponent", "nobody", "not you")


def seat_index(seat: int | str) -> int:
    """0 or 1 for ``seat`` given as 0, 1, ``alice``, ``bob``, ``player_0`` or ``player_1``."""
    if isinstance(seat, str):
        name = seat.strip().lower()
        if name in SEATS:
            return SEATS.index(name)
        if name in AGENTS:
            return AGENTS.index(name)
    elif isinstance(seat, int | np.integer) and int(seat) in (0, 1):
        return int(seat)
    raise ValueError(f"unknown seat {seat!r}: give 0 or 1, alice or bob, player_0 or player_1")


def release_catalogue(release: str | Path) -> dict[str, GameSpec]:
    """``{token: spec}`` of a release's benchmark games: ``release`` is the release folder or its
    ``tables/benchmark_games.parquet``.  ``ValueError`` in one line when there is no such table."""
    path = Path(release).expanduser()
    table = path if path.suffix == ".parquet" else path / RELEASE_TABLE
    if not table.is_file():
        raise ValueError(
            f"no benchmark games table at {table}: give a release folder (holding "
            f"{RELEASE_TABLE}) or that .parquet file"
        )
    return catalogue_from_table(pd.read_parquet(table))


class AdapterGame:
    """A game as the adapters see it (see the module docstring); built by :func:`load_game`."""

    spec: GameSpec | OpenSpielSpec
    token: str
    name: str
    num_actions: int
    encoding_size: int
    encoding_low: float
    encoding_high: float
    charset: str

    def new_deal(self, play_seed: int) -> Any:
        raise NotImplementedError

    def legal_ids(self, deal: Any) -> list[int]:
        """Ids of the legal actions of the player to move, ascending (empty when none moves)."""
        raise NotImplementedError

    def action_name(self, deal: Any, action: int) -> str:
        """The name of legal action ``action`` in ``deal`` (``ValueError`` if it is not legal)."""
        raise NotImplementedError

    def encode(self, deal: Any, seat: int) -> Vector:
        raise NotImplementedError

    def view(self, deal: Any, seat: int) -> str:
        """The seat's view as text, before the charset is enforced (:meth:`text`)."""
        raise NotImplementedError

    def rules(self) -> str:
        """The rules as the LLM players get them (the system prompt)."""
        raise NotImplementedError

    # --- shared ------------------------------------------------------------------------------

    def action_id(self, deal: Any, name: str) -> int:
        """The id of the legal action called ``name`` (``ValueError`` naming the menu if none)."""
        for action in self.legal_ids(deal):
            if self.action_name(deal, action) == name:
                return action
        raise ValueError(f"{name!r} is not a legal action here; legal: {self.menu(deal)}")

    def menu(self, deal: Any) -> dict[int, str]:
        """``{id: name}`` of the legal actions."""
        return {a: self.action_name(deal, a) for a in self.legal_ids(deal)}

    def apply(self, deal: Any, action: Any) -> str:
        """Play action id ``action`` for the player to move; return its name.  ``ValueError``
        for a finished deal, a value that is not an action id, or an id that is not legal."""
        if deal.current_player < 0:
            raise ValueError("the deal is over: no action can be played (reset for a new deal)")
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = int(action)
            else:
                raise ValueError(f"an action is an integer id, got {action!r}")
        action = int(action)
        legal = self.legal_ids(deal)
        if action not in legal:
            menu = ", ".join(f"{a} ({n})" for a, n in self.menu(deal).items())
            raise ValueError(f"action {action} is not legal here; legal ids: {menu}")
        name = self.action_name(deal, action)
        deal.apply(name)
        return name

    def mask(self, deal: Any, seat: int, size: int | None = None) -> npt.NDArray[np.int8]:
        """1 at the legal ids when ``seat`` is to move, else all 0 (length ``size``, default
        ``num_actions``)."""
        out = np.zeros(self.num_actions if size is None else size, dtype=np.int8)
        if deal.current_player == seat:
            out[self.legal_ids(deal)] = 1
        return out

    def text(self, deal: Any, seat: int) -> str:
        """:meth:`view` with any character outside :attr:`charset` written as a Python escape
        (``\\u2660``); a generated game's views never need one (tested)."""
        view = self.view(deal, seat)
        allowed = self._allowed
        if not all(c in allowed for c in view):
            view = "".join(
                c if c in allowed else c.encode("unicode_escape").decode("ascii") for c in view
            )
        if len(view) > TEXT_LIMIT:
            raise RuntimeError(f"a text view of {len(view)} characters exceeds {TEXT_LIMIT}")
        return view

    @property
    def _allowed(self) -> frozenset[str]:
        found: frozenset[str] | None = self.__dict__.get("_allowed_set")
        if found is None:
            found = self.__dict__["_allowed_set"] = frozenset(self.charset)
        return found

    def returns(self, deal: Any) -> tuple[int, int]:
        r = deal.returns()
        return (int(r[0]), int(r[1]))


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON-like value (keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


BASE_CHARSET = string.printable


class GbgGame(AdapterGame):
    """A generated game (or preset).  The numeric encoding, every entry in [0, 1]:

    - the seat (2, one-hot), whether it is to move (1), the phase (one per phase, then one for
      the end of the deal);
    - label counts of its hand, of the board, and of the other cards it has been shown (peeks,
      swaps, the showdown), each divided by the label's copies in the deck;
    - both stacks, the pot and both seats' chips in the pot, divided by all the chips (2 stacks);
    - per position of the rules (by name), how the seat knows its holder (``you``,
      ``opponent``, ``nobody``, ``not you``; all zero while unknown);
    - the decisions the seat knows of, in the order it learnt them, one slot each (as many
      slots as ``max_game_length``): who decided (the seat, the opponent) times the action
      (its id, or a last column for a swap whose card the seat did not see).  An opponent's
      secret choice or bid fills a slot when it is revealed.
    """

    spec: GameSpec

    def __init__(self, spec: GameSpec, token: str | None = None) -> None:
        self.spec = spec
        self.token = token or spec.name
        self.name = spec.name
        rules = game_rules(spec)
        self.vocabulary = action_vocabulary(spec)
        self._index = {a: i for i, a in enumerate(self.vocabulary)}
        self.num_actions = len(self.vocabulary)
        card_labels = list(rules.label_of)
        self.labels = tuple(dict.fromkeys(card_labels))
        self._label = {label: i for i, label in enumerate(self.labels)}
        self._card_label = [self._label[label] for label in card_labels]
        copies = Counter(card_labels)
        self._copies = np.array([copies[label] for label in self.labels], dtype=np.float32)
        self.phase_ids = tuple(rules.phase_ids)
        names: set[str] = set()
        for phase in spec.phases:
            if isinstance(phase, PositionPhase):
                names.add(phase.name)
            elif isinstance(phase, AuctionPhase) and phase.item.position:
                names.add(phase.item.position)
        self.positions = tuple(sorted(names))
        self.slots = max_game_length(spec)
        self._chips = float(2 * spec.stack)
        n_labels, width = len(self.labels), 2 * (self.num_actions + 1)
        sizes = {
            "seat": 2,
            "to_act": 1,
            "phase": len(self.phase_ids) + 1,
            "hand": n_labels,
            "board": n_labels,
            "seen": n_labels,
            "chips": 5,
            "positions": len(POSITION_KNOWLEDGE) * len(self.positions),
            "decisions": self.slots * width,
        }
        self.layout: dict[str, slice] = {}
        start = 0
        for part, size in sizes.items():
            self.layout[part] = slice(start, start + size)
            start += size
        self.encoding_size = start
        self.encoding_low, self.encoding_high = 0.0, 1.0
        self._width = width
        chars = set(BASE_CHARSET)
        for text in _strings(spec.model_dump(mode="json")):
            chars.update(text)
        for label in card_labels:
            chars.update(label)
        self.charset = "".join(sorted(chars))

    def new_deal(self, play_seed: int) -> State:
        return new_deal(self.spec, play_seed)

    def legal_ids(self, deal: State) -> list[int]:
        index = self._index
        return sorted(index[a] for a in deal.legal_actions())

    def action_name(self, deal: State, action: int) -> str:
        if 0 <= action < self.num_actions and self.vocabulary[action] in deal.legal_actions():
            return self.vocabulary[action]
        raise ValueError(f"action {action} is not legal here")

    def view(self, deal: State, seat: int) -> str:
        return turn_prompt(deal, seat)

    def rules(self) -> str:
        return rulebook(self.spec)

    def _counts(self, cards: list[int]) -> Vector:
        out = np.zeros(len(self.labels), dtype=np.float32)
        for card in cards:
            out[self._card_label[card]] += 1.0
        return out

    def encode(self, deal: State, seat: int) -> Vector:
        out = np.zeros(self.encoding_size, dtype=np.float32)
        at = self.layout
        out[at["seat"].start + seat] = 1.0
        out[at["to_act"].start] = float(deal.current_player == seat)
        out[at["phase"].start + (deal.phase if deal.phase >= 0 else len(self.phase_ids))] = 1.0
        own = self._counts(list(deal.hands[seat]))
        board = self._counts(list(deal.board))
        out[at["hand"]] = own / self._copies
        out[at["board"]] = board / self._copies
        shown: list[int] = []
        index, width, base = self._index, self._width, at["decisions"].start
        slot = 0

        def decided(by: int, column: int) -> None:
            nonlocal slot
            if slot >= self.slots:
                raise AssertionError(f"{self.name}: more decisions than max_game_length")
            relative = 0 if by == seat else 1
            out[base + slot * width + relative * (self.num_actions + 1) + column] = 1.0
            slot += 1

        for visibility, kind, who, data in deal.events:
            if visibility != PUBLIC and visibility != seat:
                continue
            if kind == "act":
                decided(who, index.get(data, self.num_actions))
            elif kind == "secret":
                decided(who, index[data])
            elif kind == "reveal_choices":
                decided(1 - seat, index[data[1 - seat]])
            elif kind == "auction":
                decided(1 - seat, index[f"bid {data[1 - seat]}"])
            elif kind in ("peek", "peek_top", "discard"):
                shown.append(data)
            elif kind in ("swap_take", "board_swap"):
                shown.extend(data)
            elif kind == "show":
                shown.extend(data[0])
                shown.extend(data[1])
        seen = np.clip(self._counts(shown) - own - board, 0.0, self._copies)
        out[at["seen"]] = seen / self._copies
        chips = self._chips
        contrib = deal.contrib
        out[at["chips"]] = (
            deal.stacks[0] / chips,
            deal.stacks[1] / chips,
            (contrib[0] + contrib[1]) / chips,
            contrib[0] / chips,
            contrib[1] / chips,
        )
        known = deal.known_positions(seat)
        start = at["positions"].start
        for k, name in enumerate(self.positions):
            if name in known:
                out[start + k * len(POSITION_KNOWLEDGE) + POSITION_KNOWLEDGE.index(known[name])] = 1
        return out


class OpenSpielGame(AdapterGame):
    """An OpenSpiel game: OpenSpiel's action ids, its information-state tensor (else its
    observation tensor) flattened, and the OpenSpiel players' prompt as text."""

    spec: OpenSpielSpec

    def __init__(self, spec: OpenSpielSpec) -> None:
        self.spec = spec
        self.token = spec.token
        self.name = spec.name
        game = spec.game
        kind = game.get_type()
        self.num_actions = int(game.num_distinct_actions())
        if kind.provides_information_state_tensor:
            self._tensor = "information_state_tensor"
            shape = game.information_state_tensor_shape()
        elif kind.provides_observation_tensor:
            self._tensor = "observation_tensor"
            shape = game.observation_tensor_shape()
        else:
            raise ValueError(
                f"{spec.token!r}: OpenSpiel gives this game no tensor, so it has no numeric "
                "observation; choose a game with an information-state or observation tensor"
            )
        self.encoding_size = int(np.prod(shape))
        # OpenSpiel declares no bounds for its tensors (poker tensors hold chip counts).
        self.encoding_low, self.encoding_high = -np.inf, np.inf
        self.charset = BASE_CHARSET

    def new_deal(self, play_seed: int) -> OpenSpielState:
        deal: OpenSpielState = self.spec.new_deal(play_seed)
        return deal

    def legal_ids(self, deal: OpenSpielState) -> list[int]:
        if deal.current_player < 0:
            return []
        return sorted(deal.action_ids())

    def action_name(self, deal: OpenSpielState, action: int) -> str:
        if deal.current_player >= 0:
            ids = deal.action_ids()
            if action in ids:
                return deal.legal_actions()[ids.index(action)]
        raise ValueError(f"action {action} is not legal here")

    def view(self, deal: OpenSpielState, seat: int) -> str:
        if deal.current_player == seat:
            return openspiel_text.turn_prompt(deal, seat)
        family = self.spec.family
        parts = [
            f"You play {openspiel_text.side_name(family, seat)}.",
            openspiel_text.observation_text(deal, seat),
            f"Moves so far: {openspiel_text.move_history(deal, seat)}",
        ]
        if deal.is_terminal():
            mine = deal.returns()[seat]
            parts.append(f"The game is over. Your result: {mine:+d}.")
        return "\n\n".join(parts) + "\n"

    def rules(self) -> str:
        return openspiel_text.rules_text(self.spec)

    def encode(self, deal: OpenSpielState, seat: int) -> Vector:
        values = getattr(deal.ps, self._tensor)(seat)
        return np.asarray(values, dtype=np.float32).reshape(-1)


def load_game(
    game: str | GameSpec | OpenSpielSpec | AdapterGame,
    *,
    config: str | GenerationConfig | None = None,
    release: str | Path | None = None,
) -> AdapterGame:
    """The game ``game`` names (see the module docstring): a token (a seed is generated under
    ``config``; with ``release``, a token of the release's benchmark is that game's carried
    spec, and a seat the release does not list is refused), a spec, or an ``AdapterGame``.
    ``ValueError`` in one line for a game that is not one."""
    if isinstance(game, AdapterGame):
        return game
    if isinstance(game, GameSpec):
        return GbgGame(game)
    if isinstance(game, OpenSpielSpec):
        return OpenSpielGame(game)
    if not isinstance(game, str):
        raise ValueError(f"a game is a name, a GameSpec or an OpenSpielSpec, got {game!r}")
    token = game.strip()
    if release is not None:
        catalogue = release_catalogue(release)
        spec: GameSpec | OpenSpielSpec = catalogued_game(
            token, catalogue, f"the release at {release}"
        ).spec
    else:
        spec = resolve_any_game(token, config)
    if isinstance(spec, OpenSpielSpec):
        return OpenSpielGame(spec)
    return GbgGame(spec, token)
