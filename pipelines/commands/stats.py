"""``genstrat stats``: statistics of a match corpus (Section 6).

``genstrat stats leaderboard --matches FILE [--bootstrap B] [--seed S] [--json]`` fits the overall
leaderboard of a ``matches.parquet`` (the DESIGN match schema) with clustered bootstrap intervals.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pipelines.commands import count

DEFAULT_BOOTSTRAP = 2000


def register(subparsers: Any) -> None:
    """Add ``stats`` and its subcommands to the CLI."""
    stats = subparsers.add_parser("stats", help="leaderboards and statistics of a match corpus")
    sub = stats.add_subparsers(dest="stats_command", metavar="SUBCOMMAND", required=True)
    board = sub.add_parser(
        "leaderboard",
        help="overall leaderboard with clustered bootstrap 95%% intervals",
        description=(
            "Sum-to-zero least squares on chip margins over complete paired deals, with a "
            "bootstrap over runs (Section 6)."
        ),
    )
    board.add_argument(
        "--matches",
        required=True,
        type=Path,
        metavar="FILE",
        help="matches.parquet (DESIGN schema)",
    )
    board.add_argument(
        "--bootstrap",
        type=count(1, 1_000_000),
        default=DEFAULT_BOOTSTRAP,
        metavar="B",
        help=f"bootstrap replicates (default {DEFAULT_BOOTSTRAP})",
    )
    board.add_argument(
        "--seed", type=count(0), default=0, metavar="S", help="bootstrap seed (default 0)"
    )
    board.add_argument("--json", action="store_true", help="print JSON instead of a table")
    board.set_defaults(handler=leaderboard_command)


def leaderboard_command(args: argparse.Namespace) -> int:
    """Read the corpus, fit, print; bad input raises ``ValueError`` with a one-line reason."""
    import numpy as np
    import pandas as pd

    from engines.stats.leaderboard import overall_leaderboard

    path: Path = args.matches
    if not path.is_file():
        raise ValueError(f"no match file at {path}; pass a matches.parquet with --matches")
    try:
        matches = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several types for a file that is not Parquet
        raise ValueError(f"cannot read {path} as Parquet: {exc}") from exc
    table = overall_leaderboard(matches, np.random.default_rng(args.seed), n_boot=args.bootstrap)
    if args.json:
        rows = [
            {
                "model": str(row.model),
                "alpha": float(row.alpha),
                "ci_low": float(row.ci_low),
                "ci_high": float(row.ci_high),
                "rank": int(row.rank),
                "matches": int(row.matches),
            }
            for row in table.itertuples(index=False)
        ]
        print(json.dumps({"leaderboard": rows}, indent=2))
        return 0
    print(f"{'rank':>4}  {'model':<32} {'alpha':>7}  {'95% interval':<17} {'matches':>7}  tier")
    for row in table.itertuples(index=False):
        interval = f"[{row.ci_low:+.2f}, {row.ci_high:+.2f}]"
        print(
            f"{row.rank:>4}  {row.model:<32} {row.alpha:+7.2f}  {interval:<17} "
            f"{row.matches:>7}  {row.tier}"
        )
    print(f"chips/game; clustered bootstrap over runs, B = {args.bootstrap}, seed {args.seed}")
    return 0
