"""Playing a tournament: matches, concurrency, resumption, the corpus rows (paper, Section 5).

``run_tournament(roster, games, runs, folder)`` plays every scheduled deal that the folder's
journal does not already hold and writes ``matches.parquet`` and ``moves.parquet``.  Steps:

1. build the schedule (``engines.tournament.schedule``) and open the corpus (its journal tells
   which matches are done; with ``retry_failed`` a recorded timeout or error is played again);
2. build the players: built-in agents, and LLM players sharing one HTTP client per provider
   (httpx on the lean HTTP/1.1 transport of ``engines.agents.http11``), one response cache
   (``cache.sqlite`` in the folder) and one ``ProviderGate`` per provider group;
3. play the remaining matches: built-in-only tournaments in a plain loop, otherwise up to
   ``parallel`` matches at a time on one event loop (a match is a chain of moves, so ``parallel``
   bounds the requests in flight together with the providers' own limits);
4. journal each match as it ends; every ``checkpoint_s`` seconds and at the end, write the
   tables (schedule order, so a resumed run writes exactly what an uninterrupted one does).

A match's chance is explicit: cards come from ``play_seed``; each seat's agent and the fallback
draw from a generator seeded by (play seed, deal, seat).  A player that stops (``PlayerStopped``:
a rejected key, an unknown model, an offline cache miss) is taken out: its match in flight and
its remaining matches are not played and not recorded (so the same command plays them once the
cause is fixed), and the summary names it.  A move whose retries are exhausted ends its match
with status ``timeout`` or ``error``; so does an exception inside an agent.  Such matches are
recorded, and ``complete_pairs`` drops them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from engines.agents.base import BuiltinPlayer, Decision, MoveFailed, Player, PlayerStopped
from engines.agents.builtin import builtin_agent
from engines.agents.cache import ResponseCache
from engines.agents.roster import ApiEntry, BuiltinEntry, Roster
from engines.gbg.engine import ENGINE_VERSION, new_deal
from engines.gbg.rng import derive_seed
from engines.gbg.spec import SEATS
from engines.tournament.corpus import Corpus, Record
from engines.tournament.schedule import Game, ScheduledMatch, block_schedule

SEAT_SALT = 0x5EA7


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
    moves_played: int
    elapsed_s: float
    per_player: dict[str, dict[str, float]]
    cache_hits: int
    cache_misses: int
    folder: str
    matches_path: str
    moves_path: str

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
            "moves_played": self.moves_played,
            "elapsed_s": round(self.elapsed_s, 3),
            "moves_per_s": round(self.moves_played / self.elapsed_s, 1) if self.elapsed_s else 0,
            "per_player": self.per_player,
            "cache_hits": self.cache_hits,
            "cache_misses": self.cache_misses,
            "folder": self.folder,
            "matches": self.matches_path,
            "moves": self.moves_path,
        }


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def seat_rng(play_seed: int, deal: int, seat: int) -> random.Random:
    """The generator of one seat of one deal (its agent's and its fallback's draws)."""
    return random.Random(derive_seed(play_seed, deal, seat, SEAT_SALT))


def tournament_schedule(roster: Roster, games: Sequence[Game], runs: int) -> list[ScheduledMatch]:
    """The roster's blocks scheduled on ``games`` (see ``schedule.block_schedule``)."""
    blocks = [
        (block, [p.name for p in roster.players if p.block == block]) for block in roster.blocks()
    ]
    fingerprints = {p.name: roster.fingerprint(p.name) for p in roster.players}
    return block_schedule(
        blocks,
        games,
        runs,
        fingerprints,
        first_block_games=roster.schedule.first_block_games,
        opponents=roster.schedule.opponents,
    )


# --- a match -----------------------------------------------------------------------------------


