"""Playing a tournament's matches in several processes, or in several steps.

Steps: ``plan_shares`` splits the matches of a tournament folder that are still to play into
``steps`` shares (round-robin over the schedule); ``play_share`` plays one share, from any
process (a Dagster step on a Dask worker), into the folder's journal of that step
(``journal.w<k>.step.jsonl``, read back by ``Corpus.reload`` like a worker's); once every share
is played, ``run_tournament`` on the same folder finds every match journaled, plays nothing and
writes the tables, so a tournament played in steps ends with the tables of one played in one
go.  The shares are planned under the folder's lock; a share is played without it (each step
writes only its own journal, the response cache is SQLite).

Processes:

One event loop serves a few hundred requests per second; ``play_sharded`` deals the pending
matches round-robin to ``workers`` processes (started with ``spawn``), each with its own event
loop, its own journal (``journal.w<k>.jsonl``, read back by ``Corpus.reload``) and 1/workers of
every provider's limits; the response cache is shared (SQLite).  Each worker runs its own
sandbox process per strategy program (the parent has admitted the programs; the roster reaches
the workers as ``roster_json``, with absolute program paths and the code's SHA-256, which is
checked again there).  Each worker asks Linux to kill it when its parent dies, so a killed
tournament leaves no worker playing on.  Progress and results come back on a queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.games import game_records, games_from_records
from arena.llm.cache import ResponseCache
from arena.roster import BuiltinEntry, Roster
from arena.secrets import environment_secrets, redacted_rows, scrub
from arena.tournament.journal import CACHE, Corpus, write_journal_line
from arena.tournament.lineup import build_lineup
from arena.tournament.play import pending_matches, play_all, tournament_schedule
from engines.gbg.rng import derive_seed
from engines.tournament.match import play_builtin_match
from engines.tournament.records import Record
from engines.tournament.schedule import Game, ScheduledMatch


@dataclass(frozen=True)
class ShardJob:
    """What one worker process plays: its matches of the schedule, into its own journal."""

    roster: dict[str, Any]
    games: tuple[dict[str, Any], ...]  # arena.games.game_records
    runs: int
    folder: str
    worker: int
    workers: int
    match_ids: tuple[str, ...]
    parallel: int
    offline: bool
    environ: dict[str, str] | None
    seed: int
    max_connection_failures: int | None = None


def die_with_parent(parent: int, sig: int | None = None) -> None:
    """Ask Linux to send this process ``sig`` (default SIGKILL) when the thread that started
    it dies (a killed tournament leaves no worker behind); elsewhere, at least notice an
    already-dead parent (``parent``: its pid, read before the fork)."""
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        pdeathsig = 1  # PR_SET_PDEATHSIG, prctl(2)
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pdeathsig, sig or signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def play_shard(job: ShardJob, events: Any, parent: int) -> None:
    """A worker process: play ``job``'s matches, journal them, report on ``events``."""
    die_with_parent(parent)
    from arena.roster import parse_roster
    from arena.tournament.journal import write_journal_line

    roster = parse_roster(job.roster)
    games = games_from_records(job.games)
    wanted = set(job.match_ids)
    pending = [m for m in tournament_schedule(roster, games, job.runs) if m.match_id in wanted]
    folder = Path(job.folder)
    cache = ResponseCache(folder / "cache.sqlite", offline=job.offline)
    journal_path = folder / f"journal.w{job.worker}.jsonl"
    try:
        with open(journal_path, "a", encoding="utf-8") as journal:

            class ShardCorpus:
                def append(self, row: Record, moves: list[Record]) -> None:
                    write_journal_line(journal, row, moves)

            def on_match(row: Record, moves: list[Record]) -> None:
                events.put(("match", len(moves)))

            not_played: dict[str, int] = {}

            async def main() -> tuple[int, dict[str, str]]:
                rng = random.Random(derive_seed(job.seed, job.worker))
                lineup = build_lineup(
                    roster, cache, rng, job.environ, share=job.workers,
                    max_connection_failures=job.max_connection_failures,
                )  # fmt: skip
                for player in lineup.players.values():
                    if player.stopped:
                        lineup.stopped[player.name] = player.stopped
                try:
                    count = await play_all(
                        pending,
                        lineup,
                        ShardCorpus(),
                        job.parallel,
                        on_match,
                    )
                finally:
                    await lineup.aclose()
                    not_played.update(lineup.not_played)
                return count, lineup.stopped

            skipped, stopped = asyncio.run(main())
        events.put(("done", job.worker, skipped, stopped, cache.hits, cache.misses, not_played))
    except BaseException as exc:  # report, then let the parent decide
        events.put(
            ("failed", job.worker, scrub(f"{type(exc).__name__}: {exc}", environment_secrets()))
        )
        raise
    finally:
        cache.close()


