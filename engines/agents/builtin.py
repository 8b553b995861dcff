"""Built-in bots: ``random`` (the uniform policy L0) and ``heuristic`` (plays on hand strength).

The heuristic estimates the chance that its current hand beats the opponent's at showdown, by
dealing the opponent random hands from the cards it has not seen and comparing them under the
game's own showdown metric (future cards and points are ignored).  With a strong hand it bets
or raises the smallest amount, with a middling one it checks or calls, and with a weak one it
checks or folds; every other kind of decision it makes uniformly at random.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engines.gbg.engine import State


@dataclass
class RandomAgent:
    """L0: a uniform choice among the legal actions."""

    name: str = "random"

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        return rng.choice(state.legal_actions())


class _Hands:
    """The few fields a showdown metric reads, for what-if comparisons."""

    __slots__ = ("board", "hands", "points")

    def __init__(self, hands: list[list[int]], board: list[int]) -> None:
        self.hands = hands
        self.board = board
        self.points = [0, 0]


def hand_strength(state: State, seat: int, rng: random.Random, samples: int = 48) -> float:
    """Estimated probability that ``seat``'s hand beats a random unseen hand (ties count half)."""
    game = state.g
    own = list(state.hands[seat])
    board = list(state.board)
    known = state.known_cards(seat)
    unseen = [c for c in range(game.n_cards) if c not in known]
    size = len(state.hands[1 - seat])
    if not own or size == 0 or len(unseen) < size:
        return 0.5
    key = game.showdown_key
    wins = 0.0
    for _ in range(samples):
        other = rng.sample(unseen, size)
        what_if: Any = _Hands([own, other], board)
        try:
            mine, theirs = key(what_if, 0), key(what_if, 1)
        except (ValueError, IndexError):
            return 0.5  # the metric needs cards not dealt yet (e.g. the board)
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return wins / samples


@dataclass
class HeuristicAgent:
    """Plays betting decisions on estimated hand strength (see the module docstring)."""

    name: str = "heuristic"
    strong: float = 0.65
    weak: float = 0.35

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        legal = state.legal_actions()
        betting = [a for a in legal if a.split(" ")[0] in ("bet", "raise")]
        if not (set(legal) & {"check", "call", "fold"}):
            return rng.choice(legal)
        strength = hand_strength(state, seat, rng)
        if strength >= self.strong and betting:
            return betting[0]
        passive = "check" if "check" in legal else "call"
        if strength >= self.weak or "fold" not in legal:
            return passive
        return "fold"


BUILTIN_AGENTS: dict[str, Callable[[], Any]] = {
    "random": RandomAgent,
    "heuristic": HeuristicAgent,
}


def builtin_agent(name: str) -> Any:
    """The built-in agent called ``name``; ``ValueError`` lists the known names otherwise."""
    try:
        return BUILTIN_AGENTS[name]()
    except KeyError:
        raise ValueError(
            f"unknown built-in agent {name!r}; known: {', '.join(BUILTIN_AGENTS)}"
        ) from None
