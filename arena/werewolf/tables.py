"""A Werewolf tournament as tables: one row per game, per seat and per decision.

Why it exists: the ``werewolf`` asset group (``assets/werewolf.py``) stores a tournament, and
its release (``releases/werewolf.py``) ships it, as tables, the project's data of record.  They
are built from the games' transcripts (``arena.werewolf.games.transcript``), so a table row
says exactly what the transcript says:

- ``werewolf_games`` (:data:`GAME_COLUMNS`): the deal, the players by seat, the outcome, the
  rules and the moves (JSON), which replay the game on the deal
  (``engines.werewolf.state.replay``) and with it every event and every seat's view;
- ``werewolf_seats`` (:data:`SEAT_COLUMNS`): who held each seat in which role, whether its team
  won, and its forfeited turns (``arena.werewolf.games.seat_rows``): the input of the ratings
  (``engines.stats.werewolf``);
- ``werewolf_decisions`` (:data:`DECISION_COLUMNS`): every decision, the statement as said and
  as the table heard it, the replies, verdict, retries, forfeit and its reason, and usage.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from engines.werewolf.play import SEAT_RECORD_FIELDS
from engines.werewolf.roles import NAMES, Role
from engines.werewolf.rules import ENGINE_VERSION, WerewolfRules
from engines.werewolf.state import Move, WerewolfState, replay

GAME_COLUMNS = (
    "game_id",
    "block",
    "play_seed",
    "players",
    "roles",
    "winner",
    "end_reason",
    "days",
    "decisions",
    "forfeits",
    "rules",
    "moves",
    "engine_version",
)
SEAT_COLUMNS = (*SEAT_RECORD_FIELDS, "forfeits")
DECISION_COLUMNS = (
    "game_id",
    "ply",
    "day",
    "seat",
    "player",
    "role",
    "kind",
    "options",
    "action",
    "said",
    "heard",
    "raw_response",
    "earlier_responses",
    "verdict",
    "rethinks",
    "forfeit",
    "prompt_sha256",
    "prompt_chars",
    "omitted_lines",
    "calls",
    "cached",
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "cost_usd",
    "latency_s",
    "reasoning",
)
DECISION_TEXT = ("said", "heard", "raw_response", "earlier_responses", "forfeit", "reasoning")
"""The decisions' free text: what a model wrote and why a turn was forfeited."""

_INT = ("ply", "day", "rethinks", "prompt_chars", "omitted_lines", "calls")
_TOKENS = ("input_tokens", "output_tokens", "reasoning_tokens")


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def game_row(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The ``werewolf_games`` row of one transcript."""
    return {
        "game_id": str(doc["game_id"]),
        "block": int(doc["block"]),
        "play_seed": int(doc["play_seed"]),
        "players": [str(p) for p in doc["players"]],
        "roles": [str(r) for r in doc["roles"]],
        "winner": str(doc["winner"]),
        "end_reason": str(doc["end_reason"]),
        "days": int(doc["days"]),
        "decisions": len(doc["decisions"]),
        "forfeits": int(doc["forfeits"]),
        "rules": json.dumps(doc["rules"], sort_keys=True),
        "moves": json.dumps(doc["moves"], sort_keys=True, ensure_ascii=False),
        "engine_version": ENGINE_VERSION,
    }


def seat_table_rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``werewolf_seats`` rows of one transcript (its game replayed from the moves)."""
    state = replayed(game_row(doc))
    forfeited: dict[str, int] = {}
    for d in doc["decisions"]:
        if d["forfeit"] is not None:
            forfeited[d["seat"]] = forfeited.get(d["seat"], 0) + 1
    rows = []
    for seat, player in enumerate(doc["players"]):
        team = "werewolves" if state.roles[seat] is Role.WEREWOLF else "village"
        rows.append(
            {
                "game_id": str(doc["game_id"]),
                "seat": seat,
                "player": str(player),
                "role": state.roles[seat].value,
                "team": team,
                "won": team == state.winner,
                "end_reason": str(state.end_reason),
                "days": state.day,
                "forfeits": forfeited.get(NAMES[seat], 0),
            }
        )
    return rows


def decision_rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``werewolf_decisions`` rows of one transcript, in the order they were made."""
    rows = []
    for d in doc["decisions"]:
        row: dict[str, Any] = {"game_id": str(doc["game_id"])}
        for name in DECISION_COLUMNS[1:]:
            value = d.get(name)
            if name in _INT or name in _TOKENS:
                value = int(value or 0)
            elif name in ("cost_usd", "latency_s"):
                value = float(value or 0.0)
            elif name == "cached":
                value = bool(value)
            elif name in ("options", "earlier_responses"):
                value = [str(v) for v in value or ()]
            else:
                value = _text(value)
            row[name] = value
        rows.append(row)
    return rows


def tournament_tables(docs: Sequence[Mapping[str, Any]]) -> dict[str, pd.DataFrame]:
    """``werewolf_games``, ``werewolf_seats`` and ``werewolf_decisions`` of the transcripts
    ``docs`` (module docstring), in the transcripts' order."""
    games = pd.DataFrame([game_row(d) for d in docs], columns=list(GAME_COLUMNS))
    seats = pd.DataFrame([r for d in docs for r in seat_table_rows(d)], columns=list(SEAT_COLUMNS))
    decisions = pd.DataFrame(
        [r for d in docs for r in decision_rows(d)], columns=list(DECISION_COLUMNS)
    )
    games = games.astype({"block": "int64", "play_seed": "uint64", "days": "int64"})
    games = games.astype({"decisions": "int64", "forfeits": "int64"})
    seats = seats.astype({"seat": "int64", "won": "bool", "days": "int64", "forfeits": "int64"})
    decisions = decisions.astype({c: "int64" for c in (*_INT, *_TOKENS)})
    decisions = decisions.astype({"cost_usd": "float64", "latency_s": "float64"})
    decisions = decisions.astype({"cached": "bool"})
    return {"werewolf_games": games, "werewolf_seats": seats, "werewolf_decisions": decisions}


def game_rules(row: Mapping[str, Any]) -> WerewolfRules:
    """The rules a ``werewolf_games`` row was played under."""
    return WerewolfRules(**json.loads(str(row["rules"])))


def game_moves(row: Mapping[str, Any]) -> list[Move]:
    """The moves of a ``werewolf_games`` row."""
    return [Move(**m) for m in json.loads(str(row["moves"]))]


def replayed(row: Mapping[str, Any]) -> WerewolfState:
    """The game of a ``werewolf_games`` row replayed from its deal, rules and moves
    (``ValueError`` at a move that does not fit)."""
    roles = tuple(Role(str(r)) for r in row["roles"])
    return replay(roles, game_moves(row), game_rules(row))
