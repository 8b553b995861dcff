"""A request's time is bounded, retries and waits included (issue 43, item 6: against a hanging
endpoint 20 matches took 36 minutes; against one answering 429 with ``Retry-After: 600``
nothing was played in 15 minutes).

``timeout_s`` bounds each attempt whole (a reply trickling in a byte at a time included), a
request ends within ``2 * timeout_s + max_retry_after_s`` of its first attempt, a Retry-After
past ``max_retry_after_s`` fails the request at once, and a request given up on retryable
replies counts toward the circuit breaker.  What shows a bound working is counted, not timed:
the attempts the server received against the retries allowed, the waits the transport asked
of its gate, and which timeout ended an attempt.  Each call also runs under a guard of its own
(a fail-safe, far past any bound here), so a regression fails instead of hanging."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx
import pytest

from arena.llm.http11 import lean_client
from arena.llm.transport import (
    CircuitBreaker,
    EndpointUnavailable,
    ProviderGate,
    RetriesExhausted,
    Transport,
)
from arena.retry import RetryPolicy
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion

GUARD_S = 60.0  # a fail-safe: a call still running then has lost its bound
OK = completion('{"action": "check"}')
LIMITED = Answer(429, b'{"error": {"message": "rate limited"}}', {"retry-after": "600"})


def client(kind: str) -> httpx.AsyncClient:
    return lean_client() if kind == "lean" else httpx.AsyncClient(trust_env=False)


def posts(
    url: str,
    kind: str,
    retry: RetryPolicy,
    timeout_s: float,
    n: int = 1,
    breaker: CircuitBreaker | None = None,
    waits: list[float] | None = None,
) -> list[Any]:
    """``n`` requests one after the other: the response or the exception of each.  ``waits``
    collects the waits the transport asks of its gate (between attempts, for a pause), which
    are then waited on the system's clock."""

    async def sleep(seconds: float) -> None:
        if waits is not None:
            waits.append(seconds)
        await asyncio.sleep(seconds)

    async def go() -> list[Any]:
        async with client(kind) as c:
            transport = Transport(c, ProviderGate(4, sleep=sleep), retry, random.Random(0),
                                  timeout_s=timeout_s, breaker=breaker)  # fmt: skip
            results: list[Any] = []
            for _ in range(n):
                try:
                    outcome: Any = await transport.post_json(url + "/chat/completions", {}, {})
                except (RetriesExhausted, EndpointUnavailable) as exc:
                    outcome = exc
                results.append(outcome)
            return results

    async def guarded() -> list[Any]:
        return await asyncio.wait_for(go(), GUARD_S)

    return asyncio.run(guarded())


@pytest.mark.parametrize("kind", ["lean", "standard"])
def test_a_hanging_endpoint_fails_the_request_within_its_bound(kind: str) -> None:
    """50 retries allowed, but the request ends within 2 x 0.5 + 0.5 = 1.5 s: the server, which
    would hold each request for an hour, gets two to four of the 51 attempts."""
    retry = RetryPolicy(max_retries=50, backoff_base_s=0.01, max_retry_after_s=0.5)
    with ScriptedServer(lambda request: Answer(delay_s=3600)) as server:
        (failure,) = posts(server.url, kind, retry, timeout_s=0.5)
        attempts = len(server.requests)
    assert isinstance(failure, RetriesExhausted) and failure.kind == "timeout"
    assert 2 <= attempts <= 4 and failure.requests == attempts
    assert "timed out" in str(failure) and "past the bound of 1.5 s" in str(failure)


@pytest.mark.parametrize("kind", ["lean", "standard"])
def test_a_reply_trickling_in_is_cut_off_at_the_attempts_timeout(kind: str) -> None:
    """A byte every 10 ms never trips a read timeout of 0.5 s; the attempt's bound does: the
    whole reply, a legal completion, would come after more than 2 s and the request would
    succeed; it ends as a timeout of its only attempt instead."""
    retry = RetryPolicy(max_retries=0)
    assert len(OK.body) * 0.01 > 2 * 0.5
    with ScriptedServer(lambda request: Answer(body=OK.body, drip_s=0.01)) as server:
        (failure,) = posts(server.url, kind, retry, timeout_s=0.5)
    assert isinstance(failure, RetriesExhausted) and failure.kind == "timeout"
    assert failure.requests == 1


def test_a_retry_after_past_the_cap_fails_the_request_at_once() -> None:
    """The red team's 429 with ``Retry-After: 600``, with the cap configured at 1 s."""
    retry = RetryPolicy(max_retries=6, backoff_base_s=0.01, max_retry_after_s=1.0)
    waits: list[float] = []
    with ScriptedServer(lambda request: LIMITED) as server:
        (failure,) = posts(server.url, "lean", retry, timeout_s=5, waits=waits)
        assert len(server.requests) == 1
    assert isinstance(failure, RetriesExhausted) and failure.kind == "error"
    assert waits == []  # not the 600 s asked, nor the cap of 1 s: no wait at all
    assert str(failure) == (
        "HTTP 429: rate limited (after 1 attempts; Retry-After 600 s is past the cap of 1 s "
        "(max_retry_after_s))"
    )


