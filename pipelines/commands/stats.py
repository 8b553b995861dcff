"""``genstrat stats``: statistics of a match corpus (Section 6).

``genstrat stats leaderboard (--matches FILE | --release ID) [--bootstrap B] [--seed S] [--json]``
fits the overall leaderboard of a ``matches.parquet`` (the match table of a tournament folder or a
release's ``tables/complete_pairs.parquet``) with clustered bootstrap intervals; model names are
printed without terminal escapes (``pipelines.commands.release.shown``).  With
``--release`` the release is verified first, its complete pairs are refitted with the bootstrap B
and seed its manifest records, and the command says whether the published leaderboard was
reproduced exactly.
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
    source = board.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--matches", type=Path, metavar="FILE", help="a match table (matches.parquet)"
    )
    source.add_argument(
        "--release",
        metavar="ID",
        help="a release id (in --store), folder or .tar.gz: refit its complete pairs",
    )
    board.add_argument(
        "--store",
        type=Path,
        default=None,
        metavar="DIR",
        help="release store (default: $GENSTRAT_RELEASES, else <project>/releases_store)",
    )
    board.add_argument(
        "--bootstrap",
        type=count(1, 1_000_000),
        default=None,
        metavar="B",
        help=f"bootstrap replicates (default {DEFAULT_BOOTSTRAP}; with --release, its own B)",
    )
    board.add_argument(
        "--seed",
        type=count(0),
        default=None,
        metavar="S",
        help="bootstrap seed (default 0; with --release, its own seed)",
    )
    board.add_argument("--json", action="store_true", help="print JSON instead of a table")
    board.set_defaults(handler=leaderboard_command)


def leaderboard_command(args: argparse.Namespace) -> int:
    """Read the corpus, fit, print; bad input raises ``ValueError`` with a one-line reason."""
    import numpy as np
    import pandas as pd

    from engines.stats.leaderboard import overall_leaderboard

    published = None
    bootstrap, seed = args.bootstrap, args.seed
    if args.release is not None:
        from releases.opened import open_release

        release = open_release(args.release, args.store)
        matches = release.table("complete_pairs")
        published = release.table("leaderboards")
        recorded = release.analysis_settings()
        bootstrap = recorded["bootstrap"] if bootstrap is None else bootstrap
        seed = recorded["seed"] if seed is None else seed
        source = f"release {release.release_id}"
    else:
        path: Path = args.matches
        if not path.is_file():
            raise ValueError(f"no match file at {path}; pass a matches.parquet with --matches")
        try:
            matches = pd.read_parquet(path)
        except Exception as exc:  # pyarrow raises several types for a file that is not Parquet
            raise ValueError(f"cannot read {path} as Parquet: {exc}") from exc
        source = str(path)
    bootstrap = DEFAULT_BOOTSTRAP if bootstrap is None else bootstrap
    seed = 0 if seed is None else seed
    table = overall_leaderboard(matches, np.random.default_rng(seed), n_boot=bootstrap)
    reproduced = None
    if published is not None:
        reproduced = _same_board(table, published)
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
        payload: dict[str, Any] = {"leaderboard": rows, "bootstrap": bootstrap, "seed": seed}
        if reproduced is not None:
            payload["reproduces_published"] = reproduced
        print(json.dumps(payload, indent=2))
        return 0 if reproduced is not False else 1
    from pipelines.commands.release import shown  # names are the corpus's text, not ours

    print(f"{'rank':>4}  {'model':<32} {'alpha':>7}  {'95% interval':<17} {'matches':>7}  tier")
    for row in table.itertuples(index=False):
        interval = f"[{row.ci_low:+.2f}, {row.ci_high:+.2f}]"
        print(
            f"{row.rank:>4}  {shown(row.model):<32} {row.alpha:+7.2f}  {interval:<17} "
            f"{row.matches:>7}  {shown(row.tier)}"
        )
    print(
        f"chips/game; clustered bootstrap over runs, B = {bootstrap}, seed {seed}; {shown(source)}"
    )
    if reproduced is not None:
        verdict = "reproduced exactly" if reproduced else "NOT reproduced (differs)"
        print(f"the published leaderboard: {verdict}")
        return 0 if reproduced else 1
    return 0


def _same_board(fitted: Any, published: Any) -> bool:
    """Whether a refit equals the published leaderboard, value for value."""
    columns = [c for c in fitted.columns if c in published.columns]
    left = fitted[columns].reset_index(drop=True)
    right = published[columns].reset_index(drop=True)
    return bool(left.shape == right.shape and left.astype(object).equals(right.astype(object)))
