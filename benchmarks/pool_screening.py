"""Seed-pool screening throughput, and the projected and actual paper-scale pool time.

Usage: python benchmarks/pool_screening.py [--sample N] [--full] [--target 2000] [--json]

Measures seeds/second over the first ``--sample`` seeds with one worker and with the process
pool (both cores), projects the time to accept ``--target`` games from the sample's acceptance
rate, and with ``--full`` screens until ``--target`` games are accepted and reports the actual
time.  Target (issue: generator): the paper-scale pool in at most 10 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import time

from arena.parallel import process_pool
from engines.gbg.seed_pool import run_pool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--target", type=int, default=2000)
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    report: dict[str, object] = {}
    for workers in (1, 2):
        with process_pool(workers) as pool:
            _, summary = run_pool(0, args.sample, pool=pool, max_seeds=args.sample)
        report[f"seeds_per_second_{workers}_workers"] = summary["seeds_per_second"]
        report["sample_acceptance_rate"] = summary["acceptance_rate"]
    rate = float(report["seeds_per_second_2_workers"])  # type: ignore[arg-type]
    seeds_needed = args.target / max(float(report["sample_acceptance_rate"]), 1e-9)  # type: ignore[arg-type]
    report["parallel_speedup"] = rate / float(report["seeds_per_second_1_workers"])  # type: ignore[arg-type]
    report["projected_seeds"] = round(seeds_needed)
    report["projected_seconds"] = seeds_needed / rate
    if args.full:
        t0 = time.perf_counter()
        with process_pool(2) as pool:
            _, summary = run_pool(0, args.target, pool=pool)
        report["full"] = {**summary, "wall_seconds": time.perf_counter() - t0}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for key, value in report.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
