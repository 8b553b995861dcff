"""``genstrat pool screen``: generate seeds in order and judge them until N are accepted.

``genstrat pool screen --start S --count N [--config default|paper|FILE] [--style compact|paper]
[--deals D] [--workers W] [--verdicts FILE.jsonl] [--json]``; ``--config`` and ``--style``
default to the run profile's (``$GENSTRAT_PROFILE``, else demo: the default configuration and
the compact rulebook).  ``--count`` is the number of games to accept (the paper
sampled 12,351 seeds to accept 2,000).  Progress goes to stderr; the summary (``sampled``,
``accepted``, rejection reasons with counts, feature frequencies, rulebook lengths,
seeds/second) to stdout.  A ``--verdicts`` file that cannot be written (a folder, a read-only
place, ``/proc/version``) is a one-line error, exit status 2, at its first line at the latest.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import IO, Any

from pipelines.commands import add_game_options, count, game_options


def register(subparsers: Any) -> None:
    pool = subparsers.add_parser("pool", help="the seed pool: generation and acceptance")
    sub = pool.add_subparsers(dest="pool_command", metavar="SUBCOMMAND", required=True)
    screen = sub.add_parser("screen", help="screen seeds until N games are accepted")
    screen.add_argument("--start", type=count(0), default=0, metavar="S", help="first seed")
    screen.add_argument(
        "--count", type=count(1, 1_000_000), required=True, metavar="N", help="games to accept"
    )
    screen.add_argument(
        "--max-seeds",
        type=count(1),
        default=None,
        metavar="M",
        help="stop after M seeds even if fewer were accepted",
    )
    screen.add_argument(
        "--deals",
        type=count(1, 1_000_000),
        default=None,
        metavar="D",
        help="random deals per seed for the acceptance filter",
    )
    screen.add_argument("--workers", type=count(1, 256), default=None, metavar="W")
    screen.add_argument(
        "--verdicts",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write every verdict as JSON lines",
    )
    screen.add_argument("--json", action="store_true")
    add_game_options(screen)
    screen.set_defaults(handler=screen_command)


def screen_command(args: argparse.Namespace) -> int:
    from arena.parallel import process_pool
    from arena.progress import COMMAND_INTERVAL_S, ProgressReporter
    from engines.gbg.acceptance import AcceptanceSettings
    from engines.gbg.seed_pool import screen, summarise

    config, style = game_options(args)
    settings = AcceptanceSettings(**({"deals": args.deals} if args.deals else {}))
    started = time.perf_counter()
    verdicts = []
    sink = _open_verdicts(args.verdicts) if args.verdicts else None
    reporter = ProgressReporter(
        "accepted", total=args.count, unit="games", every_s=COMMAND_INTERVAL_S
    )
    try:
        with process_pool(args.workers) as pool:
            for verdict in screen(
                args.start,
                args.count,
                config,
                settings,
                pool=pool,
                max_seeds=args.max_seeds,
                style=style,
                progress=lambda sampled, accepted: reporter.set(accepted, seeds=sampled),
            ):
                verdict.pop("spec_json", None)
                verdicts.append(verdict)
                if sink:
                    _write_verdict(sink, args.verdicts, json.dumps(verdict) + "\n")
    finally:
        reporter.close()
        if sink:
            _close_verdicts(sink, args.verdicts)
    summary = summarise(verdicts, time.perf_counter() - started)
    summary = {"start": args.start, "config_hash": config.config_hash, **summary}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(
        f"sampled {summary['sampled']}, accepted {summary['accepted']} "
        f"({summary['acceptance_rate']:.1%}), {summary['seeds_per_second']:.1f} seeds/s"
    )
    for reason, n in summary["rejections"].items():
        print(f"  rejected for {reason}: {n}")
    lengths = summary["rulebook_chars"]
    print(
        f"  rulebook characters: min {lengths['min']}, median {lengths['median']}, "
        f"max {lengths['max']}"
    )
    return 0


def _cannot_write(path: Path, exc: OSError) -> ValueError:
    return ValueError(f"cannot write the verdicts to {path}: {exc.strerror or exc}")


def _open_verdicts(path: Path) -> IO[str]:
    """``path`` opened for the verdicts, one line at a time (each line is written through, so
    a file that takes no data fails at the first verdict, not after the screening)."""
    if path.is_dir():
        raise ValueError(f"cannot write the verdicts to {path}: it is a folder")
    try:
        return path.open("w", encoding="utf-8", buffering=1)
    except OSError as exc:
        raise _cannot_write(path, exc) from None


def _write_verdict(sink: IO[str], path: Path, line: str) -> None:
    try:
        sink.write(line)
    except OSError as exc:
        raise _cannot_write(path, exc) from None


def _close_verdicts(sink: IO[str], path: Path) -> None:
    try:
        sink.close()
    except OSError as exc:
        raise _cannot_write(path, exc) from None
