"""Naming an OpenSpiel game: ``openspiel:<name>[(<params>)]``, its rules of play and its hash.

A token such as ``openspiel:go(board_size=9)`` is loaded with OpenSpiel's own parameter syntax;
``openspiel:hunl`` is an alias for ``universal_poker`` configured as heads-up no-limit hold'em
as Game Arena plays it (blinds 1-2, 100 big blinds each, stacks reset every hand).  Only
two-player, sequential, zero-sum games are accepted.

Beyond OpenSpiel's rules, a game carries three things of our own, chosen per game family:

- the **illegal-move protocol** (``Protocol``): whether the per-turn prompt lists the legal
  moves, how many rethinks a player gets after an unparsable or illegal reply, and what happens
  when they run out: ``forfeit`` (the player loses the match, Game Arena's chess rule and
  GameBench 2's rule for board games), ``conservative`` (check if no bet is pending, else fold:
  Game Arena's poker rule) or ``fallback`` (the harness's fallback: the smallest bid, else a
  random legal move from the match's generator);
- the **move cap** (``move_cap``, player moves counting both sides) with its **adjudication**:
  a game still running at the cap ends as a draw (GameBench 2: 400 moves in chess).  Games that
  OpenSpiel itself bounds (Go's ``max_game_length``, connect four, Hex, breakthrough, poker,
  liar's dice) have no cap of ours;
- the adapter version.

``spec_hash`` hashes all of it with OpenSpiel's full parameter set (defaults included), so
``openspiel:go`` and ``openspiel:go(board_size=19)`` are the same game and any change to what
determines play gives a new hash (and new run ids).

OpenSpiel loads parameters it cannot play (``go(board_size=-1)`` loads, and its first state
fails; ``hex(board_size=-1)`` plays a one-cell nonsense; ``hex(board_size=10000)`` takes 5 GB),
so :func:`parse_openspiel` checks the parameters a token gives (issue 43): whole numbers from 0
(or from their default, where OpenSpiel's default is negative) to :data:`MAX_INT_PARAMETER` (or
their default, if larger), finite real numbers; then builds the first state, which must have a
move to make unless the game is over. Each refusal is one ``ValueError`` line.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from importlib import metadata
from typing import Any

import pyspiel

from engines.openspiel.move_protocol import PROTOCOLS as PROTOCOLS
from engines.openspiel.move_protocol import Protocol as Protocol
from engines.openspiel.state import OpenSpielState
from engines.openspiel.text import NameCache

PREFIX = "openspiel:"
ADAPTER_VERSION = "1"
OPEN_SPIEL_VERSION = metadata.version("open_spiel")

# Heads-up no-limit hold'em as Game Arena plays it: blinds 1-2, 100 big blinds (200 chips) each.
HUNL_PARAMS: dict[str, Any] = {
    "betting": "nolimit",
    "numPlayers": 2,
    "numRounds": 4,
    "blind": "2 1",
    "firstPlayer": "2 1 1 1",
    "numSuits": 4,
    "numRanks": 13,
    "numHoleCards": 2,
    "numBoardCards": "0 3 1 1",
    "stack": "200 200",
    "bettingAbstraction": "fullgame",
}
ALIASES: dict[str, tuple[str, dict[str, Any]]] = {"hunl": ("universal_poker", HUNL_PARAMS)}

FAMILY_PROTOCOL: dict[str, str] = {
    "chess": "game-arena-chess",
    "universal_poker": "game-arena-poker",
    "go": "menu-forfeit",
    "hex": "menu-forfeit",
    "connect_four": "menu-forfeit",
    "breakthrough": "menu-forfeit",
}
# Player moves after which a game still running is adjudicated a draw (GameBench 2's chess cap).
FAMILY_MOVE_CAP: dict[str, int] = {"chess": 400}


MAX_INT_PARAMETER = 1000
"""The largest whole-number parameter a token may give (a board side, a number of dice), unless
OpenSpiel's default is larger: hex(board_size=1000) takes 80 MB, hex(board_size=10000) 5 GB."""

# Perfect-information games in which the players strictly alternate (a Go pass is a move).
ALTERNATING = frozenset({"chess", "go", "hex", "connect_four", "breakthrough"})


def is_openspiel_token(token: str) -> bool:
    return token.strip().startswith(PREFIX)


