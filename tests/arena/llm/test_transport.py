"""Transport against a local server that misbehaves: retries, Retry-After, typed errors, limits.

Every server here is ``ScriptedServer`` on 127.0.0.1, started by the test.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from arena.llm.http11 import LeanTransport, lean_client
from arena.llm.transport import (
    NonRetryableError,
    ProviderGate,
    RetriesExhausted,
    Transport,
)
from arena.retry import RetryPolicy, retry_after_seconds
from arena.secrets import redact
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


class Clock:
    """The time of a gate and its transports, moved by their own waits only: ``sleep`` records
    what was asked and moves the clock to the end of the wait, so a test reads the waits the
    gate chose, never the machine's speed."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        until = self.now + seconds
        await asyncio.sleep(0)  # the others run, as at a real wait
        self.now = max(self.now, until)


class RecordingGate(ProviderGate):
    """A gate on a test's clock that notes the time at which each request may start."""

    def __init__(
        self,
        clock: Clock,
        concurrency: int,
        requests_per_minute: float | None = None,
        burst: int | None = None,
    ) -> None:
        super().__init__(
            concurrency, requests_per_minute, burst=burst, clock=clock, sleep=clock.sleep
        )
        self.starts: list[float] = []

    async def acquire(self, until: float | None = None) -> int | None:
        slot = await super().acquire(until)
        self.starts.append(self.clock())
        return slot


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
    client: Callable[[], httpx.AsyncClient] = new_client,
) -> Any:
    async def go() -> Any:
        async with client() as client_:
            transport = Transport(
                client_, gate or ProviderGate(4), retry, random.Random(0), timeout_s=timeout_s
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
    # the first answer would come after 30 s: only the 0.3 s timeout makes a second attempt
    with ScriptedServer(sequence(Answer(delay_s=30.0, body=OK.body))) as server:
        response = post(server, timeout_s=0.3)
        assert [r.number for r in server.requests] == [1, 2]
    assert response.attempts == 2 and response.requests == 2
    assert response.body["choices"][0]["message"]["content"] == '{"action": "check"}'


class LateFirstWrite(httpx.AsyncBaseTransport):
    """The client's own transport, held ``pause`` seconds before its first request goes out:
    what a starved event loop does to an attempt before it reaches the socket."""

    def __init__(self, inner: httpx.AsyncBaseTransport, pause: float) -> None:
        self.inner = inner
        self.pause = pause

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        pause, self.pause = self.pause, 0.0
        await asyncio.sleep(pause)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_an_attempt_cut_off_is_counted_by_what_it_sent() -> None:
    """The attempt's own bound (timeout plus grace) cuts the first attempt before its request
    is written: it counts nothing. Then a reply trickling in past the bound, byte by byte, is
    cut after the request went out: it counts one. The counts equal the server's."""

    def late_client() -> httpx.AsyncClient:
        inner = LeanTransport() if CLIENT["kind"] == "lean" else httpx.AsyncHTTPTransport()
        return httpx.AsyncClient(transport=LateFirstWrite(inner, 1.0), trust_env=False)

    with ScriptedServer() as server:
        response = post(server, timeout_s=0.2, client=late_client)
        assert len(server.requests) == 1
    assert response.attempts == 2 and response.requests == 1
    trickle = Answer(body=OK.body, drip_s=0.02)  # every byte within the read timeout
    with ScriptedServer(sequence(trickle)) as server:
        response = post(server, timeout_s=0.2)
        assert len(server.requests) == 2
    assert response.attempts == 2 and response.requests == 2


def test_429_retry_after_is_honoured() -> None:
    limited = Answer(429, b'{"error": {"message": "rate limited"}}', {"retry-after": "1"})
    clock = Clock()
    gate = RecordingGate(clock, 4)
    with ScriptedServer(sequence(limited)) as server:
        response = post(server, gate=gate)
        stamps = [r.number for r in server.requests]
    assert response.attempts == 2 and stamps == [1, 2]
    # the retry waited the server's second (the backoff alone would have waited about 10 ms)
    assert 1.0 <= sum(clock.sleeps) < 1.1
    assert gate.starts == [0.0, pytest.approx(sum(clock.sleeps))]


def test_a_429_tells_the_gate_its_retry_after() -> None:
    """The transport reports each 429's Retry-After (capped) to the provider's gate, which
    decides whether the provider pauses (``tests/arena/llm/test_provider_gate.py``)."""

    class RefusalGate(RecordingGate):
        def __init__(self, clock: Clock) -> None:
            super().__init__(clock, 4)
            self.refusals: list[float] = []

        def refused(self, seconds: float) -> None:
            self.refusals.append(seconds)
            super().refused(seconds)

    clock = Clock()
    gate = RefusalGate(clock)
    retry = RetryPolicy(max_retries=3, backoff_base_s=0.01, max_retry_after_s=2.0)
    answers = (
        Answer(429, b"{}", {"retry-after": "1"}),
        Answer(503, b"{}", {"retry-after": "1"}),  # a pause is a 429's alone
        Answer(429, b"{}", {"retry-after": "1.5"}),
    )
    with ScriptedServer(sequence(*answers)) as server:
        response = post(server, retry, gate=gate)
    assert response.attempts == 4
    assert gate.refusals == [1.0, 1.5]


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


class CountingGate(ProviderGate):
    """A gate that counts the requests waiting in ``acquire`` for a slot."""

    waiting = 0

    async def acquire(self, until: float | None = None) -> int | None:
        self.waiting += 1
        try:
            return await super().acquire(until)
        finally:
            self.waiting -= 1


def test_concurrency_limit_holds_requests_in_flight() -> None:
    """Twelve requests through a gate of three: the server holds each request it receives
    until no other can come (three held, the other nine waiting at the gate) or until a fourth
    arrives, then answers them all; it never has more than three in flight."""
    release = threading.Event()

    async def hold() -> None:  # in the server's loop, until the test releases every request
        await asyncio.to_thread(release.wait, 60)

    async def go(server: ScriptedServer) -> int:
        gate = CountingGate(3)
        async with new_client() as client:
            transport = Transport(client, gate, FAST, random.Random(0))
            url = server.url + "/chat/completions"
            sent = asyncio.gather(*(transport.post_json(url, {}, {}) for _ in range(12)))
            while not (server.in_flight > 3 or (server.in_flight, gate.waiting) == (3, 9)):
                await asyncio.sleep(0.01)  # a condition: every request held or waiting
            release.set()
            await sent
            assert gate.free_slots() == 3  # every slot released
        return server.most_in_flight

    with ScriptedServer(lambda request: Answer(body=OK.body, hold=hold)) as server:
        try:
            most = asyncio.run(asyncio.wait_for(go(server), 60))
        finally:
            release.set()  # a failed run leaves no request held
    assert len(server.requests) == 12
    assert most == 3


def test_requests_per_minute_spaces_request_starts() -> None:
    clock = Clock()

    async def go(server: ScriptedServer) -> list[float]:
        gate = RecordingGate(clock, 8, requests_per_minute=600, burst=1)  # one per 100 ms
        async with new_client() as client:
            transport = Transport(client, gate, FAST, random.Random(0))
            url = server.url + "/chat/completions"
            await asyncio.gather(*(transport.post_json(url, {}, {}) for _ in range(5)))
        return gate.starts

    with ScriptedServer() as server:
        starts = asyncio.run(go(server))
    assert starts == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])  # five starts, 100 ms apart


def test_gate_refuses_bad_limits() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        ProviderGate(0)
    with pytest.raises(ValueError, match="requests_per_minute"):
        ProviderGate(1, requests_per_minute=0)
