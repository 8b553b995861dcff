"""The one retry policy: which failures are retried, how long each wait is, when to give up."""

from __future__ import annotations

import asyncio
import math
import random
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.retry import Failed, Retrying, RetryPolicy, retry, retry_async, retryable_status


def test_retryable_statuses() -> None:
    assert all(retryable_status(s) for s in (408, 409, 425, 429, 500, 502, 503, 599))
    assert not any(retryable_status(s) for s in (200, 204, 400, 401, 403, 404, 422))


def test_waits_are_jittered_backoff_from_the_injected_generator_or_retry_after() -> None:
    policy = RetryPolicy(max_retries=5, backoff_base_s=1.0, backoff_max_s=4.0, max_retry_after_s=9)
    draws = random.Random(7)
    expected = [min(4.0, 2.0**n) * (0.5 + 0.5 * draws.random()) for n in range(5)]
    rng = random.Random(7)
    assert [policy.wait(n, rng) for n in range(5)] == expected
    assert policy.wait(0, rng, retry_after=3.0) == 3.0  # no draw for a Retry-After wait
    assert policy.wait(0, rng, retry_after=60.0) == 9.0
    assert policy.retry_after("120") == 9.0 and policy.retry_after(None) is None


def test_attempts_stop_at_max_retries_and_return_the_last_failure() -> None:
    slept: list[float] = []

    def always_failing(n: int) -> str | Failed:
        return Failed(f"attempt {n}", retry_after=0.5)

    outcome, attempts = retry(
        always_failing, RetryPolicy(max_retries=2), random.Random(0), slept.append
    )
    assert outcome == Failed("attempt 2", retry_after=0.5) and attempts == 3
    assert slept == [0.5, 0.5]

    def third_time_lucky(n: int) -> str | Failed:
        return "ok" if n == 2 else Failed("busy")

    assert retry(third_time_lucky, RetryPolicy(), random.Random(0), lambda s: None) == ("ok", 3)


def test_no_wait_ends_past_the_deadline() -> None:
    now = [0.0]
    retrying = Retrying(
        RetryPolicy(max_retries=10, deadline_s=10.0), random.Random(0), lambda: now[0]
    )
    assert retrying.after(Failed("busy", retry_after=4.0)) == 4.0
    now[0] = 5.0
    assert retrying.after(Failed("busy", retry_after=4.0)) == 4.0  # ends at 9 s
    now[0] = 9.5
    assert retrying.after(Failed("busy", retry_after=1.0)) is None  # would end at 10.5 s
    assert retrying.attempts == 3
    assert retrying.after("a result") is None


@pytest.mark.parametrize("max_retries", [0, 1, 6, 50])
def test_every_declared_retry_count_is_honoured(max_retries: int) -> None:
    calls: list[int] = []

    def failing(n: int) -> Failed | None:
        calls.append(n)
        return Failed("down", retry_after=0.0)

    _, attempts = retry(
        failing, RetryPolicy(max_retries=max_retries), random.Random(0), lambda s: None
    )
    assert attempts == max_retries + 1 and calls == list(range(max_retries + 1))


def test_a_wait_ending_exactly_at_the_deadline_is_waited() -> None:
    # rule 3 gives up only on a wait that ends past the deadline (tenacity's stop_before_delay
    # stops at it too, so the policy hands it the next float up)
    now = [2.5]
    retrying = Retrying(
        RetryPolicy(max_retries=5, deadline_s=4.0), random.Random(0), lambda: now[0]
    )
    now[0] = 3.5
    assert retrying.after(Failed("busy", retry_after=1.0)) == 1.0  # ends at exactly 4 s
    now[0] = 6.5
    assert retrying.after(Failed("busy", retry_after=0.0)) == 0.0  # ends at exactly 4 s
    now[0] = math.nextafter(6.5, math.inf)
    assert retrying.after(Failed("busy", retry_after=0.0)) is None  # a hair past 4 s
    assert retrying.attempts == 3


@dataclass(frozen=True)
class Step:
    """One attempt of a scripted request: how long it takes, and its failure's Retry-After."""

    duration_s: float
    retry_after: float | None


