"""``genstrat tournament``: play a tournament of paired deals into a resumable corpus.

- ``tournament run --roster FILE --games SEEDS --runs N --out DIR [--json]``: play every
  scheduled deal not yet in ``DIR`` (``--protocol paper|arena``: the move protocol, default
  the roster's) and write ``DIR/matches.parquet`` and ``DIR/moves.parquet``.
  Killed at any moment and started again with the same command, it ends with the corpus an
  uninterrupted run writes.  ``SEEDS``: comma-separated generator seeds, preset names, spec
  files or OpenSpiel games (``openspiel:chess``, ``openspiel:go(board_size=9)``); a seed is the
  game of ``--config default|paper|FILE`` (default: the run profile's configuration), and the
  LLM players read rulebooks in ``--style compact|paper`` (default: the roster's, else the
  paper style under the paper protocol, else the profile's). ``--release ID [--store DIR]``
  plays a release's benchmark games by the specs it carries (``--games`` then picks among
  them), never regenerating a seed.
  ``--parallel`` bounds the matches in flight (``--workers`` processes share them and
  the providers' limits); ``--retry-failed`` plays recorded timeouts and errors again;
  ``--offline`` answers every model call from ``DIR/cache.sqlite`` (a rebuild that calls no
  provider).

- ``tournament plan --roster FILE --profile P [--games SEEDS] [--runs N] [--out DIR]
  [--calibration DIR ...] [--json]``: before spending, the matches, calls, input/output/cached
  tokens, cost per model and in total and the hours at the roster's rate limits
  (``arena.tournament.plan``), under the profile's protocol and runs per matchup.  Games default
  to the demo benchmark (Kuhn, Leduc and three generated games); the totals are also given
  extrapolated to the profile's number of benchmark games.  With ``--out``, the matches already
  in that folder are left out, and they calibrate the plan: each model's failed-answer and
  retry rates, tokens per character and reply length, and, on a game with enough of its
  matches, its moves per match (``--calibration`` adds folders of earlier tournaments of the
  same players, e.g. ``tournament run --runs 1`` into a scratch folder).  Without calibration
  the calls (and, with rethinks, the tokens and cost) are lower bounds, and the plan says so;
  each model's line gives its basis and the range of its calls.  Exit status 0, or 1 when an
  estimate passes a budget (``max_usd``), 2 for bad input.

- ``tournament run --roster FILE --games SEEDS --episodes N --out DIR [--hands H]
  [--stacks reset|carried] [--reveal showdown|all] [--against NAME] [--json]``: multi-hand
  episodes instead of single deals (``engines.tournament.episodes``: H hands in a row, the
  earlier hands in every prompt, each episode mirrored), N episode pairs of every pair of the
  roster's players on every generated game (with ``--against``, of every player against NAME),
  LLM players included with every request kept (``arena.tournament.recorded_episodes``):
  ``DIR/hands.parquet`` (one row per hand) and ``DIR/episode_moves.parquet`` (one row per LLM
  move, with its calls, tokens and cost); the summary gives each player's usage.  Played again,
  the folder's response cache answers what was asked before.  Exit status 0, 75 when a player
  stopped (the same command plays its episodes once the cause is fixed), 2 for bad input.

Strategy programs in the roster (``kind: program``) take the admission test on each game first;
a program refused on a game does not play there, and the summary names program, game and
reason.

An LLM player whose endpoint fails ``--max-connection-failures`` times in a row (connection
refused, reset or timed out; default 10, 0: never) is unavailable for the rest of the run: its
remaining matches are not attempted (the folder's ``unavailable.json`` names it), and the same
command plays them once the endpoint answers.

Progress (matches done of scheduled, rate, ETA) goes to stderr; the summary to stdout (JSON with
``--json``); each stopped player, and what is left to do, is one line on stderr.  Exit status
(``RUN_EXIT_CODES``):

- 0: every scheduled match is recorded with a result;
- 75: incomplete, and running again can finish it: a player was stopped (an unset key, a
  rejected request, a spent budget, an unavailable endpoint) so some matches were not played
  (the same command plays them once the cause is fixed), or some matches were recorded as
  ``timeout`` or ``error`` (``--retry-failed`` plays them again);
- 1: incomplete, and running the same command again cannot help: a strategy program was
  refused admission on a game (fix the program; the summary names program, game and reason);
- 2: bad input (a usage error, a bad roster, game or option);
- 143: stopped by SIGTERM (``EXIT_TERMINATED``, 128 + 15): the matches in flight are dropped,
  the journal keeps every match played and the tables are written, one line says so, and the
  same command resumes.  A second SIGTERM ends the process at once.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from pipelines.commands import (
    add_game_options,
    add_release_games_options,
    chosen_games,
    count,
    game_options,
)

if TYPE_CHECKING:
    from arena.roster import Roster
    from arena.tournament.runner import TournamentSummary
    from engines.tournament.schedule import Game

# The exit status of a run that stopped short but that running again can finish (sysexits.h's
# EX_TEMPFAIL, "temporary failure, the user is invited to retry").
EXIT_RERUN = 75
# The exit status of a run stopped by SIGTERM (128 + the signal's number, as the shell reports a
# process the signal ended).
EXIT_TERMINATED = 128 + signal.SIGTERM
RUN_EXIT_CODES = f"""exit status:
  0    every scheduled match is recorded with a result
  1    incomplete, and the same command cannot finish it: a strategy program was refused
       admission on a game (fix the program)
  2    a usage or input error (a bad option, roster or game)
  {EXIT_RERUN}   incomplete, and running again can finish it: a player was stopped (unset key,
       rejected request, spent budget, unavailable endpoint: the same command plays its
       matches once the cause is fixed) or matches were recorded as timeout or error
       (--retry-failed plays them again)
  130  interrupted (the same command resumes)
  {EXIT_TERMINATED}  stopped by SIGTERM (the journal keeps the matches played; the same command
       resumes)
