"""Paper-style rulebook lengths of the paper configuration's games beside the paper's (issue 40).

Usage: python benchmarks/rulebook_lengths.py [--accepted 2000] [--start 0] [--max-seeds 12351]
                                             [--workers 2] [--axes DIR] [--json]

Screens seeds from ``--start`` as the ``seed_pool`` asset does under the paper profile (the
paper generation configuration, the default acceptance settings, paper-style rulebooks, every
screened game's rulebook held to the consistency gate ``engines.gbg.rulebook.consistency_errors``)
until ``--accepted`` games are accepted, then renders each accepted game's rulebook again in this
process and checks it once more.  Prints:

1. the inconsistent rulebooks: screened seeds rejected for ``rulebook_inconsistent`` and
   accepted games whose rulebook fails the gate when checked again (both must be 0);
2. the length distribution of the accepted games' rulebooks (minimum, percentiles, maximum) and
   the share inside the paper's range, beside the paper's "roughly 8,600 characters to just
   under 39,000" (Appendix E, over its 50 benchmark games);
3. how length follows the game's size: the median length by number of phases and the Spearman
   correlation of length with phases, deck size and branch conditions;
4. with ``--axes`` (a cache folder of ``benchmarks/example4643_percentiles.py`` for the same
   configuration: ``pool.json``, ``screening.json``, ``axes_<seed>.json``; by default that
   script's folder for the current configuration, when it exists): the farthest-point selection
   of 50 from the screening axes, as ``benchmark_games`` builds it, with its range of lengths
   beside the paper's, and the Spearman correlation of log length with the state-space axis
   (the screening axis over all accepted games; the five-axis one over the 50 where cached)
   beside the paper's 0.82.

Each run appends its figures to ``benchmarks/results.jsonl``.  Results are recorded in
docs/NOTES.md ("The generator, the acceptance filter and the pool").
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from pathlib import Path
from typing import Any

import pandas as pd
from results import record  # benchmarks/results.py

from arena.parallel import process_pool
from engines.axes.benchmark import select_benchmark
from engines.axes.compute import AXES_VERSION
from engines.axes.diagnostics import spearman
from engines.gbg.generator import PAPER_CONFIG
from engines.gbg.rulebook import consistency_errors, rulebook
from engines.gbg.seed_pool import screen
from engines.gbg.spec import GameSpec

PAPER = {"shortest": 8_600, "longest": 39_000, "rho_log_length_state_space": 0.82}
QUANTILES = (0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95)
PHASE_BANDS = ((3, 3), (4, 5), (6, 9), (10, 15), (16, 31))
DEFAULT_AXES = Path("data/benchmarks/example4643") / (
    f"{PAPER_CONFIG.config_hash[:12]}-axes{AXES_VERSION}"
)


def quantile(values: list[int], q: float) -> float:
    """The ``q`` quantile of ``values`` (linear interpolation between order statistics)."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def length_rows(verdicts: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Each accepted game's seed, sizes and rulebook length rendered here; and how many of their
    rulebooks fail the gate when checked again."""
    rows: list[dict[str, Any]] = []
    failed = 0
    for v in verdicts:
        if not v["accepted"]:
            continue
        spec = GameSpec.from_json(v["spec_json"])
        text = rulebook(spec, style="paper")
        failed += bool(consistency_errors(spec, text))
        if len(text) != v["rulebook_chars"]:
            raise AssertionError(f"seed {v['seed']}: the rulebook rendered twice differs")
        rows.append(
            {
                "seed": v["seed"],
                "spec_hash": v["spec_hash"],
                "chars": len(text),
                "phases": len(spec.phases),
                "deck": spec.deck.size,
                "branches": v["branch_conditions"],
            }
        )
    return rows, failed


def by_phases(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for low, high in PHASE_BANDS:
        chosen = [r["chars"] for r in rows if low <= r["phases"] <= high]
        if chosen:
            out.append(
                {
                    "phases": f"{low}" if low == high else f"{low}-{high}",
                    "games": len(chosen),
                    "min": min(chosen),
                    "median": int(statistics.median(chosen)),
                    "max": max(chosen),
                }
            )
    return out


def benchmark_figures(rows: list[dict[str, Any]], folder: Path) -> dict[str, Any] | None:
    """The 50 of the paper profile's selection and the state-space correlations (see the module
    docstring, item 4); None without a matching cache."""
    pool_file, screening_file = folder / "pool.json", folder / "screening.json"
    if not (pool_file.is_file() and screening_file.is_file()):
        return None
    pooled = json.loads(pool_file.read_text())
    accepted = pd.DataFrame(pooled["games"], columns=["seed", "spec_hash", "spec_json"])
    ours = {(r["seed"], r["spec_hash"]): r for r in rows}
    if set(zip(accepted["seed"], accepted["spec_hash"], strict=True)) != set(ours):
        return {"error": f"{folder}: its accepted games are not this run's"}
    screening = pd.DataFrame(json.loads(screening_file.read_text()))
    chars = {r["seed"]: r["chars"] for r in rows}
    log_length = [math.log10(chars[s]) for s in screening["seed"]]
    selected = select_benchmark(screening, accepted, 50)
    picked = [chars[int(s)] for s in selected["seed"]]
    five: list[tuple[float, float]] = []
    for seed in selected["seed"]:
        path = folder / f"axes_{int(seed)}.json"
        if path.is_file():
            axes = json.loads(path.read_text())["axes"]
            five.append((math.log10(chars[int(seed)]), float(axes["state_space"])))
    return {
        "selected": len(picked),
        "selected_min": min(picked),
        "selected_median": int(statistics.median(picked)),
        "selected_max": max(picked),
        "rho_log_length_screening_state_space_all": round(
            spearman(log_length, screening["state_space"].tolist()), 3
        ),
        "rho_log_length_state_space_selected": round(
            spearman([a for a, _ in five], [b for _, b in five]), 3
        )
        if len(five) >= 3
        else None,
        "selected_with_five_axes": len(five),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--accepted", type=int, default=2000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--max-seeds", type=int, default=12_351)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--axes", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with process_pool(args.workers) as pool:
        verdicts = list(
            screen(
                args.start,
                args.accepted,
                PAPER_CONFIG,
                pool=pool,
                max_seeds=args.max_seeds,
                style="paper",
            )
        )
    rows, failed_again = length_rows(verdicts)
    lengths = [r["chars"] for r in rows]
    inside = sum(PAPER["shortest"] <= n <= PAPER["longest"] for n in lengths)
    report: dict[str, Any] = {
        "config_hash": PAPER_CONFIG.config_hash,
        "screened": len(verdicts),
        "accepted": len(rows),
        "inconsistent_screened": sum("rulebook_inconsistent" in v["reasons"] for v in verdicts),
        "inconsistent_accepted_rechecked": failed_again,
        "min": min(lengths),
        **{f"p{round(q * 100)}": round(quantile(lengths, q)) for q in QUANTILES},
        "max": max(lengths),
        "mean": round(statistics.fmean(lengths)),
        "inside_paper_range": f"{inside} of {len(lengths)} ({inside / len(lengths):.1%})",
        "below_8600": sum(n < PAPER["shortest"] for n in lengths),
        "rho_length_phases": round(spearman(lengths, [r["phases"] for r in rows]), 3),
        "rho_length_deck": round(spearman(lengths, [r["deck"] for r in rows]), 3),
        "rho_length_branches": round(spearman(lengths, [r["branches"] for r in rows]), 3),
        "by_phases": by_phases(rows),
        "paper": PAPER,
    }
    folder = args.axes if args.axes is not None else DEFAULT_AXES
    if args.axes is not None or (
        args.start == 0 and args.accepted == 2000 and args.max_seeds == 12_351
    ):
        report["benchmark_50"] = benchmark_figures(rows, folder)
    report["seconds"] = round(time.perf_counter() - started, 1)
    record("rulebook_lengths", report, load)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"screened {report['screened']:,} seeds, accepted {report['accepted']:,}; inconsistent "
        f"rulebooks: {report['inconsistent_screened']} screened, "
        f"{report['inconsistent_accepted_rechecked']} accepted (checked again)"
    )
    quantiles = "  ".join(f"p{round(q * 100)} {report[f'p{round(q * 100)}']:,}" for q in QUANTILES)
    print("\npaper-style rulebook, characters (accepted games)   the paper (its 50 games)")
    print(f"  min {report['min']:,}  max {report['max']:,}  mean {report['mean']:,}"
          f"      8,600 to 39,000")  # fmt: skip
    print(f"  {quantiles}")
    print(f"  inside 8,600..39,000: {report['inside_paper_range']}; below 8,600: "
          f"{report['below_8600']}")  # fmt: skip
    print(
        f"\nSpearman of length with phases {report['rho_length_phases']}, deck "
        f"{report['rho_length_deck']}, branch conditions {report['rho_length_branches']}"
    )
    print("phases   games      min   median      max")
    for band in report["by_phases"]:
        print(f"{band['phases']:>6} {band['games']:>7} {band['min']:>8,} {band['median']:>8,} "
              f"{band['max']:>8,}")  # fmt: skip
    bench = report.get("benchmark_50")
    if bench and "error" in bench:
        print(f"\n(the 50-game figures are left out: {bench['error']})")
    elif bench:
        print(
            f"\nthe {bench['selected']} selected (farthest-point on the screening axes): "
            f"{bench['selected_min']:,} to {bench['selected_max']:,}, median "
            f"{bench['selected_median']:,} (the paper: 8,600 to 39,000)\n"
            f"Spearman of log length with state space: screening axis, all accepted "
            f"{bench['rho_log_length_screening_state_space_all']}; five-axis state space, the "
            f"{bench['selected_with_five_axes']} selected with cached axes "
            f"{bench['rho_log_length_state_space_selected']} (the paper: 0.82)"
        )
    elif "benchmark_50" in report:
        print(f"\n(no axes cache in {folder}: the 50-game figures are left out)")
    print(f"\n{report['seconds']:.0f} s")


if __name__ == "__main__":
    main()
