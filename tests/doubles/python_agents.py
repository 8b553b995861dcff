"""In-process agents for tests of the roster kind ``python`` (``entry: module:Class``)."""

from __future__ import annotations

import asyncio
import random

from engines.agents.base import Decision
from engines.gbg.engine import State


class LastLegal:
    """``Agent`` protocol: the last action of the menu (or the ``index``-th from the end)."""

    name = "last-legal"

    def __init__(self, index: int = 1) -> None:
        self.index = index
        self.calls = 0

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        self.calls += 1
        legal = state.legal_actions()
        return legal[-min(self.index, len(legal))]


class AwaitingAgent:
    """``Player`` protocol: awaits (as an agent doing I/O would), then a uniform choice from the
    seat's generator, reporting its own tokens."""

    def __init__(self, pause_s: float = 0.001) -> None:
        self.pause_s = pause_s

    async def decide(self, state: State, seat: int, rng: random.Random, call_id: str) -> Decision:
        await asyncio.sleep(self.pause_s)
        return Decision(action=rng.choice(state.legal_actions()), input_tokens=7, calls=1)


class Cheater:
    """Answers an action that is never on the menu."""

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        return "take the pot"


class NotAnAgent:
    """Has neither ``act`` nor ``decide``."""
