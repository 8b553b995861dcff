"""A sandboxed strategy program as a tournament player (issue 8; GameBench 2, Section 2).

A crash or an illegal action forfeits the match (``Forfeit``: status ``forfeit``, a loss for the
program); a timeout fails the move (``MoveFailed("timeout")``) and the match is left out of the
evidence, because a timeout depends on the machine's load as well as on the program.  The
messages carry the program's reason scrubbed of secrets (``arena.secrets.scrub``: the
player's ``secrets`` and its program's), since they end up in the matches table and the journal.
"""

from __future__ import annotations

import asyncio
import random
import threading
from dataclasses import dataclass, field
from typing import Any

from arena.programs.openspiel_track import openspiel_observation
from arena.programs.sandbox import Outcome, Program, program_observation
from arena.secrets import scrub
from engines.agents.base import Decision, Forfeit, MoveFailed
from engines.gbg.engine import State
from engines.openspiel.state import OpenSpielState


@dataclass
class ProgramPlayer:
    """A strategy program as a ``Player`` (see the module docstring)."""

    name: str
    program: Program
    model: str = "program"
    settings: dict[str, Any] = field(default_factory=dict)
    stopped: str | None = None
    secrets: tuple[str, ...] = field(default=(), repr=False)

    _turn: threading.Lock = field(default_factory=threading.Lock, repr=False)

    async def decide(
        self, state: State | OpenSpielState, seat: int, rng: random.Random, call_id: str
    ) -> Decision:
        """The program's move, computed in a worker thread so that matches in flight beside it
        (e.g. LLM matches) go on; one move at a time per program process."""
        legal = list(state.legal_actions())
        if isinstance(state, OpenSpielState):
            observation = openspiel_observation(state, seat)
        else:
            observation = program_observation(state, seat)
        seed = rng.randrange(2**31)
        outcome = await asyncio.to_thread(self._act, observation, legal, seed)
        reason = scrub(outcome.reason, (*self.secrets, *self.program.secrets))
        if outcome.status == "timeout":
            raise MoveFailed("timeout", f"program {self.name!r}: {reason}")
        if outcome.status != "ok" or outcome.action is None:
            raise Forfeit(f"program {self.name!r} {outcome.status}: {reason}")
        return Decision(action=outcome.action, latency_s=outcome.seconds)

    def _act(self, observation: dict[str, Any], legal: list[str], seed: int) -> Outcome:
        with self._turn:
            return self.program.act(observation, legal, seed)

    async def aclose(self) -> None:
        self.program.close()
