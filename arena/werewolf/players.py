"""The seats of a Werewolf game: a model through the project's LLM player, or a built-in bot.

Why it exists: an LLM seat asks ``arena.llm.player.LLMPlayer.ask`` (the roster's provider
format, transport with its retries and backoff, response cache, budget), so Werewolf adds no
HTTP code; what it adds is Game Arena's harness for this game (Game Arena report, "Werewolf").
A decision:

1. a stopped player (bad key, spent budget, unavailable endpoint, offline cache miss) forfeits
   at once, with the reason;
2. the prompt is built from the seat's view (``arena.werewolf.prompts``: truncated to
   ``context_chars``); each answer is read (a legal action, or a statement);
3. an unreadable or illegal answer earns a retry with one sentence of feedback, up to the
   player's ``rethinks`` (the roster's protocol: ``paper`` none, ``arena`` K);
4. if no answer could be read, or a request failed after the transport's own retries, or the
   player stopped, the turn is **forfeited**: ``pass`` for a choice, silence for a statement,
   both always legal.  The decision says why (``forfeit``).

Unlike a two-player match, a game of eight does not end when one seat cannot move: the seat
forfeits its turns and the game goes on, so the other seven players' game is not lost.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Protocol

from arena.llm.player import CallFailed, LLMPlayer, sha256_text
from arena.llm.providers import Message
from arena.llm.usage import Usage
from arena.werewolf.prompts import (
    DEFAULT_CONTEXT_CHARS,
    STATEMENT_FEEDBACK,
    build_prompt,
    parse_statement,
    reply_schema,
)
from engines.agents.base import Decision, PlayerStopped
from engines.agents.parser import FEEDBACK, parse_reply
from engines.werewolf.bots import WerewolfBot
from engines.werewolf.rules import WerewolfRules
from engines.werewolf.view import PASS, PlayerView


@dataclass(frozen=True)
class SeatDecision:
    """A move as the transcript records it: the project's ``Decision`` (action, replies,
    usage), the statement as given before the filter, log lines truncation omitted, the
    prompt's length, and why the turn was forfeited (None: it was not)."""

    decision: Decision
    said: str | None = None
    omitted: int = 0
    prompt_chars: int = 0
    forfeit: str | None = None


class Seat(Protocol):
    @property
    def name(self) -> str: ...

    async def decide(self, view: PlayerView, rng: random.Random, call_id: str) -> SeatDecision: ...


def forfeit_action(view: PlayerView) -> str:
    """The always-legal abstention of the view's request."""
    assert view.request is not None
    return "" if view.request.free_text else PASS


@dataclass
class BotSeat:
    """A built-in bot (``engines.werewolf.bots``) as a seat."""

    bot: WerewolfBot
    label: str

    @property
    def name(self) -> str:
        return self.label

    async def decide(self, view: PlayerView, rng: random.Random, call_id: str) -> SeatDecision:
        started = time.perf_counter()
        action = self.bot.act(view, rng)
        decision = Decision(action=action, latency_s=time.perf_counter() - started)
        said = action if view.request is not None and view.request.free_text else None
        return SeatDecision(decision, said=said)


@dataclass
class LLMSeat:
    """A model as a seat (module docstring)."""

    llm: LLMPlayer
    rules: WerewolfRules = field(default_factory=WerewolfRules)
    context_chars: int = DEFAULT_CONTEXT_CHARS

    @property
    def name(self) -> str:
        return self.llm.name

    async def decide(self, view: PlayerView, rng: random.Random, call_id: str) -> SeatDecision:
        request = view.request
        if request is None:
            raise ValueError(f"{view.name} has nothing to decide")
        if self.llm.stopped is not None:
            return SeatDecision(Decision(action=forfeit_action(view)), forfeit=self.llm.stopped)
        prompt = build_prompt(view, self.rules, self.context_chars)
        messages: list[Message] = [{"role": "user", "content": prompt.user}]
        usage = Usage()
        replies: list[str] = []
        reasoning: list[str] = []
        first: str | None = None
        action: str | None = None
        forfeit: str | None = None
        for attempt in range(self.llm.rethinks + 1):
            try:
                reply, took, calls, cached = await self.llm.ask(
                    prompt.system,
                    messages,
                    request.options,
                    f"{call_id}/{attempt}",
                    reply_schema(request),
                )
            except PlayerStopped as exc:
                forfeit = str(exc)
                break
            except CallFailed as exc:
                usage.calls += exc.calls
                usage.latency_s += exc.latency_s
                usage.cached = usage.cached and exc.cached
                forfeit = f"{exc.status}: {exc}"
                break
            usage.calls += calls
            usage.latency_s += took
            usage.cached = usage.cached and cached
            usage.input_tokens += reply.input_tokens
            usage.output_tokens += reply.output_tokens
            usage.reasoning_tokens += reply.reasoning_tokens
            usage.cached_input_tokens += reply.cached_input_tokens
            usage.cost_usd += self.llm.reply_cost(reply)
            text = reply.text or ""
            replies.append(text)
            if reply.reasoning:
                reasoning.append(reply.reasoning)
            if request.free_text:
                said = parse_statement(text)
                verdict, action = ("ok", said) if said is not None else ("unparsable", None)
                feedback = STATEMENT_FEEDBACK
            else:
                parsed = parse_reply(text, request.options)
                verdict, action = parsed.verdict, parsed.action
                feedback = FEEDBACK.get(parsed.verdict, "")
            first = first or verdict
            if action is not None:
                break
            messages = [
                *messages,
                {"role": "assistant", "content": text or "(empty reply)"},
                {"role": "user", "content": feedback},
            ]
        if action is None:
            forfeit = forfeit or f"no readable reply in {len(replies)} answers"
            action = forfeit_action(view)
        decision = Decision(
            action=action,
            raw_response=replies[-1] if replies else None,
            prompt_sha256=sha256_text(prompt.system + "\n" + prompt.user),
            fallback=forfeit is not None,
            rethinks=max(0, len(replies) - 1),
            verdict=first or "none",
            latency_s=usage.latency_s,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            cost_usd=usage.cost_usd,
            calls=usage.calls,
            cached=usage.cached and usage.calls > 0,
            cached_input_tokens=usage.cached_input_tokens,
            reasoning="\n\n".join(reasoning) or None,
            earlier_responses=tuple(replies[:-1]),
        )
        said = action if request.free_text else None
        return SeatDecision(decision, said, prompt.omitted, len(prompt.user), forfeit)
