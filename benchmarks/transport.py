"""Benchmark: the lean HTTP/1.1 transport against httpx's standard one, on loopback.

Why: ``arena.llm.clients`` sends loopback traffic through the lean transport and remote
traffic through httpx's own (HTTP/2, proxies); this measures what the lean one saves where it
is used.  A scripted OpenAI-compatible server in its own process answers at once; two LLM
players play each other (every move is a call) with ``--parallel`` matches in flight, once per
transport, alternately, ``--repeats`` times.  Reported per transport: the client process's CPU
seconds per move and moves per second (best of the repeats), and the ratios standard / lean
(the anchor is the lean run beside it, never a wall-clock constant).

    .venv/bin/python benchmarks/transport.py [--json] [--runs 40] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.runner import run_tournament
from benchmarks.harness import start_server


def measure(url: str, transport: str, runs: int, parallel: int) -> dict[str, float]:
    model = {"kind": "openai", "model": "m", "base_url": url, "transport": transport}
    roster = parse_roster(
        {
            "players": [model | {"name": "a"}, model | {"name": "b"}],
            "providers": {f"openai@{url}": {"concurrency": parallel}},
        }
    )
    folder = Path(tempfile.mkdtemp(prefix="genstrat-transport-"))
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        summary = run_tournament(roster, resolve_games(["leduc"]), runs, folder, parallel=parallel)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    moves = summary.moves_played
    return {"moves": moves, "cpu_ms_per_move": 1000 * cpu / moves, "moves_per_s": moves / wall}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--parallel", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    process, url = start_server(0.0)
    best: dict[str, dict[str, float]] = {}
    try:
        for _ in range(args.repeats):
            for transport in ("lean", "standard"):
                got = measure(url, transport, args.runs, args.parallel)
                kept = best.get(transport)
                if kept is None or got["cpu_ms_per_move"] < kept["cpu_ms_per_move"]:
                    best[transport] = got
    finally:
        process.kill()
    report: dict[str, Any] = dict(best)
    report["cpu_ratio_standard_over_lean"] = round(
        best["standard"]["cpu_ms_per_move"] / best["lean"]["cpu_ms_per_move"], 2
    )
    report["rate_ratio_lean_over_standard"] = round(
        best["lean"]["moves_per_s"] / best["standard"]["moves_per_s"], 2
    )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for name in ("lean", "standard"):
            r = best[name]
            print(
                f"{name:<9} {r['cpu_ms_per_move']:.3f} ms CPU/move  {r['moves_per_s']:.0f} moves/s"
            )
        print(f"standard / lean CPU per move: {report['cpu_ratio_standard_over_lean']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
