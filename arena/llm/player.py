"""An LLM as a tournament player: prompting, the lenient parser, rethink and fallback.

Paper, Section 5 ("Prompting and corpus") and the per-turn prompt of the appendix; Game Arena's
rethink.  A decision:

1. the system prompt is the game's rulebook; the user message is the per-turn prompt (the
   seat's observation, the legal menu and the request for ``{"action": ...}``);
2. the request goes through the response cache (a hit costs no call), else the transport;
3. the reply is read by the lenient parser; an unparsable or illegal reply earns a rethink:
   the reply and one sentence of feedback ("could not be parsed" / "not a legal action") are
   appended to the conversation and the model is asked again, up to ``rethinks`` times;
4. if no reply names a legal action, the fallback is played (the minimum amount for a wager or
   bid, else a random legal choice from the match's generator) and the move is flagged.

Token counts, latency and cost are summed over the calls of the move; ``calls`` counts the
requests that reached the provider, retries included, and a reply read back from the response
cache counts the requests that first obtained it (so a resumed tournament records what an
uninterrupted one does).  Requests that got no reply are kept too: a failed call is cached as
its failure with its requests, and when a live run asks the call again (``--retry-failed``, or
the match of a player the circuit breaker stopped, played on a later run), the new entry and
the move count the earlier requests with the new ones, so the corpus counts every request the
provider saw for the call (capped at the cache's ``MAX_CALLS``).  A non-retryable error (bad
key, unknown model, bad request), an offline cache miss, a spent budget or an unavailable
endpoint (the transport's circuit breaker) stops the player (``PlayerStopped``; a stop by a
reply or by the breaker is cached as a ``stopped`` failure, which an offline rebuild replays as
the same stop); exhausted retries fail the move (``MoveNotObtained``, a ``MoveFailed``), and
the harness ends the match with status ``timeout`` or ``error``.  A move
that fails or forfeits (``MoveForfeited``) carries what its requests took (``Unfinished``), so
the harness records them too (``arena.tournament.runner``).

A reply outside the bounds of ``arena.llm.providers`` (larger than ``MAX_REPLY_BYTES``, nested
too deeply, a token count that is not an integer from 0 to ``MAX_TOKEN_COUNT``) is an error of
its request: the move fails with status ``error`` and its requests counted, and the failure,
not the reply, is cached.  A cache entry outside those bounds (an older version's) is asked
again by a live run and stops the player, in one line, offline.

Budgets (``budget``, set by the tournament runner): before a request is sent, its worst-case
cost (``worst_case_usd``: every byte of the request body an input token at the dearest input
price, plus the request's own output limit, else ``DEFAULT_OUTPUT_BOUND`` tokens, at the
output price) is reserved; after it, the reservation is settled with the actual cost.  A reply
read from the cache is charged at its cost, with no reservation.  The API key lives only in
this object's memory and the request headers.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from arena.llm.cache import (
    MAX_CALLS,
    CachedReply,
    CacheMiss,
    ResponseCache,
    UnusableEntry,
    request_key,
)
from arena.llm.providers import (
    MAX_TEXT_CHARS,
    ChatReply,
    ChatRequest,
    MalformedReply,
    Message,
    Provider,
    ResponseFormat,
    bounded_text,
)
from arena.llm.transport import (
    EndpointUnavailable,
    NonRetryableError,
    ReplyRejected,
    Response,
    RetriesExhausted,
    Transport,
)
from arena.llm.usage import UNAVAILABLE, MoveForfeited, MoveNotObtained, Unfinished, Usage
from arena.secrets import redact
from engines.agents.base import Decision, FailureStatus, MoveFailed, PlayerStopped
from engines.agents.parser import (
    FEEDBACK,
    Parsed,
    action_schema,
    fallback_action,
    parse_move,
    parse_reply,
)
from engines.gbg import rulebook
from engines.gbg.engine import State
from engines.gbg.render import turn_prompt
from engines.openspiel.spec import OpenSpielSpec
from engines.openspiel.state import OpenSpielState
from engines.openspiel.text import conservative_move, rules_text

# A cached call that failed (retries exhausted, malformed reply) is stored under this key, so
# an offline rebuild reproduces the failed match; a live run ignores it and asks again.
FAILURE_KEY = "__genstrat_failed_call__"
# The kind of a cached failure that stopped the player (a non-retryable reply, the circuit
# breaker): a live run asks again, an offline one stops the player with its message.
STOPPED: Final = "stopped"
# A failure the cache recorded for a call: its kind and message.
CachedFailure = tuple[FailureStatus | Literal["stopped"], str]
# Output tokens assumed for a request that sets no output limit (budgets' worst case).
DEFAULT_OUTPUT_BOUND = 4096
OUTPUT_LIMIT_FIELDS = ("max_tokens", "max_completion_tokens", "max_output_tokens")


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens: input, output, input read from the provider's prompt
    cache (default 0, so no guess is billed) and input written to it (``None``: the input
    price, Anthropic's cache writes cost more and should be given)."""

    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0
    cached_input_per_mtok: float = 0.0
    cache_write_per_mtok: float | None = None

    def cost(
        self, input_tokens: int, output_tokens: int, cached: int = 0, written: int = 0
    ) -> float:
        """The price of a call: ``input_tokens`` is the whole prompt, of which ``cached`` were
        read from and ``written`` were written to the prompt cache."""
        cached = min(max(cached, 0), input_tokens)
        written = min(max(written, 0), input_tokens - cached)
        plain = input_tokens - cached - written
        write_price = (
            self.input_per_mtok if self.cache_write_per_mtok is None else self.cache_write_per_mtok
        )
        return (
            plain * self.input_per_mtok
            + cached * self.cached_input_per_mtok
            + written * write_price
            + output_tokens * self.output_per_mtok
        ) / 1e6


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def output_limit(body: dict[str, Any]) -> int | None:
    """The output-token limit a request body sets (OpenAI, Anthropic or Gemini field), if any."""
    config = body.get("generationConfig")
    found = [body.get(name) for name in OUTPUT_LIMIT_FIELDS]
    if isinstance(config, dict):
        found.append(config.get("maxOutputTokens"))
    limits = [int(v) for v in found if isinstance(v, int | float) and not isinstance(v, bool)]
    return max(limits) if limits else None


