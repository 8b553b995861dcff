"""The ``genstrat`` command line.

Every expected mistake (a bad seed, a malformed file, a tampered bundle) ends in one line on
stderr naming the problem and a non-zero exit; tracebacks are reserved for bugs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# Command groups, each a module in pipelines.commands with a ``register(subparsers)`` function.
COMMAND_GROUPS: tuple[str, ...] = (
    "game",
    "pool",
    "bench",
    "stats",
    "tournament",
    "program",
    "release",
    "axes",
)


class UserError(Exception):
    """An error the user can fix; printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="genstrat",
        description="GENSTRAT: generated betting games, tournaments and attested releases.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_GROUPS:
        module = importlib.import_module(f"pipelines.commands.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.handler(args)
    except (UserError, ValueError, FileNotFoundError) as exc:
        print(f"genstrat: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("genstrat: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. piped into ``head``): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
