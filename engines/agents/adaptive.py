"""Two built-in bots for multi-hand episodes: a fixed exploitable one and a planted adaptive one.

Why they exist: the opponent-adaptation measure of an episode (the change of margin over its
hands against a fixed exploitable bot; ``engines.stats.adaptation``) needs a bot whose weakness
is known and a bot that is known to exploit it only by reading the earlier hands, so a test can
check that the measure sees adaptation where it was planted and none where it was not.

- ``overfolder`` (exploitable): facing a bet or raise it folds with probability ``fold_rate``
  whatever its cards, otherwise calls; it never bets (checks when it can). Other decisions are
  uniform.
- ``adaptive``: the hand-strength heuristic plus bluffs. When it may bet or raise and its hand is
  not strong, it bluffs (the smallest bet) with probability equal to its estimate of how often
  the opponent folds to its bets, read from the episode's earlier hands: ``(folds + a) /
  (bets + a + b)``, a Beta(a, b) prior mean (1/4 by default) before any evidence. Against an
  opponent that folds often the estimate rises over the hands, and so does its margin. Without
  history (a single deal) it plays with the prior.

An agent that reads the episode's history implements ``act_with_history(state, seat, rng,
history, me)``; the episode runner (``engines.tournament.episodes``) calls it, and ``act``
without history for single deals.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engines.agents.builtin import hand_strength
from engines.gbg.engine import State

BET_VERBS = ("bet", "raise")


def is_bet(action: str) -> bool:
    return action.split(" ")[0] in BET_VERBS


class PlayedHand(Protocol):
    """What an agent reads of an earlier hand (``engines.tournament.episodes.HandRecord``)."""

    @property
    def alice(self) -> str: ...

    @property
    def actions(self) -> tuple[tuple[str, str], ...]: ...


def fold_to_bets(history: Sequence[PlayedHand], me: str) -> tuple[int, int]:
    """(opponent's folds right after my bet or raise, my bets or raises it answered)."""
    folds = bets = 0
    for hand in history:
        my_seat = "alice" if hand.alice == me else "bob"
        for (seat, action), (next_seat, answer) in zip(
            hand.actions, hand.actions[1:], strict=False
        ):
            if seat == my_seat and is_bet(action) and next_seat != my_seat:
                bets += 1
                folds += answer == "fold"
    return folds, bets


@dataclass
class OverfoldAgent:
    """Folds to any bet with probability ``fold_rate``, never bets (see the module docstring)."""

    name: str = "overfolder"
    fold_rate: float = 0.8

    def __post_init__(self) -> None:
        if not 0.0 <= self.fold_rate <= 1.0:
            raise ValueError(f"overfolder: fold_rate must lie in [0, 1], got {self.fold_rate}")

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        legal = state.legal_actions()
        if "fold" in legal:
            if rng.random() < self.fold_rate:
                return "fold"
            return "call" if "call" in legal else rng.choice([a for a in legal if a != "fold"])
        if "check" in legal:
            return "check"
        return rng.choice(legal)


@dataclass
class AdaptiveAgent:
    """Bluffs as often as the opponent has folded to its bets (see the module docstring)."""

    name: str = "adaptive"
    strong: float = 0.65
    weak: float = 0.35
    prior_folds: float = 1.0
    prior_calls: float = 3.0

    def __post_init__(self) -> None:
        if self.prior_folds <= 0 or self.prior_calls <= 0:
            raise ValueError("adaptive: the prior's counts must be positive")
        if not 0.0 <= self.weak <= self.strong <= 1.0:
            raise ValueError("adaptive: need 0 <= weak <= strong <= 1")

    def bluff_rate(self, history: Sequence[PlayedHand], me: str) -> float:
        folds, bets = fold_to_bets(history, me)
        return (folds + self.prior_folds) / (bets + self.prior_folds + self.prior_calls)

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        return self.act_with_history(state, seat, rng, (), "")

    def act_with_history(
        self,
        state: State,
        seat: int,
        rng: random.Random,
        history: Sequence[PlayedHand],
        me: str,
    ) -> str:
        legal = state.legal_actions()
        betting = [a for a in legal if is_bet(a)]
        if not (set(legal) & {"check", "call", "fold"}):
            return rng.choice(legal)
        strength = hand_strength(state, seat, rng)
        if betting and strength >= self.strong:
            return betting[0]
        if betting and "fold" not in legal and rng.random() < self.bluff_rate(history, me):
            return betting[0]
        passive = "check" if "check" in legal else "call"
        if strength >= self.weak or "fold" not in legal:
            return passive
        return "fold"
