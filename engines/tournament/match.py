"""One match (a single deal) between two players, and its corpus rows (paper, Section 5).

``play_match`` deals the game from the match's play seed and asks the seated players for moves
until the deal ends; each seat's agent and the harness's fallback draw from that seat's own
generator, seeded by (play seed, deal, seat).  It returns the match row (DESIGN match schema)
and one row per move (DESIGN move schema).  A move whose retries are exhausted ends the match
with status ``timeout`` or ``error``, and so does an exception inside an agent; a player that
stops (``PlayerStopped``) aborts the match, which the caller then does not record.  A strategy
program that crashes or answers an illegal action (``Forfeit``) loses the match (GameBench 2,
Section 2): status ``forfeit``, scored as a fold at that point (the forfeiting seat loses the
chips it has put in the pot, its opponent wins them; unsettled side bets are returned).
"""

from __future__ import annotations

import json
import random
import time
from datetime import UTC, datetime
from typing import Any

from engines.agents.base import (
    BuiltinPlayer,
    Decision,
    Forfeit,
    MoveFailed,
    Player,
    PlayerStopped,
)
from engines.gbg.engine import new_deal
from engines.gbg.rng import derive_seed
from engines.gbg.spec import SEATS, GameSpec
from engines.tournament.records import Record
from engines.tournament.schedule import ScheduledMatch

SEAT_SALT = 0x5EA7


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def seat_rng(play_seed: int, deal: int, seat: int) -> random.Random:
    """The generator of one seat of one deal (its agent's and its fallback's draws)."""
    return random.Random(derive_seed(play_seed, deal, seat, SEAT_SALT))


def _settings_text(player: Player) -> str:
    return json.dumps(player.settings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def move_record(
    m: ScheduledMatch,
    index: int,
    seat: int,
    player: Player,
    settings: str,
    phase: str,
    legal: tuple[str, ...],
    d: Decision,
) -> Record:
    return {
        "match_id": m.match_id,
        "index": index,
        "seat": SEATS[seat],
        "player": player.name,
        "model": player.model,
        "settings": settings,
        "phase": phase,
        "legal_actions": list(legal),
        "prompt_sha256": d.prompt_sha256,
        "raw_response": d.raw_response,
        "earlier_responses": list(d.earlier_responses),
        "verdict": d.verdict,
        "action": d.action,
        "fallback": d.fallback,
        "rethinks": d.rethinks,
        "latency_s": d.latency_s,
        "input_tokens": d.input_tokens,
        "output_tokens": d.output_tokens,
        "reasoning_tokens": d.reasoning_tokens,
        "cost_usd": d.cost_usd,
        "calls": d.calls,
        "cached": d.cached,
        "reasoning": d.reasoning,
        "cached_input_tokens": d.cached_input_tokens,
    }


def match_record(
    m: ScheduledMatch,
    fingerprints: dict[str, str],
    moves: list[Record],
    status: str,
    error: str | None,
    returns: tuple[int, int] | None,
    started_at: str,
    started: float,
) -> Record:
    row: Record = {
        "match_id": m.match_id,
        "game": m.game.token,
        "game_seed": m.game.game_seed,
        "spec_hash": m.game.spec.spec_hash,
        "engine_version": m.game.engine_version,
        "block": m.block,
        "run_id": m.run_id,
        "run_index": m.run_index,
        "deal": m.deal,
        "play_seed": m.play_seed,
        "alice": m.alice,
        "bob": m.bob,
        "alice_fingerprint": fingerprints[m.alice],
        "bob_fingerprint": fingerprints[m.bob],
        "alice_chip_delta": returns[0] if returns else None,
        "bob_chip_delta": returns[1] if returns else None,
        "margin_alice": returns[0] - returns[1] if returns else None,
        "status": status,
        "error": error,
        "n_moves": len(moves),
    }
    for seat in SEATS:
        mine = [mv for mv in moves if mv["seat"] == seat]
        row[f"fallbacks_{seat}"] = sum(1 for mv in mine if mv["fallback"])
        row[f"rethinks_{seat}"] = sum(mv["rethinks"] for mv in mine)
        row[f"moves_{seat}"] = len(mine)
        for column in ("input_tokens", "output_tokens", "reasoning_tokens", "calls"):
            row[f"{column}_{seat}"] = sum(mv[column] for mv in mine)
        row[f"cost_usd_{seat}"] = sum(mv["cost_usd"] for mv in mine)
    row["started_at"] = started_at
    row["finished_at"] = now_iso()
    row["duration_s"] = time.perf_counter() - started
    return row


def forfeit_returns(contrib: list[int], loser: int) -> tuple[int, int]:
    """Chip changes when seat ``loser`` forfeits: it loses its chips in the pot (a fold)."""
    lost = contrib[loser]
    return (-lost, lost) if loser == 0 else (lost, -lost)


async def play_match(
    m: ScheduledMatch, players: dict[str, Player], fingerprints: dict[str, str]
) -> tuple[Record, list[Record]]:
    """Play one deal; ``PlayerStopped`` propagates (the match is then not recorded)."""
    started_at, started = now_iso(), time.perf_counter()
    seated = (players[m.alice], players[m.bob])
    settings = (_settings_text(seated[0]), _settings_text(seated[1]))
    rngs = (seat_rng(m.play_seed, m.deal, 0), seat_rng(m.play_seed, m.deal, 1))
    builtin = tuple(isinstance(p, BuiltinPlayer) for p in seated)
    spec = m.game.spec
    state: Any = (
        new_deal(spec, m.play_seed) if isinstance(spec, GameSpec) else spec.new_deal(m.play_seed)
    )
    moves: list[Record] = []
    status, error = "complete", None
    returns: tuple[int, int] | None = None
    try:
        while state.current_player >= 0:
            seat = state.current_player
            player = seated[seat]
            legal = state.legal_actions()
            phase = state.phase_id
            if builtin[seat]:
                assert isinstance(player, BuiltinPlayer)
                decision = player.decide_now(state, seat, rngs[seat])
            else:
                call_id = f"{m.match_id}/{len(moves)}"
                decision = await player.decide(state, seat, rngs[seat], call_id)
            if decision.action not in legal:
                raise ValueError(f"player {player.name!r} chose {decision.action!r}, not legal")
            state.apply(decision.action)
            moves.append(
                move_record(m, len(moves), seat, player, settings[seat], phase, legal, decision)
            )
    except PlayerStopped:
        raise
    except Forfeit as exc:
        status, error = "forfeit", f"Forfeit by {seated[state.current_player].name}: {exc}"
        returns = forfeit_returns(state.contrib, state.current_player)
    except MoveFailed as exc:
        status, error = exc.status, str(exc)
    except Exception as exc:  # an agent's bug must not take the tournament down
        status, error = "error", f"{type(exc).__name__}: {exc}"
    if status == "complete":
        returns = state.returns()
    row = match_record(m, fingerprints, moves, status, error, returns, started_at, started)
    return row, moves


def play_builtin_match(
    m: ScheduledMatch, players: dict[str, Player], fingerprints: dict[str, str]
) -> tuple[Record, list[Record]]:
    """``play_match`` without an event loop (both players are built-in agents)."""
    coroutine = play_match(m, players, fingerprints)
    try:
        coroutine.send(None)
    except StopIteration as done:
        result: tuple[Record, list[Record]] = done.value
        return result
    coroutine.close()
    raise RuntimeError("a built-in match awaited something")
