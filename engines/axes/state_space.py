"""State space (Section 3.1; Appendix C, "State space").

log10 of the summed number of distinct information states the two players reach in
``state_space_deals`` deals (3,000 in the paper) in which both move uniformly at random over
all legal actions, every legal amount included.  A state is the engine's abstracted state
(``State.abstract_state``): the decision (phase and menu), the player's own hand, its last
three decisions, its chips, everything it has been shown (events, board, pot) and the
positions.  Choice: every node where the player is to move counts, forced moves included.  The
count is a lower bound on the number of reachable states.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from engines.axes.keys import DealKeys
from engines.backend import kernel_plays
from engines.gbg.batch_random import abstract_random_play
from engines.gbg.engine import new_deal
from engines.gbg.rng import derive_seed, derive_seeds
from engines.gbg.spec import GameSpec


@dataclass(frozen=True)
class StateSpace:
    """The axis value and the distinct states found per seat."""

    log10_states: float
    states: tuple[int, int]
    deals: int


def state_space(spec: GameSpec, deals: int, seed: int) -> StateSpace:
    """Count abstracted information states over ``deals`` uniformly random deals: on the
    kernel (``engines.gbg.batch_random.abstract_random_play``: the same deals, moves and
    states), or on the interpreter (the ``reference`` backend, with the keys built
    incrementally by ``engines.axes.keys.DealKeys``; also the path of a game the kernel hands
    back because the interpreter raises on it)."""
    rng = random.Random(derive_seed(seed, 0x55A))
    counts: tuple[int, int] | None = None
    if kernel_plays():
        played = abstract_random_play(spec, derive_seeds(seed, 0x55B, count=deals), rng)
        counts = None if played is None else played.distinct
    if counts is None:
        seen: tuple[set[Any], set[Any]] = (set(), set())
        for k in range(deals):
            state = new_deal(spec, derive_seed(seed, 0x55B, k), tree=False)
            keys = DealKeys()
            while state.current_player >= 0:
                seat = state.current_player
                seen[seat].add(keys.key(state, seat))
                state.apply(rng.choice(state.legal_actions()))
        counts = (len(seen[0]), len(seen[1]))
    total = counts[0] + counts[1]
    return StateSpace(math.log10(total) if total else 0.0, counts, deals)