Each stopped player, and what is left to do, is one line on stderr."""

# Runs per matchup a tournament accepts (the paper plays at most 20): a larger number is a typo,
# and would hold a schedule of billions of matches in memory.
MAX_RUNS = 10_000


def register(subparsers: Any) -> None:
    tournament = subparsers.add_parser("tournament", help="play paired-deal tournaments")
    sub = tournament.add_subparsers(dest="tournament_command", metavar="SUBCOMMAND", required=True)
    run = sub.add_parser(
        "run",
        help="play (or resume) a tournament into a folder",
        epilog=RUN_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("--roster", required=True, metavar="FILE", help="roster YAML file")
    run.add_argument(
        "--games",
        default=None,
        metavar="SEEDS",
        help="comma-separated seeds, preset names, spec files or openspiel:<name> games "
        "(with --release: which of its benchmark games; default all)",
    )
    add_release_games_options(run)
    add_game_options(run)
    run.add_argument(
        "--runs",
        type=count(1, MAX_RUNS),
        default=None,
        metavar="N",
        help=f"runs per matchup (1 to {MAX_RUNS:,}; required without --episodes)",
    )
    episodes = run.add_argument_group(
        "multi-hand episodes", "play episodes of --hands hands instead of single deals"
    )
    episodes.add_argument(
        "--episodes",
        type=count(1, MAX_RUNS),
        default=None,
        metavar="N",
        help="episode pairs (mirrored) per pair of players and game",
    )
    episodes.add_argument(
        "--hands", type=count(1, 1000), default=20, metavar="H", help="hands per episode"
    )
    episodes.add_argument("--stacks", choices=("reset", "carried"), default="reset")
    episodes.add_argument("--reveal", choices=("showdown", "all"), default="showdown")
    episodes.add_argument(
        "--against", default=None, metavar="NAME", help="every player against this one only"
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
    run.add_argument(
        "--max-connection-failures",
        type=count(0, 1_000_000),
        default=None,
        metavar="N",
        help="consecutive failed requests (connection failures, time-outs, requests given up "
        "on 429/5xx) after which an LLM player is unavailable for "
        "the rest of the run (default 10; 0: never)",
    )
    run.add_argument("--retry-failed", action="store_true", help="replay timeouts and errors")
    run.add_argument("--offline", action="store_true", help="answer only from the cache")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.add_argument("--quiet", action="store_true", help="no progress on stderr")
    run.add_argument(
        "--protocol",
        choices=("paper", "arena"),
        default=None,
        help="move protocol (default: the roster's, else arena)",
    )
    run.set_defaults(handler=run_command)
    plan = sub.add_parser("plan", help="estimate calls, tokens, cost and time before spending")
    plan.add_argument("--roster", required=True, metavar="FILE", help="roster YAML file")
    plan.add_argument("--profile", default=None, metavar="P", help="run profile (demo | paper)")
    plan.add_argument("--games", default=None, metavar="SEEDS", help="default: the demo games")
    add_release_games_options(plan)
    add_game_options(plan, style=False)
    plan.add_argument(
        "--runs", type=count(1, MAX_RUNS), default=None, metavar="N", help="default: the profile's"
    )
    plan.add_argument(
        "--out", default=None, metavar="DIR", help="leave out matches played here (and calibrate)"
    )
    plan.add_argument(
        "--calibration",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of an earlier tournament of the same players to calibrate on (repeatable)",
    )
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    plan.set_defaults(handler=plan_command)


def plan_command(args: argparse.Namespace) -> int:
    from arena.roster import load_roster, with_protocol, with_rulebook_style
    from arena.tournament.plan import plan_tournament
    from assets.partitions import DEMO_BENCHMARK_GAMES
    from assets.run_profiles import get_profile
    from engines.tournament.schedule import parse_game_list

    # a bad profile, roster or game list raises ValueError: one line, exit status 2
    profile = get_profile(args.profile)
    roster = with_protocol(load_roster(Path(args.roster)), profile.protocol)
    roster = with_rulebook_style(roster, profile.rulebook_style)
    if args.games:
        tokens: list[str] | None = parse_game_list(args.games)
    else:
        tokens = None if args.release else list(DEMO_BENCHMARK_GAMES)
    games = chosen_games(args, tokens, profile.name)
    runs = args.runs or profile.runs_per_matchup
    for given in args.calibration:
        if not (Path(given) / "journal.jsonl").is_file():
            raise ValueError(f"--calibration {given}: no tournament journal there")
    plan = plan_tournament(
        roster,
        games,
        runs,
        Path(args.out) if args.out else None,
        calibration=[Path(c) for c in args.calibration],
    )
    report = plan.as_dict()
    report |= {"profile": profile.name, "protocol": profile.protocol, "runs": runs}
    factor = profile.benchmark_games / len(games) if games else 0.0
    report["profile_games"] = profile.benchmark_games
    report["extrapolated_to_profile_games"] = {
        k: round(v * factor, 6) if isinstance(v, float) else round(v * factor)
        for k, v in report["total"].items()
    } | {"matches": round(plan.matches * factor), "hours": round(plan.hours * factor, 3)}
    over = report["over_budget"] or any(m["over_budget"] for m in report["models"].values())
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"plan ({profile.name} profile, protocol {profile.protocol}, {runs} runs, "
            f"{len(games)} games): {plan.matches} matches to play"
            + (f", {plan.already_played} already played" if plan.already_played else "")
        )
        print(
            f"  {'model':<24} {'matches':>8} {'calls':>9} {'input tok':>12} {'cached':>12} "
            f"{'output tok':>11} {'cost $':>10}"
        )
        for name, m in report["models"].items():
            flag = "  over budget" if m["over_budget"] else ""
            print(
                f"  {name:<24} {m['matches']:>8} {m['calls']:>9} {m['input_tokens']:>12} "
                f"{m['cached_input_tokens']:>12} {m['output_tokens']:>11} "
                f"{m['cost_usd']:>10.2f}{flag}"
            )
            low, high = m["bounds"]["calls"]
            bound = (
                f"lower bounds: {', '.join(m['lower_bounds'])}"
                if m["lower_bounds"]
                else f"+/- {1.96 * m['rel_se']:.1%} (95%, sampling)"
            )
            print(f"  {'':<24} {m['basis']}; {bound}; calls between {low} and {high}")
            if m["assumptions"]:
                print(f"  {'':<24} assumes {'; '.join(m['assumptions'])}")
        total = report["total"]
        print(
            f"  {'total':<24} {plan.matches:>8} {total['calls']:>9} {total['input_tokens']:>12} "
            f"{total['cached_input_tokens']:>12} {total['output_tokens']:>11} "
            f"{total['cost_usd']:>10.2f}"
        )
        print(f"  time at the roster's rate limits: {plan.hours:.2f} h")
        calibrated = report["calibration"]
        if calibrated["matches"]:
            print(
                f"  calibrated on {calibrated['matches']} matches in "
                f"{', '.join(calibrated['folders'])}"
            )
        elif report["models"]:
            print(
                "  not calibrated: calls assume one legal answer a move at the first request "
                "(lower bounds); play a calibration run (tournament run --runs 1 --out DIR) "
                "and pass --calibration DIR"
            )
        extra = report["extrapolated_to_profile_games"]
        print(
            f"  at the profile's {profile.benchmark_games} games: {extra['matches']} matches, "
            f"{extra['calls']} calls, ${extra['cost_usd']:.2f}, {extra['hours']:.2f} h"
        )
    if over:
        print("genstrat: the estimate passes a budget (max_usd)", file=sys.stderr)
    return 1 if over else 0


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is, so that it unwinds as from Ctrl-C: the matches in flight
    are dropped, the journal is closed and the tables are written."""


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """Within the block, SIGTERM raises ``Terminated`` (once: a second one ends the process at
    once); the previous handler is restored after it.  Only the main thread can take signals,
    and a process started to ignore SIGTERM (``nohup``-like launchers) goes on ignoring it."""
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGTERM) == signal.SIG_IGN:
        yield
        return

    def terminated(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_command(args: argparse.Namespace) -> int:
    try:
        with sigterm_unwinds():
            return _run(args)
    except Terminated:
        # SIGTERM may land while asyncio closes the run's loop, leaving its main task finished
        # with Terminated and unread: asyncio would log "Task exception was never retrieved"
        # with a traceback when that task is collected. The run is over and says so in one line.
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        print(
            f"genstrat: stopped by SIGTERM; the journal in {args.out} keeps the matches played: "
            "run the same command to resume",
            file=sys.stderr,
        )
        return EXIT_TERMINATED


def _run(args: argparse.Namespace) -> int:
    from arena.progress import COMMAND_INTERVAL_S, ProgressReporter
    from arena.roster import load_roster, with_protocol, with_rulebook_style
    from arena.tournament.runner import run_tournament
    from engines.tournament.schedule import parse_game_list

    roster = load_roster(Path(args.roster))
    protocol = args.protocol or roster.protocol  # the paper's brings its rulebook style
    if protocol is not None:
        roster = with_protocol(roster, protocol)
    _, style = game_options(args)
    if args.style is not None or roster.rulebook_style is None:
        roster = with_rulebook_style(roster, style)
    if args.games is None and args.release is None:
        raise ValueError("no games given: pass --games SEEDS, or --release ID for its games")
    games = chosen_games(args, parse_game_list(args.games) if args.games else None)
    if args.episodes is not None:
        return episodes_command(args, roster, games)
    if args.runs is None:
        raise ValueError("--runs N is required (or --episodes N for multi-hand episodes)")
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
            max_connection_failures=args.max_connection_failures,
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
                + (
                    f"  {int(rates['input_tokens'])} in ({int(rates['cached_input_tokens'])} "
                    f"cached) / {int(rates['output_tokens'])} out tokens  "
                    f"${rates['cost_usd']:.4f}"
                    if rates["calls"]
                    else ""
                )
            )
        print(f"  protocol: {report['protocol']}")
        for name, refusals in report["not_admitted"].items():
            for game, reason in refusals.items():
                print(f"  not admitted: program {name!r} on game {game}: {reason}")
        print(f"  matches: {report['matches']}\n  moves:   {report['moves']}")
    return run_outcome(summary)


