"""``tournament plan``: what a tournament will ask of each model, and cost, before any call.

``plan_tournament(roster, games, runs)`` builds the tournament's schedule (the same as
``run_tournament``'s) and estimates, for every LLM player, its matches, calls, input (and
cached input) tokens, output tokens, cost and the time its provider group needs.  Matches already
in ``folder``'s corpus are left out, so a plan of a half-played tournament prices what is left.

What a call costs is a product of four things, each measured where it can be:

1. **moves**: the player's decisions per match.  *Game statistics*: each match is played out
   without any model (the deal from the match's own play seed, built-in players as themselves,
   every other player a uniform random choice from a generator of the match), at least
   ``playouts`` times per game (``sample`` matches chosen deterministically, each played out
   again with other generators until the game has ``playouts``), so the count and the prompts
   are those of the real games for a model that plays like a uniform player.  *Calibration*: a
   tournament already played by the same players (``calibration`` folders, and ``folder``
   itself) gives each (player, game) with at least ``MIN_CALIBRATED_MATCHES`` matches its own
   means per match (a model that plays unlike a uniform player makes games of other lengths:
   a strong chess player mates sooner), with their standard error;
2. **answers per move**: one, then a rethink for each unreadable or illegal answer, up to the
   protocol's K (the roster's under ``arena``, none under ``paper``, the game's own for
   OpenSpiel games).  Calibrated, a player's share of failed answers ``q`` gives
   ``1 + q + ... + q^K`` answers a move (and, under a forfeiting protocol, a match that ends when
   all K + 1 fail, which the playout draws); uncalibrated, one answer a move is a **lower
   bound** and K + 1 the upper one;
3. **requests per answer**: the transport's retries (429s, 5xx, timeouts) are requests the
   provider sees (``calls``).  Calibrated, the player's own ratio; uncalibrated, one request an
   answer is a **lower bound** and ``max_retries + 1`` the upper one (so an uncalibrated plan's
   calls are always a lower bound; its tokens rest on the ``expect`` figures and one answer a
   move, which its ``assumptions`` name);
4. **tokens**: the characters of the real rulebook (system prompt) and per-turn prompt of each
   move, and for a rethink the conversation so far (earlier replies and the feedback sentence),
   at the player's tokens per character: calibrated, its own (the calibration matches replayed
   move by move give their exact prompts, which the recorded input tokens are divided by),
   else ``1 / expect.chars_per_token``.  Output: the calibrated tokens per answer, else
   ``expect.reply_tokens``.  **Cached input tokens**, when the player caches prompts: the
   calibrated share, else the rulebook's tokens on every call but the first of each game for
   that player, provided the rulebook is at least ``MIN_CACHED_TOKENS`` long;
5. **cost**: the roster's prices (``arena.llm.player.Price``, cached tokens at their price);
6. **time**: per provider group, its calls at the group's throughput, the smaller of
   ``concurrency / latency`` (the calibrated seconds per request, else ``expect.latency_s``) and
   ``requests_per_minute / 60``; groups run side by side, so the tournament takes the longest
   group's time.

Each model's plan says what it rests on (``basis``), which of its figures are lower bounds
(``lower_bounds``), the range its figures can take (``bounds``: low and high, for the moves the
plan counts) and the relative standard error of its calls as a prediction of the run's
(``rel_se``: the spread of the moves per match, for the mean the plan took from its sample and
for the run's own matches; the rates' errors and a model unlike the stand-in are not in it).
Budgets are shown beside the estimates (``over_budget`` when a player's estimate passes its
``max_usd``, or the total the run's).

Prompts of OpenSpiel games grow with the move list (chess's move text is replayed for every
prompt); past ``EXACT_PROMPTS`` decisions a match's prompt lengths are measured every
``PROMPT_STRIDE`` decisions and interpolated in between.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.llm.player import Price
from arena.reference_engines import make_builtin
from arena.roster import ApiEntry, BuiltinEntry, Roster
from arena.tournament.journal import Corpus
from arena.tournament.runner import tournament_schedule
from engines.agents.builtin import RandomAgent
from engines.agents.parser import FEEDBACK
from engines.gbg import GameSpec, rulebook
from engines.gbg.engine import new_deal
from engines.gbg.render import turn_prompt
from engines.gbg.rng import derive_seed
from engines.openspiel.text import rules_text
from engines.tournament.match import seat_rng
from engines.tournament.records import Record
from engines.tournament.schedule import Game, ScheduledMatch

MIN_CACHED_TOKENS = 1024
DEFAULT_SAMPLE = 200
DEFAULT_PLAYOUTS = 200
MIN_CALIBRATED_MATCHES = 10
EXACT_PROMPTS = 8
PROMPT_STRIDE = 16
PLAYOUT_SALT = 0x91A7
FEEDBACK_CHARS = statistics.mean(len(text) for text in FEEDBACK.values())
EMPTY_REPLY = "(empty reply)"
FIGURES = ("calls", "input_tokens", "cached_input_tokens", "output_tokens")


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
    moves: float = 0.0
    bases: list[str] = field(default_factory=list)
    lower_bounds: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    low: dict[str, float] = field(default_factory=dict)
    high: dict[str, float] = field(default_factory=dict)
    calls_variance: float = 0.0
    calibrated_matches: dict[str, int] = field(default_factory=dict)  # game -> its matches
    latency_s: float | None = None  # seconds per request, calibrated

    @property
    def rel_se(self) -> float:
        return math.sqrt(self.calls_variance) / self.calls if self.calls else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "moves": round(self.moves),
            "calls": round(self.calls),
            "input_tokens": round(self.input_tokens),
            "cached_input_tokens": round(self.cached_input_tokens),
            "output_tokens": round(self.output_tokens),
            "cost_usd": round(self.cost_usd, 6),
            "max_usd": self.max_usd,
            "over_budget": self.max_usd is not None and self.cost_usd > self.max_usd,
            "provider": self.provider_group,
            "basis": "; ".join(self.bases) or "nothing to play",
            "lower_bounds": sorted(set(self.lower_bounds)),
            "assumptions": list(dict.fromkeys(self.assumptions)),
            "bounds": {
                k: [round(self.low.get(k, 0.0)), round(self.high.get(k, 0.0))]
                for k in ("calls", "input_tokens", "output_tokens")
            },
            "rel_se": round(self.rel_se, 4),
            "calibrated_matches": dict(sorted(self.calibrated_matches.items())),
        }


@dataclass
class TournamentPlan:
    matches: int
    already_played: int
    models: dict[str, ModelPlan]
    hours_by_provider: dict[str, float]
    max_usd: float | None = None
    games: list[str] = field(default_factory=list)
    calibration: dict[str, Any] = field(default_factory=dict)

    @property
    def cost_usd(self) -> float:
        return sum(m.cost_usd for m in self.models.values())

    @property
    def hours(self) -> float:
        return max(self.hours_by_provider.values(), default=0.0)

    def totals(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            k: round(sum(getattr(m, k) for m in self.models.values())) for k in FIGURES
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
            "calibration": self.calibration,
        }


# --- prompts ----------------------------------------------------------------------------------


def system_prompt(spec: Any, roster: Roster) -> str:
    """The system prompt an LLM player sends on ``spec`` (the roster's rulebook style)."""
    if isinstance(spec, GameSpec):
        return rulebook(spec, style=roster.rulebook_style or "compact")
    return rules_text(spec)


def _prompt(state: Any, seat: int) -> str:
    return turn_prompt(state, seat) if isinstance(state.spec, GameSpec) else state.turn_prompt(seat)


def _deal(spec: Any, play_seed: int) -> Any:
    return new_deal(spec, play_seed) if isinstance(spec, GameSpec) else spec.new_deal(play_seed)


def _rethinks(roster: Roster, entry: ApiEntry, spec: Any) -> tuple[int, bool]:
    """(K, whether a move whose K + 1 answers all fail forfeits) of ``entry`` on ``spec``."""
    if isinstance(spec, GameSpec):
        return roster.rethinks_of(entry), False
    return spec.protocol.rethinks, spec.protocol.exhausted == "forfeit"


def _interpolated(measured: dict[int, int], count: int) -> list[float]:
    """Prompt lengths of ``count`` decisions from those ``measured`` (decision -> length)."""
    marks = sorted(measured)
    out: list[float] = []
    for i in range(count):
        if i in measured:
            out.append(float(measured[i]))
            continue
        below = max((m for m in marks if m < i), default=marks[0])
        above = min((m for m in marks if m > i), default=marks[-1])
        if above == below:
            out.append(float(measured[below]))
        else:
            t = (i - below) / (above - below)
            out.append(measured[below] + t * (measured[above] - measured[below]))
    return out


class _Prompts:
    """Per-turn prompt lengths of one match's decisions, measured exactly for a short match
    and every ``PROMPT_STRIDE`` decisions of a long OpenSpiel one (see the module docstring)."""

    def __init__(self, exact: bool) -> None:
        self.exact = exact
        self.owners: list[str] = []
        self.measured: dict[int, int] = {}

    def add(self, name: str, state: Any, seat: int) -> None:
        i = len(self.owners)
        self.owners.append(name)
        if self.exact or i < EXACT_PROMPTS or i % PROMPT_STRIDE == 0:
            self.measured[i] = len(_prompt(state, seat))

    def finish(self, state: Any, seat: int | None) -> list[tuple[str, float]]:
        """(player, prompt characters) per decision; ``state`` at the last decision."""
        last = len(self.owners) - 1
        if last >= 0 and last not in self.measured and seat is not None:
            self.measured[last] = len(_prompt(state, seat))
        if not self.owners:
            return []
        return list(zip(self.owners, _interpolated(self.measured, len(self.owners)), strict=True))


# --- calibration ------------------------------------------------------------------------------


@dataclass
class PlayerRates:
    """What a player's calibration matches took, summed over its moves."""

    moves: int = 0
    answers: int = 0
    failed_answers: int = 0
    calls: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    prompt_chars: float = 0.0
    reply_chars: int = 0
    latency_s: float = 0.0

    def add(self, other: PlayerRates) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def fail_rate(self) -> float:
        return self.failed_answers / self.answers if self.answers else 0.0

    @property
    def calls_per_answer(self) -> float:
        return self.calls / self.answers if self.answers else 1.0

    @property
    def tokens_per_char(self) -> float | None:
        return self.input_tokens / self.prompt_chars if self.prompt_chars else None

    @property
    def output_per_answer(self) -> float | None:
        return self.output_tokens / self.answers if self.answers else None

    @property
    def reply_chars_per_answer(self) -> float | None:
        return self.reply_chars / self.answers if self.answers else None

    @property
    def cached_share(self) -> float:
        return self.cached_input_tokens / self.input_tokens if self.input_tokens else 0.0

    @property
    def latency_per_call(self) -> float | None:
        return self.latency_s / self.calls if self.calls else None


@dataclass
class Calibration:
    """Rates per player (every calibrated game) and per (player, game token), and the usage
    of each calibrated match seat per (player, game token)."""

    players: dict[str, PlayerRates] = field(default_factory=dict)
    games: dict[tuple[str, str], PlayerRates] = field(default_factory=dict)
    per_match: dict[tuple[str, str], list[dict[str, float]]] = field(default_factory=dict)
    matches: int = 0
    skipped: int = 0
    folders: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "folders": self.folders,
            "matches": self.matches,
            "skipped_matches": self.skipped,
            "players": {
                name: {
                    "moves": r.moves,
                    "answers_per_move": round(r.answers / r.moves, 4) if r.moves else None,
                    "failed_answer_rate": round(r.fail_rate, 4),
                    "calls_per_answer": round(r.calls_per_answer, 4),
                    "tokens_per_char": round(r.tokens_per_char, 4) if r.tokens_per_char else None,
                    "output_per_answer": round(r.output_per_answer, 2)
                    if r.output_per_answer is not None
                    else None,
                }
                for name, r in sorted(self.players.items())
            },
        }


