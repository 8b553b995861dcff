"""``ProviderGate`` on a clock the test moves: the request rate as a token bucket of the same
rate and depth (the planted server's, ``tests/doubles/planted_server.py``), kept from the
schedule rather than from late wake-ups, and which 429s pause the whole provider."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.llm.transport import ProviderGate

EPS = 1e-9


class LateClock:
    """Time that moves only by the gate's own waits, each overshooting by ``late`` seconds (an
    event loop busy elsewhere wakes a sleeper after its time, never before)."""

    def __init__(self, late: float = 0.0) -> None:
        self.now = 0.0
        self.late = late
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds + self.late


def starts_of(gate: ProviderGate, clock: LateClock, arrivals: list[float]) -> list[float]:
    """Callers arriving one after another at ``arrivals`` (non-decreasing, or at once when the
    clock is already past them): the time each started."""

    async def go() -> list[float]:
        out = []
        for at in arrivals:
            clock.now = max(clock.now, at)
            slot = await gate.acquire()
            assert slot is not None
            out.append(clock.now)
            gate.release(slot)
        return out

    return asyncio.run(go())


def bucket_levels(starts: list[float], per_s: float, depth: int) -> list[float]:
    """The tokens a bucket of ``depth`` filling at ``per_s`` holds just before each start (full
    at the first), each start taking one."""
    levels, tokens, at = [], float(depth), starts[0] if starts else 0.0
    for t in starts:
        tokens = min(float(depth), tokens + (t - at) * per_s)
        levels.append(tokens)
        tokens -= 1.0
        at = t
    return levels


@settings(max_examples=300, deadline=None)
@given(
    rpm=st.floats(min_value=1.0, max_value=60_000.0),
    burst=st.integers(min_value=1, max_value=50),
    gaps=st.lists(st.floats(min_value=0.0, max_value=5.0), min_size=1, max_size=80),
    late=st.sampled_from([0.0, 0.0005, 0.004]),
)
def test_starts_keep_a_bucket_of_the_rate_and_burst_and_wait_no_longer(
    rpm: float, burst: int, gaps: list[float], late: float
) -> None:
    """Any arrivals, any rate and burst, wake-ups on time or late: no start takes a token the
    bucket does not hold (so a provider enforcing that bucket never refuses the harness), and a
    caller that waited waited only until the bucket held a token (plus the clock's lateness)."""
    clock = LateClock(late)
    gate = ProviderGate(64, rpm, burst=burst, clock=clock, sleep=clock.sleep)
    arrivals = [sum(gaps[: i + 1]) for i in range(len(gaps))]
    starts = starts_of(gate, clock, arrivals)
    per_s = rpm / 60.0
    levels = bucket_levels(starts, per_s, burst)
    assert min(levels) >= 1.0 - 1e-6
    for i, (arrived, started) in enumerate(zip(arrivals, starts, strict=True)):
        ready = max(arrived, starts[i - 1] if i else arrived)
        if started > ready + EPS:  # it waited: the bucket had just come to hold a token
            assert levels[i] <= 1.0 + per_s * late + 1e-6


def test_a_burst_starts_back_to_back_then_the_rate_spaces_the_rest() -> None:
    clock = LateClock()
    gate = ProviderGate(64, 600, burst=3, clock=clock, sleep=clock.sleep)  # 100 ms a start
    starts = starts_of(gate, clock, [0.0] * 6)
    assert starts == pytest.approx([0.0, 0.0, 0.0, 0.1, 0.2, 0.3])


def test_the_default_burst_is_a_second_of_the_rate() -> None:
    assert ProviderGate(8, 600).burst == 10
    assert ProviderGate(8, 1500).burst == 25
    assert ProviderGate(8, 30).burst == 1  # under one a second: every start spaced
    assert ProviderGate(8).burst == 1
    with pytest.raises(ValueError, match="burst"):
        ProviderGate(8, 600, burst=0)


def test_a_late_wake_up_does_not_slow_the_rate() -> None:
    """Every wait ends 30 ms late: the schedule is kept from the rate, so 50 starts still take
    49 intervals (a gate that spaced each start from the last one's wake-up took 49 x 130 ms)."""
    clock = LateClock(late=0.03)
    gate = ProviderGate(64, 600, burst=2, clock=clock, sleep=clock.sleep)
    starts = starts_of(gate, clock, [0.0] * 50)
    assert starts[-1] - starts[0] <= 49 * 0.1 + 0.03 + EPS
    assert min(bucket_levels(starts, 10.0, 2)) >= 1.0 - 1e-6


@pytest.mark.parametrize(
    ("rate", "refusals", "start_at", "expected"),
    [
        pytest.param(600, [(0.0, 1.0)], 0.0, 0.0, id="a lone 429 under a rate holds back no one"),
        pytest.param(600, [(0.0, 1.0), (0.5, 1.0)], 0.5, 1.5,
                     id="a second 429 within the first one's wait pauses the provider"),
        pytest.param(600, [(0.0, 0.2), (0.5, 0.2)], 0.5, 0.5,
                     id="429s further apart than their wait are each alone"),
        pytest.param(None, [(0.0, 1.0)], 0.0, 1.0,
                     id="without a declared rate every 429 pauses the provider"),
    ],
)  # fmt: skip
def test_the_429_rule(
    rate: int | None, refusals: list[tuple[float, float]], start_at: float, expected: float
) -> None:
    """The start of the next request after the provider refused at ``refusals`` (time,
    Retry-After)."""
    clock = LateClock()
    gate = ProviderGate(8, rate, clock=clock, sleep=clock.sleep)
    for at, retry_after in refusals:
        clock.now = at
        gate.refused(retry_after)
    assert starts_of(gate, clock, [start_at]) == [pytest.approx(expected)]
