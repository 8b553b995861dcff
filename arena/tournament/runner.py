"""Playing a tournament: matches, concurrency, resumption, the corpus rows (paper, Section 5).

``run_tournament(roster, games, runs, folder)`` plays every scheduled deal that the folder's
journal does not already hold and writes ``matches.parquet`` and ``moves.parquet``.  Steps:

1. build the schedule (``engines.tournament.schedule``) and open the corpus (its journal tells
   which matches are done; with ``retry_failed`` a recorded timeout or error is played again);
   this step, the next and the play of step 4 are ``arena.tournament.play``'s;
2. admit the strategy programs: each program takes the admission test (``sandbox.admit``:
   loads, plays legally, median move at most 100 ms of CPU) on each game it has matches left on; a
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
cause is fixed; the requests its move in flight had made are cached with their call and counted
in the move when that match is played), and the summary names it.  A move whose retries are
exhausted ends its match with status ``timeout`` or ``error``; so does an exception inside an
agent.  Such matches are recorded, and ``complete_pairs`` drops them.  A program that crashes or
answers an illegal action forfeits its match (status ``forfeit``, a loss it keeps); a program's
timeout is a ``timeout``.
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
from typing import Any

from arena.files import atomic_write_text
from arena.llm.cache import ResponseCache
from arena.llm.usage import UNAVAILABLE
from arena.roster import BuiltinEntry, Roster
from arena.secrets import environment_secrets, redacted_rows
from arena.tournament.budget import Budget, record_state
from arena.tournament.journal import Corpus, write_table
from arena.tournament.lineup import Lineup, build_lineup
from arena.tournament.play import (
    admit_programs,
    pending_matches,
    play_all,
    player_rates,
    tournament_schedule,
)
from arena.tournament.shards import play_sharded
from engines.agents.base import PlayerStopped
from engines.tournament.episodes import HAND_SCHEMA, EpisodeConfig, episode_schedule, play_episode
from engines.tournament.match import play_builtin_match, play_match, seat_rng
from engines.tournament.records import FAILED_STATUSES, Record
from engines.tournament.schedule import Game

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
