"""Sending requests to model providers: limits, retries, typed errors.

``ProviderGate`` holds one provider's limits: at most ``concurrency`` requests in flight, at most
``requests_per_minute`` request starts, and a pause that a ``429 Retry-After`` imposes on every
request to that provider, not just the one that received it.

``Transport.post_json`` sends one JSON request through a gate, with the harness's retry
policy (``arena.retry``: which statuses are retried, the jittered backoff from the injected
generator, ``Retry-After``):

1. retryable failures are the policy's statuses (408, 409, 425, 429, 5xx), timeouts,
   connection errors (refused, reset, closed mid-reply) and 2xx replies whose body is not valid
   JSON (empty, truncated); a 429's ``Retry-After`` also pauses the whole provider;
2. when no retry is left the failure is raised as ``RetriesExhausted`` (``kind`` is
   ``timeout`` when the last attempt timed out, else ``error``);
3. any other 4xx (400, 401, 403, 404, 422, ...) raises ``NonRetryableError`` at once: retrying
   cannot help, and the player is stopped with the message.

Counting: ``Response.requests`` and ``RetriesExhausted.requests`` count the attempts that reached
the provider (every attempt but those whose connection could not be opened), so the corpus's
``calls`` equal what the provider saw; ``RetriesExhausted.latency_s`` is the time the attempts
took.

A ``CircuitBreaker`` (one per player, ``arena.tournament.lineup``) counts consecutive connection
failures (refused, reset, closed mid-reply, timed out); any HTTP reply, whatever its status,
resets the count.  At its threshold it opens for the rest of the run: the request that saw the
last failure, every request waiting out a backoff and every later one raise
``EndpointUnavailable`` at once instead of spending their retries (a dead endpoint gives up in
seconds, not in a retry budget per move).

Secrets: headers are never logged or put in an exception; every text taken from a reply for an
error message goes through ``redact`` with the player's key, so a provider that echoes the key
back cannot leak it into a log, the corpus or the cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from arena.retry import Failed, Retrying, RetryPolicy, retryable_status
from arena.secrets import redact


class TransportError(Exception):
    """A request to a provider failed."""


class NonRetryableError(TransportError):
    """The provider refused the request in a way retrying cannot fix (400, 401, 404, ...)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class RetriesExhausted(TransportError):
    """Every attempt failed with a retryable error: ``attempts`` made, ``requests`` of them
    reached the provider, ``latency_s`` the time they took."""

    def __init__(
        self,
        kind: Literal["timeout", "error"],
        message: str,
        attempts: int,
        requests: int | None = None,
        latency_s: float = 0.0,
    ) -> None:
        super().__init__(message)
        self.kind: Literal["timeout", "error"] = kind
        self.attempts = attempts
        self.requests = attempts if requests is None else requests
        self.latency_s = latency_s


class EndpointUnavailable(TransportError):
    """The player's circuit breaker is open: too many consecutive connection failures."""


DEFAULT_MAX_CONNECTION_FAILURES = 10


class CircuitBreaker:
    """Opens after ``threshold`` consecutive connection failures (see the module docstring)."""

    def __init__(self, threshold: int = DEFAULT_MAX_CONNECTION_FAILURES) -> None:
        if threshold < 1:
            raise ValueError(f"connection-failure threshold must be at least 1, got {threshold}")
        self.threshold = threshold
        self.consecutive = 0
        self.reason: str | None = None  # set once open
        self._opened: asyncio.Event | None = None

    def _event(self) -> asyncio.Event:
        if self._opened is None:
            self._opened = asyncio.Event()
            if self.reason is not None:
                self._opened.set()
        return self._opened

    def replied(self) -> None:
        """An HTTP reply came back (any status): the endpoint is reachable."""
        if self.reason is None:
            self.consecutive = 0

    def failed(self, url: str, what: str) -> None:
        """A connection failure; opens the breaker at the threshold."""
        if self.reason is not None:
            return
        self.consecutive += 1
        if self.consecutive >= self.threshold:
            self.reason = (
                f"{self.consecutive} consecutive connection failures at {url} (the last: {what})"
            )
            self._event().set()

    async def pause(self, seconds: float) -> None:
        """Sleep ``seconds``, waking early if the breaker opens meanwhile."""
        if self.reason is not None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._event().wait(), seconds)


class ProviderGate:
    """Concurrency, request rate and Retry-After pauses of one provider.

    A request holds one of ``concurrency`` numbered slots while in flight; the transport sends
    it through the HTTP client that owns that slot, so no client ever has more requests than
    connections (``httpx``'s pool gets slow when many requests queue for many connections).
    """

    def __init__(self, concurrency: int, requests_per_minute: float | None = None) -> None:
        if concurrency < 1:
            raise ValueError(f"provider concurrency must be at least 1, got {concurrency}")
        if requests_per_minute is not None and requests_per_minute <= 0:
            raise ValueError(f"requests_per_minute must be positive, got {requests_per_minute}")
        self.concurrency = concurrency
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._free: asyncio.Queue[int] = asyncio.Queue()
        for slot in range(concurrency):
            self._free.put_nowait(slot)
        self._next_start = 0.0
        self._paused_until = 0.0

    def free_slots(self) -> int:
        return self._free.qsize()

    def pause(self, seconds: float) -> None:
        """Hold every request of this provider for ``seconds`` from now (a 429's Retry-After)."""
        self._paused_until = max(self._paused_until, time.monotonic() + seconds)

    async def acquire(self) -> int:
        """Wait for a free slot, the rate limit and any pause; return the slot's number."""
        slot = await self._free.get()
        try:
            while True:
                now = time.monotonic()
                start = max(now, self._next_start, self._paused_until)
                if start <= now:
                    self._next_start = now + self.interval
                    return slot
                await asyncio.sleep(start - now)
        except BaseException:
            self._free.put_nowait(slot)
            raise

    def release(self, slot: int) -> None:
        self._free.put_nowait(slot)


