"""``genstrat deploy check``: the start-up check of a deployment's machine
(``pipelines/deployment.py``; docs/DEPLOY.md, section 7).

Prints one line per requirement (storage, working folder, program sandbox) on stdout when it is
met, on stderr when it is not, and exits 2 if any is not.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add ``deploy`` and its subcommands to the CLI."""
    deploy = subparsers.add_parser("deploy", help="checks of a deployment's machine")
    sub = deploy.add_subparsers(dest="deploy_command", metavar="SUBCOMMAND", required=True)
    check = sub.add_parser(
        "check",
        help="check the storage, the working folder and the program sandbox (exit 2 if one fails)",
        description=(
            "Writes, reads back and deletes a probe at $GENSTRAT_DATA; takes a file lock and "
            "writes SQLite in the working folder ($GENSTRAT_WORK, else the storage folder when "
            "local); starts a bubblewrap sandbox (user namespaces). One line each; exit 2 if "
            "any requirement is not met."
        ),
    )
    check.add_argument(
        "--no-sandbox",
        action="store_true",
        help="skip the sandbox (a deployment whose rosters have no program players)",
    )
    check.set_defaults(handler=check_command)


def check_command(args: argparse.Namespace) -> int:
    from pipelines.cli import one_line
    from pipelines.deployment import check_all

    failed = 0
    for check in check_all(sandbox=not args.no_sandbox):
        if check.problem is None:
            print(one_line(check.line()), flush=True)
        else:
            failed += 1
            print(f"genstrat: error: {one_line(check.line())}", file=sys.stderr, flush=True)
    return 2 if failed else 0