@dataclass(frozen=True)
class OpenSpielSpec:
    """A playable OpenSpiel game: its token, OpenSpiel name and full parameters, and our rules."""

    token: str
    short_name: str
    params: dict[str, Any] = field(hash=False)
    protocol: Protocol
    move_cap: int | None
    adjudication: str = "draw"

    @property
    def family(self) -> str:
        return self.short_name

    @cached_property
    def game(self) -> Any:
        """The loaded ``pyspiel.Game`` (loaded once per spec object)."""
        return pyspiel.load_game(self.short_name, self.params)

    @cached_property
    def has_chance(self) -> bool:
        mode = self.game.get_type().chance_mode
        return bool(mode != pyspiel.GameType.ChanceMode.DETERMINISTIC)

    @cached_property
    def alternates(self) -> bool:
        """The players move in turn (no chance, no passing the turn): a move's next player is
        the other one.  True of the board games; OpenSpiel is asked in the others."""
        return self.short_name in ALTERNATING

    @cached_property
    def fast_advance(self) -> bool:
        """After a move only ``is_terminal`` (and the move cap) need asking: no chance,
        alternating players."""
        return self.alternates and not self.has_chance

    @cached_property
    def name_cache(self) -> NameCache:
        """Move names by seat and action id, for the families where those fix the name."""
        return NameCache()

    @property
    def engine_version(self) -> str:
        """What a match of this game records as its ``engine_version``: the adapter's version
        and OpenSpiel's (a generated game records ``engines.gbg.ENGINE_VERSION``)."""
        return f"openspiel-adapter-{ADAPTER_VERSION}/open_spiel-{OPEN_SPIEL_VERSION}"

    @property
    def name(self) -> str:
        return self.token.strip().removeprefix(PREFIX)

    @property
    def perfect_information(self) -> bool:
        info = self.game.get_type().information
        return bool(info == pyspiel.GameType.Information.PERFECT_INFORMATION)

    def canonical(self) -> dict[str, Any]:
        return {
            "adapter": ADAPTER_VERSION,
            "open_spiel": OPEN_SPIEL_VERSION,
            "game": self.short_name,
            "params": self.params,
            "protocol": self.protocol.as_dict(),
            "move_cap": self.move_cap,
            "adjudication": self.adjudication,
        }

    def canonical_json(self) -> str:
        return json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))

    @cached_property
    def spec_hash(self) -> str:
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()

    def new_deal(self, play_seed: int = 0) -> OpenSpielState:
        """A fresh deal whose chance outcomes come from ``play_seed`` (``OpenSpielState``)."""
        return OpenSpielState(self, play_seed)


def _plain(value: Any) -> Any:
    """An OpenSpiel parameter value as plain JSON (ints, floats, bools, strings)."""
    if isinstance(value, bool | int | float | str):
        return value
    return str(value)


def parse_openspiel(token: str) -> OpenSpielSpec:
    """The game ``token`` names; ``ValueError`` (one line) for an unknown or unfit game."""
    token = token.strip()
    body = token.removeprefix(PREFIX).strip()
    if not body:
        raise ValueError(f"{token!r} names no OpenSpiel game: write openspiel:<name>[(<params>)]")
    name = body.split("(", 1)[0].strip()
    if name not in ALIASES and name not in pyspiel.registered_names():
        raise ValueError(
            f"{token!r}: OpenSpiel has no game {name!r} (e.g. chess, go, hex, connect_four, "
            f"breakthrough, liars_dice, or hunl for heads-up no-limit hold'em)"
        )
    try:
        if body in ALIASES:
            name, given = ALIASES[body]
            game = pyspiel.load_game(name, given)
        else:
            given = dict(pyspiel.game_parameters_from_string(body))
            given.pop("name", None)
            game = pyspiel.load_game(body)
    except pyspiel.SpielError as exc:
        raise ValueError(
            f"{token!r} is not an OpenSpiel game OpenSpiel can load: {_first_line(exc)}"
        ) from None
    _check_parameters(token, game, given)
    kind = game.get_type()
    if game.num_players() != 2:
        raise ValueError(f"{token!r} has {game.num_players()} players; only two-player games play")
    if kind.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise ValueError(f"{token!r} is not zero-sum ({kind.utility.name}); only zero-sum games")
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"{token!r} is not a sequential game ({kind.dynamics.name})")
    _check_first_state(token, game)
    short = kind.short_name
    params = {k: _plain(v) for k, v in sorted(game.get_parameters().items())}
    protocol = PROTOCOLS[FAMILY_PROTOCOL.get(short, "genstrat")]
    return OpenSpielSpec(token, short, params, protocol, FAMILY_MOVE_CAP.get(short))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _check_parameters(token: str, game: Any, given: dict[str, Any]) -> None:
    """Refuse (``ValueError``, one line) a parameter the token gives that OpenSpiel would load
    but cannot play sensibly: a whole number below 0 (below its default, where that is
    negative) or over :data:`MAX_INT_PARAMETER` (over its default, where that is larger), or a
    real number that is not finite."""
    defaults = game.get_type().parameter_specification
    for name, value in sorted(given.items()):
        default = defaults.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"{token!r}: parameter {name} is {value}, not a finite number")
            continue
        low = min(0, default) if isinstance(default, int) and not isinstance(default, bool) else 0
        high = max(MAX_INT_PARAMETER, default if isinstance(default, int) else 0)
        if not low <= value <= high:
            raise ValueError(
                f"{token!r}: parameter {name} is {value:,}; give a whole number from {low:,} "
                f"to {high:,}"
            )


def _check_first_state(token: str, game: Any) -> None:
    """Build the game's first state: OpenSpiel refuses some parameters only here (``go`` with a
    board side of 1), and a game whose first state, not over, has no move is no game."""
    try:
        state = game.new_initial_state()
    except (pyspiel.SpielError, ValueError, MemoryError) as exc:
        raise ValueError(
            f"{token!r}: OpenSpiel cannot start this game with these parameters: {_first_line(exc)}"
        ) from None
    if not state.is_terminal() and not state.is_chance_node() and not state.legal_actions():
        raise ValueError(f"{token!r}: with these parameters the first player has no move")