@dataclass
class Response:
    """A successful call: the decoded JSON body, the time it took, how many attempts it took
    and how many of them reached the provider (``requests``; default: all)."""

    body: Any
    latency_s: float
    attempts: int
    requests: int = 0

    def __post_init__(self) -> None:
        if not self.requests:
            self.requests = self.attempts


class Transport:
    """Posts JSON through a ``ProviderGate`` with the retry policy of the module docstring."""

    def __init__(
        self,
        clients: httpx.AsyncClient | Sequence[httpx.AsyncClient],
        gate: ProviderGate,
        retry: RetryPolicy,
        rng: random.Random,
        timeout_s: float = 120.0,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self.breaker = breaker
        self.clients = [clients] if isinstance(clients, httpx.AsyncClient) else list(clients)
        if not self.clients:
            raise ValueError("a transport needs at least one HTTP client")
        self.slots_per_client = -(-gate.concurrency // len(self.clients))
        self.gate = gate
        self.retry = retry
        self.rng = rng
        self.timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 30.0))

    async def post_json(
        self,
        url: str,
        body: dict[str, Any],
        headers: dict[str, str],
        secrets: tuple[str, ...] = (),
    ) -> Response:
        """POST ``body``; the decoded JSON reply, or a ``TransportError`` (see the docstring)."""
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        breaker = self.breaker
        sent = 0  # attempts that reached the provider
        spent = 0.0  # seconds the attempts took

        async def attempt(number: int) -> Response | Failed:
            nonlocal sent, spent
            slot = await self.gate.acquire()
            if breaker is not None and breaker.reason is not None:
                self.gate.release(slot)
                raise EndpointUnavailable(breaker.reason)
            client = self.clients[slot // self.slots_per_client]
            started = time.perf_counter()
            try:
                reply = await client.post(
                    url, content=payload, headers=headers, timeout=self.timeout
                )
            except httpx.TimeoutException as exc:
                spent += time.perf_counter() - started
                sent += requests_written(exc)
                if breaker is not None:
                    breaker.failed(url, f"timed out ({_described(exc)})")
                return Failed(f"timed out ({type(exc).__name__})", timed_out=True)
            except (httpx.TransportError, OSError) as exc:
                spent += time.perf_counter() - started
                sent += requests_written(exc)
                if breaker is not None:
                    breaker.failed(url, f"connection failed ({_described(exc)})")
                return Failed(f"connection failed ({type(exc).__name__})")
            finally:
                self.gate.release(slot)
            latency = time.perf_counter() - started
            spent += latency
            sent += int(reply.extensions.get("request_writes", 1))  # http11's resend counts
            if breaker is not None:
                breaker.replied()
            status = reply.status_code
            if 200 <= status < 300:
                try:
                    decoded = json.loads(reply.content) if reply.content else None
                except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                    decoded = None
                if decoded is not None:
                    return Response(decoded, latency, number + 1, sent)
                return Failed(f"HTTP {status} with a body that is not JSON")
            if not retryable_status(status):
                raise NonRetryableError(status, f"HTTP {status}: {_detail(reply, secrets)}")
            wait = self.retry.retry_after(reply.headers.get("retry-after"))
            if wait is not None and status == 429:
                self.gate.pause(wait)
            return Failed(f"HTTP {status}: {_detail(reply, secrets)}", retry_after=wait)

        retrying = Retrying(self.retry, self.rng)
        while True:
            if breaker is not None and breaker.reason is not None:
                raise EndpointUnavailable(breaker.reason)
            outcome = await attempt(retrying.attempts - 1)
            wait = retrying.after(outcome)
            if wait is None:
                break
            if breaker is None:
                await asyncio.sleep(wait)
            else:
                await breaker.pause(wait)
        if isinstance(outcome, Failed):
            if breaker is not None and breaker.reason is not None:
                raise EndpointUnavailable(breaker.reason)
            kind: Literal["timeout", "error"] = "timeout" if outcome.timed_out else "error"
            attempts = retrying.attempts
            raise RetriesExhausted(
                kind, f"{outcome.reason} (after {attempts} attempts)", attempts, sent, spent
            )
        return outcome


def _described(exc: BaseException, limit: int = 160) -> str:
    """An exception's type and message on one short line (``ConnectError: ... refused``)."""
    text = " ".join(str(exc).split())
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def requests_written(exc: BaseException) -> int:
    """How many times an attempt that failed with ``exc`` put its request on the wire: none
    when no connection was made, else one (two when the lean transport wrote it again on a
    new connection: its ``request_writes``)."""
    written = getattr(exc, "request_writes", None)
    if isinstance(written, int):
        return written
    unsent = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
    return 0 if isinstance(exc, (*unsent, httpx.UnsupportedProtocol)) else 1


def _detail(reply: httpx.Response, secrets: tuple[str, ...], limit: int = 300) -> str:
    """A short, redacted description of an error reply (the provider's message if it has one)."""
    text = reply.text if reply.content else ""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict):
            message = error.get("message") or error.get("detail") or error.get("type")
            if isinstance(message, str):
                text = message
        elif isinstance(error, str):
            text = error
    text = " ".join(redact(text, secrets).split())[:limit]
    return text or reply.reason_phrase or "no detail"