@dataclass(frozen=True)
class Run:
    """What a request under a policy did: its outcome, attempts, the waits, and the next draw
    of the generator afterwards (so a draw too many or too few shows)."""

    outcome: object
    attempts: int
    waits: list[float]
    next_draw: float


def reference(policy: RetryPolicy, seed: int, script: list[Step], succeeds_at: int | None) -> Run:
    """The module docstring's rules, written out plainly on a clock that the attempts and the
    waits advance."""
    rng = random.Random(seed)
    now, n = 0.0, 0
    waits: list[float] = []
    while True:
        step = script[n % len(script)]
        now += step.duration_s
        if n == succeeds_at:
            return Run("ok", n + 1, waits, rng.random())
        if n >= policy.max_retries:  # rule 3: no retry left (no draw)
            break
        if step.retry_after is not None:  # rule 2: the reply's Retry-After, capped
            wait = min(step.retry_after, policy.max_retry_after_s)
        else:  # rule 2: jittered exponential backoff
            base = min(policy.backoff_max_s, policy.backoff_base_s * 2.0**n)
            wait = base * (0.5 + 0.5 * rng.random())
        if policy.deadline_s is not None and now + wait > policy.deadline_s:  # rule 3
            break
        waits.append(wait)
        now += wait
        n += 1
    return Run(Failed(f"attempt {n}", step.retry_after), n + 1, waits, rng.random())


class Scripted:
    """A scripted request's attempts on a fake clock, recording the waits."""

    def __init__(self, script: list[Step], succeeds_at: int | None) -> None:
        self.script, self.succeeds_at = script, succeeds_at
        self.now = 0.0
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    def attempt(self, n: int) -> str | Failed:
        step = self.script[n % len(self.script)]
        self.now += step.duration_s
        return "ok" if n == self.succeeds_at else Failed(f"attempt {n}", step.retry_after)

    def sleep(self, seconds: float) -> None:
        assert type(seconds) is float
        self.waits.append(seconds)
        self.now += seconds


def spans(top: float) -> st.SearchStrategy[float]:
    """Seconds up to ``top``: any float, or a whole number (so waits end exactly on a deadline)."""
    return st.floats(0.0, top, allow_nan=False) | st.integers(0, 12).map(float)


@st.composite
def requests(draw: st.DrawFn) -> tuple[RetryPolicy, int, list[Step], int | None]:
    policy = RetryPolicy(
        max_retries=draw(st.integers(-1, 40)),
        backoff_base_s=draw(spans(1e4)),
        backoff_max_s=draw(spans(1e6)),
        max_retry_after_s=draw(spans(1e4)),
        deadline_s=draw(st.none() | spans(1e6)),
    )
    step = st.builds(Step, spans(1e3), st.none() | spans(1e4))
    script = draw(st.lists(step, min_size=1, max_size=12))
    return policy, draw(st.integers(0, 2**32)), script, draw(st.none() | st.integers(0, 45))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(requests())
def test_retrying_follows_the_rules(
    request_: tuple[RetryPolicy, int, list[Step], int | None],
) -> None:
    """``retry``, ``retry_async`` and the stepwise ``Retrying`` wait exactly as the rules say:
    the same waits, attempts and draws from the generator as the plain reference."""
    policy, seed, script, succeeds_at = request_
    expected = reference(policy, seed, script, succeeds_at)

    run = Scripted(script, succeeds_at)
    rng = random.Random(seed)
    outcome, attempts = retry(run.attempt, policy, rng, run.sleep, clock=run.clock)
    assert Run(outcome, attempts, run.waits, rng.random()) == expected

    run = Scripted(script, succeeds_at)
    rng = random.Random(seed)

    async def attempt(n: int) -> str | Failed:
        return run.attempt(n)

    async def sleep(seconds: float) -> None:
        run.sleep(seconds)

    outcome, attempts = asyncio.run(retry_async(attempt, policy, rng, sleep, clock=run.clock))
    assert Run(outcome, attempts, run.waits, rng.random()) == expected

    run = Scripted(script, succeeds_at)
    rng = random.Random(seed)
    retrying = Retrying(policy, rng, run.clock)
    while (wait := retrying.after(step := run.attempt(retrying.attempts - 1))) is not None:
        run.sleep(wait)
    assert Run(step, retrying.attempts, run.waits, rng.random()) == expected
