"""What a move's requests took, for a move that ended its match without an action.

An LLM player's move is a chain of requests (an answer, then rethinks).  When the chain ends
without an action, because a request's retries ran out (``MoveNotObtained``, a ``MoveFailed``:
the match ends ``timeout`` or ``error``) or no legal move came under a protocol that forfeits
(``MoveForfeited``, a ``Forfeit``: the match ends ``forfeit``), the exception carries an
``Unfinished`` move: its prompt, the replies it got and their ``Usage``.  The tournament runner
records it as a move row without an action, so the corpus counts every request a match made
(``arena.tournament.runner``).  A light module (no HTTP client), so the runner can import it
for tournaments of built-in agents too.
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.agents.base import FailureStatus, Forfeit, MoveFailed

# The reason of a stop by the transport's circuit breaker ("player 'x' stopped: unavailable: ...").
UNAVAILABLE = "unavailable"


@dataclass
class Usage:
    """What the requests of one move took, summed over its answers."""

    calls: int = 0
    latency_s: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_input_tokens: int = 0
    cost_usd: float = 0.0
    cached: bool = True  # every answer came from the response cache


@dataclass(frozen=True)
class Unfinished:
    """A move that ended its match without an action (its requests failed, or no legal move
    came and the protocol forfeits): its prompt, the replies it got, the parser's verdict on
    the first, the answers asked for (``asks``) and what the requests took."""

    prompt_sha256: str
    replies: tuple[str, ...]
    verdict: str
    asks: int
    usage: Usage
    reasoning: str | None = None


class MoveNotObtained(MoveFailed):
    """A move failed (retries exhausted, a malformed reply); ``unfinished`` says what it took."""

    def __init__(self, status: FailureStatus, message: str, unfinished: Unfinished) -> None:
        super().__init__(status, message)
        self.unfinished = unfinished


class MoveForfeited(Forfeit):
    """No legal move under a forfeiting protocol; ``unfinished`` says what the move took."""

    def __init__(self, message: str, unfinished: Unfinished) -> None:
        super().__init__(message)
        self.unfinished = unfinished
