"""The fixed-chance trees (engines.gbg.batch) against the interpreter, side by side.

Usage::

    python benchmarks/axes_batch.py [--games 0,4,5,43,130] [--repeats 3] [--strategies 50]
                                    [--decisions 4] [--json]

For each game (generator seeds under the default config; ``kuhn``/``leduc``/``example4643``
name presets) and each call site that walks trees, the same work runs both ways in one
process, alternating, ``--repeats`` times: the memoised path (the default) and the
interpreter path it replaced (``interpreted=True``, the anchor).  Reported per site: the
median over games of the median ratio anchor seconds / tree seconds (higher is better), and
every game's figures.  The two paths give equal numbers (tests/engines/axes/test_axes_batch.py);
this script checks that too on what it runs.

Sites, at the paper budgets:

- ``ranking``: ``scores_against_l0`` of ``--strategies`` population members on the 40 ranking
  deals (the paper ranks 200 members; the cost is linear in them);
- ``replays``: ``action_values`` of the first ``--decisions`` recorded decisions (4 x 9 x 10
  contexts each, world sampling included, which both paths share);
- ``screening``: ``screening_axes`` at the paper screening budget (random play, which both
  paths share, included).

Ratios, not absolute times: the machine is shared, and alternation exposes both paths to
the same load.  Never used as a wall-clock assertion.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from engines.axes.budgets import axis_budget, screening_budget
from engines.axes.decisions import decision_distribution
from engines.axes.population import (
    build_population,
    forget_strategies,
    ranking_deals,
    scores_against_l0,
    strategy_seeds,
)
from engines.axes.replay import action_values
from engines.axes.screening import screening_axes
from engines.gbg import presets
from engines.gbg.generator import generate
from engines.gbg.spec import GameSpec


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
        "ratio": statistics.median(ratios),
        "equal": same(outputs["interpreter"], outputs["trees"]),
    }


def measure(name: str, repeats: int, strategies: int, decisions: int) -> dict[str, Any]:
    spec = _game(name)
    budget = axis_budget("paper")
    seeds = strategy_seeds(1, strategies)
    deals = ranking_deals(spec, 1, budget.ranking_deals)
    out: dict[str, Any] = {"game": name}
    out["ranking"] = _side_by_side(
        {
            "interpreter": lambda: scores_against_l0(
                spec, seeds, deals, budget.max_amounts, interpreted=True
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

    def tables(interpreted: bool) -> list[np.ndarray]:
        return [
            action_values(
                spec, selfplay.traces[d.deal], d, population, budget, 3, interpreted=interpreted
            ).values
            for d in chosen
        ]

    out["replays"] = _side_by_side(
        {"interpreter": lambda: tables(True), "trees": lambda: tables(False)},
        repeats,
        lambda a, b: all(np.array_equal(x, y) for x, y in zip(a, b, strict=True)),
    )
    screen = screening_budget("paper")
    out["screening"] = _side_by_side(
        {
            "interpreter": lambda: screening_axes(spec, screen, 7, interpreted=True),
            "trees": lambda: screening_axes(spec, screen, 7),
        },
        repeats,
        lambda a, b: bool(a == b),
    )
    return out


SITES = ("ranking", "replays", "screening")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="leduc,0,4,5,43,130")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--strategies", type=int, default=50)
    parser.add_argument("--decisions", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [
        measure(g.strip(), args.repeats, args.strategies, args.decisions)
        for g in args.games.split(",")
    ]
    summary = {site: statistics.median(r[site]["ratio"] for r in rows) for site in SITES}
    report = {"median_ratio": summary, "games": rows}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{'game':<12}" + "".join(f"{s:>22}" for s in SITES))
    for r in rows:
        cells = "".join(
            f"{r[s]['ratio']:>8.2f}x ({r[s]['seconds']['trees']:.2f}s){'' if r[s]['equal'] else ' DIFF':>5}"
            for s in SITES
        )
        print(f"{r['game']:<12}{cells}")
    print(f"{'median':<12}" + "".join(f"{summary[s]:>8.2f}x{'':>13}" for s in SITES))
    print("(anchor seconds / tree seconds, median of alternating repetitions; equal numbers)")


if __name__ == "__main__":
    main()
