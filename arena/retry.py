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
last :class:`Failed` is returned for the caller to raise as its own error. :class:`Retrying`
is the same decision one step at a time, for a caller that does its own waiting (the
transport: per-provider pauses, a circuit breaker that ends a wait early, a bound per request).

``tenacity`` does the stepping: :func:`retry` and :func:`retry_async` are its ``Retrying`` and
``AsyncRetrying`` (retry while the attempt returns a :class:`Failed`), and :class:`Retrying`
asks the same tenacity controller for each decision through a tenacity ``RetryCallState``.
The strategies are tenacity's where they say the rules, ours where the rules need it
(:meth:`RetryPolicy.stop_strategy`, :meth:`RetryPolicy.wait_strategy`):

- stop: tenacity's ``stop_after_attempt(max_retries + 1)``, with a deadline or'ed with its
  ``stop_before_delay``; that one stops when the wait would end *at* its limit and rule 3
  only *past* it, so the limit handed to it is the next float above ``deadline_s`` (for
  floats, ``x > d`` exactly when ``x >= nextafter(d, inf)``);
- wait: ours, since the jitter is drawn from the injected, seeded generator (DESIGN.md,
  "Chance is always explicit"; tenacity's jittered waits use the global ``random``) and a
  :class:`Failed` reply's ``Retry-After`` replaces the backoff. tenacity asks the wait before
  the stop, so the wait draws nothing once the attempts are spent: a draw there would shift
  every later wait of the shared generator, and a replayed tournament would wait differently;
- the clock: tenacity times a call on ``time.monotonic``; a ``before`` hook sets the call's
  start and an ``after`` hook stamps each failed outcome (before the stop reads it) from the
  injected ``clock``, so the deadline is measured on that clock.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import tenacity
from tenacity import RetryCallState

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
class Failed:
    """A retryable failure of one attempt: what went wrong, the reply's ``Retry-After`` wait
    (seconds, when it gave one) and whether the attempt timed out."""

    reason: str
    retry_after: float | None = None
    timed_out: bool = False


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

    def stop_strategy(self) -> tenacity.stop.stop_base:
        """Rule 3 as a tenacity stop: the attempts, then the deadline (strictly past it)."""
        attempts = tenacity.stop_after_attempt(self.max_retries + 1)
        deadline = self.deadline_s
        if deadline is None or deadline == math.inf:  # no wait ends past an infinite one
            return attempts
        # tenacity stops when the wait would end at its limit or later, rule 3 only later
        return attempts | tenacity.stop_before_delay(math.nextafter(deadline, math.inf))

    def wait_strategy(self, rng: random.Random) -> Callable[[RetryCallState], float]:
        """Rule 2 as a tenacity wait: a :class:`Failed` outcome's ``Retry-After``, else the
        backoff drawn from ``rng``; no draw once the attempts are spent (the stop ends it)."""

        def wait(state: RetryCallState) -> float:
            retry = state.attempt_number - 1
            if retry >= self.max_retries:
                return 0.0
            outcome = state.outcome
            failed = outcome.result() if outcome is not None and not outcome.failed else None
            return self.wait(retry, rng, failed.retry_after if isinstance(failed, Failed) else None)

        return wait


def _last_outcome(state: RetryCallState) -> Any:
    """What a request gives up with: its last attempt's outcome (a :class:`Failed`)."""
    assert state.outcome is not None
    return state.outcome.result()


def _controlled(
    policy: RetryPolicy, rng: random.Random, clock: Callable[[], float]
) -> dict[str, Any]:
    """The keywords of a tenacity controller running ``policy``: retry while the attempt
    returns a :class:`Failed`, the policy's stop and wait, the call timed on ``clock``, and the
    last :class:`Failed` returned (not raised) when the stop ends the call."""

    def start(state: RetryCallState) -> None:
        if state.attempt_number == 1:
            state.start_time = clock()

    def stamp(state: RetryCallState) -> None:  # runs before the stop reads the time
        state.outcome_timestamp = clock()

    return {
        "retry": tenacity.retry_if_result(lambda outcome: isinstance(outcome, Failed)),
        "stop": policy.stop_strategy(),
        "wait": policy.wait_strategy(rng),
        "before": start,
        "after": stamp,
        "retry_error_callback": _last_outcome,
    }


class Retrying:
    """The attempts of one request under a policy, counted from its first attempt, one
    decision at a time: a tenacity controller's steps on a tenacity ``RetryCallState``."""

    def __init__(
        self, policy: RetryPolicy, rng: random.Random, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.policy, self.rng, self.clock = policy, rng, clock
        self._controller = tenacity.Retrying(**_controlled(policy, rng, clock))
        self._controller.begin()
        self.state = RetryCallState(self._controller, fn=None, args=(), kwargs={})
        self._controller.iter(self.state)  # the first attempt: the ``before`` hook starts the clock

    @property
    def started(self) -> float:
        """When the first attempt started, on ``clock``."""
        return self.state.start_time

    @property
    def attempts(self) -> int:
        """The attempts made so far, the current one included."""
        return self.state.attempt_number

    @attempts.setter
    def attempts(self, value: int) -> None:
        self.state.attempt_number = value

    def after(self, outcome: object) -> float | None:
        """The wait before the next attempt after ``outcome``: None when it is a result, or a
        :class:`Failed` with no attempt left (rule 3)."""
        if not self._controller.statistics:  # tenacity keeps them per thread
            self._controller.begin()
        self.state.set_result(outcome)
        step = self._controller.iter(self.state)
        if not isinstance(step, tenacity.DoSleep):
            return None
        self.state.prepare_for_next_attempt()
        return float(step)


def retry(
    attempt: Callable[[int], T | Failed],
    policy: RetryPolicy,
    rng: random.Random,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[T | Failed, int]:
    """Call ``attempt(n)`` for n = 0, 1, ... until it returns a result or no retry is left,
    sleeping the policy's wait in between; (the result or the last failure, attempts made)."""
    made = 0

    def once() -> T | Failed:
        nonlocal made
        made += 1
        return attempt(made - 1)

    controller = tenacity.Retrying(
        sleep=lambda seconds: sleep(float(seconds)), **_controlled(policy, rng, clock)
    )
    return controller(once), made


async def retry_async(
    attempt: Callable[[int], Awaitable[T | Failed]],
    policy: RetryPolicy,
    rng: random.Random,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[T | Failed, int]:
    """:func:`retry` for a coroutine ``attempt``: the waits are ``sleep`` (``asyncio.sleep``)."""
    made = 0

    async def once() -> T | Failed:
        nonlocal made
        made += 1
        return await attempt(made - 1)

    controller = tenacity.AsyncRetrying(
        sleep=lambda seconds: sleep(float(seconds)), **_controlled(policy, rng, clock)
    )
    outcome: T | Failed = await controller(once)
    return outcome, made
