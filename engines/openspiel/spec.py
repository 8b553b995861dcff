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
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from importlib import metadata
from typing import Any, Literal

import pyspiel

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

Exhausted = Literal["forfeit", "conservative", "fallback"]


@dataclass(frozen=True)
class Protocol:
    """How a player's reply becomes a move (see the module docstring)."""

    name: str
    show_legal: bool
    rethinks: int
    exhausted: Exhausted

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "show_legal": self.show_legal,
            "rethinks": self.rethinks,
            "exhausted": self.exhausted,
        }


PROTOCOLS: dict[str, Protocol] = {
    # Game Arena, chess: no list of legal moves, SAN normalised, three retries, then a loss.
    "game-arena-chess": Protocol("game-arena-chess", False, 3, "forfeit"),
    # Game Arena, poker: one retry, then check (no bet pending) or fold.
    "game-arena-poker": Protocol("game-arena-poker", True, 1, "conservative"),
    # Board games (GameBench 2: an illegal move loses), with the legal menu and three retries.
    "menu-forfeit": Protocol("menu-forfeit", True, 3, "forfeit"),
    # The GENSTRAT protocol of the generated games: one rethink, then the harness's fallback.
    "genstrat": Protocol("genstrat", True, 1, "fallback"),
}

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

    def new_deal(self, play_seed: int = 0) -> Any:
        """A fresh deal whose chance outcomes come from ``play_seed`` (``OpenSpielState``)."""
        from engines.openspiel.state import OpenSpielState

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
            game = pyspiel.load_game(body)
    except pyspiel.SpielError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "unknown error"
        raise ValueError(
            f"{token!r} is not an OpenSpiel game OpenSpiel can load: {first}"
        ) from None
    kind = game.get_type()
    if game.num_players() != 2:
        raise ValueError(f"{token!r} has {game.num_players()} players; only two-player games play")
    if kind.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise ValueError(f"{token!r} is not zero-sum ({kind.utility.name}); only zero-sum games")
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"{token!r} is not a sequential game ({kind.dynamics.name})")
    short = kind.short_name
    params = {k: _plain(v) for k, v in sorted(game.get_parameters().items())}
    protocol = PROTOCOLS[FAMILY_PROTOCOL.get(short, "genstrat")]
    return OpenSpielSpec(token, short, params, protocol, FAMILY_MOVE_CAP.get(short))