def play_sharded(
    roster: Roster,
    games: Sequence[Game],
    runs: int,
    corpus: Corpus,
    pending: list[ScheduledMatch],
    workers: int,
    parallel: int,
    offline: bool,
    environ: dict[str, str] | None,
    seed: int,
    on_progress: Callable[[int], None],
    max_connection_failures: int | None = None,
    not_played: Counter[str] | None = None,
) -> tuple[int, dict[str, str], int, int]:
    """Play ``pending`` in ``workers`` processes (matches dealt round-robin); return (skipped,
    stopped players, cache hits, cache misses), and add the matches each stopped player left
    out to ``not_played``.  The corpus is reloaded afterwards."""
    import multiprocessing
    import queue as queues

    from arena.roster import roster_json

    context = multiprocessing.get_context("spawn")
    events = context.Queue()
    data = json.loads(roster_json(roster))
    tokens = game_records(games)  # the games' specs: a worker never generates a seed again
    processes = []
    for k in range(workers):
        share = tuple(m.match_id for m in pending[k::workers])
        job = ShardJob(
            data, tokens, runs, str(corpus.folder), k, workers, share,
            max(1, -(-parallel // workers)), offline, environ, seed, max_connection_failures,
        )  # fmt: skip
        process = context.Process(target=play_shard, args=(job, events, os.getpid()))
        process.start()
        processes.append(process)
    skipped, hits, misses = 0, 0, 0
    stopped: dict[str, str] = {}
    finished: set[int] = set()
    failures: list[str] = []
    try:
        while len(finished) < workers:
            try:
                event = events.get(timeout=0.5)
            except queues.Empty:
                for k, process in enumerate(processes):
                    if k not in finished and process.exitcode is not None:
                        finished.add(k)
                        failures.append(f"worker {k} exited with status {process.exitcode}")
                continue
            if event[0] == "match":
                on_progress(event[1])
            elif event[0] == "done":
                finished.add(event[1])
                skipped += event[2]
                stopped.update(event[3])
                hits += event[4]
                misses += event[5]
                if not_played is not None:
                    not_played.update(event[6])
            elif event[0] == "failed":
                finished.add(event[1])
                failures.append(f"worker {event[1]}: {event[2]}")
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()
        corpus.reload()
    if failures:
        raise RuntimeError("; ".join(failures))
    return skipped, stopped, hits, misses


# --- a tournament in steps -------------------------------------------------------------------


@dataclass(frozen=True)
class Share:
    """Step ``step`` of ``steps``: the ids of the matches it plays (maybe none)."""

    step: int
    steps: int
    match_ids: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "steps": self.steps, "match_ids": list(self.match_ids)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Share:
        return cls(int(data["step"]), int(data["steps"]), tuple(data["match_ids"]))


def step_journal(folder: Path, step: int) -> Path:
    """The journal of step ``step`` (``Corpus.journal_paths`` reads it with the workers')."""
    return folder / f"journal.w{step}.step.jsonl"


def plan_shares(
    roster: Roster,
    games: Sequence[Game],
    runs: int,
    folder: Path,
    steps: int,
    *,
    retry_failed: bool = False,
    seed: int = 0,
) -> list[Share]:
    """The matches ``run_tournament`` would play in ``folder`` (not journaled yet, or recorded
    failed with ``retry_failed``; a program refused admission on a game leaves its matches
    there out), dealt round-robin in their order of play (``interleaved``) into ``steps``
    shares."""
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    schedule = tournament_schedule(roster, games, runs)
    with Corpus(folder) as corpus:
        todo = pending_matches(roster, schedule, corpus, retry_failed=retry_failed, seed=seed)
    playable = todo.playable
    return [Share(k, steps, tuple(m.match_id for m in playable[k::steps])) for k in range(steps)]


@dataclass(frozen=True)
class ShareResult:
    """What a step played: matches recorded, matches not played (a stopped player) and why."""

    played: int
    skipped: int
    stopped: dict[str, str]
    not_played: dict[str, int] = field(default_factory=dict)


def play_share(
    roster: Roster,
    games: Sequence[Game],
    runs: int,
    folder: Path,
    share: Share,
    *,
    parallel: int = 64,
    offline: bool = False,
    environ: dict[str, str] | None = None,
    seed: int = 0,
    on_match: Callable[[int], None] | None = None,
    max_connection_failures: int | None = None,
) -> ShareResult:
    """Play ``share``'s matches into its step's journal, the way ``run_tournament`` plays them
    (built-in-only rosters in a plain loop, otherwise on one event loop with the providers'
    limits split between the ``steps``); ``on_match`` gets each match's move count."""
    # in the share's order, the order of play ``plan_shares`` dealt it in (``interleaved``)
    scheduled = {m.match_id: m for m in tournament_schedule(roster, games, runs)}
    missing = [i for i in share.match_ids if i not in scheduled]
    if missing:
        raise ValueError(f"{len(missing)} match ids of step {share.step} are not scheduled")
    pending = [scheduled[i] for i in share.match_ids]
    played = 0

    def record(journal: Any, row: Record, moves: list[Record]) -> None:
        nonlocal played
        write_journal_line(journal, row, moves)
        played += 1
        if on_match is not None:
            on_match(len(moves))

    folder.mkdir(parents=True, exist_ok=True)
    cache = ResponseCache(folder / CACHE, offline=offline)
    try:
        with open(step_journal(folder, share.step), "a", encoding="utf-8") as journal:
            rng = random.Random(derive_seed(seed, share.step))
            if all(isinstance(p, BuiltinEntry) for p in roster.players):
                lineup = build_lineup(roster, cache, rng, environ)
                secrets = environment_secrets()
                for m in pending:
                    row, moves = play_builtin_match(m, lineup.players, lineup.fingerprints)
                    record(journal, *redacted_rows(row, moves, secrets))
                return ShareResult(played, 0, {})

            class StepCorpus:
                def append(self, row: Record, moves: list[Record]) -> None:
                    record(journal, row, moves)

            not_played: dict[str, int] = {}

            async def main() -> tuple[int, dict[str, str]]:
                lineup = build_lineup(
                    roster, cache, rng, environ, share=share.steps,
                    max_connection_failures=max_connection_failures,
                )  # fmt: skip
                for player in lineup.players.values():
                    if player.stopped:
                        lineup.stopped[player.name] = player.stopped
                try:
                    count = await play_all(
                        pending, lineup, StepCorpus(), parallel, lambda row, moves: None
                    )
                finally:
                    await lineup.aclose()
                    not_played.update(lineup.not_played)
                return count, lineup.stopped

            skipped, stopped = asyncio.run(main())
            return ShareResult(played, skipped, stopped, not_played)
    finally:
        cache.close()
