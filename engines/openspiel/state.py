"""One deal of an OpenSpiel game behind the State-like interface of the match loop.

What the harness reads: ``current_player`` (the seat to move, ``TERMINAL`` when the deal is
over), ``legal_actions()`` (stable move names, ``engines.openspiel.text``), ``phase_id``,
``apply(name)``, ``returns()`` (integer, zero-sum), ``contrib`` (what a forfeit costs: a board
game's unit stake, a poker hand's chips in the pot), ``spec`` and ``is_terminal()``.

Chance: every chance node takes its outcome from one uniform draw of a generator seeded by the
play seed alone (``derive_seed(play_seed, CHANCE_SALT)``), by inverse transform over OpenSpiel's
outcome probabilities.  The two deals of a run share the play seed, so with the seats swapped
the same cards and dice go to the same seat (duplicate format); a perfect-information game's
seat swap is a colour swap.

The move cap (``spec.move_cap``): a deal still running after that many player moves ends,
adjudicated ``spec.adjudication`` (a draw), and ``adjudicated`` records why.
"""

from __future__ import annotations

import random
from operator import itemgetter
from typing import Any, Protocol

from engines.gbg.rng import derive_seed
from engines.openspiel.move_protocol import Protocol as MoveProtocol
from engines.openspiel.text import (
    CACHED_FAMILIES,
    NameCache,
    action_names,
    poker_fields,
    poker_spent,
    poker_street,
    turn_prompt,
)

CHANCE_SALT = 0x05C4A7CE
TERMINAL = -4


class OpenSpielGame(Protocol):
    """What a deal and its readers take from the game it is a deal of: an
    ``engines.openspiel.spec.OpenSpielSpec``, which makes deals (``new_deal``) and so sits
    above this module."""

    @property
    def token(self) -> str: ...
    @property
    def family(self) -> str: ...
    @property
    def game(self) -> Any: ...
    @property
    def has_chance(self) -> bool: ...
    @property
    def alternates(self) -> bool: ...
    @property
    def fast_advance(self) -> bool: ...
    @property
    def perfect_information(self) -> bool: ...
    @property
    def name_cache(self) -> NameCache: ...
    @property
    def move_cap(self) -> int | None: ...
    @property
    def adjudication(self) -> str: ...
    @property
    def protocol(self) -> MoveProtocol: ...


