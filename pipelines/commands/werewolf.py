"""``genstrat werewolf``: play a game of Werewolf (issue 47; docs/WEREWOLF.md).

- ``werewolf play --players A,B,C,D,E,F,G,H --seed S``: one game, the eight players seated
  ``P1`` to ``P8`` in that order.  A player is a built-in bot (``random``, ``rule``, or a name
  given with ``--bot NAME=KIND[:HABIT=false,...]``, e.g. ``--bot quiet=rule:seer_reveals=false``),
  a model of ``--roster FILE`` (its API entries: providers, keys, budgets as a tournament), or
  ``you``: a person, in this terminal.  ``S`` deals the roles and seeds the bots, so the same
  command plays the same game (models aside, unless their replies come from ``--cache``).

Without a person the public record of the game is printed at its end (or, with ``--json``, its
transcript); with one, the person sees exactly their seat's view as the game goes, answers each
request by number or name (``pass`` abstains; ``rules`` prints the rulebook, ``quit`` stops) and
types statements as one line.  ``--transcript FILE`` writes the transcript (every decision and
every event with its audience) as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from pipelines.commands import count

HUMAN = "you"
BOT_KINDS = ("random", "rule")


def register(subparsers: Any) -> None:
    from engines.werewolf.rules import DISCUSSION_ROUNDS, MAX_DAYS, STATEMENT_CHARS

    werewolf = subparsers.add_parser("werewolf", help="play Werewolf: bots, models and a person")
    sub = werewolf.add_subparsers(dest="werewolf_command", metavar="SUBCOMMAND", required=True)
    play = sub.add_parser("play", help="play one game of Werewolf")
    play.add_argument(
        "--players",
        required=True,
        metavar="A,B,...",
        help="eight players for seats P1..P8: random | rule | a --bot name | a --roster model "
        f"| {HUMAN} (a person in this terminal)",
    )
    play.add_argument("--seed", type=count(0, 2**64 - 1), required=True, metavar="S")
    play.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="NAME=KIND[:HABIT=false,...]",
        help="a named bot, e.g. quiet=rule:seer_reveals=false (habits: seer_reveals, "
        "doctor_guards, follows_seer, wolf_fakes)",
    )
    play.add_argument("--roster", type=Path, default=None, metavar="FILE", help="LLM players")
    play.add_argument("--cache", type=Path, default=None, metavar="FILE", help="response cache")
    play.add_argument("--offline", action="store_true", help="replies from --cache only")
    play.add_argument("--rounds", type=count(*DISCUSSION_ROUNDS), default=2, metavar="N")
    play.add_argument("--max-days", type=count(*MAX_DAYS), default=10, metavar="D")
    play.add_argument("--statement-chars", type=count(*STATEMENT_CHARS), default=600, metavar="C")
    play.add_argument("--context-chars", type=count(1000), default=24_000, metavar="C")
    play.add_argument("--transcript", type=Path, default=None, metavar="FILE")
    play.add_argument("--json", action="store_true", help="print the transcript as JSON")
    play.set_defaults(handler=play_command)


def parse_bot(text: str) -> tuple[str, str, dict[str, bool]]:
    """``NAME=KIND[:HABIT=true|false,...]`` as (name, kind, params); ``ValueError`` in one line."""
    name, sep, rest = text.partition("=")
    if not sep or not name.strip() or not rest:
        raise ValueError(f"--bot {text!r}: expected NAME=KIND[:HABIT=false,...]")
    kind, _, habits = rest.partition(":")
    params: dict[str, bool] = {}
    for item in filter(None, habits.split(",")):
        key, eq, value = item.partition("=")
        if not eq or value.lower() not in ("true", "false"):
            raise ValueError(f"--bot {text!r}: a habit is HABIT=true or HABIT=false, got {item!r}")
        params[key.strip()] = value.lower() == "true"
    return name.strip(), kind.strip(), params


@dataclass
class HumanSeat:
    """A person in the terminal: sees the seat's view, answers each request (module docstring)."""

    rules: Any  # engines.werewolf.rules.WerewolfRules
    out: TextIO = field(default_factory=lambda: sys.stdout)
    read: Callable[[str], str] = input
    shown: int = 0

    @property
    def name(self) -> str:
        return HUMAN

    def show(self, view: Any) -> None:
        """Print the lines of ``view`` not shown yet."""
        from engines.werewolf.render import transcript

        lines = transcript(view)
        for line in lines[self.shown :]:
            print(line, file=self.out)
        self.shown = len(lines)

    async def decide(self, view: Any, rng: Any, call_id: str) -> Any:
        from arena.werewolf.players import SeatDecision
        from arena.werewolf.prompts import task_lines
        from engines.agents.base import Decision

        self.show(view)
        request = view.request
        task = task_lines(request, self.rules)[0]
        print(f"\n{task}", file=self.out)
        if request.free_text:
            said = self._line("you say> ")
            return SeatDecision(Decision(action=said), said=said)
        for k, option in enumerate(request.options, 1):
            print(f"  {k}. {option}", file=self.out)
        while True:
            raw = self._line("your choice> ").strip()
            if raw.isdigit() and 1 <= int(raw) <= len(request.options):
                return SeatDecision(Decision(action=request.options[int(raw) - 1]))
            found = [o for o in request.options if o.lower() == raw.lower()]
            if found:
                return SeatDecision(Decision(action=found[0]))
            print(
                f"not a choice: {raw!r}; type a number 1-{len(request.options)} or a name as "
                "listed",
                file=self.out,
            )

    def _line(self, prompt: str) -> str:
        while True:
            try:
                raw = self.read(prompt)
            except EOFError:
                raise KeyboardInterrupt from None  # the person left: stop the game
            if raw.strip().lower() in ("quit", "exit"):
                raise KeyboardInterrupt
            if raw.strip().lower() in ("rules", "help", "?"):
                from engines.werewolf.render import rules_text

                print(rules_text(self.rules), file=self.out)
                continue
            return raw


