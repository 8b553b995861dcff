"""Playing a game between built-in bots, and the per-seat record of a finished game.

Why it exists: the 1,000-game conformance run, the planted field and the terminal all play
bots the same way.  Each seat draws from its own generator, ``random.Random`` seeded with
``derive_seed(play_seed, seat)`` (``engines.gbg.rng``), so a seat's choices do not depend on
how many draws the other seats made, and the same deal, bots and play seed replay the same
game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engines.gbg.rng import derive_seed
from engines.werewolf.bots import WerewolfBot
from engines.werewolf.roles import SEATS, team_of
from engines.werewolf.state import WerewolfState

SEAT_RECORD_FIELDS = ("game_id", "seat", "player", "role", "team", "won", "end_reason", "days")


def seat_generators(play_seed: int) -> list[random.Random]:
    """One generator per seat (module docstring)."""
    return [random.Random(derive_seed(play_seed, seat)) for seat in range(SEATS)]


def play_bots(state: WerewolfState, bots: Sequence[WerewolfBot], play_seed: int) -> WerewolfState:
    """Play ``state`` to the end with ``bots[seat]`` deciding for each seat; return it."""
    if len(bots) != SEATS:
        raise ValueError(f"a game needs {SEATS} players, got {len(bots)}")
    rngs = seat_generators(play_seed)
    while (request := state.request) is not None:
        seat = request.seat
        state.act(bots[seat].act(state.view(seat), rngs[seat]))
    return state


def seat_records(
    state: WerewolfState, players: Sequence[str], game_id: str
) -> list[dict[str, Any]]:
    """One row per seat of a finished game (``SEAT_RECORD_FIELDS``): who sat there, its role
    and team, whether its team won, why the game ended and how many days it lasted."""
    returns = state.returns()
    return [
        {
            "game_id": game_id,
            "seat": seat,
            "player": players[seat],
            "role": state.roles[seat].value,
            "team": team_of(state.roles[seat]).value,
            "won": bool(returns[seat]),
            "end_reason": state.end_reason,
            "days": state.day,
        }
        for seat in range(SEATS)
    ]
