"""``genstrat program check FILE --game SEED [--json]``: the admission test of a strategy program.

Prints ``{"admitted": bool, "reason": ..., "median_move_ms": ...}`` with ``--json``.  The exit
status is 0 when the program is admitted and 1 when it is not (a verdict, not an error); a
missing file or an unknown game is an error (exit 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pipelines.commands import count


def register(subparsers: Any) -> None:
    program = subparsers.add_parser("program", help="sandboxed strategy programs")
    sub = program.add_subparsers(dest="program_command", metavar="SUBCOMMAND", required=True)
    check = sub.add_parser("check", help="admission test: loads, plays legally, fast enough")
    check.add_argument("file", type=Path, metavar="FILE")
    check.add_argument(
        "--game", required=True, metavar="SEED", help="seed, preset name or spec .json file"
    )
    check.add_argument("--deals", type=count(1, 10_000), default=6, metavar="N")
    check.add_argument("--json", action="store_true")
    check.set_defaults(handler=check_command)


def check_command(args: argparse.Namespace) -> int:
    from arena.games import resolve_game
    from arena.programs.sandbox import admit

    if not args.file.is_file():
        raise ValueError(f"no strategy program at {args.file}")
    spec = resolve_game(args.game)
    verdict = admit(args.file, spec, deals=args.deals)
    record = {
        "admitted": verdict.admitted,
        "reason": verdict.reason,
        "median_move_ms": verdict.median_move_ms,
        "moves": verdict.moves,
    }
    if args.json:
        print(json.dumps(record))
    else:
        ms = verdict.median_move_ms
        median = "-" if ms is None else f"{ms:.2f} ms of CPU"
        print(
            f"{'admitted' if verdict.admitted else 'refused'}: {verdict.reason} "
            f"(median move {median}, {verdict.moves} moves)"
        )
    return 0 if verdict.admitted else 1
