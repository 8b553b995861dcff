"""Random-play statistics of a game: how long deals last, who wins, which phases fire.

These are the quantities the acceptance filter (paper, Section 3) reads; ``genstrat game
simulate`` prints them.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

from engines.gbg.engine import new_deal
from engines.gbg.spec import GameSpec


def simulate(spec: GameSpec, deals: int, first_seed: int = 0) -> dict[str, Any]:
    """Play ``deals`` deals with both seats uniform at random; summarise them."""
    draw = random.Random(first_seed).random
    decisions = 0
    alice_wins = bob_wins = folds = showdowns = 0
    alice_total = 0
    reach: Counter[str] = Counter()
    start = time.perf_counter()
    for i in range(deals):
        state = new_deal(spec, first_seed + i, tree=False)
        while state.current_player >= 0:
            state.apply(_pick(state.legal_actions(), draw))
            decisions += 1
        reach.update({spec.phases[ev[3]].id for ev in state.events if ev[1] == "phase"})
        a, _ = state.returns()
        alice_total += a
        alice_wins += a > 0
        bob_wins += a < 0
        if state.history and state.history[-1].action == "fold":
            folds += 1
        else:
            showdowns += 1
    elapsed = time.perf_counter() - start
    decided = alice_wins + bob_wins
    return {
        "game": spec.name,
        "spec_hash": spec.spec_hash,
        "deals": deals,
        "mean_decisions_per_player": decisions / (2 * deals),
        "decided": decided,
        "alice_win_rate": alice_wins / decided if decided else 0.0,
        "alice_mean_chips": alice_total / deals,
        "folds": folds,
        "showdowns": showdowns,
        "phase_reach": {p.id: reach[p.id] / deals for p in spec.phases if reach[p.id]},
        "deals_per_second": deals / elapsed if elapsed > 0 else float("inf"),
    }


def _pick(legal: tuple[str, ...], draw: Any) -> str:
    return legal[int(draw() * len(legal))]
