"""Exact best and worst responses on generated games: sizes, times and the size limit (issue 17).

Usage: python benchmarks/solve_games.py [--games 5] [--limit 2000000] [--start 0] [--json]

Solves, for both seats against the uniform random policy L0, Kuhn and Leduc and then the
accepted games of ``--config`` (paper or default) in seed order whose trees fit under
``--limit`` histories, until ``--games`` generated games are solved (or ``--max-seeds`` are
screened); prints per game the
histories, information sets, expansion and solve seconds, and the best and worst response
values.  The anchor beside it: the tree-of-states solver (``respond`` twice) on Leduc.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from engines.gbg.acceptance import AcceptanceSettings
from engines.gbg.generator import PAPER_CONFIG, GenerationConfig
from engines.gbg.presets import kuhn, leduc
from engines.gbg.seed_pool import screen_seed
from engines.gbg.spec import GameSpec
from engines.gbg.structure import chance_paths, max_decisions
from engines.solve.best_response import respond, respond_arrays, uniform_policy


def solve(name: str, spec: GameSpec, limit: int) -> dict[str, Any]:
    row: dict[str, Any] = {"game": name}
    for seat in (0, 1):
        best, worst, sizes = respond_arrays(spec, seat, uniform_policy, limit)
        row[f"seat{seat}"] = {**sizes, "best": best.value, "worst": worst.value}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--limit", type=int, default=2_000_000)
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
    solved = skipped = 0
    seed = args.start
    label, config = (
        ("paper", PAPER_CONFIG) if args.config == "paper" else ("default", GenerationConfig())
    )
    while solved < args.games and seed < args.start + args.max_seeds:
        verdict = screen_seed(seed, config, AcceptanceSettings(), "compact")
        seed += 1
        if not verdict["accepted"]:
            continue
        spec = GameSpec.from_json(verdict["spec_json"])
        # A cheap estimate first (card sequences times two per decision on the longest path):
        # a game estimated at more than 1,000 times the limit is not tried, so that the
        # expansion's time goes to games that may fit; each such game counts as over the limit.
        if chance_paths(spec) * 2 ** min(max_decisions(spec), 40) > 1000 * args.limit:
            skipped += 1
            continue
        try:
            rows.append(solve(f"{label} seed {verdict['seed']}", spec, args.limit))
            solved += 1
            print(f"solved seed {verdict['seed']}", file=sys.stderr, flush=True)
        except ValueError:
            skipped += 1
    report = {
        "limit_histories": args.limit,
        "config": label,
        "seeds_screened": seed - args.start,
        "skipped_over_limit": skipped,
        "games": rows,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"size limit: {args.limit:,} histories; {label} configuration, seeds screened: "
        f"{seed - args.start}; accepted games over the limit: {skipped}"
    )
    print("game                 seat histories infosets expand_s solve_s   best   worst")
    for row in rows:
        for seat in (0, 1):
            s = row[f"seat{seat}"]
            print(
                f"{row['game']:<20} {seat:>4} {int(s['histories']):>9,} {int(s['infosets']):>8,} "
                f"{s['expand_seconds']:>8.2f} {s['solve_seconds']:>7.2f} {s['best']:>6.2f} "
                f"{s['worst']:>7.2f}"
            )
    print(f"anchor: Leduc seat 0 by the tree-of-states solver, best + worst: {anchor:.2f} s")


if __name__ == "__main__":
    main()
