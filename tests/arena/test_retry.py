"""The one retry policy: which failures are retried, how long each wait is, when to give up."""

from __future__ import annotations

import random

import pytest

from arena.retry import Failed, Retrying, RetryPolicy, retry, retryable_status


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
