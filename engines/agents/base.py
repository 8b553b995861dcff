"""The agent protocols: given a deal and a seat to move, return one of the legal actions.

Two shapes, one for each kind of player (paper, Section 5):

- ``Agent``: a bot that decides in-process and at once (``act(state, seat, rng) -> str``);
  the built-in bots are agents.
- ``Player``: what the tournament harness drives (``await decide(state, seat, rng, call_id)``
  returning a ``Decision``: the action plus everything the corpus records about how it was
  reached).  ``BuiltinPlayer`` adapts an ``Agent``; ``arena.llm.player.LLMPlayer`` asks a
  model over HTTP.

Chance is explicit: an agent draws only from the generator it is handed, so a match is
reproducible from its seeds.  A player that cannot go on raises ``PlayerStopped`` (it is taken
out of the tournament with that message); a move that could not be obtained after the
transport's retries raises ``MoveFailed`` (the match ends with status ``timeout`` or ``error``).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from engines.gbg.engine import State

FailureStatus = Literal["timeout", "error"]


class Agent(Protocol):
    """Chooses a legal action for ``seat`` in ``state`` using only ``rng`` for chance."""

    name: str

    def act(self, state: State, seat: int, rng: random.Random) -> str: ...


@dataclass(frozen=True)
class Decision:
    """One move as the harness records it (the DESIGN move schema, less the match's fields).

    ``rethinks`` counts retries after an unparsable or illegal reply; ``fallback`` says the
    action is the harness's fallback, not the player's.  ``verdict`` is the parser's verdict on
    the player's first reply (``none`` for built-in agents).  ``earlier_responses`` are the
    replies that were rethought, in order; ``raw_response`` is the last reply.
    """

    action: str
    raw_response: str | None = None
    prompt_sha256: str | None = None
    fallback: bool = False
    rethinks: int = 0
    verdict: str = "none"
    latency_s: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    cached: bool = False
    cached_input_tokens: int = 0
    reasoning: str | None = None
    earlier_responses: tuple[str, ...] = field(default_factory=tuple)


class PlayerStopped(Exception):
    """The player cannot play on (bad key, unknown model, bad request, cache miss offline)."""


class Forfeit(Exception):
    """A strategy program crashed or returned an illegal action: it loses the match (the
    harness scores it as a fold at that point; see ``engines.tournament.match``)."""


class MoveFailed(Exception):
    """No move could be obtained (retries exhausted): the match ends with ``status``."""

    def __init__(self, status: FailureStatus, message: str) -> None:
        super().__init__(message)
        self.status: FailureStatus = status


class Player(Protocol):
    """A tournament participant, driven by the harness."""

    name: str
    model: str
    settings: dict[str, Any]
    stopped: str | None

    async def decide(
        self, state: State, seat: int, rng: random.Random, call_id: str
    ) -> Decision: ...


@dataclass
class BuiltinPlayer:
    """A built-in ``Agent`` as a tournament player (no prompt, no tokens, never stops)."""

    name: str
    agent: Agent
    model: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    stopped: str | None = None

    def decide_now(self, state: State, seat: int, rng: random.Random) -> Decision:
        """The decision, synchronously (the harness's fast path for built-in agents)."""
        started = time.perf_counter()
        action = self.agent.act(state, seat, rng)
        return Decision(action=action, latency_s=time.perf_counter() - started)

    async def decide(self, state: State, seat: int, rng: random.Random, call_id: str) -> Decision:
        return self.decide_now(state, seat, rng)
