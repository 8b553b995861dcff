"""Sending requests to model providers: limits, retries, typed errors.

``ProviderGate`` holds one provider's limits: at most ``concurrency`` requests in flight, at most
``requests_per_minute`` request starts (a generic cell rate: starts are spaced on a schedule
kept from the rate, not from the moment the last one woke up, and up to ``burst`` of them may
start back to back after a quiet spell), and a pause that a ``429 Retry-After`` imposes on every
request to that provider, not just the one that received it, when the harness does not know the
provider's rate or the 429s come in a run (see ``ProviderGate.refused``).

``Transport.post_json`` sends one JSON request through a gate, with the harness's retry
policy (``arena.retry``: which statuses are retried, the jittered backoff from the injected
generator, ``Retry-After``):

1. retryable failures are the policy's statuses (408, 409, 425, 429, 5xx), timeouts,
   connection errors (refused, reset, closed mid-reply) and 2xx replies whose body is not valid
   JSON (empty, truncated); a 429's ``Retry-After`` may pause the whole provider as well
   (``ProviderGate.refused``);
2. when no retry is left the failure is raised as ``RetriesExhausted`` (``kind`` is
   ``timeout`` when the last attempt timed out or the request ran out of time, else ``error``);
3. any other 4xx (400, 401, 403, 404, 422, ...) raises ``NonRetryableError`` at once: retrying
   cannot help, and the player is stopped with the message;
4. a reply past the bounds of ``arena.llm.providers`` (a body larger than ``max_reply_bytes``,
   read from the stream and given up as soon as it passes them, or JSON nested too deeply)
   raises ``ReplyRejected`` at once: it is never retried, and none of it is kept.  Replies are
   asked for uncompressed (``Accept-Encoding: identity``); one compressed anyway is bounded
   decoded.

Time (issue 43, item 6): ``timeout_s`` bounds each attempt as a whole (connecting, sending,
and reading the reply, however slowly it trickles in), and a request, its attempts and the
waits between them included, ends within ``max_request_s`` of its first attempt (default: the
policy's ``deadline_s``, else ``2 * timeout_s + max_retry_after_s``): an attempt gets at most
the time left, and a wait that would end past the bound is not waited.  A ``Retry-After`` is
honoured up to the policy's ``max_retry_after_s``; a longer one fails the request at once.
Either way the request is given up (``RetriesExhausted``) and counts toward the circuit breaker.

A retried attempt carries its number in the ``x-retry-count`` header (``RETRY_HEADER``).

Counting: ``Response.requests`` and the ``requests`` of ``RetriesExhausted``,
``NonRetryableError`` and ``EndpointUnavailable`` count the requests that reached the provider:
every time an attempt put its request on the wire (``arena.llm.http11.RequestWrites``, counted
by the transport as it writes, so an attempt cut off at any point counts what it sent and an
attempt whose connection could not be opened counts nothing); the corpus's ``calls`` equal what
the provider saw. Their ``latency_s`` is the time the attempts took.

A ``CircuitBreaker`` (one per player, ``arena.tournament.lineup``) counts consecutive failures:
each attempt whose connection failed (refused, reset, closed mid-reply, timed out), and each
request given up after replies with a retryable status (an endpoint that answers only 429 or
5xx, or keeps the request waiting past its bound).  A 2xx reply or a non-retryable one resets
the count; a reply with a retryable status neither counts nor resets.  At its threshold it
opens for the rest of the run: the request that saw the last failure, every request waiting out
a backoff and every later one raise ``EndpointUnavailable`` at once instead of spending their
retries (a dead endpoint gives up in seconds, not in a retry budget per move).

Secrets: headers are never logged or put in an exception; every text taken from a reply for an
error message goes through ``redact`` with the player's key, so a provider that echoes the key
back cannot leak it into a log, the corpus or the cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from arena.llm.http11 import MAX_BODY_EXTENSION, WRITES_EXTENSION, BodyTooLarge, RequestWrites
from arena.llm.providers import MAX_REPLY_BYTES, MalformedReply, ReplyRefused, decode_reply
from arena.retry import Failed, Retrying, RetryPolicy, retry_after_seconds, retryable_status
from arena.secrets import redact


class TransportError(Exception):
    """A request to a provider failed."""


class NonRetryableError(TransportError):
    """The provider refused the request in a way retrying cannot fix (400, 401, 404, ...):
    ``requests`` made (the refused one included), in ``latency_s``."""

    def __init__(
        self, status: int, message: str, requests: int = 1, latency_s: float = 0.0
    ) -> None:
        super().__init__(message)
        self.status = status
        self.requests = requests
        self.latency_s = latency_s


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
    """The player's circuit breaker is open: too many consecutive connection failures.
    ``requests`` of this request had reached the provider before, in ``latency_s``."""

    def __init__(self, message: str, requests: int = 0, latency_s: float = 0.0) -> None:
        super().__init__(message)
        self.requests = requests
        self.latency_s = latency_s


class ReplyRejected(TransportError):
    """A reply past the bounds (too large, nested too deeply): ``requests`` made, in
    ``latency_s``; never retried."""

    def __init__(self, message: str, requests: int, latency_s: float) -> None:
        super().__init__(message)
        self.requests = requests
        self.latency_s = latency_s


DEFAULT_MAX_CONNECTION_FAILURES = 10
# Sent with a retried attempt: how many came before it (OpenAI's SDK sends the same count as
# ``x-stainless-retry-count``).  Providers may ignore it; the planted-skill server of the tests
# (tests/doubles/planted_server.py) draws its simulated overloads from it, so that identical
# requests of different matches meet the same faults whatever the order they arrive in.
RETRY_HEADER = "x-retry-count"
ERROR_DETAIL_BYTES = 64 * 1024  # of an error reply's body, read for its message
TIMEOUT_GRACE_S = 0.1  # past an attempt's time, before the attempt is cut off whatever it does


class CircuitBreaker:
    """Opens after ``threshold`` consecutive connection failures (see the module docstring)."""

    def __init__(self, threshold: int = DEFAULT_MAX_CONNECTION_FAILURES) -> None:
        if threshold < 1:
            raise ValueError(f"connection-failure threshold must be at least 1, got {threshold}")
        self.threshold = threshold
        self.consecutive = 0
        self.reason: str | None = None  # set once open
        self._opened: asyncio.Event | None = None
        self._only_connections = True  # every counted failure was a connection failure

    def _event(self) -> asyncio.Event:
        if self._opened is None:
            self._opened = asyncio.Event()
            if self.reason is not None:
                self._opened.set()
        return self._opened

    def replied(self) -> None:
        """A reply that is not a retryable failure came back: the endpoint answers."""
        if self.reason is None:
            self.consecutive = 0
            self._only_connections = True

    def failed(self, url: str, what: str, connection: bool = True) -> None:
        """A connection failure, or (``connection=False``) a request given up after retryable
        replies; opens the breaker at the threshold."""
        if self.reason is not None:
            return
        self.consecutive += 1
        self._only_connections = self._only_connections and connection
        if self.consecutive >= self.threshold:
            kind = "connection failures" if self._only_connections else "failures"
            self.reason = f"{self.consecutive} consecutive {kind} at {url} (the last: {what})"
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

    def __init__(
        self,
        concurrency: int,
        requests_per_minute: float | None = None,
        *,
        burst: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """``burst``: request starts allowed back to back after a quiet spell (default: one
        second's worth of the rate, at least 1; 1 spaces every start).  ``clock`` and ``sleep``
        are the time the gate and its transports keep (rate, pauses, retry waits, a request's
        bound): the system's, or a test's."""
        if concurrency < 1:
            raise ValueError(f"provider concurrency must be at least 1, got {concurrency}")
        if requests_per_minute is not None and requests_per_minute <= 0:
            raise ValueError(f"requests_per_minute must be positive, got {requests_per_minute}")
        if burst is not None and burst < 1:
            raise ValueError(f"burst must be at least 1, got {burst}")
        self.concurrency = concurrency
        self.clock = clock
        self.sleep = sleep
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        if burst is None:
            burst = max(1, int((requests_per_minute or 0.0) / 60.0))
        self.burst = burst
        self._free: asyncio.Queue[int] = asyncio.Queue()
        for slot in range(concurrency):
            self._free.put_nowait(slot)
        # the generic cell rate: the theoretical time of the next start; a start is allowed
        # while it is at most ``(burst - 1) * interval`` ahead of the clock
        self._next_start = -math.inf
        self._paused_until = 0.0
        self._last_refusal = -math.inf
        self._asked = 0.0

    def free_slots(self) -> int:
        return self._free.qsize()

    def pause(self, seconds: float) -> None:
        """Hold every request of this provider for ``seconds`` from now (a 429's Retry-After)."""
        self._paused_until = max(self._paused_until, self.clock() + seconds)

    def refused(self, seconds: float) -> None:
        """A 429 asking ``seconds`` of wait.  When the harness keeps the provider's declared
        rate, a lone 429 is the provider's own trouble (overloaded), and only the request that
        got it waits; a second 429 within the wait the first asked means the rate is more than
        the provider takes, and every request waits.  With no declared rate, every 429 pauses
        the provider: it is how the harness learns the limit."""
        now = self.clock()
        in_a_run = now - self._last_refusal <= max(seconds, self._asked)
        self._last_refusal, self._asked = now, seconds
        if not self.interval or in_a_run:
            self.pause(seconds)

    async def acquire(self, until: float | None = None) -> int | None:
        """Wait for a free slot, the rate limit and any pause; return the slot's number, or
        None when the request could not start before ``until`` (on the gate's ``clock``)."""
        if until is None:
            slot = await self._free.get()
        else:
            found = await self._slot_before(until)
            if found is None:
                return None
            slot = found
        tolerance = (self.burst - 1) * self.interval
        try:
            while True:
                now = self.clock()
                start = max(now, self._next_start - tolerance, self._paused_until)
                if start <= now:
                    self._next_start = max(self._next_start, now) + self.interval
                    return slot
                if until is not None and start > until:
                    self._free.put_nowait(slot)
                    return None
                await self.sleep(start - now)
        except BaseException:
            self._free.put_nowait(slot)
            raise

    async def _slot_before(self, until: float) -> int | None:
        """A free slot if one comes before ``until``, else None; never loses a slot (a wait
        cut off after the queue handed one over gives it back)."""
        getter = asyncio.ensure_future(self._free.get())
        try:
            await asyncio.wait({getter}, timeout=max(until - self.clock(), 0.0))
        except BaseException:  # cancelled while waiting
            if getter.done() and not getter.cancelled():
                self._free.put_nowait(getter.result())
            else:
                getter.cancel()
            raise
        if not getter.done():
            getter.cancel()  # the queue keeps the slot if it had just handed it over
            with contextlib.suppress(asyncio.CancelledError):
                await getter
        if getter.cancelled():
            return None
        return getter.result()

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
        max_request_s: float | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        self.breaker = breaker
        self.clients = [clients] if isinstance(clients, httpx.AsyncClient) else list(clients)
        if not self.clients:
            raise ValueError("a transport needs at least one HTTP client")
        self.slots_per_client = -(-gate.concurrency // len(self.clients))
        self.gate = gate
        self.retry = retry
        self.rng = rng
        self.timeout_s = timeout_s
        if max_request_s is None:
            max_request_s = retry.deadline_s
        if max_request_s is None:
            max_request_s = 2 * timeout_s + retry.max_retry_after_s
        if max_request_s <= 0:
            raise ValueError(f"max_request_s must be positive, got {max_request_s}")
        self.max_request_s = max_request_s
        self.max_reply_bytes = max_reply_bytes
        self._urls: dict[str, httpx.URL] = {}  # each endpoint parsed once, not per request

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
        deadline: float | None = None  # the gate's clock by which the request ends
        answered = False  # the last attempt was answered with a retryable status

        async def attempt(number: int) -> Response | Failed | None:
            """One attempt: the reply, a retryable failure, or None when the request's time
            ran out before it could start."""
            nonlocal sent, spent, deadline, answered
            slot = await self.gate.acquire(deadline)
            if slot is None:
                return None
            if deadline is None:
                deadline = self.gate.clock() + self.max_request_s
            if breaker is not None and breaker.reason is not None:
                self.gate.release(slot)
                raise EndpointUnavailable(breaker.reason, sent, spent)
            client = self.clients[slot // self.slots_per_client]
            limit = min(self.timeout_s, deadline - self.gate.clock())
            answered = False
            writes = RequestWrites()
            started = time.perf_counter()
            try:
                # httpx's own timeouts first (they know whether the request was sent); this
                # one ends a reply that trickles in slower than any read timeout notices
                async with asyncio.timeout(max(limit, 0.0) + TIMEOUT_GRACE_S):
                    sent_headers = {**headers, RETRY_HEADER: str(number)} if number else headers
                    status, reason, reply_headers, content = await self._exchange(
                        client, url, payload, sent_headers, limit, writes
                    )
            except (TimeoutError, httpx.TimeoutException) as exc:
                spent += time.perf_counter() - started
                sent += writes.count
                what = _described(exc) if str(exc) else f"no reply within {limit:.3g} s"
                if breaker is not None:
                    breaker.failed(url, f"timed out ({what})")
                short = type(exc).__name__ if str(exc) else what
                return Failed(f"timed out ({short})", timed_out=True)
            except BodyTooLarge as exc:
                spent += time.perf_counter() - started
                sent += writes.count
                raise ReplyRejected(
                    f"refused a reply larger than {exc.limit:,} bytes (the limit)", sent, spent
                ) from None
            except (httpx.TransportError, OSError) as exc:
                spent += time.perf_counter() - started
                sent += writes.count
                if breaker is not None:
                    breaker.failed(url, f"connection failed ({_described(exc)})")
                return Failed(f"connection failed ({type(exc).__name__})")
            finally:
                self.gate.release(slot)
            latency = time.perf_counter() - started
            spent += latency
            sent += writes.count  # a request the lean transport wrote again counts twice
            status_retryable = retryable_status(status)
            if breaker is not None and not status_retryable:
                breaker.replied()
            if 200 <= status < 300:
                try:
                    decoded = decode_reply(content, self.max_reply_bytes)
                except ReplyRefused as exc:
                    raise ReplyRejected(f"refused {exc}", sent, spent) from None
                except MalformedReply:
                    decoded = None
                if decoded is not None:
                    return Response(decoded, latency, number + 1, sent)
                return Failed(f"HTTP {status} with a body that is not JSON")
            detail = _detail(content, reason, secrets)
            if not status_retryable:
                raise NonRetryableError(status, f"HTTP {status}: {detail}", sent, spent)
            answered = True
            asked = retry_after_seconds(reply_headers.get("retry-after"))
            if asked is not None and status == 429:
                self.gate.refused(min(asked, self.retry.max_retry_after_s))
            return Failed(f"HTTP {status}: {detail}", retry_after=asked)

        retrying = Retrying(self.retry, self.rng)
        failure: Failed | None = None
        given_up = ""  # why the request stopped before its retries ran out
        out_of_time = False
        while True:
            if breaker is not None and breaker.reason is not None:
                raise EndpointUnavailable(breaker.reason, sent, spent)
            outcome = await attempt(retrying.attempts - 1)
            if isinstance(outcome, Response):
                return outcome
            if outcome is None:  # the provider's pause or a full gate outlasted the bound
                retrying.attempts -= 1  # the attempt was not made
                given_up = f"could not start another attempt within {self.max_request_s:.3g} s"
                out_of_time = True
                break
            failure = outcome
            cap = self.retry.max_retry_after_s
            if outcome.retry_after is not None and outcome.retry_after > cap:
                given_up = (
                    f"Retry-After {outcome.retry_after:.3g} s is past the cap of {cap:.3g} s "
                    "(max_retry_after_s)"
                )
                break
            wait = retrying.after(outcome)
            if wait is None:
                break
            if deadline is not None and self.gate.clock() + wait >= deadline:
                retrying.attempts -= 1  # the retry is not made
                given_up = f"a retry would start past the bound of {self.max_request_s:.3g} s"
                out_of_time = True
                break
            if breaker is None:
                await self.gate.sleep(wait)
            else:
                await breaker.pause(wait)
        assert failure is not None  # the first attempt always starts
        attempts = retrying.attempts
        message = f"{failure.reason} (after {attempts} attempts" + (
            f"; {given_up})" if given_up else ")"
        )
        if breaker is not None and answered:
            # given up on a retryable status (429, 5xx): one failure of the endpoint
            breaker.failed(url, message, connection=False)
        if breaker is not None and breaker.reason is not None:
            raise EndpointUnavailable(breaker.reason, sent, spent)
        timed_out = failure.timed_out or out_of_time
        kind: Literal["timeout", "error"] = "timeout" if timed_out else "error"
        raise RetriesExhausted(kind, message, attempts, sent, spent)

    async def _exchange(
        self,
        client: httpx.AsyncClient,
        url: str,
        payload: bytes,
        headers: dict[str, str],
        limit_s: float,
        writes: RequestWrites,
    ) -> tuple[int, str, httpx.Headers, bytes]:
        """One POST, its body read from the stream within ``max_reply_bytes`` (``BodyTooLarge``
        past it): (status, reason, headers, body); ``writes`` counts the request's writes."""
        bound = self.max_reply_bytes
        timeout = httpx.Timeout(limit_s, connect=min(limit_s, 30.0))
        target = self._urls.get(url)
        if target is None:
            target = self._urls[url] = httpx.URL(url)
        async with client.stream(
            "POST",
            target,
            content=payload,
            # taken as sent, so the bound counts the bytes that arrive (a compressed reply is
            # still bounded decoded, by as much as one piece expands)
            headers={"accept-encoding": "identity", **headers},
            timeout=timeout,
            extensions={MAX_BODY_EXTENSION: bound, WRITES_EXTENSION: writes, "trace": writes.trace},
        ) as reply:
            declared = reply.headers.get("content-length", "").strip()
            if declared.isdigit() and int(declared) > bound:
                raise BodyTooLarge(bound, request=reply.request)
            chunks: list[bytes] = []
            size = 0
            async for chunk in reply.aiter_bytes():
                size += len(chunk)
                if size > bound:
                    raise BodyTooLarge(bound, request=reply.request)
                chunks.append(chunk)
            return reply.status_code, reply.reason_phrase, reply.headers, b"".join(chunks)


def _described(exc: BaseException, limit: int = 160) -> str:
    """An exception's type and message on one short line (``ConnectError: ... refused``)."""
    text = " ".join(str(exc).split())
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _detail(content: bytes, reason: str, secrets: tuple[str, ...], limit: int = 300) -> str:
    """A short, redacted description of an error reply (the provider's message if it has one)."""
    text = content[:ERROR_DETAIL_BYTES].decode("utf-8", errors="replace")
    try:
        data = decode_reply(content[:ERROR_DETAIL_BYTES])
    except MalformedReply:
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
    return text or reason or "no detail"
