"""Playing a tournament: matches, concurrency, resumption, the corpus rows (paper, Section 5).

``run_tournament(roster, games, runs, folder)`` plays every scheduled deal that the folder's
journal does not already hold and writes ``matches.parquet`` and ``moves.parquet``.  Steps:

1. build the schedule (``engines.tournament.schedule``) and open the corpus (its journal tells
   which matches are done; with ``retry_failed`` a recorded timeout or error is played again);
2. admit the strategy programs: each program takes the admission test (``sandbox.admit``:
   loads, plays legally, median move at most 100 ms) on each game it has matches left on; a
   program refused on a game does not play there (its matches on that game are not played and
   not recorded, so a fixed program plays them on a later run), and the summary names program,
   game and reason;
3. build the players: built-in agents, sandboxed strategy programs, and LLM players sharing one
   HTTP client per provider (httpx on the lean HTTP/1.1 transport of
   ``arena.llm.http11``), one response cache (``cache.sqlite`` in the folder) and one
   ``ProviderGate`` per provider group;
4. play the remaining matches: built-in-only tournaments in a plain loop, otherwise up to
   ``parallel`` matches at a time on one event loop (a match is a chain of moves, so ``parallel``
   bounds the requests in flight together with the providers' own limits);
5. journal each match as it ends; every ``checkpoint_s`` seconds and at the end, write the
   tables (schedule order, so a resumed run writes exactly what an uninterrupted one does).

Usage: every request an LLM player makes is counted in the move that made it (calls, tokens,
latency, cost; a reply read back from the response cache counts as the requests that first
obtained it, so a resumed run records what an uninterrupted one does).  A move that ends its
match without an action (its retries ran out, or a forfeiting protocol got no legal move) is
recorded too, as a move row whose ``action`` is empty, and its usage and rethinks are added to
its seat's columns of the match row (``with_unfinished``); ``n_moves`` and ``moves_<seat>``
count the moves played.

Budgets (``max_usd`` per player and for the run, ``arena.tournament.budget``): each request
reserves its worst-case cost before it is sent and settles its actual cost after, so a limit
is passed by at most one request's worst case at any ``parallel``; a player whose spend reaches
its limit stops (its match in flight is not recorded), a match whose player has spent its
budget, or any match once the run has spent its own, is not started; the player is reported in
``stopped`` with a ``stopped: budget`` message, the spend in ``budget``, and the same command
with a raised budget plays the rest.  Budgets need ``workers=1``.

Unavailable endpoints: each LLM player's transport has a circuit breaker (``max_connection_
failures`` consecutive connection failures, default 10): the player stops with a ``stopped:
unavailable: ...`` message naming the endpoint and the last failure, its remaining matches are
not attempted, and ``unavailable.json`` in the folder names it until a run plays them.

A match's chance is explicit: cards come from ``play_seed``; each seat's agent and the fallback
draw from a generator seeded by (play seed, deal, seat).  A player that stops (``PlayerStopped``:
a rejected key, an unknown model, an offline cache miss) is taken out: its match in flight and
its remaining matches are not played and not recorded (so the same command plays them once the
cause is fixed), and the summary names it.  A move whose retries are exhausted ends its match
with status ``timeout`` or ``error``; so does an exception inside an agent.  Such matches are
recorded, and ``complete_pairs`` drops them.  A program that crashes or answers an illegal
action forfeits its match (status ``forfeit``, a loss it keeps); a program's timeout is a
``timeout``.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena.files import atomic_write_text
from arena.llm.cache import ResponseCache
from arena.llm.usage import UNAVAILABLE, MoveForfeited, MoveNotObtained, Unfinished
from arena.programs.sandbox import admit
from arena.reference_engines import agent_plays
from arena.roster import BuiltinEntry, ProgramEntry, Roster
from arena.secrets import environment_secrets, redacted_rows
from arena.tournament.budget import Budget, record_state
from arena.tournament.journal import Corpus, write_table
from arena.tournament.lineup import Lineup, build_lineup
from engines.agents.base import BuiltinPlayer, Decision, Player, PlayerStopped
from engines.gbg.spec import SEATS, GameSpec
from engines.tournament.episodes import HAND_SCHEMA, EpisodeConfig, episode_schedule, play_episode
from engines.tournament.match import move_record, play_builtin_match, play_match, seat_rng
from engines.tournament.records import DECIDED_STATUSES, FAILED_STATUSES, Record
from engines.tournament.schedule import Game, ScheduledMatch, block_schedule

# re-exported: callers (the ablations stage) build lineups and play single matches
__all__ = [
    "Lineup",
    "Progress",
    "TournamentSummary",
    "admit_programs",
    "build_lineup",
    "play_all",
    "play_builtin_match",
    "play_match",
    "player_rates",
    "run_episode_tournament",
    "run_tournament",
    "seat_rng",
    "tournament_schedule",
]


@dataclass(frozen=True)
class Progress:
    """Counts after each match: ``done`` of ``total`` scheduled (resumed ones included)."""

    done: int
    total: int
    played: int
    moves: int
    elapsed_s: float


@dataclass
class TournamentSummary:
    """What a call of ``run_tournament`` did, and the state of the corpus afterwards."""

    scheduled: int
    resumed: int
    played: int
    recorded: int
    status_counts: dict[str, int]
    not_played: int
    stopped: dict[str, str]
    not_admitted: dict[str, dict[str, str]]
    moves_played: int
    elapsed_s: float
    per_player: dict[str, dict[str, float]]
    cache_hits: int
    cache_misses: int
    folder: str
    matches_path: str
    moves_path: str
    budget: dict[str, object] | None = None
    protocol: str = "arena"
    not_played_by: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> int:
        """Matches recorded without a result (``timeout`` or ``error``)."""
        return sum(self.status_counts.get(s, 0) for s in FAILED_STATUSES)

    @property
    def unavailable(self) -> dict[str, str]:
        """The players the circuit breaker stopped, with their messages."""
        return {k: v for k, v in self.stopped.items() if f"stopped: {UNAVAILABLE}" in v}

    @property
    def finished(self) -> bool:
        """Every scheduled match is recorded."""
        return self.recorded == self.scheduled

    def as_dict(self) -> dict[str, Any]:
        return {
            "scheduled": self.scheduled,
            "resumed": self.resumed,
            "played": self.played,
            "recorded": self.recorded,
            "finished": self.finished,
            "status_counts": self.status_counts,
            "not_played": self.not_played,
            "stopped": self.stopped,
            "not_played_by": self.not_played_by,
            "unavailable": sorted(self.unavailable),
            "failed": self.failed,
            "not_admitted": self.not_admitted,
            "moves_played": self.moves_played,
            "elapsed_s": round(self.elapsed_s, 3),
            "moves_per_s": round(self.moves_played / self.elapsed_s, 1) if self.elapsed_s else 0,
            "per_player": self.per_player,
            "cache_hits": self.cache_hits,
            "cache_misses": self.cache_misses,
            "folder": self.folder,
            "matches": self.matches_path,
            "moves": self.moves_path,
            "budget": self.budget,
            "protocol": self.protocol,
        }


def tournament_schedule(roster: Roster, games: Sequence[Game], runs: int) -> list[ScheduledMatch]:
    """The roster's blocks scheduled on ``games`` (see ``schedule.block_schedule``), less the
    matches of a built-in agent on a game it does not play (``agent_plays``)."""
    blocks = [
        (block, [p.name for p in roster.players if p.block == block]) for block in roster.blocks()
    ]
    fingerprints = {p.name: roster.fingerprint(p.name) for p in roster.players}
    schedule = block_schedule(
        blocks,
        games,
        runs,
        fingerprints,
        first_block_games=roster.schedule.first_block_games,
        opponents=roster.schedule.opponents,
    )
    # A built-in agent plays only the games it can (Stockfish: chess; mcts: OpenSpiel games).
    agents = {p.name: p.agent for p in roster.players if isinstance(p, BuiltinEntry)}
    return [
        m
        for m in schedule
        if all(agent_plays(agents[n], m.game.spec) for n in m.players if n in agents)
    ]


# --- the tournament ----------------------------------------------------------------------------


def admit_programs(
    roster: Roster, pending: Sequence[ScheduledMatch], seed: int = 0
) -> dict[str, dict[str, str]]:
    """The admission test of every program on every game it has a pending match on; the
    refusals as {program: {game token: reason}}."""
    programs = {p.name: p for p in roster.players if isinstance(p, ProgramEntry)}
    tested: set[tuple[str, str]] = set()
    refused: dict[str, dict[str, str]] = {}
    for m in pending:
        for name in (m.alice, m.bob):
            if name not in programs or (name, m.game.token) in tested:
                continue
            tested.add((name, m.game.token))
            entry = programs[name]
            if not isinstance(m.game.spec, GameSpec):
                reason = "strategy programs play generated games only, not OpenSpiel games"
                refused.setdefault(name, {})[m.game.token] = reason
                continue
            verdict = admit(entry.path, m.game.spec, seed=seed, limits=entry.sandbox_limits())
            if not verdict.admitted:
                refused.setdefault(name, {})[m.game.token] = verdict.reason
    return refused


@dataclass(frozen=True)
class Pending:
    """What a run of a tournament has left to play in its corpus: the ids already recorded
    (``done``), the matches to play in schedule order (``playable``: not recorded yet, or
    recorded failed with ``retry_failed``, and every program in them admitted on the game),
    how many matches a refused program leaves out (``refused``) and why each program was
    refused on a game (``refusals``: {program: {game token: reason}})."""

    done: frozenset[str]
    playable: list[ScheduledMatch]
    refused: int
    refusals: dict[str, dict[str, str]]


def pending_matches(
    roster: Roster,
    schedule: Sequence[ScheduledMatch],
    corpus: Corpus,
    *,
    retry_failed: bool = False,
    seed: int = 0,
) -> Pending:
    """The matches of ``schedule`` that ``corpus`` still needs (see ``Pending``)."""
    done = frozenset(
        m.match_id
        for m in schedule
        if (status := corpus.status(m.match_id)) is not None
        and (status in DECIDED_STATUSES or not retry_failed)
    )
    pending = [m for m in schedule if m.match_id not in done]
    refusals = admit_programs(roster, pending, seed)
    playable = [
        m for m in pending if not any(m.game.token in refusals.get(n, {}) for n in m.players)
    ]
    return Pending(done, playable, len(pending) - len(playable), refusals)


def player_rates(records: Sequence[tuple[Record, list[Record]]]) -> dict[str, dict[str, float]]:
    """Per player: moves played, fallbacks, rethinks and their rates, and the calls, tokens
    (input, cached input, output), cost and latency of its move rows (a move that ended its
    match without an action included), over the given matches."""
    moves: Counter[str] = Counter()
    fallbacks: Counter[str] = Counter()
    rethinks: Counter[str] = Counter()
    sums: dict[str, Counter[str]] = {}
    usage = ("calls", "input_tokens", "cached_input_tokens", "output_tokens", "cost_usd",
             "latency_s")  # fmt: skip
    for _, match_moves in records:
        for mv in match_moves:
            moves[mv["player"]] += mv.get("action") is not None  # played, not unfinished
            fallbacks[mv["player"]] += int(mv["fallback"])
            rethinks[mv["player"]] += int(mv["rethinks"])
            own = sums.setdefault(mv["player"], Counter())
            for key in usage:
                own[key] += mv.get(key) or 0
    return {
        name: {
            "moves": moves[name],
            "fallbacks": fallbacks[name],
            "fallback_rate": fallbacks[name] / moves[name] if moves[name] else 0.0,
            "rethinks": rethinks[name],
            "rethink_rate": rethinks[name] / moves[name] if moves[name] else 0.0,
            "calls": sums[name]["calls"],
            "input_tokens": sums[name]["input_tokens"],
            "cached_input_tokens": sums[name]["cached_input_tokens"],
            "output_tokens": sums[name]["output_tokens"],
            "cost_usd": round(sums[name]["cost_usd"], 9),
            "latency_s_per_move": sums[name]["latency_s"] / moves[name] if moves[name] else 0.0,
        }
        for name in sorted(moves)
    }


class JournalSink(Protocol):
    def append(self, match: Record, moves: list[Record]) -> None: ...


class Metered:
    """A non-built-in player seated for one match: moves pass through to ``player``; a move
    that ends the match without an action (``MoveNotObtained``, ``MoveForfeited``) is kept in
    ``unfinished`` (seat, phase, legal menu, what it took) for ``with_unfinished``."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name
        self.model = player.model
        self.settings = player.settings
        self.unfinished: tuple[int, str, tuple[str, ...], Unfinished] | None = None

    @property
    def stopped(self) -> str | None:
        return self.player.stopped

    @stopped.setter
    def stopped(self, value: str | None) -> None:
        self.player.stopped = value

    async def decide(self, state: Any, seat: int, rng: random.Random, call_id: str) -> Decision:
        try:
            return await self.player.decide(state, seat, rng, call_id)
        except (MoveNotObtained, MoveForfeited) as exc:
            legal = tuple(state.legal_actions())
            self.unfinished = (seat, str(state.phase_id), legal, exc.unfinished)
            raise


