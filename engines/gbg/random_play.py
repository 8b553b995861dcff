"""Random-play statistics of a game: how long deals last, who wins, which phases fire.

These are the quantities the acceptance filter (paper, Section 3) reads; ``genstrat game
simulate`` prints them.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

from engines.backend import kernel_plays
from engines.gbg.batch_random import random_play
from engines.gbg.engine import new_deal
from engines.gbg.spec import GameSpec


def simulate(spec: GameSpec, deals: int, first_seed: int = 0) -> dict[str, Any]:
    """Play ``deals`` deals with both seats uniform at random; summarise them.

    The deals run on the kernel (``engines.gbg.batch_random``), the interpreter's deals for
    the same seeds; the ``reference`` backend (``engines.backend``), or a game the kernel
    hands back, plays them on the interpreter."""
    start = time.perf_counter()
    played = _simulate_batch(spec, deals, first_seed) if kernel_plays() else None
    if played is None:
        played = _simulate_interpreted(spec, deals, first_seed)
    decisions, alice_wins, bob_wins, alice_total, folds, reach = played
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
        "showdowns": deals - folds,
        "phase_reach": {p.id: reach[p.id] / deals for p in spec.phases if reach[p.id]},
        "deals_per_second": deals / elapsed if elapsed > 0 else float("inf"),
    }


Tally = tuple[int, int, int, int, int, Counter[str]]
"""decisions, Alice's wins, Bob's wins, Alice's total, folds, deals reaching each phase."""


def _simulate_batch(spec: GameSpec, deals: int, first_seed: int) -> Tally | None:
    seeds = range(first_seed, first_seed + deals)
    out = random_play(spec, seeds, random.Random(first_seed))
    if out is None:
        return None
    reach: Counter[str] = Counter()
    for p, n in zip(spec.phases, out.reached.tolist(), strict=True):
        if n:
            reach[p.id] += n
    return (
        int(out.decisions.sum()),
        int((out.returns > 0).sum()),
        int((out.returns < 0).sum()),
        int(out.returns.sum()),
        int(out.folded.sum()),
        reach,
    )


def _simulate_interpreted(spec: GameSpec, deals: int, first_seed: int) -> Tally:
    draw = random.Random(first_seed).random
    decisions = alice_wins = bob_wins = folds = 0
    alice_total = 0
    reach: Counter[str] = Counter()
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
    return decisions, alice_wins, bob_wins, alice_total, folds, reach


def _pick(legal: tuple[str, ...], draw: Any) -> str:
    return legal[int(draw() * len(legal))]