def _journal_records(folder: Path) -> dict[str, tuple[Record, list[Record]]]:
    corpus = Corpus(folder)
    corpus.reload()
    return corpus.records


def _move_chars(system: int, prompt: int, move: Record) -> tuple[float, int, int]:
    """(prompt characters over the move's answers, answers, reply characters) of a recorded
    move: every answer sends the system prompt and the turn prompt, and a rethink the replies
    and feedback before it."""
    replies = [*(move.get("earlier_responses") or []), move.get("raw_response")]
    replies = [r for r in replies if r is not None]
    answers = max(1 + int(move.get("rethinks") or 0), 1)
    chars = 0.0
    history = 0.0
    for k in range(answers):
        chars += system + prompt + history
        if k < len(replies):
            history += len(replies[k] or EMPTY_REPLY) + FEEDBACK_CHARS
    return chars, answers, sum(len(r) for r in replies)


def calibrate(roster: Roster, games: Sequence[Game], folders: Iterable[Path]) -> Calibration:
    """The calibration of the module docstring from the journals in ``folders``: the matches
    of the roster's LLM players (same name and fingerprint) on ``games``, each replayed from its
    play seed to give the prompts its moves were asked with."""
    api = {e.name: e for e in roster.players if isinstance(e, ApiEntry)}
    prints = {name: roster.fingerprint(name) for name in api}
    by_hash = {g.spec.spec_hash: g for g in games}
    out = Calibration()
    seen: set[str] = set()
    for folder in folders:
        if not (folder / "journal.jsonl").exists():
            continue
        out.folders.append(str(folder))
        for match_id, (row, moves) in sorted(_journal_records(folder).items()):
            if match_id in seen:
                continue
            seen.add(match_id)
            seats = {
                row["alice"]: row.get("alice_fingerprint"),
                row["bob"]: row.get("bob_fingerprint"),
            }
            mine = [n for n, fp in seats.items() if n in api and fp == prints[n]]
            game = by_hash.get(str(row.get("spec_hash")))
            if not mine or game is None:
                out.skipped += any(n in api for n in seats)
                continue
            replayed = _replay(game, row, moves, set(mine), roster)
            if replayed is None:
                out.skipped += 1
                continue
            out.matches += 1
            for name, rates in replayed.items():
                key = (name, game.token)
                out.players.setdefault(name, PlayerRates()).add(rates)
                out.games.setdefault(key, PlayerRates()).add(rates)
                out.per_match.setdefault(key, []).append(
                    {
                        "moves": rates.moves,
                        "calls": rates.calls,
                        "input_tokens": rates.input_tokens,
                        "cached_input_tokens": rates.cached_input_tokens,
                        "output_tokens": rates.output_tokens,
                    }
                )
    return out