def test_retry_after_within_the_cap_is_honoured_until_the_bound() -> None:
    """Retry-After 0.4 s under a cap of 0.5 s and attempts of 0.2 s: a bound of 0.9 s holds
    two waits at most, although 20 retries are allowed."""
    retry = RetryPolicy(max_retries=20, max_retry_after_s=0.5)
    limited = Answer(429, b"{}", {"retry-after": "0.4"})
    waits: list[float] = []
    with ScriptedServer(lambda request: limited) as server:
        (failure,) = posts(server.url, "lean", retry, timeout_s=0.2, waits=waits)
        attempts = len(server.requests)
    assert isinstance(failure, RetriesExhausted)
    assert 2 <= attempts <= 3  # 20 retries allowed: the bound stopped it, not the count
    assert waits and all(w == pytest.approx(0.4, abs=0.05) for w in waits)  # Retry-After
    assert "past the bound of 0.9 s" in str(failure)


@pytest.mark.parametrize(
    "answer", [LIMITED, Answer(503, b'{"error": {"message": "overloaded"}}')], ids=["429", "503"]
)
def test_requests_given_up_on_retryable_replies_open_the_breaker(answer: Answer) -> None:
    """A 429 or 5xx reply does not reset the count (unlike a 2xx): three requests given up,
    then the fourth is not sent."""
    retry = RetryPolicy(max_retries=1, backoff_base_s=0.01, max_retry_after_s=1.0)
    breaker = CircuitBreaker(3)
    with ScriptedServer(lambda request: answer) as server:
        results = posts(server.url, "lean", retry, timeout_s=5, n=4, breaker=breaker)
        sent = len(server.requests)
    outcomes = [type(r).__name__ for r in results]
    assert outcomes == ["RetriesExhausted", "RetriesExhausted", *["EndpointUnavailable"] * 2]
    assert sent == (3 if answer is LIMITED else 6)  # the fourth request never left
    reason = str(breaker.reason)
    assert reason.startswith("3 consecutive failures at http://127.0.0.1:")
    assert f"(the last: HTTP {answer.status}: " in reason


def test_a_success_between_retryable_replies_keeps_the_breaker_closed() -> None:
    retry = RetryPolicy(max_retries=0, max_retry_after_s=1.0)
    breaker = CircuitBreaker(3)

    def script(request: Request) -> Answer:
        return OK if request.number % 3 == 0 else Answer(429, b"{}")  # two given up, one not

    with ScriptedServer(script) as server:
        results = posts(server.url, "lean", retry, timeout_s=5, n=9, breaker=breaker)
    assert breaker.reason is None
    assert [isinstance(r, RetriesExhausted) for r in results] == [True, True, False] * 3


def test_a_gate_paused_past_the_bound_lets_the_request_go_without_losing_a_slot() -> None:
    """A retry waits for a slot only until its request's bound: past a provider's pause (or
    a full gate) it gives up at once, and every slot it waited for is still there."""

    async def go() -> tuple[list[int | None], list[float], int]:
        waits: list[float] = []

        async def sleep(seconds: float) -> None:  # the gate's waits, on a clock standing at 0
            waits.append(seconds)

        paused_gate = ProviderGate(2, clock=lambda: 0.0, sleep=sleep)
        paused_gate.pause(30)
        paused = await paused_gate.acquire(until=0.2)
        assert paused_gate.free_slots() == 2  # the slot it took is back
        gate = ProviderGate(2)
        held = [await gate.acquire(), await gate.acquire()]  # the gate is full
        assert None not in held

        async def racer(k: int) -> int | None:
            slot = await gate.acquire(until=time.monotonic() + (k % 7) * 0.01)
            if slot is not None:
                await asyncio.sleep(0.001)
                gate.release(slot)
            return slot

        async def releaser() -> None:
            for slot in held:
                await asyncio.sleep(0.01)
                gate.release(int(slot or 0))

        results = await asyncio.gather(*(racer(k) for k in range(300)), releaser())
        return [paused, *results[:-1]], waits, gate.free_slots()

    outcomes, waits, free = asyncio.run(asyncio.wait_for(go(), GUARD_S))
    assert outcomes[0] is None and waits == []  # given up at once, not after a wait
    assert free == 2  # no slot lost, whichever waits were cut off
    assert None in outcomes[1:] and any(o is not None for o in outcomes[1:])
