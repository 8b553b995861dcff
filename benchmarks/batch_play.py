"""The batch play paths against the interpreter they replace, side by side, on fixed seeds.

Usage::

    python benchmarks/batch_play.py [--pool-seeds 300] [--games leduc,0,4,5,43,130]
                                    [--repeats 3] [--strategies 50] [--decisions 4] [--json]

Every site runs the same work both ways in one process, alternating, ``--repeats`` times:
the batch path (the ``kernel`` backend, the default: ``engines.gbg.batch_random``'s kernel, or
``engines.gbg.fixed_chance``'s fixed-chance trees) and the interpreter path it replaced (the
``reference`` backend of ``engines.backend``, the anchor).  The report is also appended to
``benchmarks/results.jsonl``.  Reported per site: the median ratio
anchor seconds / batch seconds (higher is better; over games, the median of the games'
medians), and whether the two paths gave equal numbers (they must:
tests/engines/gbg/test_kernel_differential.py, test_batch_random.py and
tests/engines/axes/test_axes_batch.py hold them to it; this script checks what it runs).

Sites:

- ``pool``: screening the seeds ``0 .. --pool-seeds - 1`` as the seed pool does (generate,
  the acceptance filter, the rulebook and its consistency check, the spec's JSON), one
  process; the projection to the paper pool (2,000 accepted) on two workers divides the
  batch seconds per seed by two (the pool's two workers scale about linearly,
  ``benchmarks/pool_screening.py``);

- ``ranking``: ``scores_against_l0`` of ``--strategies`` population members on the 40 ranking
  deals (the paper ranks 200 members; the cost is linear in them);
- ``replays``: ``action_values`` of the first ``--decisions`` recorded decisions (4 x 9 x 10
  contexts each, world sampling included, which both paths share);
- ``screening``: ``screening_axes`` at the paper screening budget;
- ``state_space``: the state-space axis at the paper budget (3,000 random deals, every
  decision's abstracted state counted: ``batch_random.abstract_random_play``);
- ``information``: ``information_differences`` (the information axis's search players, whose
  rollouts the kernel plays) for one seat and opponent at the paper budget.

Ratios, not absolute times: the machine is shared, and alternation exposes both paths to
the same load; the absolute seconds are printed for reference only.  Never used as a
wall-clock assertion.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from results import record  # benchmarks/results.py

from engines.axes.budgets import axis_budget, screening_budget
from engines.axes.decisions import decision_distribution
from engines.axes.information import information_differences
from engines.axes.population import (
    build_population,
    forget_strategies,
    ranking_deals,
    scores_against_l0,
    strategy_seeds,
)
from engines.axes.replay import action_values
from engines.axes.screening import screening_axes
from engines.axes.state_space import state_space
from engines.backend import using
from engines.gbg import presets
from engines.gbg.acceptance import AcceptanceSettings, evaluate
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.rulebook import consistency_errors, rulebook
from engines.gbg.seed_pool import screen_seed
from engines.gbg.spec import GameSpec

T = TypeVar("T")


def _game(name: str) -> GameSpec:
    return presets.preset(name) if not name.isdigit() else generate(int(name))


def _timed(run: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    out = run()
    return time.perf_counter() - started, out


def _side_by_side(
    runs: dict[str, Callable[[], Any]], repeats: int, same: Callable[[Any, Any], bool]
) -> dict[str, Any]:
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    outputs: dict[str, Any] = {}
    for _ in range(repeats):
        for name, run in runs.items():  # alternate, so load drifts hit both paths alike
            forget_strategies()  # each run draws its mixtures afresh
            t, outputs[name] = _timed(run)
            seconds[name].append(t)
    ratios = [a / b for a, b in zip(seconds["interpreter"], seconds["trees"], strict=True)]
    return {
        "seconds": {k: statistics.median(v) for k, v in seconds.items()},
        "ratio": statistics.median(ratios),  # anchor / batch
        "equal": same(outputs["interpreter"], outputs["trees"]),
    }


def on_reference(work: Callable[[], T]) -> Callable[[], T]:
    """``work`` on the reference backend (the interpreter alone)."""

    def run() -> T:
        with using("reference"):
            return work()

    return run


def measure(name: str, repeats: int, strategies: int, decisions: int) -> dict[str, Any]:
    spec = _game(name)
    budget = axis_budget("paper")
    seeds = strategy_seeds(1, strategies)
    deals = ranking_deals(spec, 1, budget.ranking_deals)
    out: dict[str, Any] = {"game": name}
    out["ranking"] = _side_by_side(
        {
            "interpreter": on_reference(
                lambda: scores_against_l0(spec, seeds, deals, budget.max_amounts)
            ),
            "trees": lambda: scores_against_l0(spec, seeds, deals, budget.max_amounts),
        },
        repeats,
        lambda a, b: bool(a == b),
    )
    small = budget.model_copy(update={"population_size": strategies, "tier1_size": strategies // 2})
    population = build_population(spec, small, 1, scores_against_l0(spec, seeds, deals, 6))
    selfplay = decision_distribution(
        spec, population, small.model_copy(update={"decisions_per_seat": decisions}), 5
    )
    chosen = selfplay.decisions[:decisions]

    def tables() -> list[np.ndarray]:
        return [
            action_values(spec, selfplay.traces[d.deal], d, population, budget, 3).values
            for d in chosen
        ]

    out["replays"] = _side_by_side(
        {"interpreter": on_reference(tables), "trees": tables},
        repeats,
        lambda a, b: all(np.array_equal(x, y) for x, y in zip(a, b, strict=True)),
    )
    screen = screening_budget("paper")
    out["screening"] = _side_by_side(
        {
            "interpreter": on_reference(lambda: screening_axes(spec, screen, 7)),
            "trees": lambda: screening_axes(spec, screen, 7),
        },
        repeats,
        lambda a, b: bool(a == b),
    )
    out["state_space"] = _side_by_side(
        {
            "interpreter": on_reference(lambda: state_space(spec, budget.state_space_deals, 7)),
            "trees": lambda: state_space(spec, budget.state_space_deals, 7),
        },
        repeats,
        lambda a, b: bool(a == b),
    )
    out["information"] = _side_by_side(
        {
            "interpreter": on_reference(
                lambda: information_differences(spec, population, budget, 3, 0, 0)
            ),
            "trees": lambda: information_differences(spec, population, budget, 3, 0, 0),
        },
        repeats,
        lambda a, b: bool(a == b),
    )
    return out


def _screen_interpreted(seed: int) -> dict[str, Any]:
    """``screen_seed`` with the acceptance filter on the interpreter (the anchor): the same
    steps, in the same order, for a seed that generates."""
    spec = generate(seed)
    with using("reference"):
        verdict = evaluate(spec, AcceptanceSettings(), seed=seed)
    text = rulebook(spec)
    gaps = consistency_errors(spec, text)
    reasons = list(verdict["reasons"]) + (["rulebook_inconsistent"] if gaps else [])
    return {"seed": seed, "accepted": not reasons, "spec_json": spec.canonical_json()}


def measure_pool(seeds: int, repeats: int) -> dict[str, Any]:
    config, settings = GenerationConfig(), AcceptanceSettings()

    def batch() -> list[tuple[int, bool]]:
        return [(s, screen_seed(s, config, settings)["accepted"]) for s in range(seeds)]

    def anchor() -> list[tuple[int, bool]]:
        return [(s, _screen_interpreted(s)["accepted"]) for s in range(seeds)]

    row = _side_by_side({"interpreter": anchor, "trees": batch}, repeats, lambda a, b: a == b)
    accepted = sum(ok for _, ok in batch())
    per_seed = row["seconds"]["trees"] / seeds
    row["accepted"] = accepted
    row["projected_pool_2000_seconds_2_workers"] = 2000 * seeds / max(accepted, 1) * per_seed / 2
    return row


SITES = ("ranking", "replays", "screening", "state_space", "information")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pool-seeds", type=int, default=300)
    parser.add_argument("--games", default="leduc,0,4,5,43,130")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--strategies", type=int, default=50)
    parser.add_argument("--decisions", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    pool = measure_pool(args.pool_seeds, args.repeats) if args.pool_seeds else None
    rows = [
        measure(g.strip(), args.repeats, args.strategies, args.decisions)
        for g in args.games.split(",")
        if g.strip()
    ]
    summary = {site: statistics.median(r[site]["ratio"] for r in rows) for site in SITES if rows}
    report = {"pool": pool, "median_ratio": summary, "games": rows}
    record("batch_play", report, load)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    if pool is not None:
        print(
            f"pool ({args.pool_seeds} seeds, {pool['accepted']} accepted): "
            f"{pool['ratio']:.2f}x, {pool['seconds']['trees']:.2f}s vs "
            f"{pool['seconds']['interpreter']:.2f}s, equal={pool['equal']}; paper pool on 2 "
            f"workers projected at {pool['projected_pool_2000_seconds_2_workers']:.0f}s (this "
            "rate halved, without worker start-up: benchmarks/pool_screening.py --full runs it)"
        )
    if not rows:
        return
    print(f"{'game':<12}" + "".join(f"{s:>22}" for s in SITES))
    for r in rows:
        cells = "".join(
            f"{r[s]['ratio']:>8.2f}x ({r[s]['seconds']['trees']:.2f}s)"
            + ("" if r[s]["equal"] else " DIFF").rjust(5)
            for s in SITES
        )
        print(f"{r['game']:<12}{cells}")
    print(f"{'median':<12}" + "".join(f"{summary[s]:>8.2f}x{'':>13}" for s in SITES))
    print("(anchor seconds / batch seconds, median of alternating repetitions)")


if __name__ == "__main__":
    main()
