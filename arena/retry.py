"""One retry policy for every request the harness sends: provider calls and release downloads.

Why it exists: DESIGN.md asks that an HTTP client retry with backoff on 429/5xx and honour
``Retry-After``; the provider transport (``arena.llm.transport``) and the release puller
(``releases.download``) both do, and they must agree on what is worth retrying, how long to
wait and when to give up. The rules, in :class:`RetryPolicy`:

1. a reply is retryable when its status is 408, 409, 425, 429 or 5xx (:func:`retryable_status`);
   a timeout or a broken connection is retryable too (the caller says what failed);
2. the wait before retry ``n`` (from 0) is the reply's ``Retry-After`` when it has one
   (delta-seconds or an HTTP date, capped at ``max_retry_after_s``), else
   ``min(backoff_max_s, backoff_base_s * 2**n)`` scaled by a jitter factor in [0.5, 1) drawn
   from the injected generator;
3. no more than ``max_retries`` retries, and none whose wait would end more than
   ``deadline_s`` after the first attempt started (no deadline when ``None``).

:func:`retry` (blocking) and :func:`retry_async` run a request's attempts under a policy: an
attempt returns its result, or :class:`Failed` to be tried again; when no retry is left the
last :class:`Failed` is returned for the caller to raise as its own error.

Not a library: ``tenacity`` and ``backoff`` draw their jitter from the global ``random`` module,
and every draw here comes from an injected, seeded generator (DESIGN.md, "Chance is always
explicit"), so a replayed tournament waits the same way; the ``Retry-After`` wait also has to
reach the transport's per-provider pause, which is the caller's business, not the policy's.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})

T = TypeVar("T")


def retryable_status(status: int) -> bool:
    """Whether a reply with HTTP ``status`` is worth retrying (rule 1)."""
    return status in RETRYABLE_STATUS or status >= 500


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A ``Retry-After`` header in seconds: delta-seconds or an HTTP date; None if absent/bad."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry (see the module docstring)."""

    max_retries: int = 6
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    max_retry_after_s: float = 60.0
    deadline_s: float | None = None

    def backoff(self, retry: int, rng: random.Random) -> float:
        """The jittered exponential wait before retry ``retry`` (from 0)."""
        base = min(self.backoff_max_s, self.backoff_base_s * (2.0**retry))
        return base * (0.5 + 0.5 * rng.random())

    def retry_after(self, header: str | None) -> float | None:
        """A reply's ``Retry-After`` header as a wait in seconds, capped; None without one."""
        seconds = retry_after_seconds(header)
        return None if seconds is None else min(seconds, self.max_retry_after_s)

    def wait(self, retry: int, rng: random.Random, retry_after: float | None = None) -> float:
        """The wait before retry ``retry``: ``retry_after`` (capped) if given, else the backoff."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after_s)
        return self.backoff(retry, rng)


@dataclass(frozen=True)
class Failed:
    """A retryable failure of one attempt: what went wrong, the reply's ``Retry-After`` wait
    (seconds, when it gave one) and whether the attempt timed out."""

    reason: str
    retry_after: float | None = None
    timed_out: bool = False


class Retrying:
    """The attempts of one request under a policy, counted from its first attempt."""

    def __init__(
        self, policy: RetryPolicy, rng: random.Random, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.policy, self.rng, self.clock = policy, rng, clock
        self.started = clock()
        self.attempts = 1

    def after(self, outcome: object) -> float | None:
        """The wait before the next attempt after ``outcome``: None when it is a result, or a
        :class:`Failed` with no attempt left (rule 3)."""
        if not isinstance(outcome, Failed):
            return None
        retry = self.attempts - 1
        if retry >= self.policy.max_retries:
            return None
        wait = self.policy.wait(retry, self.rng, outcome.retry_after)
        deadline = self.policy.deadline_s
        if deadline is not None and self.clock() - self.started + wait > deadline:
            return None
        self.attempts += 1
        return wait


def retry(
    attempt: Callable[[int], T | Failed],
    policy: RetryPolicy,
    rng: random.Random,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[T | Failed, int]:
    """Call ``attempt(n)`` for n = 0, 1, ... until it returns a result or no retry is left,
    sleeping the policy's wait in between; (the result or the last failure, attempts made)."""
    retrying = Retrying(policy, rng)
    while True:
        outcome = attempt(retrying.attempts - 1)
        if (wait := retrying.after(outcome)) is None:
            return outcome, retrying.attempts
        sleep(wait)


async def retry_async(
    attempt: Callable[[int], Awaitable[T | Failed]],
    policy: RetryPolicy,
    rng: random.Random,
) -> tuple[T | Failed, int]:
    """:func:`retry` for a coroutine ``attempt``: the waits are ``asyncio.sleep``."""
    retrying = Retrying(policy, rng)
    while True:
        outcome = await attempt(retrying.attempts - 1)
        if (wait := retrying.after(outcome)) is None:
            return outcome, retrying.attempts
        await asyncio.sleep(wait)
