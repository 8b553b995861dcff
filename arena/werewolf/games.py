"""Werewolf games between models and bots, their transcripts and their seat table.

Why it exists: the harness side of a Werewolf tournament.  ``play_game`` runs one scheduled
game (``engines.werewolf.schedule``) with a seat per player name, asking each decision of the
seat to move with that seat's own generator (``engines.werewolf.play.seat_generators``) and a
call id ``werewolf/<game>/<play seed>/<ply>`` (so a replay reads the same answers back from the
response cache); ``run_games`` plays a schedule in order.  ``werewolf_seats`` builds the seats:
the roster's API players through the tournament's own lineup (``arena.tournament.lineup``:
providers, transports, keys, the shared response cache) with the roster's budgets
(``arena.tournament.budget``), and built-in bots by name.

A transcript (``transcript``) is one JSON document per game: the deal, the players, the
outcome, every decision (seat, player, role, request, options, the action, the statement as
given and as filtered, replies, verdict, retries, the forfeit and its reason, tokens, cost,
latency, whether the reply came from the cache, truncated log lines), the moves (which replay
the game on the deal) and the event log with each event's audience, so that every player's
view can be shown again.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.files import atomic_write_text
from arena.llm.cache import ResponseCache
from arena.llm.player import LLMPlayer
from arena.roster import ApiEntry, Roster
from arena.tournament.budget import Budget
from arena.tournament.lineup import Lineup, build_lineup
from arena.werewolf.players import BotSeat, LLMSeat, Seat, SeatDecision
from arena.werewolf.prompts import DEFAULT_CONTEXT_CHARS
from engines.werewolf.bots import make_bot
from engines.werewolf.events import Event
from engines.werewolf.play import seat_generators, seat_records
from engines.werewolf.roles import name_of
from engines.werewolf.rules import WerewolfRules
from engines.werewolf.schedule import ScheduledGame
from engines.werewolf.state import WerewolfState


@dataclass
class GameRecord:
    """A finished game: what was scheduled, the final state and every decision."""

    game: ScheduledGame
    state: WerewolfState
    decisions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def forfeits(self) -> int:
        return sum(1 for d in self.decisions if d["forfeit"] is not None)


def decision_row(
    game: ScheduledGame, state: WerewolfState, seat: int, kind: str, options: Sequence[str],
    made: SeatDecision,
) -> dict[str, Any]:  # fmt: skip
    """The transcript row of one decision, taken right after it was played."""
    d = made.decision
    heard = next(
        (e.text for e in reversed(state.events) if e.kind == "statement" and e.actor == seat),
        None,
    )
    return {
        "ply": len(state.history) - 1,
        "day": state.history[-1].day,
        "seat": name_of(seat),
        "player": game.players[seat],
        "role": state.roles[seat].value,
        "kind": kind,
        "options": list(options),
        "action": d.action,
        "said": made.said,
        "heard": heard if kind == "speak" else None,
        "raw_response": d.raw_response,
        "earlier_responses": list(d.earlier_responses),
        "verdict": d.verdict,
        "rethinks": d.rethinks,
        "forfeit": made.forfeit,
        "prompt_sha256": d.prompt_sha256,
        "prompt_chars": made.prompt_chars,
        "omitted_lines": made.omitted,
        "calls": d.calls,
        "cached": d.cached,
        "input_tokens": d.input_tokens,
        "output_tokens": d.output_tokens,
        "reasoning_tokens": d.reasoning_tokens,
        "cost_usd": d.cost_usd,
        "latency_s": d.latency_s,
        "reasoning": d.reasoning,
    }


async def play_game(
    game: ScheduledGame, seats: Mapping[str, Seat], rules: WerewolfRules | None = None
) -> GameRecord:
    """Play ``game`` to its end (module docstring); ``ValueError`` if a player has no seat."""
    missing = sorted(set(game.players) - set(seats))
    if missing:
        raise ValueError(f"no seat for player(s) {', '.join(missing)} of game {game.game_id}")
    state = WerewolfState(game.roles, rules)
    rngs = seat_generators(game.play_seed)
    record = GameRecord(game, state)
    while (request := state.request) is not None:
        seat = request.seat
        call_id = f"werewolf/{game.game_id}/{game.play_seed}/{len(state.history)}"
        made = await seats[game.players[seat]].decide(state.view(seat), rngs[seat], call_id)
        state.act(made.decision.action)
        record.decisions.append(
            decision_row(game, state, seat, request.kind, request.options, made)
        )
    return record


async def run_games(
    schedule: Sequence[ScheduledGame],
    seats: Mapping[str, Seat],
    rules: WerewolfRules | None = None,
    folder: Path | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> list[GameRecord]:
    """Every game of ``schedule`` in order; each transcript written to ``folder`` (if given)
    as ``<game_id>.json`` as soon as its game ends."""
    records = []
    for k, game in enumerate(schedule):
        record = await play_game(game, seats, rules)
        if folder is not None:
            write_transcript(folder, record)
        records.append(record)
        if progress is not None:
            progress(k + 1, len(schedule))
    return records


def _event_json(event: Event) -> dict[str, Any]:
    """The fields of ``event`` that differ from their defaults (kind and audience always)."""
    out = {
        f.name: getattr(event, f.name)
        for f in dataclasses.fields(event)
        if getattr(event, f.name) != f.default
    }
    out["kind"] = event.kind
    out["audience"] = None if event.audience is None else sorted(event.audience)
    if event.role is not None:
        out["role"] = event.role.value
    if event.roles:
        out["roles"] = [r.value for r in event.roles]
    for name in ("seats", "ballots"):
        if name in out:
            out[name] = [list(x) if isinstance(x, tuple) else x for x in out[name]]
    if event.winner is not None:
        out["winner"] = event.winner.value
    return out


def transcript(record: GameRecord) -> dict[str, Any]:
    """The game's transcript (module docstring), as JSON-ready data."""
    state, game = record.state, record.game
    assert state.winner is not None
    return {
        "game_id": game.game_id,
        "block": game.block,
        "play_seed": game.play_seed,
        "rules": dataclasses.asdict(state.rules),
        "players": list(game.players),
        "roles": [r.value for r in state.roles],
        "winner": state.winner.value,
        "end_reason": state.end_reason,
        "days": state.day,
        "forfeits": record.forfeits,
        "decisions": record.decisions,
        "moves": [m._asdict() for m in state.history],
        "events": [_event_json(e) for e in state.events],
    }


