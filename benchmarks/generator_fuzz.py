"""Fuzz the generator and the engine over random seeds and the whole complexity dial.

Usage: python benchmarks/generator_fuzz.py [--seeds 5000] [--seed 0] [--workers 2] [--json]

Draws ``--seeds`` (seed, complexity) pairs: seeds uniform in 0..2^62, complexities uniform over
``GenerationConfig``'s declared range (0.5..4.0), and screens each one as the pool does
(generation, the acceptance filter's random play, the rulebook and its consistency check).  It
reports how many games were generated, accepted, and how many ended in a generator or engine
failure, per band of the dial; the target is zero failures.  Screening a seed is what the pool
does, so any exception it would record as ``generator_error`` or ``engine_error`` counts here.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from typing import Any

from arena.parallel import process_pool
from arena.progress import ProgressReporter
from engines.gbg.acceptance import AcceptanceSettings
from engines.gbg.generator import GenerationConfig
from engines.gbg.seed_pool import screen_seed

LOW, HIGH = 0.5, 4.0
BANDS = ((0.5, 1.0), (1.0, 2.0), (2.0, 3.0), (3.0, 4.0))


def screen_pair(seed: int, complexity: float) -> dict[str, Any]:
    verdict = screen_seed(seed, GenerationConfig(complexity=complexity), AcceptanceSettings())
    return {
        "seed": seed,
        "complexity": complexity,
        "accepted": verdict["accepted"],
        "reasons": verdict["reasons"],
        "error": verdict.get("error"),
    }


def band(complexity: float) -> str:
    for low, high in BANDS:
        if complexity <= high:
            return f"{low}-{high}"
    return f"{BANDS[-1][0]}-{BANDS[-1][1]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0, help="draws the (seed, dial) pairs")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    pairs = [(rng.randrange(2**62), rng.uniform(LOW, HIGH)) for _ in range(args.seeds)]
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with (
        process_pool(args.workers) as pool,
        ProgressReporter("fuzz", total=len(pairs), unit="seeds") as progress,
    ):
        results = [pool.submit(screen_pair, seed, dial) for seed, dial in pairs]
        for done, result in enumerate(results, start=1):
            rows.append(result.result())
            progress.set(done)
    seconds = time.perf_counter() - started
    per_band: dict[str, Counter[str]] = {}
    errors: list[dict[str, Any]] = []
    for row in rows:
        counts = per_band.setdefault(band(row["complexity"]), Counter())
        counts["seeds"] += 1
        counts["accepted"] += int(row["accepted"])
        for failure in ("generator_error", "engine_error"):
            if failure in row["reasons"]:
                counts[failure] += 1
                errors.append(row)
    report = {
        "seeds": len(rows),
        "seconds": round(seconds, 1),
        "generator_errors": sum(c["generator_error"] for c in per_band.values()),
        "engine_errors": sum(c["engine_error"] for c in per_band.values()),
        "bands": {name: dict(c) for name, c in sorted(per_band.items())},
        "first_errors": errors[:5],
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"{report['seeds']} seeds in {report['seconds']} s: "
        f"{report['generator_errors']} generator errors, {report['engine_errors']} engine errors"
    )
    for name, counts in report["bands"].items():
        print(
            f"  complexity {name}: {counts.get('seeds', 0)} seeds, "
            f"{counts.get('accepted', 0)} accepted"
        )
    for row in report["first_errors"]:
        print(f"  seed {row['seed']} at {row['complexity']:.3f}: {row['error']}")


if __name__ == "__main__":
    main()