def episodes_command(args: argparse.Namespace, roster: Roster, games: list[Game]) -> int:
    """``tournament run --episodes N`` (see the module docstring)."""
    from arena.tournament.recorded_episodes import run_recorded_episodes
    from engines.gbg import GameSpec
    from engines.tournament.episodes import EpisodeConfig

    other = [g.token for g in games if not isinstance(g.spec, GameSpec)]
    if other:
        raise ValueError(f"episodes are played on generated games only, not {', '.join(other)}")
    names = [p.name for p in roster.players]
    if args.against is not None and args.against not in names:
        raise ValueError(f"--against {args.against!r} is not a player of the roster")
    if args.against is not None:
        pairs = [(name, args.against) for name in names if name != args.against]
    else:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    config = EpisodeConfig(hands=args.hands, stacks=args.stacks, reveal=args.reveal)
    run = run_recorded_episodes(
        roster, pairs, games, args.episodes, config, Path(args.out),
        parallel=args.parallel, offline=args.offline,
    )  # fmt: skip
    import pandas as pd

    hands = pd.read_parquet(run.hands_path)
    report: dict[str, Any] = {
        "episodes": int(hands["episode_id"].nunique()) if len(hands) else 0,
        "hands": len(hands),
        "status_counts": {str(k): int(v) for k, v in hands["status"].value_counts().items()},
        "usage": run.usage,
        "stopped": run.stopped,
        "hands_path": str(run.hands_path),
        "moves_path": str(run.moves_path),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"episodes: {report['episodes']} played ({report['hands']} hands, {len(pairs)} "
            f"pairs, {len(games)} games, {args.hands} hands an episode)"
        )
        for name, used in run.usage.items():
            print(
                f"  {name:<24} {int(used['moves']):>7} moves  {int(used['calls'])} calls  "
                f"{int(used['input_tokens'])} in ({int(used['cached_input_tokens'])} cached) / "
                f"{int(used['output_tokens'])} out tokens  ${used['cost_usd']:.4f}"
            )
        print(f"  hands: {run.hands_path}\n  moves: {run.moves_path}")
    for message in run.stopped.values():
        print(
            f"genstrat: {message}; its episodes were not played: run the same command again "
            "once the cause is fixed",
            file=sys.stderr,
        )
    return EXIT_RERUN if run.stopped else 0