def settings_text(player: Player) -> str:
    """A player's settings as the move rows record them."""
    return json.dumps(player.settings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def with_unfinished(
    m: ScheduledMatch, row: Record, moves: list[Record], seated: Sequence[Metered | Player]
) -> tuple[Record, list[Record]]:
    """The match's rows with the move that ended it without an action, if it made requests:
    one more move row (``action`` empty, its replies, verdict, calls, tokens, latency and cost)
    whose usage and rethinks are added to its seat's columns of the match row (``n_moves`` and
    ``moves_<seat>`` count the moves played)."""
    for player in seated:
        if not isinstance(player, Metered) or player.unfinished is None:
            continue
        seat, phase, legal, move = player.unfinished
        used = move.usage
        if not used.calls and not move.replies:
            continue  # nothing reached the provider: nothing to count
        decision = Decision(
            action="",
            raw_response=move.replies[-1] if move.replies else None,
            prompt_sha256=move.prompt_sha256,
            rethinks=max(move.asks - 1, 0),
            verdict=move.verdict,
            latency_s=used.latency_s,
            input_tokens=used.input_tokens,
            output_tokens=used.output_tokens,
            reasoning_tokens=used.reasoning_tokens,
            cached_input_tokens=used.cached_input_tokens,
            cost_usd=used.cost_usd,
            calls=used.calls,
            cached=used.cached and bool(move.replies or used.calls),
            reasoning=move.reasoning,
            earlier_responses=move.replies[:-1],
        )
        record = move_record(
            m, len(moves), seat, player.player, settings_text(player.player), phase, legal,
            decision,
        )  # fmt: skip
        record["action"] = None
        moves = [*moves, record]
        row = dict(row)
        side = SEATS[seat]
        for column in UNFINISHED_SUMS:
            row[f"{column}_{side}"] = (row.get(f"{column}_{side}") or 0) + record[column]
    return row, moves


UNFINISHED_SUMS = ("rethinks", "input_tokens", "output_tokens", "reasoning_tokens", "calls",
                   "cost_usd")  # fmt: skip


async def play_all(
    pending: list[ScheduledMatch],
    lineup: Lineup,
    corpus: JournalSink,
    parallel: int,
    on_match: Callable[[Record, list[Record]], None],
    budget: Budget | None = None,
) -> int:
    """Play ``pending`` with up to ``parallel`` matches at once; return how many were skipped
    (``lineup.not_played`` counts them per stopped player).  A move that ended its match
    without an action is recorded too (``with_unfinished``), and every row's free text is
    redacted (``arena.secrets.redacted_rows``) before it is recorded.  With a ``budget``, every
    LLM player reserves each request against it (``arena.tournament.budget``), and a match it
    refuses is skipped and its players are stopped."""
    queue = list(reversed(pending))
    secrets = (*lineup.secrets, *environment_secrets())
    skipped = 0
    if budget is not None:
        from arena.llm.player import LLMPlayer

        for player in lineup.players.values():
            if isinstance(player, LLMPlayer):
                player.budget = budget

    def skip(names: Sequence[str]) -> None:
        nonlocal skipped
        skipped += 1
        lineup.not_played[names[0] if names else "?"] += 1

    async def worker() -> None:
        while queue:
            m = queue.pop()
            seated = [lineup.players[m.alice], lineup.players[m.bob]]
            if any(p.stopped for p in seated):
                skip([p.name for p in seated if p.stopped])
                continue
            refused = budget.refusal(m.players) if budget is not None else {}
            if refused:
                for name, message in refused.items():
                    lineup.stopped.setdefault(name, message)
                skip(list(refused))
                continue
            metered: list[Metered | Player] = [
                p if isinstance(p, BuiltinPlayer) else Metered(p) for p in seated
            ]
            try:
                row, moves = await play_match(
                    m, {m.alice: metered[0], m.bob: metered[1]}, lineup.fingerprints
                )
            except PlayerStopped as exc:
                for p in seated:
                    if p.stopped:
                        lineup.stopped[p.name] = p.stopped
                if not any(p.stopped for p in seated):  # defensive: stop reason unknown
                    lineup.stopped[m.alice] = str(exc)
                skip([p.name for p in seated if p.stopped] or [m.alice])
                continue
            row, moves = with_unfinished(m, row, moves, metered)
            row, moves = redacted_rows(row, moves, secrets)
            corpus.append(row, moves)
            on_match(row, moves)

    await asyncio.gather(*(worker() for _ in range(max(1, parallel))))
    return skipped


UNAVAILABLE_FILE = "unavailable.json"


def record_unavailable(folder: Path, stopped: dict[str, str], not_played: Counter[str]) -> None:
    """``unavailable.json`` in the tournament folder: the players the circuit breaker stopped
    (``{"unavailable": {player: message}, "not_played": {player: matches}}``); removed after a
    run in which no player was unavailable, so its presence means those players' matches are
    still to play (the same command plays them once the endpoint answers)."""
    path = folder / UNAVAILABLE_FILE
    found = {k: v for k, v in stopped.items() if f"stopped: {UNAVAILABLE}" in v}
    if not found:
        path.unlink(missing_ok=True)
        return
    state = {
        "unavailable": dict(sorted(found.items())),
        "not_played": {name: not_played.get(name, 0) for name in sorted(found)},
    }
    atomic_write_text(path, json.dumps(state, indent=2, sort_keys=True) + "\n")


def run_tournament(
    roster: Roster,
    games: Sequence[Game],
    runs: int,
    folder: Path,
    *,
    parallel: int = 64,
    retry_failed: bool = False,
    offline: bool = False,
    checkpoint_s: float = 60.0,
    progress: Callable[[Progress], None] | None = None,
    environ: dict[str, str] | None = None,
    seed: int = 0,
    workers: int = 1,
    max_connection_failures: int | None = None,
) -> TournamentSummary:
    """Play (or resume) a tournament into ``folder`` (see the module docstring).

    ``workers`` > 1 plays the LLM and program matches in that many processes (each with its own
    event loop, journal and program sandboxes, the providers' limits split between them): one
    event loop saturates a core at a few hundred requests per second.
    ``max_connection_failures``: consecutive connection failures after which an LLM player is
    unavailable for the rest of the run (None: the default, 10; 0: never).
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    budget = Budget(roster)
    if budget.active and workers > 1:
        raise ValueError("budgets (max_usd) are kept with workers=1; run without --workers")
    started = time.perf_counter()
    schedule = tournament_schedule(roster, games, runs)
    order = [m.match_id for m in schedule]
    with Corpus(folder) as corpus:
        todo = pending_matches(roster, schedule, corpus, retry_failed=retry_failed, seed=seed)
        done, pending, refused, not_admitted = todo.done, todo.playable, todo.refused, todo.refusals
        budget.record_all(corpus.records[i][0] for i in order if i in done)
        cache = ResponseCache(corpus.cache_path, offline=offline)
        played = 0
        moves_played = 0
        last_checkpoint = time.perf_counter()

        def on_match(row: Record, moves: list[Record]) -> None:
            nonlocal played, moves_played, last_checkpoint
            played += 1
            moves_played += len(moves)
            now = time.perf_counter()
            if progress is not None:
                progress(
                    Progress(len(done) + played, len(schedule), played, moves_played, now - started)
                )
            if now - last_checkpoint >= checkpoint_s:
                corpus.write_tables(order)
                last_checkpoint = time.perf_counter()

        stopped: dict[str, str] = {}
        skipped = 0
        not_played_by: Counter[str] = Counter()
        try:
            lineup_rng = random.Random(seed)
            if all(isinstance(p, BuiltinEntry) for p in roster.players):
                lineup = build_lineup(roster, cache, lineup_rng, environ)
                secrets = environment_secrets()
                for m in pending:
                    row, moves = play_builtin_match(m, lineup.players, lineup.fingerprints)
                    row, moves = redacted_rows(row, moves, secrets)
                    corpus.append(row, moves)
                    on_match(row, moves)
            elif workers > 1 and len(pending) > 1:
                moves_seen = 0

                def on_progress(n_moves: int) -> None:
                    nonlocal played, moves_played, moves_seen
                    played += 1
                    moves_played += n_moves
                    if progress is not None:
                        progress(
                            Progress(len(done) + played, len(schedule), played, moves_played,
                                     time.perf_counter() - started)
                        )  # fmt: skip

                from arena.tournament.shards import play_sharded

                skipped, stopped, extra_hits, extra_misses = play_sharded(
                    roster, games, runs, corpus, pending, workers, parallel, offline,
                    environ, seed, on_progress, max_connection_failures, not_played_by,
                )  # fmt: skip
                cache.hits += extra_hits
                cache.misses += extra_misses
            else:

                async def main() -> tuple[int, dict[str, str]]:
                    lineup = build_lineup(
                        roster, cache, lineup_rng, environ,
                        max_connection_failures=max_connection_failures,
                    )  # fmt: skip
                    for player in lineup.players.values():
                        if player.stopped:
                            lineup.stopped[player.name] = player.stopped
                    try:
                        count = await play_all(
                            pending,
                            lineup,
                            corpus,
                            parallel,
                            on_match,
                            budget if budget.active else None,
                        )
                    finally:
                        await lineup.aclose()
                        not_played_by.update(lineup.not_played)
                    return count, lineup.stopped

                skipped, stopped = asyncio.run(main())
        finally:
            corpus.write_tables(order)
            hits, misses = cache.hits, cache.misses
            cache.close()
        record_state(folder, budget, stopped)  # (removes a stale one when nothing is stopped)
        record_unavailable(folder, stopped, not_played_by)
        in_schedule = [corpus.records[i] for i in order if i in corpus.records]
    statuses = Counter(str(match["status"]) for match, _ in in_schedule)
    return TournamentSummary(
        scheduled=len(schedule),
        resumed=len(done),
        played=played,
        recorded=len(in_schedule),
        status_counts=dict(sorted(statuses.items())),
        not_played=skipped + refused,
        stopped=stopped,
        not_played_by=dict(sorted(not_played_by.items())),
        not_admitted=not_admitted,
        moves_played=moves_played,
        elapsed_s=time.perf_counter() - started,
        per_player=player_rates(in_schedule),
        cache_hits=hits,
        cache_misses=misses,
        folder=str(folder),
        matches_path=str(folder / "matches.parquet"),
        moves_path=str(folder / "moves.parquet"),
        budget=budget.as_dict() if budget.active else None,
        protocol=roster.protocol_name,
    )


# --- multi-hand episodes (issue 19) ------------------------------------------------------------


def run_episode_tournament(
    roster: Roster,
    pairs: Sequence[tuple[str, str]],
    games: Sequence[Game],
    episodes: int,
    config: EpisodeConfig,
    folder: Path,
    *,
    offline: bool = False,
    environ: dict[str, str] | None = None,
    seed: int = 0,
) -> tuple[Path, dict[str, str]]:
    """Play ``episodes`` episode pairs of every pair on every game (``engines.tournament.
    episodes``) one after the other and write ``hands.parquet`` (one row per hand) in
    ``folder``; LLM players share the folder's response cache. A player that stops is taken
    out (its episodes are not recorded). Returns the table's path and the stopped players with
    their reasons."""
    names = {p.name for p in roster.players}
    unknown = sorted({n for pair in pairs for n in pair} - names)
    if unknown:
        raise ValueError(f"episode pair names unknown player(s): {', '.join(unknown)}")
    schedule = episode_schedule(pairs, games, episodes, config)
    folder.mkdir(parents=True, exist_ok=True)
    cache = ResponseCache(folder / "cache.sqlite", offline=offline)
    stopped: dict[str, str] = {}

    async def main() -> list[Record]:
        lineup = build_lineup(roster, cache, random.Random(seed), environ)
        secrets = (*lineup.secrets, *environment_secrets())
        rows: list[Record] = []
        try:
            for episode in schedule:
                seated = [lineup.players[episode.first], lineup.players[episode.second]]
                stopped.update({p.name: str(p.stopped) for p in seated if p.stopped})
                if any(p.name in stopped for p in seated):
                    continue
                try:
                    played = await play_episode(episode, lineup.players, config)
                except PlayerStopped as exc:
                    stopped.update({p.name: str(p.stopped) for p in seated if p.stopped})
                    if not any(p.stopped for p in seated):  # defensive: stop reason unknown
                        stopped[episode.first] = str(exc)
                    continue
                # an error's text is scrubbed as a match's
                rows += [redacted_rows(row, [], secrets)[0] for row in played]
        finally:
            await lineup.aclose()
        return rows

    try:
        rows = asyncio.run(main())
    finally:
        cache.close()
    path = folder / "hands.parquet"
    write_table(rows, HAND_SCHEMA, path)
    return path, stopped