class OpenSpielState:
    """A deal in progress (see the module docstring)."""

    def __init__(self, spec: OpenSpielGame, play_seed: int = 0) -> None:
        self.spec = spec
        self.play_seed = play_seed
        self.ps = spec.game.new_initial_state()
        self._chance = random.Random(derive_seed(play_seed, CHANCE_SALT))
        self.moves: list[tuple[int, str]] = []
        self.action_history: list[int] = []  # the players' OpenSpiel action ids
        self.chance_outcomes: list[int] = []
        self.adjudicated: str | None = None
        self._menu: tuple[tuple[str, ...], list[int]] | None = None
        self._player = TERMINAL
        self._family = spec.family
        self._names_by_id = spec.name_cache
        self._fast = spec.fast_advance
        self._cap = spec.move_cap
        cached = self._family in CACHED_FAMILIES
        self._known = self._names_by_id.names if cached else None
        self._knights = self._names_by_id.knight_ids if self._family == "chess" else None
        self._advance()

    # -- chance and the cap -------------------------------------------------------------------
    def _advance(self) -> None:
        ps = self.ps
        spec = self.spec
        if spec.has_chance:
            while ps.is_chance_node():
                outcomes = ps.chance_outcomes()
                u = self._chance.random()
                chosen = outcomes[-1][0]
                total = 0.0
                for action, probability in outcomes:
                    total += probability
                    if u < total:
                        chosen = action
                        break
                ps.apply_action(chosen)
                self.chance_outcomes.append(chosen)
        self._menu = None
        # ``is_terminal`` first: in chess it generates (and keeps) the legal moves, which
        # ``current_player`` would otherwise generate without keeping them.  In a game whose
        # players alternate (spec.alternates) the next player is the other one.
        if ps.is_terminal():
            self._player = TERMINAL
            return
        if spec.alternates and self.moves:
            self._player = 1 - self.moves[-1][0]
        else:
            self._player = int(ps.current_player())
        self._stop_at_cap()

    def _stop_at_cap(self) -> bool:
        """End the deal, adjudicated, when its player moves reached the cap; whether it did."""
        cap = self._cap
        if cap is None or len(self.moves) < cap:
            return False
        self.adjudicated = f"{self.spec.adjudication} at the move cap ({cap} moves)"
        self._player = TERMINAL
        return True

    # -- the interface ------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        # Set by ``_advance``, which resolves chance nodes at once (so never -1, chance).
        return self._player

    def is_terminal(self) -> bool:
        return self.current_player == TERMINAL

    def legal_actions(self) -> tuple[str, ...]:
        menu = self._menu
        if menu is not None:
            return menu[0]
        seat = self._player
        if seat < 0:
            self._menu = ((), [])
            return ()
        ids = self.ps.legal_actions()
        names = None
        # The common case of ``action_names``, inlined (the adapter's speed, issue 18): every
        # name cached, and in chess no promotion in the menu (no knight promotion's id).
        if self._known is not None and len(ids) > 1:
            try:
                names = itemgetter(*ids)(self._known[seat])
            except KeyError:  # a move not named yet
                names = None
            else:
                knights = self._knights
                if knights is not None and not knights[seat].isdisjoint(ids):
                    names = self._names_by_id.promote(seat, ids, names)
        if names is None:
            names = action_names(self._family, self.ps, seat, ids, self._names_by_id)
        self._menu = (names, ids)
        return names

    def _names(self) -> tuple[tuple[str, ...], list[int]]:
        """(the menu's names, their OpenSpiel action ids), computed once per position."""
        if self._menu is None:
            self.legal_actions()
        assert self._menu is not None
        return self._menu

    def action_ids(self) -> list[int]:
        """OpenSpiel's action ids, in the order of ``legal_actions()``."""
        return self._names()[1]

    def action_id(self, name: str) -> int:
        names, ids = self._names()
        try:
            return ids[names.index(name)]
        except ValueError:
            raise ValueError(f"{name!r} is not a legal move here") from None

    def apply(self, name: str) -> None:
        seat = self._player
        if seat < 0:
            raise ValueError("the deal is over")
        names, ids = self._menu or self._names()
        try:
            action = ids[names.index(name)]
        except ValueError:
            raise ValueError(f"{name!r} is not a legal move here") from None
        self.ps.apply_action(action)
        self.moves.append((seat, name))
        self.action_history.append(action)
        if self._fast:  # no chance, players alternate
            self._menu = None
            if self.ps.is_terminal():
                self._player = TERMINAL
            elif not self._stop_at_cap():
                self._player = 1 - seat
            return
        self._advance()

    def apply_id(self, action: int) -> None:
        """Apply OpenSpiel action ``action`` (a built-in agent's choice) by its name."""
        names, ids = self._names()
        self.apply(names[ids.index(action)])

    @property
    def phase_id(self) -> str:
        if self.spec.family == "universal_poker" and not self.is_terminal():
            return poker_street(poker_fields(self.ps.information_state_string(0)))
        return "play"

    def returns(self) -> tuple[int, int]:
        """Each seat's result: chips for poker, +1/-1/0 for the other games; zero-sum."""
        if self.adjudicated is not None:
            return (0, 0)
        if not self.ps.is_terminal():
            raise ValueError("the deal is not over")
        values = self.ps.returns()
        out = (round(values[0]), round(values[1]))
        if abs(values[0] - out[0]) > 1e-9 or out[0] + out[1] != 0:
            raise ValueError(f"returns {values} are not integral and zero-sum")
        return out

    @property
    def contrib(self) -> list[int]:
        """What each seat loses by forfeiting now: its chips in the pot (poker), else 1."""
        if self.spec.family == "universal_poker":
            return list(poker_spent(self.ps))
        return [1, 1]

    # -- for players --------------------------------------------------------------------------
    def turn_prompt(self, seat: int) -> str:
        return turn_prompt(self, seat)

    def clone_pyspiel(self) -> Any:
        return self.ps.clone()
