"""Benchmark of the statistics stage at the paper's size: speed, and coverage of the intervals.

Speed: the whole analysis of Sections 6-7 (``engines.stats.analysis.analyse``: overall, per-game,
pairwise, Bradley-Terry, robustness with 4 x 1,000 subsets, composite, profiles, factor analysis,
jaggedness, variance decomposition, verbosity; every bootstrap at B = 2,000) on a simulated corpus
of 12 models x 50 games (about 40,000 matches). The issue's target is an absolute one (at most
30 s on this machine), so the wall time is reported as measured; beside it, the ratio against an
anchor timed in the same process: one refit of the overall leaderboard from the raw match rows
with statsmodels OLS, i.e. what a naive bootstrap would pay 2,000 times for Table 1 alone.

Coverage: over R >= 200 replications, a fresh corpus is drawn from planted truth, the clustered
bootstrap (B = 2,000) is run, and each 95% percentile interval is checked against its estimand:
the same estimator applied to the noise-free corpus (every margin replaced by its expectation;
for the per-game strengths that is the planted alpha_{m,g} itself).

    .venv/bin/python benchmarks/stats.py [--replications 200] [--bootstrap 2000] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines.stats.analysis import AnalysisConfig, analyse
from engines.stats.capability import profile_slopes
from engines.stats.composite import zscore_axes
from engines.stats.leaderboard import RunSample, fit_leaderboard
from engines.stats.pairwise import pairwise_margins
from engines.stats.pergame import per_game_alpha
from engines.stats.planted import SimulationConfig, noise_free, simulate_corpus
from engines.stats.runs import run_table

TARGET_SECONDS = 30.0


def anchor_seconds(matches: Any, repeats: int = 3) -> float:
    """Best of ``repeats`` row-level statsmodels OLS refits of the overall leaderboard."""
    import statsmodels.api as sm

    complete = matches.loc[matches["status"] == "complete"]
    models = sorted(set(complete["alice"]) | set(complete["bob"]))
    index = {m: k for k, m in enumerate(models)}
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        x = np.zeros((len(complete), len(models)))
        rows = np.arange(len(complete))
        x[rows, complete["alice"].map(index).to_numpy()] = 1.0
        x[rows, complete["bob"].map(index).to_numpy()] = -1.0
        sm.OLS(complete["margin_alice"].to_numpy(dtype=float), x[:, 1:]).fit()
        best = min(best, time.perf_counter() - start)
    return best


def time_analysis(n_boot: int, seed: int) -> dict[str, Any]:
    """Wall time of the whole analysis (and of the four figures) on a paper-size corpus."""
    corpus = simulate_corpus(SimulationConfig(), np.random.default_rng(seed))
    anchor = anchor_seconds(corpus.matches)
    start = time.perf_counter()
    result = analyse(
        corpus.matches,
        corpus.axis_scores,
        rng=np.random.default_rng(seed + 1),
        config=AnalysisConfig(n_boot=n_boot),
    )
    analysis = time.perf_counter() - start
    start = time.perf_counter()
    figures = result.plots()
    plotting = time.perf_counter() - start
    return {
        "models": result.summary["models"],
        "games": result.summary["games"],
        "matches": result.summary["matches"],
        "paired_deals": result.summary["paired_deals"],
        "bootstrap": n_boot,
        "analysis_seconds": analysis,
        "plots_seconds": plotting,
        "figures": len(figures),
        "total_seconds": analysis + plotting,
        "target_seconds": TARGET_SECONDS,
        "within_target": analysis + plotting <= TARGET_SECONDS,
        "anchor_seconds": anchor,
        "ratio_to_anchor": (analysis + plotting) / anchor,
        "naive_table1_bootstrap_seconds": anchor * n_boot,
    }


def covered(low: Any, high: Any, truth: Any) -> Any:
    keep = np.isfinite(truth) & np.isfinite(low) & np.isfinite(high)
    return ((low <= truth) & (truth <= high))[keep]


def one_replication(
    config: SimulationConfig, n_boot: int, rng: np.random.Generator
) -> dict[str, Any]:
    """Coverage indicators of one fresh corpus, per quantity."""
    corpus = simulate_corpus(config, rng)
    runs = run_table(corpus.matches)
    clean = run_table(noise_free(corpus.matches, corpus.truth))
    sample = RunSample.draw(runs, n_boot, rng)
    exact = RunSample.draw(clean, 1, rng)
    out: dict[str, Any] = {}
    board = fit_leaderboard(sample)
    truth = fit_leaderboard(exact).alpha
    low, high = (
        board.table.set_index("model").loc[list(runs.models), ["ci_low", "ci_high"]].T.to_numpy()
    )
    out["overall_alpha"] = covered(low, high, truth)
    grid_boot = per_game_alpha(runs, sample.replicates)
    grid = per_game_alpha(runs, sample.observed)[0]
    grid_truth = per_game_alpha(clean, exact.observed)[0]
    low, high = np.percentile(grid_boot, [2.5, 97.5], axis=0)
    out["per_game_alpha"] = covered(low, high, grid_truth).ravel()
    z = zscore_axes(corpus.axis_scores, runs.game_seeds)
    table = profile_slopes(grid, grid_boot, z, runs.models)
    target = profile_slopes(grid_truth, grid_truth[None], z, runs.models)
    slopes = table["term"] != "intercept"
    out["profile_slopes"] = covered(
        table.loc[slopes, "ci_low"].to_numpy(),
        table.loc[slopes, "ci_high"].to_numpy(),
        target.loc[slopes, "coef"].to_numpy(),
    )
    pairs = pairwise_margins(sample)
    pair_truth = pairwise_margins(exact).set_index(["row", "column"])["mean_margin"]
    aligned = pair_truth.loc[list(zip(pairs["row"], pairs["column"], strict=True))].to_numpy()
    out["pairwise_margin"] = covered(
        pairs["ci_low"].to_numpy(), pairs["ci_high"].to_numpy(), aligned
    )
    return out


def coverage(replications: int, n_boot: int, seed: int, progress: bool) -> dict[str, Any]:
    """Coverage of the 95% intervals over fresh corpora, with binomial standard errors."""
    config = SimulationConfig()
    rng = np.random.default_rng(seed)
    hits: dict[str, list[Any]] = {}
    start = time.perf_counter()
    for r in range(replications):
        for name, values in one_replication(config, n_boot, rng).items():
            hits.setdefault(name, []).append(values)
        if progress and (r + 1) % 10 == 0:
            elapsed = time.perf_counter() - start
            eta = elapsed / (r + 1) * (replications - r - 1)
            print(
                f"  coverage: {r + 1}/{replications} corpora, {elapsed:.0f} s, ETA {eta:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    report: dict[str, Any] = {"replications": replications, "bootstrap": n_boot, "level": 0.95}
    for name, per_rep in hits.items():
        flat = np.concatenate(per_rep).astype(float)
        per_corpus = np.array([np.mean(h) for h in per_rep])
        report[name] = {
            "coverage": float(flat.mean()),
            # intervals within a corpus are dependent: the standard error uses corpus means
            "standard_error": float(per_corpus.std(ddof=1) / np.sqrt(len(per_corpus))),
            "intervals": int(flat.size),
        }
    report["config"] = asdict(config)
    report["seconds"] = time.perf_counter() - start
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=200, help="coverage corpora (>= 200)")
    parser.add_argument("--bootstrap", type=int, default=2000, help="B for timing and coverage")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--skip-coverage", action="store_true", help="time the analysis only")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    timing = time_analysis(args.bootstrap, args.seed)
    report: dict[str, Any] = {"timing": timing}
    if not args.json:
        print(
            f"paper-size analysis: {timing['models']} models, {timing['games']} games, "
            f"{timing['matches']:,} matches, B = {timing['bootstrap']}"
        )
        print(
            f"  analysis {timing['analysis_seconds']:.1f} s"
            f" + figures {timing['plots_seconds']:.1f} s = {timing['total_seconds']:.1f} s"
            f" (target <= {TARGET_SECONDS:.0f} s: "
            f"{'met' if timing['within_target'] else 'MISSED'})"
        )
        print(
            "  anchor (one row-level statsmodels OLS refit): "
            f"{timing['anchor_seconds'] * 1e3:.0f} ms;"
            f" the whole analysis costs {timing['ratio_to_anchor']:.0f} anchors; a naive Table 1"
            f" bootstrap alone would cost ~{timing['naive_table1_bootstrap_seconds']:.0f} s"
        )
    if not args.skip_coverage:
        report["coverage"] = coverage(
            args.replications, args.bootstrap, args.seed + 7, not args.json
        )
        if not args.json:
            cov = report["coverage"]
            print(
                f"coverage of 95% intervals over {cov['replications']} corpora"
                f" (B = {cov['bootstrap']}):"
            )
            for name in ("overall_alpha", "per_game_alpha", "profile_slopes", "pairwise_margin"):
                c = cov[name]
                print(
                    f"  {name:<16} {c['coverage']:.3f} +/- {c['standard_error']:.3f}"
                    f"  ({c['intervals']:,} intervals)"
                )
            print(f"  ({cov['seconds']:.0f} s)")
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
