"""Benchmark of the tournament harness (issue 5, "Performance").

(a) Throughput against a slow model: a scripted OpenAI-compatible server on 127.0.0.1, in its
    own process, answers every call after 200 ms; two LLM players play each other (every move
    is a call) with 64 matches and 64 requests in flight.  The ideal is 64 / 0.2 s = 320 moves
    per second; the target is at least 80% of it.  Reported: moves per second sustained (the
    rate between the first and the last 10% of the moves, so neither start-up nor the final
    drain, when fewer than 64 matches remain, counts) and overall, with their ratios.

(b) Overhead with built-in bots: the same deals (same play seeds, same agents, same seat
    generators) played twice, once by a bare loop over the engine (``new_deal``, ``act``,
    ``apply``: engine and agent time only) and once through ``run_tournament`` (schedule,
    players, move and match records, the journal, the Parquet tables).  Reported: the harness's
    added time per move, (harness - bare) / moves; the target is at most 0.2 ms.  Both are
    timed best-of-``--repeats`` in this process.

    .venv/bin/python benchmarks/harness.py [--json] [--moves-a 4000] [--runs-b 150] [--workers 1]

``--workers`` plays (a) in that many processes (``run_tournament(..., workers=W)``); the default,
one process, is the harness as ``genstrat tournament run`` runs it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.runner import Progress, run_tournament, seat_rng, tournament_schedule
from engines.agents.builtin import builtin_agent
from engines.gbg.engine import new_deal

DELAY_S = 0.2
CONCURRENCY = 64


def start_server(delay_ms: float) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.doubles.scripted_server", "--delay-ms", str(delay_ms)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        process.kill()
        raise RuntimeError(f"the scripted server did not start (said {url!r})")
    return process, url


def throughput(moves_target: int, workers: int) -> dict[str, Any]:
    """(a): moves per second against a 200 ms endpoint at concurrency 64."""
    server, url = start_server(DELAY_S * 1000)
    try:
        roster = parse_roster(
            {
                "players": [
                    {"name": "llm-a", "kind": "openai", "model": "a", "base_url": url},
                    {"name": "llm-b", "kind": "openai", "model": "b", "base_url": url},
                ],
                "providers": {f"openai@{url}": {"concurrency": CONCURRENCY}},
                "rethinks": 0,
            }
        )
        # Kuhn poker deals have 2-3 moves; enough runs for about ``moves_target`` moves
        runs = max(1, moves_target // 5)
        marks: list[tuple[float, int]] = []

        def progress(p: Progress) -> None:
            marks.append((time.perf_counter(), p.moves))

        with tempfile.TemporaryDirectory() as folder:
            summary = run_tournament(
                roster,
                resolve_games(["kuhn"]),
                runs,
                Path(folder),
                parallel=CONCURRENCY,
                progress=progress,
                workers=workers,
            )
        ideal = CONCURRENCY / DELAY_S
        rate = summary.moves_played / summary.elapsed_s
        # sustained: between the first and the last 10% of the moves (start-up and the final
        # drain, when fewer than 64 matches are left, excluded)
        low, high = 0.1 * summary.moves_played, 0.9 * summary.moves_played
        window = [(t, n) for t, n in marks if low <= n <= high]
        sustained = (window[-1][1] - window[0][1]) / (window[-1][0] - window[0][0])
        return {
            "moves": summary.moves_played,
            "matches": summary.played,
            "seconds": round(summary.elapsed_s, 2),
            "moves_per_second_overall": round(rate, 1),
            "moves_per_second_sustained": round(sustained, 1),
            "ideal_moves_per_second": ideal,
            "ratio_to_ideal_overall": round(rate / ideal, 3),
            "ratio_to_ideal_sustained": round(sustained / ideal, 3),
            "target_ratio": 0.8,
            "workers": workers,
            "statuses": summary.status_counts,
        }
    finally:
        server.kill()
        server.wait(10)


def bare_loop(roster: Any, games: Any, runs: int) -> tuple[float, int]:
    """Engine and agent time only: the tournament's deals without the harness."""
    schedule = tournament_schedule(roster, games, runs)
    agents = {p.name: builtin_agent(p.agent, p.params) for p in roster.players}
    moves = 0
    started = time.perf_counter()
    for m in schedule:
        seated = (agents[m.alice], agents[m.bob])
        rngs = (seat_rng(m.play_seed, m.deal, 0), seat_rng(m.play_seed, m.deal, 1))
        state = new_deal(m.game.spec, m.play_seed)
        while state.current_player >= 0:
            seat = state.current_player
            state.apply(seated[seat].act(state, seat, rngs[seat]))
            moves += 1
    return time.perf_counter() - started, moves


def overhead(runs: int, repeats: int) -> dict[str, Any]:
    """(b): the harness's time per move beyond engine (and agent) time, built-in bots."""
    roster = parse_roster(
        {
            "players": [
                {"name": "r1", "kind": "builtin", "agent": "random"},
                {"name": "r2", "kind": "builtin", "agent": "random"},
                {"name": "r3", "kind": "builtin", "agent": "random"},
            ]
        }
    )
    games = resolve_games(["kuhn", "0", "4", "5"])
    bare_loop(roster, games, 2)  # warm the compiled game trees
    bare = min(bare_loop(roster, games, runs)[0] for _ in range(repeats))
    _, moves = bare_loop(roster, games, runs)
    harness = float("inf")
    for _ in range(repeats):
        folder = Path(tempfile.mkdtemp())
        try:
            started = time.perf_counter()
            summary = run_tournament(roster, games, runs, folder)
            harness = min(harness, time.perf_counter() - started)
            assert summary.moves_played == moves
        finally:
            shutil.rmtree(folder)
    added = (harness - bare) / moves
    return {
        "matches": len(tournament_schedule(roster, games, runs)),
        "moves": moves,
        "bare_seconds": round(bare, 3),
        "harness_seconds": round(harness, 3),
        "bare_ms_per_move": round(1000 * bare / moves, 4),
        "added_ms_per_move": round(1000 * added, 4),
        "target_added_ms_per_move": 0.2,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves-a", type=int, default=4000, help="moves in benchmark (a)")
    parser.add_argument("--runs-b", type=int, default=150, help="runs per matchup in (b)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1, help="processes in benchmark (a)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = {
        "a_throughput_200ms_concurrency_64": throughput(args.moves_a, args.workers),
        "b_builtin_overhead": overhead(args.runs_b, args.repeats),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        a, b = report["a_throughput_200ms_concurrency_64"], report["b_builtin_overhead"]
        print(
            f"(a) {a['moves_per_second_sustained']} moves/s sustained against a 200 ms endpoint "
            f"at concurrency 64: {a['ratio_to_ideal_sustained']:.0%} of the ideal "
            f"{a['ideal_moves_per_second']:.0f} (target 80%); overall, start-up and drain "
            f"included, {a['moves_per_second_overall']} moves/s "
            f"({a['ratio_to_ideal_overall']:.0%}); {a['moves']} moves in {a['seconds']} s"
        )
        print(
            f"(b) built-in bots: the harness adds {b['added_ms_per_move']:.4f} ms per move "
            f"(target 0.2 ms) to {b['bare_ms_per_move']:.4f} ms of engine and agent time; "
            f"{b['moves']} moves"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
