"""Transport against a local server that misbehaves: retries, Retry-After, typed errors, limits.

Every server here is ``ScriptedServer`` on 127.0.0.1, started by the test.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from arena.llm.http11 import lean_client
from arena.llm.transport import (
    NonRetryableError,
    ProviderGate,
    RetriesExhausted,
    Transport,
    redact,
)
from arena.retry import RetryPolicy, retry_after_seconds
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion

FAST = RetryPolicy(max_retries=3, backoff_base_s=0.01, backoff_max_s=0.05)
CLIENT = {"kind": "lean"}


@pytest.fixture(autouse=True, params=["lean", "httpcore"])
def client_kind(request: pytest.FixtureRequest) -> str:
    """Every test runs on the harness's lean HTTP/1.1 transport and on httpx's default one."""
    CLIENT["kind"] = request.param
    return str(request.param)


def new_client() -> httpx.AsyncClient:
    if CLIENT["kind"] == "lean":
        return lean_client()
    return httpx.AsyncClient(trust_env=False)


OK = completion('{"action": "check"}')


def sequence(*answers: Answer) -> Callable[[Request], Answer]:
    """A script answering the given answers in turn, then OK forever."""

    def script(request: Request) -> Answer:
        return answers[request.number - 1] if request.number <= len(answers) else OK

    return script


def post(
    server: ScriptedServer,
    retry: RetryPolicy = FAST,
    timeout_s: float = 5.0,
    gate: ProviderGate | None = None,
    secrets: tuple[str, ...] = (),
) -> Any:
    async def go() -> Any:
        async with new_client() as client:
            transport = Transport(
                client, gate or ProviderGate(4), retry, random.Random(0), timeout_s=timeout_s
            )
            return await transport.post_json(
                server.url + "/chat/completions", {"model": "m"}, {}, secrets
            )

    return asyncio.run(go())


@pytest.mark.parametrize(
    "fault",
    [
        Answer(500, b"internal error"),
        Answer(503, b'{"error": {"message": "overloaded"}}'),
        Answer(reset=True),
        Answer(200, b""),
        Answer(200, b'{"choices": [{"message": {"content": "tru'),
        Answer(408, b""),
    ],
    ids=["500", "503", "reset", "empty-body", "truncated-json", "408"],
)
def test_retryable_faults_are_retried_until_an_answer(fault: Answer) -> None:
    with ScriptedServer(sequence(fault, fault)) as server:
        response = post(server)
    assert response.attempts == 3
    assert response.body["choices"][0]["message"]["content"] == '{"action": "check"}'


def test_a_stall_past_the_timeout_is_retried() -> None:
    with ScriptedServer(sequence(Answer(delay_s=1.0, body=OK.body))) as server:
        started = time.perf_counter()
        response = post(server, timeout_s=0.3)
    assert response.attempts == 2
    assert time.perf_counter() - started < 1.5


def test_429_retry_after_is_honoured() -> None:
    limited = Answer(429, b'{"error": {"message": "rate limited"}}', {"retry-after": "1"})
    with ScriptedServer(sequence(limited)) as server:
        started = time.perf_counter()
        response = post(server)
        waited = time.perf_counter() - started
        stamps = [r.number for r in server.requests]
    assert response.attempts == 2 and stamps == [1, 2]
    assert 1.0 <= waited < 3.0  # the backoff alone would have waited about 10 ms


def test_a_429_pauses_every_request_to_that_provider() -> None:
    limited = Answer(429, b"{}", {"retry-after": "1"})
    arrivals: list[float] = []
    lock = threading.Lock()

    def script(request: Request) -> Answer:
        with lock:
            arrivals.append(time.perf_counter())
        return limited if request.number == 1 else OK

    async def go(server: ScriptedServer) -> None:
        gate = ProviderGate(4)
        async with new_client() as client:
            transport = Transport(client, gate, FAST, random.Random(0))
            url = server.url + "/chat/completions"
            first = asyncio.create_task(transport.post_json(url, {}, {}))
            await asyncio.sleep(0.2)  # the 429 has arrived and paused the gate
            await asyncio.gather(first, transport.post_json(url, {}, {}))

    with ScriptedServer(script) as server:
        asyncio.run(go(server))
    assert len(arrivals) == 3
    assert arrivals[2] - arrivals[0] >= 0.95  # the second caller waited out the pause too


def test_retries_are_bounded_and_a_stall_ends_as_timeout() -> None:
    with ScriptedServer(lambda r: Answer(delay_s=0.5, body=OK.body)) as server:
        with pytest.raises(RetriesExhausted) as info:
            post(server, RetryPolicy(max_retries=1, backoff_base_s=0.01), timeout_s=0.1)
        assert len(server.requests) == 2
    assert info.value.kind == "timeout"
    assert info.value.attempts == 2
    with (
        ScriptedServer(lambda r: Answer(500, b"no")) as server,
        pytest.raises(RetriesExhausted) as info,
    ):
        post(server, RetryPolicy(max_retries=2, backoff_base_s=0.01))
    assert info.value.kind == "error" and "HTTP 500" in str(info.value)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(status: int) -> None:
    body = json.dumps({"error": {"message": f"problem {status}"}}).encode()
    with ScriptedServer(lambda r: Answer(status, body)) as server:
        with pytest.raises(NonRetryableError) as info:
            post(server)
        assert len(server.requests) == 1
    assert info.value.status == status
    assert f"problem {status}" in str(info.value)


def test_error_messages_are_redacted() -> None:
    key = "sk-canary-0123456789"
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {key}"}}).encode()
    with (
        ScriptedServer(lambda r: Answer(401, body)) as server,
        pytest.raises(NonRetryableError) as info,
    ):
        post(server, secrets=(key,))
    assert key not in str(info.value)
    assert "[redacted]" in str(info.value)
    assert redact("a abc b", ("abc",)) == "a abc b"  # secrets shorter than 4 chars are ignored
    assert redact("a secret b", ("secret",)) == "a [redacted] b"


def test_retry_after_accepts_seconds_and_http_dates() -> None:
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after_seconds("-5") == 0.0


def test_concurrency_limit_holds_requests_in_flight() -> None:
    in_flight = 0
    peak = 0
    lock = threading.Lock()

    def script(request: Request) -> Answer:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.05)  # the server thread is busy: requests queue at the socket
        with lock:
            in_flight -= 1
        return OK

    async def go(server: ScriptedServer) -> None:
        gate = ProviderGate(3)
        async with new_client() as client:
            transport = Transport(client, gate, FAST, random.Random(0))
            url = server.url + "/chat/completions"
            await asyncio.gather(*(transport.post_json(url, {}, {}) for _ in range(12)))
            assert gate.free_slots() == 3  # every slot released

    with ScriptedServer(script) as server:
        asyncio.run(go(server))
    assert len(server.requests) == 12
    assert peak <= 3


def test_requests_per_minute_spaces_request_starts() -> None:
    async def go(server: ScriptedServer) -> list[float]:
        gate = ProviderGate(8, requests_per_minute=600)  # one start per 100 ms
        starts: list[float] = []
        async with new_client() as client:
            transport = Transport(client, gate, FAST, random.Random(0))
            url = server.url + "/chat/completions"

            async def one() -> None:
                await transport.post_json(url, {}, {})
                starts.append(time.perf_counter())

            await asyncio.gather(*(one() for _ in range(5)))
        return starts

    with ScriptedServer() as server:
        started = time.perf_counter()
        asyncio.run(go(server))
        elapsed = time.perf_counter() - started
    assert elapsed >= 0.4  # five starts, 100 ms apart


def test_gate_refuses_bad_limits() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        ProviderGate(0)
    with pytest.raises(ValueError, match="requests_per_minute"):
        ProviderGate(1, requests_per_minute=0)