def _replay(
    game: Game, row: Record, moves: list[Record], names: set[str], roster: Roster
) -> dict[str, PlayerRates] | None:
    """The match's usage per calibrated player, with each move's prompt characters from the
    match replayed (None if the recorded actions do not replay)."""
    spec = game.spec
    system = len(system_prompt(spec, roster))
    state = _deal(spec, int(row["play_seed"]))
    prompts = _Prompts(exact=isinstance(spec, GameSpec))
    asked: list[Record] = []
    pending: int | None = None  # the seat of an asked move the match ended on, unanswered
    try:
        for move in sorted(moves, key=lambda m: int(m["index"])):
            seat = state.current_player
            if move["player"] in names:
                prompts.add(str(move["player"]), state, seat)
                asked.append(move)
            if move.get("action") is None:
                pending = seat if move["player"] in names else None
                break
            state.apply(move["action"])
    except (ValueError, KeyError, IndexError):
        return None
    lengths = prompts.finish(state, pending)
    out: dict[str, PlayerRates] = {}
    for (name, prompt), move in zip(lengths, asked, strict=True):
        chars, answers, reply_chars = _move_chars(system, round(prompt), move)
        rates = out.setdefault(name, PlayerRates())
        rates.moves += 1
        rates.answers += answers
        # every answer but an accepted last one failed (a fallback or forfeit: the last too)
        rates.failed_answers += answers - 1 + int(bool(move.get("fallback")) or not move["action"])
        rates.calls += int(move.get("calls") or 0)
        rates.input_tokens += int(move.get("input_tokens") or 0)
        rates.cached_input_tokens += int(move.get("cached_input_tokens") or 0)
        rates.output_tokens += int(move.get("output_tokens") or 0)
        rates.prompt_chars += chars
        rates.reply_chars += reply_chars
        rates.latency_s += float(move.get("latency_s") or 0.0)
    for name in names:
        out.setdefault(name, PlayerRates())
    return out


