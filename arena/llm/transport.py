"""Sending requests to model providers: limits, retries, typed errors.

``ProviderGate`` holds one provider's limits: at most ``concurrency`` requests in flight, at most
``requests_per_minute`` request starts, and a pause that a ``429 Retry-After`` imposes on every
request to that provider, not just the one that received it.

``Transport.post_json`` sends one JSON request through a gate, with retries:

1. retryable failures are 408, 409, 425, 429 and 5xx statuses, timeouts, connection errors
   (refused, reset, closed mid-reply) and 2xx replies whose body is not valid JSON (empty,
   truncated);
2. the wait before retry ``n`` (from 0) is ``Retry-After`` when the reply carries one (seconds
   or an HTTP date, capped at ``max_retry_after_s``), else ``min(backoff_max_s,
   backoff_base_s * 2**n)`` scaled by a jitter factor in [0.5, 1) drawn from the injected
   generator;
3. after ``max_retries`` retries the failure is raised as ``RetriesExhausted`` (``kind`` is
   ``timeout`` when the last attempt timed out, else ``error``);
4. any other 4xx (400, 401, 403, 404, 422, ...) raises ``NonRetryableError`` at once: retrying
   cannot help, and the player is stopped with the message.

Secrets: headers are never logged or put in an exception; every text taken from a reply for an
error message goes through ``redact`` with the player's key, so a provider that echoes the key
back cannot leak it into a log, the corpus or the cache.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import httpx

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
REDACTED = "[redacted]"


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with every secret replaced (secrets shorter than 4 characters are ignored)."""
    for secret in secrets:
        if secret and len(secret) >= 4 and secret in text:
            text = text.replace(secret, REDACTED)
    return text


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


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry (see the module docstring)."""

    max_retries: int = 6
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    max_retry_after_s: float = 600.0

    def backoff(self, retry: int, rng: random.Random) -> float:
        base = min(self.backoff_max_s, self.backoff_base_s * (2.0**retry))
        return base * (0.5 + 0.5 * rng.random())


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
        last = "no attempt"
        last_kind: Literal["timeout", "error"] = "error"
        for attempt in range(self.retry.max_retries + 1):
            wait: float | None = None
            slot = await self.gate.acquire()
            client = self.clients[slot // self.slots_per_client]
            started = time.perf_counter()
            try:
                reply = await client.post(
                    url, content=payload, headers=headers, timeout=self.timeout
                )
                latency = time.perf_counter() - started
            except httpx.TimeoutException as exc:
                last, last_kind = f"timed out ({type(exc).__name__})", "timeout"
            except (httpx.TransportError, OSError) as exc:
                last, last_kind = f"connection failed ({type(exc).__name__})", "error"
            else:
                status = reply.status_code
                if 200 <= status < 300:
                    try:
                        decoded = json.loads(reply.content) if reply.content else None
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        decoded = None
                    if decoded is not None:
                        return Response(decoded, latency, attempt + 1)
                    last, last_kind = f"HTTP {status} with a body that is not JSON", "error"
                elif status in RETRYABLE_STATUS or status >= 500:
                    last, last_kind = f"HTTP {status}: {_detail(reply, secrets)}", "error"
                    wait = retry_after_seconds(reply.headers.get("retry-after"))
                    if wait is not None:
                        wait = min(wait, self.retry.max_retry_after_s)
                        if status == 429:
                            self.gate.pause(wait)
                else:
                    raise NonRetryableError(status, f"HTTP {status}: {_detail(reply, secrets)}")
            finally:
                self.gate.release(slot)
            if attempt < self.retry.max_retries:
                await asyncio.sleep(
                    wait if wait is not None else self.retry.backoff(attempt, self.rng)
                )
        attempts = self.retry.max_retries + 1
        raise RetriesExhausted(last_kind, f"{last} (after {attempts} attempts)", attempts)


def _detail(reply: httpx.Response, secrets: tuple[str, ...], limit: int = 300) -> str:
    """A short, redacted description of an error reply (the provider's message if it has one)."""
    text = reply.text if reply.content else ""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, ValueError):
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