def write_transcript(folder: Path, record: GameRecord) -> Path:
    path = folder / f"{record.game.game_id}.json"
    text = json.dumps(transcript(record), ensure_ascii=False, indent=1, sort_keys=True)
    atomic_write_text(path, text + "\n")
    return path


def seat_rows(records: Sequence[GameRecord]) -> list[dict[str, Any]]:
    """Every seat of every game (``engines.werewolf.play.SEAT_RECORD_FIELDS``) plus the seat's
    forfeited turns: the input of ``engines.stats.werewolf``."""
    rows = []
    for record in records:
        forfeited: dict[str, int] = {}
        for d in record.decisions:
            if d["forfeit"] is not None:
                forfeited[d["seat"]] = forfeited.get(d["seat"], 0) + 1
        for row in seat_records(record.state, record.game.players, record.game.game_id):
            rows.append({**row, "forfeits": forfeited.get(name_of(row["seat"]), 0)})
    return rows


@dataclass(frozen=True)
class BotEntry:
    """A built-in bot of a Werewolf lineup: its kind (``random``, ``rule``) and parameters."""

    kind: str
    params: Mapping[str, bool] = field(default_factory=dict)


def bot_entry(text: str) -> tuple[str, BotEntry]:
    """A bot named in a configuration: ``KIND`` (named after its kind) or
    ``NAME=KIND[:HABIT=true|false,...]``; ``ValueError`` in one line for anything else."""
    name, sep, rest = text.partition("=")
    if not sep:
        name, rest = text, text
    kind, _, habits = rest.partition(":")
    if not name.strip() or not kind.strip():
        raise ValueError(f"bot {text!r}: expected KIND or NAME=KIND[:HABIT=false,...]")
    params: dict[str, bool] = {}
    for item in filter(None, habits.split(",")):
        key, eq, value = item.partition("=")
        if not eq or value.strip().lower() not in ("true", "false"):
            raise ValueError(f"bot {text!r}: a habit is HABIT=true or HABIT=false, got {item!r}")
        params[key.strip()] = value.strip().lower() == "true"
    make_bot(kind.strip(), params, name=name.strip())  # refuses an unknown kind or habit
    return name.strip(), BotEntry(kind.strip(), params)


def bot_spec(entry: BotEntry) -> str:
    """``KIND[:HABIT=false,...]`` of a bot, its habits in name order."""
    habits = ",".join(f"{k}={str(v).lower()}" for k, v in sorted(entry.params.items()))
    return f"{entry.kind}:{habits}" if habits else entry.kind


def werewolf_seats(
    roster: Roster | None,
    bots: Mapping[str, BotEntry],
    cache: ResponseCache,
    rng: random.Random,
    rules: WerewolfRules | None = None,
    environ: dict[str, str] | None = None,
    context_chars: int = DEFAULT_CONTEXT_CHARS,
) -> tuple[dict[str, Seat], Lineup | None]:
    """The seats of every player (module docstring), and the lineup whose HTTP clients the
    caller closes (``await lineup.aclose()``).  Must run inside the event loop when the roster
    has players.  ``ValueError`` for a roster entry that is not an API model, or a name used
    twice."""
    rules = rules or WerewolfRules()
    seats: dict[str, Seat] = {
        name: BotSeat(make_bot(entry.kind, entry.params, name=name), name)
        for name, entry in bots.items()
    }
    if roster is None or not roster.players:
        return seats, None
    others = [p.name for p in roster.players if not isinstance(p, ApiEntry)]
    if others:
        raise ValueError(
            f"werewolf plays models from a roster and its own bots; roster player(s) "
            f"{', '.join(others)} are not models (name werewolf bots with --bot)"
        )
    twice = sorted(set(bots) & {p.name for p in roster.players})
    if twice:
        raise ValueError(f"player name(s) {', '.join(twice)} name both a bot and a model")
    lineup = build_lineup(roster, cache, rng, environ=environ)
    budget = Budget(roster)
    for name, player in lineup.players.items():
        assert isinstance(player, LLMPlayer)  # every roster entry is an API model
        if budget.active:
            player.budget = budget
        seats[name] = LLMSeat(player, rules, context_chars)
    return seats, lineup