def run_outcome(summary: TournamentSummary) -> int:
    """One line on stderr per stopped player and per thing left to do; the exit status
    (``RUN_EXIT_CODES``)."""
    from arena.tournament.budget import BUDGET_REASON

    for name, message in summary.stopped.items():
        if f"stopped: {BUDGET_REASON}" in message:
            then = "run the same command with a raised max_usd to play them"
        elif name in summary.unavailable:
            then = "run the same command again once the endpoint answers"
        else:
            then = "run the same command again once the cause is fixed"
        left = summary.not_played_by.get(name, 0)
        print(
            f"genstrat: {message}; {left} matches not played: {then}"
            if left
            else f"genstrat: {message}",
            file=sys.stderr,
        )
    refused = sum(len(games) for games in summary.not_admitted.values())  # (program, game)
    rerun = any(summary.not_played_by.values()) or summary.failed > 0
    if summary.failed:
        print(
            f"genstrat: {summary.failed} matches recorded as timeout or error; run the same "
            "command with --retry-failed to play them again",
            file=sys.stderr,
        )
    if refused:
        unplayed = summary.not_played - sum(summary.not_played_by.values())
        print(
            f"genstrat: {unplayed} matches not played: {refused} program(s) refused admission "
            "on a game (see 'not admitted'); running the same command again cannot play them, "
            "only a fixed program can",
            file=sys.stderr,
        )
    if rerun:
        return EXIT_RERUN
    return 0 if summary.finished else 1
