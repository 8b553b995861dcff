"""``tournament plan``: what a tournament will ask of each model, and cost, before any call.

``plan_tournament(roster, games, runs)`` builds the tournament's schedule (the same as
``run_tournament``'s) and measures, for every LLM player:

1. **matches**: its scheduled matches (those already in ``folder``'s corpus left out, so a plan
   of a half-played tournament prices what is left);
2. **calls**: its moves in those matches.  Each match is played out without any model: the
   deal from the match's own play seed, built-in players as themselves and every other player
   by a uniform random choice from the seat's generator (a stand-in for a model's choices), so
   the count of decisions per match and the prompts shown are those of the real games.  At
   most ``sample`` matches per game are played out (deterministically chosen) and scaled to
   the game's count.  One call per move: the ``paper`` protocol's count; under ``arena`` a
   rethink adds a call for each unreadable reply, which the plan cannot know (a lower bound);
3. **input tokens**: the characters of the real rulebook (the system prompt) and per-turn
   prompt of each move, divided by the player's ``expect.chars_per_token`` (default 4);
4. **cached input tokens**, when the player caches prompts: the rulebook's tokens on every call
   but the first of each game for that player, provided the rulebook is at least
   ``MIN_CACHED_TOKENS`` long (the providers' minimum prefix);
5. **output tokens**: ``expect.reply_tokens`` per call;
6. **cost**: the roster's prices (``arena.llm.player.Price``, cached tokens at their price);
7. **time**: per provider group, its calls at the group's throughput, the smaller of
   ``concurrency / expect.latency_s`` and ``requests_per_minute / 60``; groups run side by
   side, so the tournament takes the longest group's time.

Budgets are shown beside the estimates (``over_budget`` when a player's estimate passes its
``max_usd``, or the total the run's).
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.llm.player import Price
from arena.reference_engines import make_builtin
from arena.roster import ApiEntry, BuiltinEntry, Roster
from engines.agents.builtin import RandomAgent
from engines.gbg import GameSpec, rulebook
from engines.gbg.engine import new_deal
from engines.gbg.render import turn_prompt
from engines.openspiel.text import rules_text
from engines.tournament.match import seat_rng
from engines.tournament.schedule import Game, ScheduledMatch

MIN_CACHED_TOKENS = 1024
DEFAULT_SAMPLE = 200


@dataclass
class ModelPlan:
    """The estimate for one LLM player."""

    name: str
    provider_group: str
    matches: int = 0
    calls: float = 0.0
    input_tokens: float = 0.0
    cached_input_tokens: float = 0.0
    output_tokens: float = 0.0
    cost_usd: float = 0.0
    max_usd: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "calls": round(self.calls),
            "input_tokens": round(self.input_tokens),
            "cached_input_tokens": round(self.cached_input_tokens),
            "output_tokens": round(self.output_tokens),
            "cost_usd": round(self.cost_usd, 6),
            "max_usd": self.max_usd,
            "over_budget": self.max_usd is not None and self.cost_usd > self.max_usd,
            "provider": self.provider_group,
        }


@dataclass
class TournamentPlan:
    matches: int
    already_played: int
    models: dict[str, ModelPlan]
    hours_by_provider: dict[str, float]
    max_usd: float | None = None
    games: list[str] = field(default_factory=list)

    @property
    def cost_usd(self) -> float:
        return sum(m.cost_usd for m in self.models.values())

    @property
    def hours(self) -> float:
        return max(self.hours_by_provider.values(), default=0.0)

    def totals(self) -> dict[str, Any]:
        keys = ("calls", "input_tokens", "cached_input_tokens", "output_tokens")
        out: dict[str, Any] = {
            k: round(sum(getattr(m, k) for m in self.models.values())) for k in keys
        }
        out["cost_usd"] = round(self.cost_usd, 6)
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "already_played": self.already_played,
            "games": self.games,
            "models": {name: m.as_dict() for name, m in sorted(self.models.items())},
            "total": self.totals(),
            "max_usd": self.max_usd,
            "over_budget": self.max_usd is not None and self.cost_usd > self.max_usd,
            "hours": round(self.hours, 3),
            "hours_by_provider": {
                k: round(v, 3) for k, v in sorted(self.hours_by_provider.items())
            },
        }


def _sampled(matches: list[ScheduledMatch], sample: int) -> list[ScheduledMatch]:
    if len(matches) <= sample:
        return matches
    return sorted(random.Random(0).sample(matches, sample), key=lambda m: m.match_id)


def _playout(m: ScheduledMatch, roster: Roster) -> list[tuple[str, str]]:
    """The (player, per-turn prompt) of each LLM decision of the match, played out with
    built-ins as themselves and everyone else choosing uniformly at random."""
    entries = (roster.player(m.alice), roster.player(m.bob))
    agents = [
        make_builtin(e.agent, e.params) if isinstance(e, BuiltinEntry) else RandomAgent()
        for e in entries
    ]
    rngs = (seat_rng(m.play_seed, m.deal, 0), seat_rng(m.play_seed, m.deal, 1))
    spec = m.game.spec
    generated = isinstance(spec, GameSpec)
    state: Any = (
        new_deal(spec, m.play_seed) if isinstance(spec, GameSpec) else spec.new_deal(m.play_seed)
    )
    asked: list[tuple[str, str]] = []
    while state.current_player >= 0:
        seat = state.current_player
        if isinstance(entries[seat], ApiEntry):
            prompt = turn_prompt(state, seat) if generated else state.turn_prompt(seat)
            asked.append((entries[seat].name, prompt))
        state.apply(agents[seat].act(state, seat, rngs[seat]))
    return asked


def plan_tournament(
    roster: Roster,
    games: Sequence[Game],
    runs: int,
    folder: Path | None = None,
    sample: int = DEFAULT_SAMPLE,
) -> TournamentPlan:
    """The estimate of the module docstring (``folder``: a corpus whose matches are done)."""
    from arena.tournament.runner import tournament_schedule

    schedule = tournament_schedule(roster, games, runs)
    done: set[str] = set()
    if folder is not None and (folder / "journal.jsonl").exists():
        from arena.tournament.journal import Corpus

        with Corpus(folder) as corpus:
            done = {m.match_id for m in schedule if corpus.status(m.match_id) is not None}
    pending = [m for m in schedule if m.match_id not in done]
    api = {e.name: e for e in roster.players if isinstance(e, ApiEntry)}
    models = {name: ModelPlan(name, e.provider_group, max_usd=e.max_usd) for name, e in api.items()}
    prices = {
        name: Price(
            e.price.input_per_mtok,
            e.price.output_per_mtok,
            e.price.cached_input_per_mtok,
            e.price.cache_write_per_mtok,
        )
        for name, e in api.items()
    }
    by_game: dict[str, list[ScheduledMatch]] = defaultdict(list)
    for m in pending:
        by_game[m.game.token].append(m)
        for name in m.players:
            if name in models:
                models[name].matches += 1
    for game_matches in by_game.values():
        spec = game_matches[0].game.spec
        style = roster.rulebook_style or "compact"  # the players' own prompts
        system = len(
            rulebook(spec, style=style) if isinstance(spec, GameSpec) else rules_text(spec)
        )
        chosen = _sampled(game_matches, sample)
        scale = len(game_matches) / len(chosen)
        prompts: dict[str, list[int]] = defaultdict(list)
        for m in chosen:
            for name, prompt in _playout(m, roster):
                prompts[name].append(len(prompt))
        for name, lengths in prompts.items():
            entry, plan = api[name], models[name]
            per_char = entry.expect.chars_per_token
            calls = len(lengths) * scale
            tokens = sum(math.ceil((system + n) / per_char) for n in lengths) * scale
            rulebook_tokens = system / per_char
            cached = 0.0
            if entry.caches_prompt and rulebook_tokens >= MIN_CACHED_TOKENS and calls >= 1:
                cached = rulebook_tokens * (calls - 1)
            output = entry.expect.reply_tokens * calls
            plan.calls += calls
            plan.input_tokens += tokens
            plan.cached_input_tokens += cached
            plan.output_tokens += output
            plan.cost_usd += prices[name].cost(round(tokens), round(output), round(cached))
    hours: dict[str, float] = defaultdict(float)
    for name, plan in models.items():
        entry = api[name]
        limits = roster.limits(entry.provider_group)
        rate = limits.concurrency / entry.expect.latency_s  # calls per second
        if limits.requests_per_minute is not None:
            rate = min(rate, limits.requests_per_minute / 60.0)
        hours[entry.provider_group] += plan.calls / rate / 3600.0
    return TournamentPlan(
        matches=len(pending),
        already_played=len(done),
        models=models,
        hours_by_provider=dict(hours),
        max_usd=roster.max_usd,
        games=[g.token for g in games],
    )