def _settings_text(player: Player) -> str:
    return json.dumps(player.settings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def move_record(
    m: ScheduledMatch,
    index: int,
    seat: int,
    player: Player,
    settings: str,
    phase: str,
    legal: tuple[str, ...],
    d: Decision,
) -> Record:
    return {
        "match_id": m.match_id,
        "index": index,
        "seat": SEATS[seat],
        "player": player.name,
        "model": player.model,
        "settings": settings,
        "phase": phase,
        "legal_actions": list(legal),
        "prompt_sha256": d.prompt_sha256,
        "raw_response": d.raw_response,
        "earlier_responses": list(d.earlier_responses),
        "verdict": d.verdict,
        "action": d.action,
        "fallback": d.fallback,
        "rethinks": d.rethinks,
        "latency_s": d.latency_s,
        "input_tokens": d.input_tokens,
        "output_tokens": d.output_tokens,
        "reasoning_tokens": d.reasoning_tokens,
        "cost_usd": d.cost_usd,
        "calls": d.calls,
        "cached": d.cached,
        "reasoning": d.reasoning,
    }


def match_record(
    m: ScheduledMatch,
    fingerprints: dict[str, str],
    moves: list[Record],
    status: str,
    error: str | None,
    returns: tuple[int, int] | None,
    started_at: str,
    started: float,
) -> Record:
    row: Record = {
        "match_id": m.match_id,
        "game": m.game.token,
        "game_seed": m.game.game_seed,
        "spec_hash": m.game.spec.spec_hash,
        "engine_version": ENGINE_VERSION,
        "block": m.block,
        "run_id": m.run_id,
        "run_index": m.run_index,
        "deal": m.deal,
        "play_seed": m.play_seed,
        "alice": m.alice,
        "bob": m.bob,
        "alice_fingerprint": fingerprints[m.alice],
        "bob_fingerprint": fingerprints[m.bob],
        "alice_chip_delta": returns[0] if returns else None,
        "bob_chip_delta": returns[1] if returns else None,
        "margin_alice": returns[0] - returns[1] if returns else None,
        "status": status,
        "error": error,
        "n_moves": len(moves),
    }
    for seat in SEATS:
        mine = [mv for mv in moves if mv["seat"] == seat]
        row[f"fallbacks_{seat}"] = sum(1 for mv in mine if mv["fallback"])
        row[f"rethinks_{seat}"] = sum(mv["rethinks"] for mv in mine)
        row[f"moves_{seat}"] = len(mine)
        for column in ("input_tokens", "output_tokens", "reasoning_tokens", "calls"):
            row[f"{column}_{seat}"] = sum(mv[column] for mv in mine)
        row[f"cost_usd_{seat}"] = sum(mv["cost_usd"] for mv in mine)
    row["started_at"] = started_at
    row["finished_at"] = now_iso()
    row["duration_s"] = time.perf_counter() - started
    return row


async def play_match(
    m: ScheduledMatch, players: dict[str, Player], fingerprints: dict[str, str]
) -> tuple[Record, list[Record]]:
    """Play one deal; ``PlayerStopped`` propagates (the match is then not recorded)."""
    started_at, started = now_iso(), time.perf_counter()
    seated = (players[m.alice], players[m.bob])
    settings = (_settings_text(seated[0]), _settings_text(seated[1]))
    rngs = (seat_rng(m.play_seed, m.deal, 0), seat_rng(m.play_seed, m.deal, 1))
    builtin = tuple(isinstance(p, BuiltinPlayer) for p in seated)
    state = new_deal(m.game.spec, m.play_seed)
    moves: list[Record] = []
    status, error = "complete", None
    try:
        while state.current_player >= 0:
            seat = state.current_player
            player = seated[seat]
            legal = state.legal_actions()
            phase = state.phase_id
            if builtin[seat]:
                assert isinstance(player, BuiltinPlayer)
                decision = player.decide_now(state, seat, rngs[seat])
            else:
                call_id = f"{m.match_id}/{len(moves)}"
                decision = await player.decide(state, seat, rngs[seat], call_id)
            if decision.action not in legal:
                raise ValueError(f"player {player.name!r} chose {decision.action!r}, not legal")
            state.apply(decision.action)
            moves.append(
                move_record(m, len(moves), seat, player, settings[seat], phase, legal, decision)
            )
    except PlayerStopped:
        raise
    except MoveFailed as exc:
        status, error = exc.status, str(exc)
    except Exception as exc:  # an agent's bug must not take the tournament down
        status, error = "error", f"{type(exc).__name__}: {exc}"
    returns = state.returns() if status == "complete" else None
    row = match_record(m, fingerprints, moves, status, error, returns, started_at, started)
    return row, moves


def play_builtin_match(
    m: ScheduledMatch, players: dict[str, Player], fingerprints: dict[str, str]
) -> tuple[Record, list[Record]]:
    """``play_match`` without an event loop (both players are built-in agents)."""
    coroutine = play_match(m, players, fingerprints)
    try:
        coroutine.send(None)
    except StopIteration as done:
        result: tuple[Record, list[Record]] = done.value
        return result
    coroutine.close()
    raise RuntimeError("a built-in match awaited something")


# --- players -----------------------------------------------------------------------------------


@dataclass
class Lineup:
    """The tournament's players and the shared resources of the LLM players."""

    players: dict[str, Player]
    fingerprints: dict[str, str]
    cache: ResponseCache
    clients: list[Any] = field(default_factory=list)
    all_builtin: bool = True
    stopped: dict[str, str] = field(default_factory=dict)

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()


def provider_gate(roster: Roster, group: str, share: int = 1) -> Any:
    """The gate of provider ``group`` for one of ``share`` processes."""
    from engines.agents.transport import ProviderGate

    limits = roster.limits(group)
    rate = limits.requests_per_minute
    return ProviderGate(
        max(1, -(-limits.concurrency // share)), rate / share if rate is not None else None
    )


def build_lineup(
    roster: Roster,
    cache: ResponseCache,
    rng: random.Random,
    environ: dict[str, str] | None = None,
    share: int = 1,
) -> Lineup:
    """Players for every roster entry (must run inside the event loop when LLMs play).

    An LLM player whose key variable is unset starts stopped, with a message naming the
    variable (never a value).  ``share``: how many processes split the providers' limits (each
    gets 1/share of a provider's concurrency and request rate).
    """
    env = dict(os.environ) if environ is None else environ
    fingerprints = {p.name: roster.fingerprint(p.name) for p in roster.players}
    players: dict[str, Player] = {}
    api_entries = [p for p in roster.players if isinstance(p, ApiEntry)]
    clients: dict[str, list[Any]] = {}
    if api_entries:
        import httpx

        from engines.agents.http11 import lean_client
        from engines.agents.llm import LLMPlayer, Price
        from engines.agents.providers import make_provider
        from engines.agents.transport import RetryPolicy, Transport

        groups = sorted({p.provider_group for p in api_entries})
        gates = {g: provider_gate(roster, g, share) for g in groups}
        # one client per provider on the lean HTTP/1.1 transport (engines.agents.http11), all
        # sharing one TLS context (building one reads the CA bundle: tens of milliseconds)
        tls = httpx.create_ssl_context()
        clients = {g: [lean_client(tls)] for g in groups}
    for entry in roster.players:
        if isinstance(entry, BuiltinEntry):
            agent = builtin_agent(entry.agent, entry.params)
            players[entry.name] = BuiltinPlayer(
                name=entry.name, agent=agent, model=entry.agent, settings=dict(entry.params)
            )
            continue
        limits = roster.limits(entry.provider_group)
        retry = RetryPolicy(
            max_retries=limits.max_retries,
            backoff_base_s=limits.backoff_base_s,
            backoff_max_s=limits.backoff_max_s,
            max_retry_after_s=limits.max_retry_after_s,
        )
        transport = Transport(
            clients[entry.provider_group],
            gates[entry.provider_group],
            retry,
            random.Random(rng.getrandbits(64)),
            timeout_s=entry.timeout_s,
        )
        key = env.get(entry.api_key_env) if entry.api_key_env else None
        player = LLMPlayer(
            name=entry.name,
            provider=make_provider(entry.kind, entry.base_url),
            model=entry.model,
            transport=transport,
            cache=cache,
            api_key=key,
            settings=dict(entry.settings),
            rethinks=roster.rethinks_of(entry),
            response_format=entry.response_format,
            price=Price(entry.price.input_per_mtok, entry.price.output_per_mtok),
        )
        if entry.api_key_env and not key and not cache.offline:
            player.stopped = (
                f"player {entry.name!r} stopped: environment variable {entry.api_key_env} "
                "is not set (it should hold the API key)"
            )
        players[entry.name] = player
    every_client = [c for group in clients.values() for c in group]
    return Lineup(players, fingerprints, cache, every_client, all_builtin=not api_entries)


# --- the tournament ----------------------------------------------------------------------------


def player_rates(records: Sequence[tuple[Record, list[Record]]]) -> dict[str, dict[str, float]]:
    """Per player: moves, fallbacks, rethinks and their rates, over the given matches."""
    moves: Counter[str] = Counter()
    fallbacks: Counter[str] = Counter()
    rethinks: Counter[str] = Counter()
    for _, match_moves in records:
        for mv in match_moves:
            moves[mv["player"]] += 1
            fallbacks[mv["player"]] += int(mv["fallback"])
            rethinks[mv["player"]] += int(mv["rethinks"])
    return {
        name: {
            "moves": moves[name],
            "fallbacks": fallbacks[name],
            "fallback_rate": fallbacks[name] / moves[name] if moves[name] else 0.0,
            "rethinks": rethinks[name],
            "rethink_rate": rethinks[name] / moves[name] if moves[name] else 0.0,
        }
        for name in sorted(moves)
    }


class JournalSink(Protocol):
    def append(self, match: Record, moves: list[Record]) -> None: ...


async def _play_all(
    pending: list[ScheduledMatch],
    lineup: Lineup,
    corpus: JournalSink,
    parallel: int,
    on_match: Callable[[Record, list[Record]], None],
) -> int:
    """Play ``pending`` with up to ``parallel`` matches at once; return how many were skipped."""
    queue = list(reversed(pending))
    skipped = 0

    async def worker() -> None:
        nonlocal skipped
        while queue:
            m = queue.pop()
            seated = [lineup.players[m.alice], lineup.players[m.bob]]
            if any(p.stopped for p in seated):
                skipped += 1
                continue
            try:
                row, moves = await play_match(m, lineup.players, lineup.fingerprints)
            except PlayerStopped as exc:
                for p in seated:
                    if p.stopped:
                        lineup.stopped[p.name] = p.stopped
                if not any(p.stopped for p in seated):  # defensive: stop reason unknown
                    lineup.stopped[m.alice] = str(exc)
                skipped += 1
                continue
            corpus.append(row, moves)
            on_match(row, moves)

    await asyncio.gather(*(worker() for _ in range(max(1, parallel))))
    return skipped


# --- several processes ------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardJob:
    """What one worker process plays: its matches of the schedule, into its own journal."""

    roster: dict[str, Any]
    games: tuple[str, ...]
    runs: int
    folder: str
    worker: int
    workers: int
    match_ids: tuple[str, ...]
    parallel: int
    offline: bool
    environ: dict[str, str] | None
    seed: int


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill this process when its parent dies (a killed tournament leaves no
    worker behind); elsewhere, at least notice an already-dead parent."""
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def play_shard(job: ShardJob, events: Any, parent: int) -> None:
    """A worker process: play ``job``'s matches, journal them, report on ``events``."""
    _die_with_parent(parent)
    from engines.agents.roster import parse_roster
    from engines.tournament.corpus import write_journal_line
    from engines.tournament.schedule import resolve_games

    roster = parse_roster(job.roster)
    games = resolve_games(list(job.games))
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

            async def main() -> tuple[int, dict[str, str]]:
                rng = random.Random(derive_seed(job.seed, job.worker))
                lineup = build_lineup(roster, cache, rng, job.environ, share=job.workers)
                for player in lineup.players.values():
                    if player.stopped:
                        lineup.stopped[player.name] = player.stopped
                try:
                    count = await _play_all(
                        pending,
                        lineup,
                        ShardCorpus(),
                        job.parallel,
                        on_match,
                    )
                finally:
                    await lineup.aclose()
                return count, lineup.stopped

            skipped, stopped = asyncio.run(main())
        events.put(("done", job.worker, skipped, stopped, cache.hits, cache.misses))
    except BaseException as exc:  # report, then let the parent decide
        events.put(("failed", job.worker, f"{type(exc).__name__}: {exc}"))
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
) -> tuple[int, dict[str, str], int, int]:
    """Play ``pending`` in ``workers`` processes (matches dealt round-robin); return (skipped,
    stopped players, cache hits, cache misses).  The corpus is reloaded afterwards."""
    import multiprocessing
    import queue as queues

    from engines.agents.roster import roster_json

    context = multiprocessing.get_context("spawn")
    events = context.Queue()
    data = json.loads(roster_json(roster))
    tokens = tuple(g.token for g in games)
    processes = []
    for k in range(workers):
        share = tuple(m.match_id for m in pending[k::workers])
        job = ShardJob(
            data, tokens, runs, str(corpus.folder), k, workers, share,
            max(1, -(-parallel // workers)), offline, environ, seed,
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
) -> TournamentSummary:
    """Play (or resume) a tournament into ``folder`` (see the module docstring).

    ``workers`` > 1 plays the LLM matches in that many processes (each with its own event loop
    and journal, the providers' limits split between them): one event loop saturates a core
    at a few hundred requests per second.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    started = time.perf_counter()
    schedule = tournament_schedule(roster, games, runs)
    order = [m.match_id for m in schedule]
    with Corpus(folder) as corpus:
        done = {
            m.match_id
            for m in schedule
            if (status := corpus.status(m.match_id)) is not None
            and (status == "complete" or not retry_failed)
        }
        pending = [m for m in schedule if m.match_id not in done]
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
        try:
            lineup_rng = random.Random(seed)
            if all(isinstance(p, BuiltinEntry) for p in roster.players):
                lineup = build_lineup(roster, cache, lineup_rng, environ)
                for m in pending:
                    row, moves = play_builtin_match(m, lineup.players, lineup.fingerprints)
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
                    environ, seed, on_progress,
                )  # fmt: skip
                cache.hits += extra_hits
                cache.misses += extra_misses
            else:

                async def main() -> tuple[int, dict[str, str]]:
                    lineup = build_lineup(roster, cache, lineup_rng, environ)
                    for player in lineup.players.values():
                        if player.stopped:
                            lineup.stopped[player.name] = player.stopped
                    try:
                        count = await _play_all(pending, lineup, corpus, parallel, on_match)
                    finally:
                        await lineup.aclose()
                    return count, lineup.stopped

                skipped, stopped = asyncio.run(main())
        finally:
            corpus.write_tables(order)
            hits, misses = cache.hits, cache.misses
            cache.close()
        in_schedule = [corpus.records[i] for i in order if i in corpus.records]
    statuses = Counter(str(match["status"]) for match, _ in in_schedule)
    return TournamentSummary(
        scheduled=len(schedule),
        resumed=len(done),
        played=played,
        recorded=len(in_schedule),
        status_counts=dict(sorted(statuses.items())),
        not_played=skipped,
        stopped=stopped,
        moves_played=moves_played,
        elapsed_s=time.perf_counter() - started,
        per_player=player_rates(in_schedule),
        cache_hits=hits,
        cache_misses=misses,
        folder=str(folder),
        matches_path=str(folder / "matches.parquet"),
        moves_path=str(folder / "moves.parquet"),
    )
