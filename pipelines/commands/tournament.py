"""``genstrat tournament``: play a tournament of paired deals into a resumable corpus.

- ``tournament run --roster FILE --games SEEDS --runs N --out DIR [--json]``: play every
  scheduled deal not yet in ``DIR`` and write ``DIR/matches.parquet`` and ``DIR/moves.parquet``.
  Killed at any moment and started again with the same command, it ends with the corpus an
  uninterrupted run writes.  ``SEEDS``: comma-separated generator seeds, preset names, spec
  files or OpenSpiel games (``openspiel:chess``, ``openspiel:go(board_size=9)``).
  ``--parallel`` bounds the matches in flight (``--workers`` processes share them and
  the providers' limits); ``--retry-failed`` plays recorded timeouts and errors again;
  ``--offline`` answers every model call from ``DIR/cache.sqlite`` (a rebuild that calls no
  provider).

Strategy programs in the roster (``kind: program``) take the admission test on each game first;
a program refused on a game does not play there, and the summary names program, game and
reason.

Progress (matches done of scheduled, rate, ETA) goes to stderr; the summary to stdout (JSON with
``--json``).  Exit status 0 when every scheduled match is recorded, 1 when a player was stopped
or a program was not admitted and some matches were not played (the message or the summary
names the player, the game and why), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pipelines.commands import count

# Runs per matchup a tournament accepts (the paper plays at most 20): a larger number is a typo,
# and would hold a schedule of billions of matches in memory.
MAX_RUNS = 10_000


def register(subparsers: Any) -> None:
    tournament = subparsers.add_parser("tournament", help="play paired-deal tournaments")
    sub = tournament.add_subparsers(dest="tournament_command", metavar="SUBCOMMAND", required=True)
    run = sub.add_parser("run", help="play (or resume) a tournament into a folder")
    run.add_argument("--roster", required=True, metavar="FILE", help="roster YAML file")
    run.add_argument(
        "--games",
        required=True,
        metavar="SEEDS",
        help="comma-separated seeds, preset names, spec files or openspiel:<name> games",
    )
    run.add_argument(
        "--runs",
        required=True,
        type=count(1, MAX_RUNS),
        metavar="N",
        help=f"runs per matchup (1 to {MAX_RUNS:,})",
    )
    run.add_argument("--out", required=True, metavar="DIR", help="output folder (resumable)")
    run.add_argument(
        "--parallel", type=count(1, 4096), default=64, metavar="M", help="matches in flight"
    )
    run.add_argument(
        "--workers",
        type=count(1, 256),
        default=1,
        metavar="W",
        help="processes playing LLM matches",
    )
    run.add_argument("--retry-failed", action="store_true", help="replay timeouts and errors")
    run.add_argument("--offline", action="store_true", help="answer only from the cache")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.add_argument("--quiet", action="store_true", help="no progress on stderr")
    run.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    from arena.games import resolve_games
    from arena.progress import COMMAND_INTERVAL_S, ProgressReporter
    from arena.roster import load_roster
    from arena.tournament.runner import run_tournament
    from engines.tournament.schedule import parse_game_list

    roster = load_roster(Path(args.roster))
    games = resolve_games(parse_game_list(args.games))
    with ProgressReporter(
        "tournament", unit="matches", every_s=COMMAND_INTERVAL_S, enabled=not args.quiet
    ) as reporter:
        summary = run_tournament(
            roster,
            games,
            args.runs,
            Path(args.out),
            parallel=args.parallel,
            workers=args.workers,
            retry_failed=args.retry_failed,
            offline=args.offline,
            progress=lambda p: reporter.set(
                p.done, p.total, already=p.done - p.played, moves=p.moves
            ),
        )
    report = summary.as_dict()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        statuses = ", ".join(f"{n} {s}" for s, n in report["status_counts"].items()) or "none"
        print(
            f"tournament: {report['recorded']}/{report['scheduled']} matches recorded "
            f"({statuses}); played {report['played']} now, {report['resumed']} from before"
        )
        for name, rates in report["per_player"].items():
            print(
                f"  {name:<24} {int(rates['moves']):>7} moves  fallbacks "
                f"{rates['fallback_rate']:6.2%}  rethinks {rates['rethink_rate']:6.2%}"
            )
        for name, refusals in report["not_admitted"].items():
            for game, reason in refusals.items():
                print(f"  not admitted: program {name!r} on game {game}: {reason}")
        print(f"  matches: {report['matches']}\n  moves:   {report['moves']}")
    for message in summary.stopped.values():
        print(f"genstrat: {message}", file=sys.stderr)
    if summary.not_played:
        print(
            f"genstrat: {summary.not_played} matches not played; run the same command again "
            "once the cause is fixed",
            file=sys.stderr,
        )
    return 0 if summary.finished else 1
