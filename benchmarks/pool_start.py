"""What a process pool costs a run the daemon launched: forked workers against spawned ones.

Usage: python benchmarks/pool_start.py [--games 177,2631,901] [--budget paper] [--rounds 3] [--json]

The daemon starts each run with ``multiprocessing``'s spawn, and a spawned process passes spawn
on to the pools it opens. This script does the same: each measurement runs in a child started
by spawn, which opens a pool of two workers and computes one game's five axes with their rerun
(``compute_with_rerun``, the body of an ``axis_scores`` partition), and times it from before the
pool opens to after it closes. Two arms, alternating within each round (one child at a time):

- ``fork``: ``arena.parallel.ProcessPool``, the product's pool (its workers are forked);
- ``spawn``: the same pool with spawned workers, as the pool started them in a daemon run
  before they were forked (each worker imports the engines and loads the compiled kernels).

Reported per game: the median wall time of each arm and their ratio, and whether both arms
produced the same axes (they must: the start method changes no number).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import time
from typing import Any

from arena.parallel import ProcessPool
from engines.axes.budgets import axis_budget
from engines.axes.compute import compute_with_rerun
from engines.gbg.generator import generate

ARMS = ("fork", "spawn")


def _measure(arm: str, seed: int, budget: str, sink: Any) -> None:
    """In the spawned child: one game's axes with their rerun on a pool of ``arm``'s workers."""
    spec = generate(seed)
    started = time.perf_counter()
    pool = ProcessPool(2) if arm == "fork" else ProcessPool(2, start_method=arm)
    try:
        report = compute_with_rerun(spec, axis_budget(budget), 0, pool=pool)
    finally:
        pool.close()
    sink.send({"seconds": time.perf_counter() - started, "axes": report.axes})
    sink.close()


def measure(arm: str, seed: int, budget: str) -> dict[str, Any]:
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_measure, args=(arm, seed, budget, send))
    child.start()
    send.close()
    found: dict[str, Any] = receive.recv()
    child.join()
    if child.exitcode != 0:
        raise SystemExit(f"pool_start: the {arm} child for game {seed} exited {child.exitcode}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", default="177,2631,901", help="generator seeds (accepted games)")
    parser.add_argument("--budget", default="paper")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seeds = [int(s) for s in args.games.split(",")]
    times: dict[tuple[int, str], list[float]] = {(s, a): [] for s in seeds for a in ARMS}
    axes: dict[tuple[int, str], dict[str, float]] = {}
    for r in range(args.rounds):
        for seed in seeds:
            for arm in ARMS if r % 2 == 0 else ARMS[::-1]:
                found = measure(arm, seed, args.budget)
                times[seed, arm].append(found["seconds"])
                axes[seed, arm] = found["axes"]
                print(f"round {r + 1} game {seed} {arm}: {found['seconds']:.2f} s", flush=True)
    rows = []
    for seed in seeds:
        fork, spawn = (statistics.median(times[seed, a]) for a in ARMS)
        rows.append(
            {
                "game": seed,
                "fork_seconds": fork,
                "spawn_seconds": spawn,
                "spawn_over_fork": spawn / fork,
                "saved_seconds": spawn - fork,
                "same_axes": axes[seed, "fork"] == axes[seed, "spawn"],
            }
        )
    if args.json:
        print(json.dumps({"budget": args.budget, "rounds": args.rounds, "games": rows}, indent=2))
    else:
        for row in rows:
            print(
                f"game {row['game']}: fork {row['fork_seconds']:.2f} s, spawn "
                f"{row['spawn_seconds']:.2f} s, spawn/fork {row['spawn_over_fork']:.2f}x, "
                f"saved {row['saved_seconds']:.2f} s, same axes {row['same_axes']}"
            )


if __name__ == "__main__":
    main()