def play_command(args: argparse.Namespace) -> int:
    from engines.gbg.rng import DealRng
    from engines.werewolf.render import event_line
    from engines.werewolf.roles import SEATS, deal_roles, name_of
    from engines.werewolf.rules import WerewolfRules
    from engines.werewolf.schedule import ScheduledGame

    players = [p.strip() for p in args.players.split(",")]
    if len(players) != SEATS or not all(players):
        raise ValueError(f"--players names {SEATS} players, one per seat; got {len(players)}")
    if players.count(HUMAN) > 1:
        raise ValueError(f"--players seats {HUMAN!r} (a person) at most once")
    rules = WerewolfRules(args.rounds, args.max_days, args.statement_chars)
    bots: dict[str, tuple[str, dict[str, bool]]] = {kind: (kind, {}) for kind in BOT_KINDS}
    for spec in args.bot:
        name, kind, params = parse_bot(spec)
        bots[name] = (kind, params)
    human = HumanSeat(rules) if HUMAN in players else None
    game = ScheduledGame(
        f"seed{args.seed}", 0, tuple(players), deal_roles(DealRng(args.seed)), args.seed
    )
    record = asyncio.run(_play(args, game, bots, rules, human))
    state = record.state
    from arena.files import atomic_write_text
    from arena.werewolf.games import transcript

    text = json.dumps(transcript(record), ensure_ascii=False, indent=1, sort_keys=True)
    if args.transcript is not None:
        atomic_write_text(args.transcript, text + "\n")
    if args.json:
        print(text)
        return 0
    if human is not None:
        seat = players.index(HUMAN)
        human.show(state.view(seat))
        won = state.returns()[seat] > 0
        print(f"\nYou {'won' if won else 'lost'}: you were {name_of(seat)}.")
        return 0
    print(
        f"Werewolf, seed {args.seed}: "
        + ", ".join(f"{name_of(s)} {p}" for s, p in enumerate(players))
    )
    for event in state.events:
        if event.public:
            print(event_line(event, -1))
    forfeits = record.forfeits
    if forfeits:
        print(f"({forfeits} forfeited turns: see the transcript for why)")
    return 0


async def _play(
    args: argparse.Namespace,
    game: Any,
    bots: dict[str, tuple[str, dict[str, bool]]],
    rules: Any,
    human: HumanSeat | None,
) -> Any:
    import random

    from arena.llm.cache import ResponseCache
    from arena.roster import load_roster
    from arena.werewolf.games import BotEntry, play_game, werewolf_seats

    roster = load_roster(args.roster) if args.roster is not None else None
    models = {p.name for p in roster.players} if roster is not None else set()
    unknown = sorted(set(game.players) - set(bots) - models - {HUMAN})
    if unknown:
        raise ValueError(
            f"unknown player(s) {', '.join(unknown)}: name a bot ({', '.join(sorted(bots))}), "
            f"a --bot, a model of --roster, or {HUMAN}"
        )
    wanted = {name: BotEntry(*bots[name]) for name in set(game.players) if name in bots}
    cache = ResponseCache(args.cache, offline=args.offline)
    used = roster
    if roster is not None and not models & set(game.players):
        used = None  # no model of the roster plays: no clients
    seats, lineup = werewolf_seats(
        used, wanted, cache, random.Random(args.seed), rules, context_chars=args.context_chars
    )
    if human is not None:
        seats[HUMAN] = human
    try:
        return await play_game(game, seats, rules)
    finally:
        if lineup is not None:
            await lineup.aclose()
        cache.close()