# --- playouts ---------------------------------------------------------------------------------


def _sampled(matches: list[ScheduledMatch], sample: int) -> list[ScheduledMatch]:
    if len(matches) <= sample:
        return matches
    return sorted(random.Random(0).sample(matches, sample), key=lambda m: m.match_id)


def _playout(
    m: ScheduledMatch,
    roster: Roster,
    repeat: int = 0,
    forfeit: dict[str, float] | None = None,
) -> list[tuple[str, float]]:
    """The (player, per-turn prompt characters) of each LLM decision of the match, played out
    with built-ins as themselves and everyone else choosing uniformly at random; ``repeat`` > 0
    plays it again with other generators.  ``forfeit``: per player, the chance that a decision
    ends the match (all its answers failed under a forfeiting protocol)."""
    entries = (roster.player(m.alice), roster.player(m.bob))
    agents = [
        make_builtin(e.agent, e.params) if isinstance(e, BuiltinEntry) else RandomAgent()
        for e in entries
    ]
    if repeat:
        rngs = tuple(
            random.Random(derive_seed(m.play_seed, repeat, s, PLAYOUT_SALT)) for s in (0, 1)
        )
    else:
        rngs = (seat_rng(m.play_seed, m.deal, 0), seat_rng(m.play_seed, m.deal, 1))
    ends = random.Random(derive_seed(m.play_seed, repeat, PLAYOUT_SALT + 1))
    spec = m.game.spec
    state: Any = _deal(spec, m.play_seed)
    prompts = _Prompts(exact=isinstance(spec, GameSpec))
    seat: int | None = None
    while state.current_player >= 0:
        seat = state.current_player
        entry = entries[seat]
        if isinstance(entry, ApiEntry):
            prompts.add(entry.name, state, seat)
            if forfeit and ends.random() < forfeit.get(entry.name, 0.0):
                break
        state.apply(agents[seat].act(state, seat, rngs[seat]))
    else:
        seat = None
    return prompts.finish(state, seat)


