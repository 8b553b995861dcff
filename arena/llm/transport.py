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

Secrets: headers are never logged or put in an exception; every text taken from a reply for an
error message goes through ``redact`` with the player's key, so a provider that echoes the key
back cannot leak it into a log, the corpus or the cache.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from arena.retry import Failed, RetryPolicy, retry_async, retryable_status
from arena.secrets import redact


class TransportError(Exception):
    """A request to a provider failed."""


class NonRetryableError(TransportError):
    """The provider refused the request in a way retrying cannot fix (400, 401, 404, ...)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class RetriesExhausted(TransportError):
    """Every attempt failed with a retryable error."""

    def __init__(self, kind: Literal["timeout", "error"], message: str, attempts: int) -> None:
        super().__init__(message)
        self.kind: Literal["timeout", "error"] = kind
        self.attempts = attempts


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
    """A successful call: the decoded JSON body, the time it took, how many attempts it took."""

    body: Any
    latency_s: float
    attempts: int


class Transport:
    """Posts JSON through a ``ProviderGate`` with the retry policy of the module docstring."""

    def __init__(
        self,
        clients: httpx.AsyncClient | Sequence[httpx.AsyncClient],
        gate: ProviderGate,
        retry: RetryPolicy,
        rng: random.Random,
        timeout_s: float = 120.0,
    ) -> None:
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

        async def attempt(number: int) -> Response | Failed:
            slot = await self.gate.acquire()
            client = self.clients[slot // self.slots_per_client]
            started = time.perf_counter()
            try:
                reply = await client.post(
                    url, content=payload, headers=headers, timeout=self.timeout
                )
            except httpx.TimeoutException as exc:
                return Failed(f"timed out ({type(exc).__name__})", timed_out=True)
            except (httpx.TransportError, OSError) as exc:
                return Failed(f"connection failed ({type(exc).__name__})")
            finally:
                self.gate.release(slot)
            latency = time.perf_counter() - started
            status = reply.status_code
            if 200 <= status < 300:
                try:
                    decoded = json.loads(reply.content) if reply.content else None
                except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                    decoded = None
                if decoded is not None:
                    return Response(decoded, latency, number + 1)
                return Failed(f"HTTP {status} with a body that is not JSON")
            if not retryable_status(status):
                raise NonRetryableError(status, f"HTTP {status}: {_detail(reply, secrets)}")
            wait = self.retry.retry_after(reply.headers.get("retry-after"))
            if wait is not None and status == 429:
                self.gate.pause(wait)
            return Failed(f"HTTP {status}: {_detail(reply, secrets)}", retry_after=wait)

        outcome, attempts = await retry_async(attempt, self.retry, self.rng)
        if isinstance(outcome, Failed):
            kind: Literal["timeout", "error"] = "timeout" if outcome.timed_out else "error"
            raise RetriesExhausted(kind, f"{outcome.reason} (after {attempts} attempts)", attempts)
        return outcome


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
