"""``genstrat bench engine [--json]``: engine throughput side by side with OpenSpiel.

Alternates our engine (the State API, and the compiled batch loop of
``engines.gbg.batch_random``) and OpenSpiel (its Python loop and its C++ ``evaluate_bots``) on
Kuhn and Leduc poker in one process (median of the repetitions), and reports our two rates
alone on ``example4643``, ``holdem-limit`` and the median accepted generated game.  The same
measurement backs ``benchmarks/engine_throughput.py``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pipelines.commands import count


def register(subparsers: Any) -> None:
    bench = subparsers.add_parser("bench", help="performance measurements")
    sub = bench.add_subparsers(dest="bench_command", metavar="SUBCOMMAND", required=True)
    engine = sub.add_parser("engine", help="random-play deals/second against OpenSpiel")
    engine.add_argument(
        "--deals", type=count(100), default=20_000, metavar="N", help="per repetition"
    )
    engine.add_argument("--repeats", type=count(1, 1000), default=5, metavar="R")
    engine.add_argument("--json", action="store_true")
    engine.set_defaults(handler=engine_command)


def engine_report(deals: int, repeats: int) -> dict[str, Any]:
    from engines.gbg import presets
    from engines.gbg.throughput import compare, median_accepted_game, solo

    return {
        "compared": [
            compare(presets.kuhn(), "kuhn_poker", deals, repeats),
            compare(presets.leduc(), "leduc_poker", deals, repeats),
        ],
        "solo": [
            solo(presets.example4643(), max(200, deals // 10), 3),
            solo(presets.holdem_limit(), max(200, deals // 10), 3),
            solo(median_accepted_game(), max(200, deals // 10), 3),
        ],
    }


def engine_command(args: argparse.Namespace) -> int:
    report = engine_report(args.deals, args.repeats)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{'game':<14}{'ours':>12}{'batch':>12}{'OpenSpiel py':>14}{'evaluate_bots':>15}"
        f"{'ours/py':>9}{'ours/C++':>10}{'batch/C++':>11}{'batch/ours':>12}"
    )
    for row in report["compared"]:
        rates = row["deals_per_second"]
        print(
            f"{row['game']:<14}{rates['ours']:>12,.0f}{rates['batch']:>12,.0f}"
            f"{rates['openspiel_python']:>14,.0f}{rates['openspiel_evaluate_bots']:>15,.0f}"
            f"{row['ratio_vs_openspiel_python']:>9.2f}{row['ratio_vs_evaluate_bots']:>10.2f}"
            f"{row['batch_ratio_vs_evaluate_bots']:>11.2f}{row['batch_ratio_vs_ours']:>12.2f}"
        )
    for row in report["solo"]:
        print(
            f"{row['game']:<14}{row['deals_per_second']:>12,.0f}"
            f"{row['batch_deals_per_second']:>12,.0f}{'':>49}{row['batch_ratio_vs_ours']:>12.2f}"
        )
    print(f"(deals per second; median of {args.repeats} alternating repetitions)")
    return 0