# --- the plan ---------------------------------------------------------------------------------


def _answers(q: float, k: int) -> float:
    """Expected answers of a move: 1 + q + ... + q^K."""
    return sum(q**i for i in range(k + 1))


def _move_chars_expected(system: int, prompt: float, q: float, k: int, extra: float) -> float:
    """Expected prompt characters over a move's answers: answer i (reached with chance q^i)
    carries i earlier replies and feedback sentences of ``extra`` characters each."""
    return sum(q**i * (system + prompt + i * extra) for i in range(k + 1))


def plan_tournament(
    roster: Roster,
    games: Sequence[Game],
    runs: int,
    folder: Path | None = None,
    sample: int = DEFAULT_SAMPLE,
    *,
    calibration: Sequence[Path] = (),
    playouts: int = DEFAULT_PLAYOUTS,
) -> TournamentPlan:
    """The estimate of the module docstring (``folder``: a corpus whose matches are done, and
    a calibration; ``calibration``: more folders of the same players' matches)."""
    schedule = tournament_schedule(roster, games, runs)
    done: set[str] = set()
    if folder is not None and (folder / "journal.jsonl").exists():
        records = _journal_records(folder)
        done = {m.match_id for m in schedule if m.match_id in records}
    folders = [*([folder] if folder is not None else []), *calibration]
    cal = calibrate(roster, games, folders)
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
    for game_matches in by_game.values():
        game = game_matches[0].game
        counts: dict[str, int] = defaultdict(int)
        for m in game_matches:
            for name in m.players:
                if name in models:
                    counts[name] += 1
                    models[name].matches += 1
        calibrated = {
            name: cal.per_match[(name, game.token)]
            for name in counts
            if len(cal.per_match.get((name, game.token), [])) >= MIN_CALIBRATED_MATCHES
        }
        for name, seats in calibrated.items():
            _from_calibration(
                models[name], game.token, seats, counts[name], cal, api[name], prices[name]
            )
        rest = [name for name in counts if name not in calibrated]
        if rest:
            _from_playouts(
                models, rest, game, game_matches, counts, roster, cal, api, prices,
                sample, playouts,
            )  # fmt: skip
    hours: dict[str, float] = defaultdict(float)
    for name, plan in models.items():
        entry = api[name]
        limits = roster.limits(entry.provider_group)
        latency = plan.latency_s or entry.expect.latency_s
        rate = limits.concurrency / latency  # calls per second
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
        calibration=cal.as_dict(),
    )


