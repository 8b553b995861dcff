"""Random-play statistics of an OpenSpiel game through the adapter (``genstrat game simulate``).

Both seats play uniformly at random from the seat's menu; deal ``i`` uses play seed
``first_seed + i`` for its chance outcomes and a generator seeded ``first_seed`` for the moves.
"""

from __future__ import annotations

import random
import time
from typing import Any

from engines.openspiel.spec import OpenSpielSpec


def simulate(spec: OpenSpielSpec, deals: int, first_seed: int = 0) -> dict[str, Any]:
    """Play ``deals`` random deals; the length, outcome and adjudication figures."""
    draw = random.Random(first_seed).random
    moves = first_wins = second_wins = capped = 0
    first_total = 0
    start = time.perf_counter()
    for i in range(deals):
        state = spec.new_deal(first_seed + i)
        while state.current_player >= 0:
            legal = state.legal_actions()
            state.apply(legal[int(draw() * len(legal))])
        moves += len(state.moves)
        a, _ = state.returns()
        first_total += a
        first_wins += a > 0
        second_wins += a < 0
        capped += state.adjudicated is not None
    elapsed = time.perf_counter() - start
    decided = first_wins + second_wins
    return {
        "game": spec.token,
        "spec_hash": spec.spec_hash,
        "deals": deals,
        "mean_moves": moves / deals,
        "decided": decided,
        "alice_win_rate": first_wins / decided if decided else 0.0,
        "alice_mean_return": first_total / deals,
        "adjudicated_at_cap": capped,
        "moves_per_second": moves / elapsed if elapsed > 0 else float("inf"),
        "deals_per_second": deals / elapsed if elapsed > 0 else float("inf"),
    }
