"""The six screening axes on pool games, axis by axis: the default path against the interpreter.

Usage::

    python benchmarks/screening_axes.py [--games 60] [--repeats 2] [--pool-file PATH]
                                        [--stride 1] [--json]

Takes the first ``--games`` accepted games of the paper pool (seeds from 0, as
``engines.gbg.seed_pool.run_pool`` accepts them), or with ``--pool-file`` (the
``pool_2000.json`` that ``benchmarks/axes.py`` caches) every ``--stride``-th game of that
pool, a sample spread over the whole pool, and times each part of
``engines.axes.screening.screening_axes`` at the ``paper`` screening budget both ways in one
process, alternating per game and per repeat (the order flipped every other time): the
default path (the kernel, fixed-chance trees) and the ``reference`` backend of
``engines.backend`` (the anchor: every deal interpreted, every key rebuilt).  The parts are
the random play (state space, temporal depth, risk), information sensitivity, opponent modelling and
brittleness (which has one path only, so its two columns time the same code: a check of the
method's noise).  Reported per part: CPU seconds of each path over all games and the ratio
anchor / default (higher is better), and whether the values are equal (they must be).
The projection to the paper pool divides the default path's CPU seconds per game by the two
workers of ``screen_games`` (about linear) and multiplies by 2,000; the load average is
printed with it.  CPU time (``time.process_time``), not wall time: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engines.axes import screening as sc
from engines.axes.budgets import screening_budget
from engines.backend import using
from engines.gbg.seed_pool import run_pool
from engines.gbg.spec import GameSpec

POOL = 2000
WORKERS = 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--pool-file", type=Path, default=None)
    parser.add_argument("--stride", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    if args.pool_file is not None:
        pool = json.loads(args.pool_file.read_text())["games"][:: args.stride][: args.games]
        games = [(int(seed), GameSpec.from_json(text)) for seed, text in pool]
    else:
        verdicts, _ = run_pool(0, args.games)
        games = [(v["seed"], GameSpec.from_json(v["spec_json"])) for v in verdicts if v["accepted"]]
    budget = screening_budget("paper")
    parts: dict[str, Callable[[GameSpec, int], Any]] = {
        "random_play": lambda g, s: sc._random_play(g, budget.random_deals, s),
        "information_sensitivity": lambda g, s: sc._information_sensitivity(g, budget, s),
        "opponent_modelling": lambda g, s: sc._opponent_modelling(g, budget, s),
        "brittleness": lambda g, s: sc._brittleness(g, budget, s),
    }
    sc.screening_axes(games[0][1], budget, 0)  # load the kernel before timing
    load = os.getloadavg()[0]
    cpu = {(part, path): 0.0 for part in parts for path in ("default", "interpreter")}
    equal = dict.fromkeys(parts, True)
    for repeat in range(args.repeats):
        for k, (seed, spec) in enumerate(games):
            for part, run in parts.items():
                order = [False, True] if (k + repeat) % 2 else [True, False]
                values = {}
                for interpreted in order:
                    started = time.process_time()
                    with using("reference" if interpreted else "kernel"):
                        values[interpreted] = run(spec, seed)
                    path = "interpreter" if interpreted else "default"
                    cpu[(part, path)] += time.process_time() - started
                equal[part] &= values[False] == values[True]
    report: dict[str, Any] = {"games": len(games), "repeats": args.repeats, "parts": {}}
    for part in parts:
        d, a = cpu[(part, "default")], cpu[(part, "interpreter")]
        report["parts"][part] = {
            "default_cpu_seconds": d / args.repeats,
            "interpreter_cpu_seconds": a / args.repeats,
            "ratio": a / d if d else None,
            "equal": equal[part],
        }
    default = sum(p["default_cpu_seconds"] for p in report["parts"].values())
    anchor = sum(p["interpreter_cpu_seconds"] for p in report["parts"].values())
    report["ratio"] = anchor / default
    report["default_cpu_seconds_per_game"] = default / len(games)
    report["projected_pool_seconds_2_workers"] = default / len(games) * POOL / WORKERS
    report["load_average_before"] = load
    report["load_average_after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for part, row in report["parts"].items():
        print(
            f"{part:<24} default {row['default_cpu_seconds']:7.2f}s  interpreter "
            f"{row['interpreter_cpu_seconds']:7.2f}s  ratio {row['ratio']:.2f}  "
            f"equal {row['equal']}"
        )
    print(
        f"all parts: ratio {report['ratio']:.2f}; {report['default_cpu_seconds_per_game']:.3f} "
        f"CPU s per game; the {POOL}-game pool on {WORKERS} workers "
        f"~{report['projected_pool_seconds_2_workers']:.0f}s (load "
        f"{report['load_average_before']:.1f} -> {report['load_average_after']:.1f})"
    )


if __name__ == "__main__":
    main()