def _from_calibration(
    plan: ModelPlan,
    game: str,
    seats: list[dict[str, float]],
    count: int,
    cal: Calibration,
    entry: ApiEntry,
    price: Price,
) -> None:
    """A (player, game) with enough calibration matches: their means per match seat, times the
    match seats to play; the standard error of the calls from their spread."""
    n = plan.calibrated_matches[game] = len(seats)
    mean = {k: statistics.fmean(s[k] for s in seats) for k in ("moves", *FIGURES)}
    sd = statistics.stdev(s["calls"] for s in seats) if n > 1 else mean["calls"]
    plan.moves += mean["moves"] * count
    for k in FIGURES:
        setattr(plan, k, getattr(plan, k) + mean[k] * count)
        plan.low[k] = plan.low.get(k, 0.0) + mean[k] * count
        plan.high[k] = plan.high.get(k, 0.0) + mean[k] * count
    plan.calls_variance += (sd * count) ** 2 / n + sd**2 * count  # the mean's, the run's own
    plan.cost_usd += price.cost(
        round(mean["input_tokens"] * count),
        round(mean["output_tokens"] * count),
        round(mean["cached_input_tokens"] * count),
    )
    _note_basis(plan, "calibrated")
    rates = cal.players.get(plan.name)
    if rates is not None and rates.latency_per_call:
        plan.latency_s = rates.latency_per_call


def _note_basis(plan: ModelPlan, basis: str) -> None:
    if basis not in plan.bases:
        plan.bases.append(basis)


