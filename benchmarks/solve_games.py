"""Exact best and worst responses on generated games: sizes, times and the size limit (issue 17).

Usage: python benchmarks/solve_games.py [--games 5] [--limit 20000000] [--config paper]
       [--max-seeds 2000] [--start 0] [--json]

Solves, for both seats against the uniform random policy L0, Kuhn and Leduc and then
``--games`` accepted games of ``--config`` (paper or default) among the first ``--max-seeds``
seeds: the smallest whose trees fit under ``--limit`` histories, chosen by the ablations' gate
(``engines.solve.sizing.smallest_that_fit``: Knuth's estimate of every accepted game, then an
exact count bounded by the limit).  Prints per game and seat the histories, information sets,
the tree's megabytes, expansion and solve seconds, the peak resident memory so far, and the
best and worst response values.  The anchor beside it: the tree-of-states solver
(``respond`` twice) on Leduc.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from typing import Any

from engines.agents.equilibrium import count_histories
from engines.gbg.acceptance import AcceptanceSettings
from engines.gbg.generator import PAPER_CONFIG, GenerationConfig
from engines.gbg.presets import kuhn, leduc
from engines.gbg.seed_pool import screen_seed
from engines.gbg.spec import GameSpec
from engines.solve.best_response import (
    MAX_ARRAY_HISTORIES,
    respond,
    respond_arrays,
    uniform_policy,
)
from engines.solve.sizing import estimate_histories, smallest_that_fit


def solve(name: str, spec: GameSpec, limit: int) -> dict[str, Any]:
    row: dict[str, Any] = {"game": name}
    for seat in (0, 1):
        best, worst, sizes = respond_arrays(spec, seat, uniform_policy, limit)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        row[f"seat{seat}"] = {**sizes, "best": best.value, "worst": worst.value, "peak_mb": peak}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--limit", type=int, default=MAX_ARRAY_HISTORIES)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--config", choices=("paper", "default"), default="paper")
    parser.add_argument("--max-seeds", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    t0 = time.perf_counter()
    respond(leduc(), 0, uniform_policy, True)
    respond(leduc(), 0, uniform_policy, False)
    anchor = time.perf_counter() - t0
    rows = [solve("kuhn", kuhn(), args.limit), solve("leduc", leduc(), args.limit)]
    rows[1]["anchor_tree_of_states_seconds_seat0"] = anchor
    label, config = (
        ("paper", PAPER_CONFIG) if args.config == "paper" else ("default", GenerationConfig())
    )
    accepted: dict[str, GameSpec] = {}
    for seed in range(args.start, args.start + args.max_seeds):
        verdict = screen_seed(seed, config, AcceptanceSettings(), "compact")
        if verdict["accepted"]:
            accepted[str(seed)] = GameSpec.from_json(verdict["spec_json"])
    t1 = time.perf_counter()
    sized = smallest_that_fit(
        list(accepted),
        lambda g: estimate_histories(accepted[g]),
        lambda g, limit: count_histories(accepted[g], limit),
        args.limit,
        args.games,
    )
    gate_seconds = time.perf_counter() - t1
    chosen = sorted((s for s in sized if s.chosen), key=lambda s: s.histories or 0)
    for s in chosen:
        rows.append(solve(f"{label} seed {s.game}", accepted[s.game], args.limit))
        print(f"solved seed {s.game}", file=sys.stderr, flush=True)
    # known to fit: once enough fit, the gate counts only to the chosen games' largest
    fit = sum(s.histories is not None for s in sized)
    report = {
        "limit_histories": args.limit,
        "config": label,
        "seeds_screened": args.max_seeds,
        "accepted": len(accepted),
        "counted": sum(s.counted for s in sized),
        "fit_under_limit": fit,
        "gate_seconds": gate_seconds,
        "games": rows,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"size limit: {args.limit:,} histories; {label} configuration, seeds screened: "
        f"{args.max_seeds}; accepted: {len(accepted)}; counted exactly: "
        f"{report['counted']}; known to fit under the limit: {fit}; gate: {gate_seconds:.1f} s"
    )
    print(
        "game                 seat  histories infosets tree_mb expand_s solve_s peak_mb"
        "    best   worst"
    )
    for row in rows:
        for seat in (0, 1):
            s = row[f"seat{seat}"]
            print(
                f"{row['game']:<20} {seat:>4} {int(s['histories']):>10,} {int(s['infosets']):>8,} "
                f"{s['tree_megabytes']:>7.1f} {s['expand_seconds']:>8.2f} "
                f"{s['solve_seconds']:>7.2f} {s['peak_mb']:>7.0f} {s['best']:>7.2f} "
                f"{s['worst']:>7.2f}"
            )
    print(f"anchor: Leduc seat 0 by the tree-of-states solver, best + worst: {anchor:.2f} s")


if __name__ == "__main__":
    main()
