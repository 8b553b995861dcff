"""The ``genstrat`` command line.

Every expected mistake (a bad seed, a malformed file, a tampered bundle) ends in one line on
stderr naming the problem and a non-zero exit; tracebacks are reserved for bugs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

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
    "werewolf",
    "deploy",
)


class UserError(Exception):
    """An error the user can fix; printed as one line, exit status 2."""


EXIT_CODES = """exit status:
  0    success
  1    a refusal or a failed check (a tampered release, a rejected program): running the
       same command again cannot help
  2    a usage or input error (a bad option, seed, file or roster)
  75   incomplete, and running again can finish it (tournament run: a stopped player, an
       unavailable endpoint, a spent budget, matches recorded as timeout or error; see
       genstrat tournament run --help)
  130  interrupted
Every error is one line on stderr."""

MAX_ERROR_CHARS = 500


def one_line(text: str) -> str:
    """``text`` on one line, at most ``MAX_ERROR_CHARS`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= MAX_ERROR_CHARS else line[: MAX_ERROR_CHARS - 3] + "..."


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2) instead of a usage block."""

    def error(self, message: str) -> NoReturn:
        message = re.sub(r"^argument (\S+?)(/\S+)?: ", r"\1 ", message)  # "--runs must be ..."
        self.exit(2, f"genstrat: error: {one_line(message)} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="genstrat",
        description="GENSTRAT: generated betting games, tournaments and attested releases.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_GROUPS:
        module = importlib.import_module(f"pipelines.commands.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed
        return int(exc.code or 0)
    try:
        result = args.handler(args)
    except (UserError, ValueError, FileNotFoundError) as exc:
        from releases.errors import ReleaseFailure  # a light module: no dependencies

        print(f"genstrat: error: {one_line(str(exc))}", file=sys.stderr)
        return 1 if isinstance(exc, ReleaseFailure) else 2  # a failed check, else a mistake
    except RecursionError:  # an input nested past what any reader here accepts
        print("genstrat: error: the input is nested too deeply to read", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        from arena.programs.sandbox import SandboxUnavailable  # only when something failed

        if not isinstance(exc, SandboxUnavailable):
            raise
        print(f"genstrat: error: {one_line(str(exc))}", file=sys.stderr)
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
