"""The paper's Section 3 game among the paper profile's 50 benchmark games (issue 40).

Usage: python benchmarks/example4643_percentiles.py [--out DIR] [--workers 2] [--rerun] [--json]

Builds the paper profile's benchmark as the asset graph builds it (``seed_pool`` and
``accepted_games``: the paper generation configuration from seed 0, at most 12,351 seeds, at
most 2,000 accepted, paper-style rulebooks; ``screening_axes``: the paper screening budget,
seed 0; ``benchmark_games``: farthest-point selection of 50; ``axis_scores``: the five axes at
the paper axis budget, seed 0, a pool of ``--workers`` per game), computes the five axes of the
preset ``example4643`` (our rendition of the paper's seed 4643) the same way, and reports its
percentile among the 50 on each axis: the share of the 50 games below it, ties counted half.
The paper: 82nd on state space, 88th on temporal contingency (Section 3); the other three it
does not give.

Also reported, for the jaggedness scale (issue 40, item 4): each game's STD_g (the payoff scale
the axes divide by, from population play) beside the standard deviation of the chip lead under
uniform random play over 3,000 deals, their ratio and rank correlation over the 50 games, and
the factor by which local jaggedness would change were its scale the random-play one (for a
jagged part proportional to STD_g: the root mean square over games of STD_g / SD_random).

The axes are computed without their rerun (which changes no axis value) unless ``--rerun``.
Every step is cached in ``--out`` (default data/benchmarks/example4643), keyed by the
generation configuration's hash and the axes' version, so an interrupted run resumes.
Results are recorded in docs/NOTES.md (the axes section).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from arena.compiled_engine import enable

os.environ.setdefault("GENSTRAT_ENGINE", "compiled")  # the engine the product runs
ENGINE = enable()  # refused in one line while `make compiled` is not current

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from arena.parallel import process_pool  # noqa: E402
from assets.run_profiles import get_profile  # noqa: E402
from engines.axes.benchmark import screening_table, select_benchmark  # noqa: E402
from engines.axes.budgets import axis_budget, screening_budget  # noqa: E402
from engines.axes.compute import AXES_VERSION, compute_axes, compute_with_rerun  # noqa: E402
from engines.axes.diagnostics import spearman  # noqa: E402
from engines.axes.names import AXES  # noqa: E402
from engines.gbg.batch_random import random_play  # noqa: E402
from engines.gbg.generator import named_config  # noqa: E402
from engines.gbg.presets import example4643  # noqa: E402
from engines.gbg.seed_pool import screen  # noqa: E402
from engines.gbg.spec import GameSpec  # noqa: E402

PAPER = {"state_space": 82.0, "temporal": 88.0}
RANDOM_DEALS = 3_000


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _cached(path: Path, make: Any) -> Any:
    if path.exists():
        return json.loads(path.read_text())
    data = make()
    tmp = path.with_suffix(".part")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)
    return data


def percentile(value: float, others: list[float]) -> float:
    """The share of ``others`` below ``value``, ties counted half, in percent."""
    below = sum(x < value for x in others)
    ties = sum(x == value for x in others)
    return 100.0 * (below + 0.5 * ties) / len(others)


def random_play_sd(spec: GameSpec, seed: int) -> float:
    """The standard deviation of Alice's chip lead (twice her return) under uniform random
    play over ``RANDOM_DEALS`` deals (the acceptance filter's deals, compiled)."""
    played = random_play(spec, range(seed, seed + RANDOM_DEALS), random.Random(seed))
    if played is None:
        raise ValueError(f"{spec.name}: the compiled loop handed the game back")
    return float(np.std(2 * played.returns, ddof=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("data/benchmarks/example4643"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rerun", action="store_true", help="compute each game's rerun too")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    profile = get_profile("paper")
    config = named_config(profile.generation)
    key = f"{config.config_hash[:12]}-axes{AXES_VERSION}"
    out = args.out / key
    out.mkdir(parents=True, exist_ok=True)
    _log(f"engine: {ENGINE}; cache {out}")
    started = time.perf_counter()

    def pool_step() -> dict[str, Any]:
        with process_pool(args.workers) as pool:
            verdicts = list(
                screen(
                    profile.seed_start,
                    profile.max_accepted,
                    config,
                    pool=pool,
                    max_seeds=profile.seed_count,
                    style=profile.rulebook_style,
                )
            )
        kept = [v for v in verdicts if v["accepted"]]
        return {
            "sampled": len(verdicts),
            "games": [[v["seed"], v["spec_hash"], v["spec_json"]] for v in kept],
        }

    pooled = _cached(out / "pool.json", pool_step)
    accepted = pd.DataFrame(pooled["games"], columns=["seed", "spec_hash", "spec_json"])
    _log(f"pool: {len(accepted)} accepted of {pooled['sampled']} seeds")

    def screening_step() -> list[dict[str, Any]]:
        with process_pool(args.workers) as pool:
            frame = screening_table(
                accepted, screening_budget(profile.screening_budget), 0, pool=pool
            )
        return list(frame.to_dict(orient="records"))

    screening = pd.DataFrame(_cached(out / "screening.json", screening_step))
    selected = select_benchmark(screening, accepted, profile.benchmark_games)
    _log(f"selection: {len(selected)} games")
    budget = axis_budget(profile.axis_budget)
    compute = compute_with_rerun if args.rerun else compute_axes

    def axes_of(name: str, spec: GameSpec) -> dict[str, Any]:
        def step() -> dict[str, Any]:
            with process_pool(args.workers) as pool:
                data: dict[str, Any] = compute(spec, budget, 0, pool=pool).to_dict()
            data["random_sd"] = random_play_sd(spec, 0)
            return data

        data: dict[str, Any] = _cached(out / f"axes_{name}.json", step)
        _log(f"axes {name}: {data['diagnostics']['seconds']:.1f} s")
        return data

    games = {
        str(row.game): axes_of(str(row.game), GameSpec.from_json(row.spec_json))
        for row in selected.itertuples()
    }
    example = axes_of("example4643", example4643())
    rows = []
    for axis in AXES:
        values = [float(g["axes"][axis]) for g in games.values()]
        value = float(example["axes"][axis])
        rows.append(
            {
                "axis": axis,
                "example4643": value,
                "percentile": percentile(value, values),
                "above": sum(x > value for x in values),
                "paper": PAPER.get(axis),
                "min": min(values),
                "median": statistics.median(values),
                "max": max(values),
            }
        )
    std_g = [float(g["diagnostics"]["std_g"]) for g in games.values()]
    sd_random = [float(g["random_sd"]) for g in games.values()]
    ratio = [r / s for r, s in zip(sd_random, std_g, strict=True) if s > 0]
    factor = math.sqrt(
        statistics.fmean((s / r) ** 2 for r, s in zip(sd_random, std_g, strict=True))
    )
    report = {
        "engine": ENGINE,
        "config_hash": config.config_hash,
        "axes_version": AXES_VERSION,
        "sampled": pooled["sampled"],
        "accepted": len(accepted),
        "selected": [int(s) for s in selected["seed"]],
        "percentiles": rows,
        "payoff_scales": {
            "sd_random_over_std_g": {
                "min": min(ratio),
                "median": statistics.median(ratio),
                "max": max(ratio),
            },
            "spearman_std_g_sd_random": spearman(std_g, sd_random),
            "jaggedness_factor_random_scale": factor,
            "example4643": {
                "std_g": example["diagnostics"]["std_g"],
                "sd_random": example["random_sd"],
            },
        },
        "seconds": time.perf_counter() - started,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"paper profile: {report['accepted']} accepted of {report['sampled']} seeds, "
        f"{len(games)} selected; axes version {AXES_VERSION}; engine {ENGINE}"
    )
    print(
        f"{'axis':<14} {'4643':>8} {'percentile':>11} {'above':>6} {'paper':>6}   "
        "the 50: min / median / max"
    )
    for r in rows:
        paper = "-" if r["paper"] is None else f"{r['paper']:.0f}"
        print(
            f"{r['axis']:<14} {r['example4643']:8.3f} {r['percentile']:11.0f} {r['above']:>6} "
            f"{paper:>6}   {r['min']:.3f} / {r['median']:.3f} / {r['max']:.3f}"
        )
    p = report["payoff_scales"]
    q = p["sd_random_over_std_g"]
    print(
        f"SD of the chip lead under uniform random play / STD_g over the 50: min {q['min']:.2f}, "
        f"median {q['median']:.2f}, max {q['max']:.2f}; "
        f"Spearman {p['spearman_std_g_sd_random']:.2f}; "
        f"jaggedness on the random-play scale = {p['jaggedness_factor_random_scale']:.2f} x "
        f"jaggedness on STD_g (jagged part proportional to STD_g)"
    )


if __name__ == "__main__":
    main()