class SpendLimit(Protocol):
    """A budget the player reserves against before each request (``arena.tournament.budget``)."""

    async def reserve(self, player: str, usd: float) -> str | None:
        """Reserve ``usd``; None, or the message stopping ``player`` (its budget is spent)."""
        ...

    def settle(self, player: str, reserved: float, usd: float) -> None:
        """Replace a reservation of ``reserved`` by ``usd``, the request's actual cost."""
        ...

    def charge(self, player: str, usd: float) -> None:
        """Count ``usd`` (a reply read back from the response cache) as spent."""
        ...


class CallFailed(MoveFailed):
    """One answer could not be obtained: what its requests took (``calls``, ``latency_s``)."""

    def __init__(
        self, status: FailureStatus, message: str, calls: int, latency_s: float, cached: bool
    ) -> None:
        super().__init__(status, message)
        self.calls = calls
        self.latency_s = latency_s
        self.cached = cached


@dataclass
class LLMPlayer:
    """A model behind a provider's chat API (see the module docstring)."""

    name: str
    provider: Provider
    model: str
    transport: Transport | None
    cache: ResponseCache
    api_key: str | None = field(default=None, repr=False)
    settings: dict[str, Any] = field(default_factory=dict)
    rethinks: int = 1
    response_format: ResponseFormat = "none"
    price: Price = field(default_factory=Price)
    prompt_cache: bool = False
    stopped: str | None = None
    # The style of a generated game's rulebook (the profile's, through the roster): compact,
    # or the paper's Appendix B style with a worked example for each rule.
    rulebook_style: str = "compact"
    budget: SpendLimit | None = field(default=None, repr=False)
    _rulebooks: dict[str, str] = field(default_factory=dict, repr=False)

    def rulebook(self, state: State) -> str:
        spec: Any = state.spec
        text = self._rulebooks.get(spec.spec_hash)
        if text is None:
            text = (
                rules_text(spec)
                if isinstance(spec, OpenSpielSpec)
                else rulebook(spec, style=self.rulebook_style)
            )
            self._rulebooks[spec.spec_hash] = text
        return text

    def stop(self, reason: str) -> PlayerStopped:
        return self.stop_with(f"player {self.name!r} stopped: {reason}")

    def stop_with(self, message: str) -> PlayerStopped:
        """Stop with a whole message (the first stop's message is kept)."""
        if self.stopped is None:
            self.stopped = message
        return PlayerStopped(self.stopped)

    def worst_case_usd(self, request: ChatRequest) -> float:
        """The most ``request`` can cost (see the module docstring)."""
        size = len(json.dumps(request.body, ensure_ascii=False).encode("utf-8"))
        out = output_limit(request.body) or DEFAULT_OUTPUT_BOUND
        p = self.price
        write = p.input_per_mtok if p.cache_write_per_mtok is None else p.cache_write_per_mtok
        dearest = max(p.input_per_mtok, p.cached_input_per_mtok, write)
        return (size * dearest + out * p.output_per_mtok) / 1e6

    async def ask(
        self,
        system: str,
        messages: list[Message],
        legal: tuple[str, ...],
        call_id: str,
        schema: dict[str, Any] | None = None,
    ) -> tuple[ChatReply, float, int, bool]:
        """One answer: (reply, latency, HTTP calls, from cache) for a conversation.

        With a response format, the reply is held to ``schema`` (default: the action schema of
        ``legal``)."""
        if self.response_format == "none":
            schema = None
        elif schema is None:
            schema = action_schema(legal)
        request = self.provider.request(
            self.model,
            system,
            messages,
            self.settings,
            schema,
            self.response_format,
            prompt_cache=self.prompt_cache,
        )
        key = request_key(self.provider.kind, request.url, request.body, call_id)
        found = self._cached(key, call_id)
        earlier = 0  # requests of this call in an earlier run that got no reply
        if found is not None:
            cached, reply, failure = found
            if reply is not None:
                if self.budget is not None:
                    self.budget.charge(self.name, self.reply_cost(reply))
                return reply, cached.latency_s, cached.calls, True
            if self.cache.offline and failure is not None:  # a rebuild replays the failure
                kind, message = failure
                if kind == STOPPED:  # the run that made it stopped the player here
                    raise self.stop_with(message)
                raise CallFailed(kind, message, cached.calls, cached.latency_s, True)
            earlier = cached.calls  # a live run asks again; the count carries them
        if self.cache.offline or self.transport is None:
            raise self.stop(str(CacheMiss(f"no cached reply for call {call_id} (offline)")))
        secrets = (self.api_key,) if self.api_key else ()
        headers = {**request.headers, **self.provider.auth_headers(self.api_key)}
        reserved = 0.0
        if self.budget is not None:
            reserved = self.worst_case_usd(request)
            refusal = await self.budget.reserve(self.name, reserved)
            if refusal is not None:
                raise self.stop_with(refusal)
        spent = 0.0
        try:
            reply, response, calls = await self._send(request, headers, secrets, key, earlier)
            spent = self.reply_cost(reply)
        finally:
            if self.budget is not None:
                self.budget.settle(self.name, reserved, spent)
        return reply, response.latency_s, calls, False

    async def _send(
        self,
        request: ChatRequest,
        headers: dict[str, str],
        secrets: tuple[str, ...],
        key: str,
        earlier: int = 0,
    ) -> tuple[ChatReply, Response, int]:
        """Send a request that missed the cache; cache its reply (or its failure) with the
        requests it took, ``earlier`` ones of the same call included; (reply, response,
        requests)."""
        assert self.transport is not None

        def counted(requests: int) -> int:  # this call's requests, earlier runs' included
            return min(earlier + requests, MAX_CALLS)

        try:
            response = await self.transport.post_json(request.url, request.body, headers, secrets)
        except NonRetryableError as exc:
            stop = self.stop(str(exc))
            self._cache_failure(key, STOPPED, str(stop), exc.latency_s, counted(exc.requests))
            raise stop from None
        except EndpointUnavailable as exc:
            stop = self.stop(redact(f"{UNAVAILABLE}: {exc}", secrets))
            if exc.requests or earlier:
                self._cache_failure(key, STOPPED, str(stop), exc.latency_s, counted(exc.requests))
            raise stop from None
        except RetriesExhausted as exc:
            message = f"player {self.name!r}: {exc}"
            calls = counted(exc.requests)
            self._cache_failure(key, exc.kind, message, exc.latency_s, calls)
            raise CallFailed(exc.kind, message, calls, exc.latency_s, False) from None
        except ReplyRejected as exc:  # a reply past the bounds: an error of this request
            message = f"player {self.name!r}: {exc}"
            calls = counted(exc.requests)
            self._cache_failure(key, "error", message, exc.latency_s, calls)
            raise CallFailed("error", message, calls, exc.latency_s, False) from None
        calls = counted(response.requests)
        body = response.body
        if secrets:
            body = _redact_json(body, secrets)
        try:
            reply = self.provider.parse(body)
        except MalformedReply as exc:
            message = f"player {self.name!r}: malformed reply: {exc}"
            self._cache_failure(key, "error", message, response.latency_s, calls)
            raise CallFailed("error", message, calls, response.latency_s, False) from None
        self.cache.put(key, self.provider.kind, self.model, body, response.latency_s, calls)
        return reply, response, calls

    def _cache_failure(
        self, key: str, kind: str, message: str, latency_s: float, calls: int
    ) -> None:
        failure = {FAILURE_KEY: {"kind": kind, "message": message}}
        self.cache.put(key, self.provider.kind, self.model, failure, latency_s, calls)

    def reply_cost(self, reply: ChatReply) -> float:
        return self.price.cost(
            reply.input_tokens,
            reply.output_tokens,
            reply.cached_input_tokens,
            reply.cache_write_tokens,
        )

    def _cached(
        self, key: str, call_id: str
    ) -> tuple[CachedReply, ChatReply | None, CachedFailure | None] | None:
        """The cache's entry for ``key``: (entry, its reply or None, its recorded failure or
        None); None when there is none, or (a live run) when it is unusable: it is asked
        again.  Offline, an unusable entry stops the player with one line."""
        try:
            cached = self.cache.get(key, call_id)
            if cached is None:
                return None
            failure = cached.body.get(FAILURE_KEY) if isinstance(cached.body, dict) else None
            if failure is None:
                try:
                    reply = self.provider.parse(cached.body)
                except MalformedReply as exc:
                    raise UnusableEntry(
                        f"the cached reply of call {call_id} is unusable: {exc}"
                    ) from None
                return cached, reply, None
            return cached, None, _recorded_failure(failure, call_id)
        except UnusableEntry as exc:
            if self.cache.offline:
                raise self.stop(f"{exc}; run without --offline to ask the provider again") from None
            return None

    async def decide(
        self, state: State, seat: int, rng: random.Random, call_id: str, preamble: str = ""
    ) -> Decision:
        """One move; ``preamble`` (a multi-hand episode's earlier hands, issue 19) is put before
        the turn prompt."""
        if self.stopped is not None:
            raise PlayerStopped(self.stopped)
        legal = state.legal_actions()
        system = self.rulebook(state)
        # An OpenSpiel game brings its own prompt, move reader and illegal-move protocol.
        game: Any = state
        protocol = game.spec.protocol if isinstance(game, OpenSpielState) else None
        prompt = preamble + (game.turn_prompt(seat) if protocol else turn_prompt(state, seat))
        rethinks = protocol.rethinks if protocol else self.rethinks
        messages: list[Message] = [{"role": "user", "content": prompt}]
        replies: list[str] = []
        reasoning: list[str] = []
        usage = Usage()
        asks = 0
        first: Parsed | None = None
        parsed = Parsed("unparsable")

        def unfinished() -> Unfinished:
            return Unfinished(
                prompt_sha256=sha256_text(prompt),
                replies=tuple(replies),
                verdict=first.verdict if first is not None else "none",
                asks=asks,
                usage=usage,
                reasoning="\n\n".join(reasoning) or None,
            )

        for attempt in range(rethinks + 1):
            asks += 1
            try:
                reply, took, n_calls, cached = await self.ask(
                    system, messages, legal, f"{call_id}/{attempt}"
                )
            except CallFailed as exc:
                usage.calls += exc.calls
                usage.latency_s += exc.latency_s
                usage.cached = usage.cached and exc.cached
                raise MoveNotObtained(exc.status, str(exc), unfinished()) from None
            usage.latency_s += took
            usage.calls += n_calls
            usage.cached = usage.cached and cached
            usage.input_tokens += reply.input_tokens
            usage.output_tokens += reply.output_tokens
            usage.reasoning_tokens += reply.reasoning_tokens
            usage.cached_input_tokens += reply.cached_input_tokens
            usage.cost_usd += self.reply_cost(reply)
            text = reply.text or ""
            replies.append(text)
            if reply.reasoning:
                reasoning.append(reply.reasoning)
            if protocol:
                verdict, move = parse_move(game, text)
                parsed = Parsed(verdict, action=move)  # type: ignore[arg-type]
            else:
                parsed = parse_reply(text, legal)
            first = first or parsed
            if parsed.verdict == "ok" or attempt == rethinks:
                break
            messages = [
                *messages,
                {"role": "assistant", "content": text or "(empty reply)"},
                {"role": "user", "content": FEEDBACK[parsed.verdict]},
            ]
        fallback = parsed.verdict != "ok" or parsed.action is None
        if fallback and protocol and protocol.exhausted == "forfeit":
            raise MoveForfeited(
                f"no legal move in {len(replies)} replies (protocol {protocol.name}); "
                f"last reply {replies[-1][:200]!r}",
                unfinished(),
            )
        if fallback and protocol and protocol.exhausted == "conservative":
            action: str | None = conservative_move(legal)
        else:
            action = fallback_action(legal, rng) if fallback else parsed.action
        assert action is not None
        return Decision(
            action=action,
            raw_response=replies[-1],
            prompt_sha256=sha256_text(prompt),
            fallback=fallback,
            rethinks=len(replies) - 1,
            verdict=first.verdict if first is not None else "unparsable",
            latency_s=usage.latency_s,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            cached_input_tokens=usage.cached_input_tokens,
            cost_usd=usage.cost_usd,
            calls=usage.calls,
            cached=usage.cached,
            reasoning="\n\n".join(reasoning) or None,
            earlier_responses=tuple(replies[:-1]),
        )


def _recorded_failure(failure: Any, call_id: str) -> CachedFailure:
    """A failure the cache recorded for a call (``UnusableEntry`` when it is not one)."""
    if isinstance(failure, dict):
        kind, message = failure.get("kind"), failure.get("message")
        if kind in ("timeout", "error", STOPPED) and isinstance(message, str):
            return kind, bounded_text(message, MAX_TEXT_CHARS)
    raise UnusableEntry(f"the cached failure of call {call_id} is unusable: not a failure")


def _redact_json(value: Any, secrets: tuple[str, ...]) -> Any:
    """``value`` with every string redacted (a reply that echoes a key must not store it)."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        return [_redact_json(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: _redact_json(v, secrets) for k, v in value.items()}
    return value