def _from_playouts(
    models: dict[str, ModelPlan],
    names: list[str],
    game: Game,
    game_matches: list[ScheduledMatch],
    counts: dict[str, int],
    roster: Roster,
    cal: Calibration,
    api: dict[str, ApiEntry],
    prices: dict[str, Price],
    sample: int,
    playouts: int,
) -> None:
    """Players of ``names`` on ``game`` from played-out matches, with each player's
    calibrated rates where it has some (its own on this game, else over every game)."""
    spec = game.spec
    system = len(system_prompt(spec, roster))
    rates: dict[str, PlayerRates | None] = {}
    forfeit: dict[str, float] = {}
    for name in names:
        own = cal.games.get((name, game.token))
        pooled = cal.players.get(name)
        chosen = own if own is not None and own.answers else pooled
        rates[name] = chosen if chosen is not None and chosen.answers else None
        k, forfeits = _rethinks(roster, api[name], spec)
        if forfeits and rates[name] is not None:
            forfeit[name] = rates[name].fail_rate ** (k + 1)  # type: ignore[union-attr]
    chosen_matches = _sampled(game_matches, sample)
    repeats = max(1, math.ceil(playouts / len(chosen_matches)))
    per_seat: dict[str, list[list[float]]] = defaultdict(list)
    for m in chosen_matches:
        for repeat in range(repeats):
            played: dict[str, list[float]] = {n: [] for n in m.players if n in api}
            for name, prompt in _playout(m, roster, repeat, forfeit):
                played[name].append(prompt)
            for name, prompts in played.items():
                if name in rates:
                    per_seat[name].append(prompts)
    for name in names:
        seats = per_seat.get(name, [])
        if not seats:
            continue
        entry, plan, rate = api[name], models[name], rates[name]
        k, _ = _rethinks(roster, entry, spec)
        limits = roster.limits(entry.provider_group)
        count = counts[name]
        per_char = rate.tokens_per_char if rate and rate.tokens_per_char else None
        per_char = per_char or 1.0 / entry.expect.chars_per_token
        reply_tokens = (
            rate.output_per_answer if rate and rate.output_per_answer is not None
            else float(entry.expect.reply_tokens)
        )  # fmt: skip
        reply_chars = (
            rate.reply_chars_per_answer if rate and rate.reply_chars_per_answer is not None
            else reply_tokens * entry.expect.chars_per_token
        )  # fmt: skip
        extra = reply_chars + FEEDBACK_CHARS
        q = rate.fail_rate if rate else 0.0
        per_answer_calls = rate.calls_per_answer if rate else 1.0
        answers = _answers(q, k)
        moves = [len(s) for s in seats]
        chars = [sum(_move_chars_expected(system, p, q, k, extra) for p in s) for s in seats]
        upper = [sum(_move_chars_expected(system, p, 1.0, k, extra) for p in s) for s in seats]
        lower = [sum(system + p for p in s) for s in seats]
        n = len(seats)
        mean_moves = statistics.fmean(moves)
        calls = mean_moves * answers * per_answer_calls * count
        input_tokens = statistics.fmean(chars) * per_char * count
        output = mean_moves * answers * reply_tokens * count
        cached = 0.0
        if rate is not None and rate.input_tokens:
            cached = input_tokens * rate.cached_share
        elif entry.caches_prompt:
            rulebook_tokens = system * per_char
            if rulebook_tokens >= MIN_CACHED_TOKENS and calls >= 1:
                cached = rulebook_tokens * (calls - 1)
        plan.moves += mean_moves * count
        plan.calls += calls
        plan.input_tokens += input_tokens
        plan.cached_input_tokens += cached
        plan.output_tokens += output
        plan.cost_usd += prices[name].cost(round(input_tokens), round(output), round(cached))
        sd = statistics.stdev(moves) if n > 1 else mean_moves
        sd *= answers * per_answer_calls
        plan.calls_variance += (sd * count) ** 2 / n + sd**2 * count  # the mean's, the run's
        low_calls = mean_moves * count * (1.0 if rate is None else answers * per_answer_calls)
        plan.low["calls"] = plan.low.get("calls", 0.0) + low_calls
        plan.high["calls"] = plan.high.get("calls", 0.0) + (
            mean_moves * count * (k + 1) * (limits.max_retries + 1)
        )
        plan.low["input_tokens"] = plan.low.get("input_tokens", 0.0) + (
            statistics.fmean(lower) * per_char * count if rate is None else input_tokens
        )
        plan.high["input_tokens"] = plan.high.get("input_tokens", 0.0) + (
            statistics.fmean(upper) * per_char * count
        )
        plan.low["output_tokens"] = plan.low.get("output_tokens", 0.0) + (
            mean_moves * reply_tokens * count if rate is None else output
        )
        plan.high["output_tokens"] = plan.high.get("output_tokens", 0.0) + (
            mean_moves * (k + 1) * reply_tokens * count
        )
        if rate is None:
            _note_basis(plan, "game statistics (uncalibrated)")
            if "calls" not in plan.lower_bounds:  # rethinks and transport retries not known
                plan.lower_bounds.append("calls")
            plan.assumptions += [
                f"one answer a move on {game.token}" + (f" (up to {k} rethinks more)" if k else ""),
                f"{entry.expect.reply_tokens} output tokens an answer (expect.reply_tokens)",
                f"{entry.expect.chars_per_token:g} prompt characters a token "
                "(expect.chars_per_token)",
            ]
        else:
            _note_basis(plan, "game statistics at calibrated rates")
            if rate.latency_per_call:
                plan.latency_s = rate.latency_per_call
