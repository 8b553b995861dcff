"""The paper's generation configuration against the paper's pool (issue 17).

Usage: python benchmarks/generator_paper.py [--seeds 2000] [--start 0] [--workers N] [--json]

Screens ``--seeds`` consecutive seeds with ``engines.gbg.generator.PAPER_CONFIG`` (the paper's
five criteria plus the inertness check, rulebooks in the paper's style) on the process pool,
then prints the acceptance rate, the side-by-side table with the paper's figures (acceptance
rate, rejection reasons, feature frequencies, rulebook lengths, moves per player) and the number
of accepted games with an inert phase or an inconsistent rulebook (both must be zero).  Targets,
each reported as ``true``/``false`` under ``targets`` (exit status 1 when one is missed): an
acceptance rate within 12%..20% with ``inert_phase`` counted (the paper: 2,000 of 12,351, 16.2%,
on its five criteria; ``benchmarks/generator_distribution.py`` gives the rate on the five alone
and the distribution of games, issue 40 item 1), a median paper-style rulebook inside the
paper's range of 8,600 to 39,000 characters, and no accepted game with an inert phase or an
inconsistent rulebook.  Each run appends its figures to ``benchmarks/results.jsonl``.  The full
distribution of rulebook lengths, with how it follows the game's size, is
``benchmarks/rulebook_lengths.py``'s (issue 40, item 6).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from results import record  # benchmarks/results.py

from arena.parallel import process_pool
from engines.gbg.acceptance import AcceptanceSettings, evaluate
from engines.gbg.generator import PAPER_CONFIG
from engines.gbg.presets import example4643
from engines.gbg.seed_pool import PAPER_POOL, paper_comparison, screen, summarise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=2000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    with process_pool(args.workers) as pool:
        verdicts = list(
            screen(
                args.start,
                args.seeds,  # a target no pool reaches: every seed is screened
                PAPER_CONFIG,
                pool=pool,
                max_seeds=args.seeds,
                style="paper",
            )
        )
    summary = summarise(verdicts, time.perf_counter() - t0)
    example = evaluate(example4643(), AcceptanceSettings())["figures"]["moves_per_player"]
    summary["paper_example_moves"] = f"{example:.2f} under our engine"
    table = paper_comparison(summary)
    lengths = summary["rulebook_chars"]
    # Every screened game's paper-style rulebook is checked; an inconsistent one is rejected with
    # this reason, so zero here means every game's rulebook passed.
    inconsistent = sum("rulebook_inconsistent" in v["reasons"] for v in verdicts)
    targets = {
        "acceptance_within_12_20": 0.12 <= summary["acceptance_rate"] <= 0.20,
        "rulebook_median_within_8600_39000": PAPER_POOL["rulebook_chars_min"]
        <= lengths["median"]
        <= PAPER_POOL["rulebook_chars_max"],
        "no_inert_or_inconsistent": summary["accepted_with_inert_phases"] == 0
        and inconsistent == 0,
    }
    report: dict[str, Any] = {
        "config_hash": PAPER_CONFIG.config_hash,
        "sampled": summary["sampled"],
        "accepted": summary["accepted"],
        "acceptance_rate": summary["acceptance_rate"],
        "rulebook_chars": lengths,
        "accepted_with_inert_phases": summary["accepted_with_inert_phases"],
        "seeds_with_inconsistent_rulebooks": inconsistent,
        "targets": targets,
        "seconds": summary["seconds"],
        "table": table,
    }
    record("generator_paper", {k: v for k, v in report.items() if k != "table"}, load)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            if key != "table":
                print(f"{key}: {value}")
        width = max(len(r["quantity"]) for r in table)
        ours = max(len(r["ours"]) for r in table)
        print(f"\n{'quantity':<{width}}  {'ours':<{ours}}  paper")
        for row in table:
            print(f"{row['quantity']:<{width}}  {row['ours']:<{ours}}  {row['paper']}")
    if not all(targets.values()):
        missed = ", ".join(name for name, met in targets.items() if not met)
        print(f"generator_paper: target missed: {missed}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
