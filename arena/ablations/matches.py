"""Playing the ablations' matches: players against program opponents on identical deals.

Every (game, program, run) has one play seed, whatever the player and the arm: so the hidden
and the disclosed arm, and the sibling variants of a family, meet the same program on the same
cards with the same seat generators (``arena.tournament.runner.play_match``), and a
difference in margin is attributable to the arm or the variant.  A run is two deals with the
seats swapped.  A player is not scheduled against programs written by its own author (paper,
Section 8).  Match ids are derived from what determines the match, so an LLM's calls (keyed by
match id and move) are answered from the response cache on a rerun.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.tournament.runner import play_match
from engines.agents.base import Player, PlayerStopped
from engines.gbg.rng import derive_seed
from engines.tournament.records import DECIDED_STATUSES
from engines.tournament.schedule import Game, ScheduledMatch, pair_key

ARMS = ("hidden", "disclosed")
PROGRAM_PREFIX = "program:"


@dataclass(frozen=True)
class ProgramSpec:
    """An admitted program: its name, author group and code hash."""

    name: str
    author: str
    path: str
    code_sha256: str


@dataclass(frozen=True)
class Seat:
    """An ablation player: its name, fingerprint, and the author group it belongs to."""

    name: str
    fingerprint: str
    author: str | None = None


# (arm, game, program, the program's seat) -> the players of that deal by name, the program
# (named ``PROGRAM_PREFIX + program.name``) among them
Lineup = Callable[[str, Game, ProgramSpec, int], dict[str, Player]]


def ablation_play_seed(game: Game, program: ProgramSpec, run: int) -> int:
    """The play seed of run ``run`` against ``program`` on ``game`` (same for every player)."""
    return derive_seed(game.game_seed, pair_key(PROGRAM_PREFIX, program.name), run)


def ablation_matches(
    game: Game, program: ProgramSpec, seat: Seat, arm: str, runs: int
) -> list[ScheduledMatch]:
    """The 2 x ``runs`` deals of ``seat`` against ``program`` in ``arm``."""
    if arm not in ARMS:
        raise ValueError(f"unknown arm {arm!r}; arms are {', '.join(ARMS)}")
    opponent = PROGRAM_PREFIX + program.name
    out = []
    for run in range(runs):
        seed = ablation_play_seed(game, program, run)
        key = [arm, game.spec.spec_hash, program.code_sha256, seat.fingerprint, run]
        run_id = "abl-" + hashlib.sha256(json.dumps(key).encode()).hexdigest()[:20]
        for deal, (alice, bob) in enumerate(((seat.name, opponent), (opponent, seat.name))):
            out.append(
                ScheduledMatch(f"{run_id}-{deal}", run_id, game, arm, run, deal, seed, alice, bob)
            )
    return out


async def play_ablation(
    games: Sequence[Game],
    programs: Sequence[ProgramSpec],
    seats: Sequence[Seat],
    lineup: Lineup,
    runs: int,
    arms: Sequence[str] = ARMS,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Play every scheduled deal; (match rows, move rows) with the ablation's columns.

    Match rows add ``arm``, ``program``, ``author``, ``player``, ``player_seat`` (alice|bob),
    ``player_chips`` and ``margin`` (player's chips minus the program's).  A program's forfeit
    is status ``forfeit``; a stopped player's remaining matches are skipped and counted in
    ``stopped``-status rows (no chips).
    """
    rows: list[dict[str, Any]] = []
    all_moves: list[dict[str, Any]] = []
    fingerprints = {s.name: s.fingerprint for s in seats}
    for program in programs:
        fingerprints[PROGRAM_PREFIX + program.name] = program.code_sha256[:16]
    for game in games:
        for program in programs:
            for arm in arms:
                for seat in seats:
                    if seat.author is not None and seat.author == program.author:
                        continue  # a model's own author's programs are left out
                    stopped: str | None = None
                    for m in ablation_matches(game, program, seat, arm, runs):
                        seat_index = 0 if m.alice == seat.name else 1
                        players = lineup(arm, game, program, 1 - seat_index)
                        player = players[seat.name]
                        row: dict[str, Any] = {}
                        moves: list[dict[str, Any]] = []
                        stopped = stopped or player.stopped
                        if stopped is None:
                            try:
                                row, moves = await play_match(m, players, fingerprints)
                            except PlayerStopped as exc:
                                stopped = str(exc)
                        if stopped is not None:
                            row = {"match_id": m.match_id, "run_id": m.run_id, "game": game.token,
                                   "run_index": m.run_index, "deal": m.deal,
                                   "status": "stopped", "error": stopped}  # fmt: skip
                        chips = None
                        if row["status"] in DECIDED_STATUSES:
                            chips = row["alice_chip_delta" if seat_index == 0 else "bob_chip_delta"]
                        row |= {
                            "arm": arm,
                            "program": program.name,
                            "author": program.author,
                            "player": seat.name,
                            "player_seat": ("alice", "bob")[seat_index],
                            "player_chips": chips,
                            "margin": None if chips is None else 2 * chips,
                        }
                        rows.append(row)
                        all_moves.extend(moves)
    return rows, all_moves
