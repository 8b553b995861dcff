"""Which games to solve exactly: tree sizes, estimated and counted, and the smallest that fit
(paper, Section 8: "on five games we solve exactly for the best response to each program").

The paper solves the best and worst responses exactly on five of its ablation games and does
not say how it chose them; exact solving needs the whole tree, so we take the smallest
candidate games whose tree fits a stated size limit, counted in histories (the nodes of the
explicit-chance tree, ``engines.solve.best_response.MAX_ARRAY_HISTORIES`` by default).

Steps of ``smallest_that_fit``:

1. estimate every candidate's tree size with Knuth's estimator (Knuth 1975, "Estimating the
   efficiency of backtrack programs"): along a random root-to-leaf path, the sum over depths of
   the product of the branching factors above is an unbiased estimate of the node count;
2. count exactly, stopping at the limit, the candidates whose estimate is at most ``slack``
   times the limit, smallest estimate first (the estimate is unbiased but heavy-tailed: a game
   estimated far above the limit is not counted, so counting stays within the limit's cost);
3. choose the ``count`` smallest exact counts within the limit (ties: candidate order).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engines.gbg.engine import CHANCE, TERMINAL, new_deal
from engines.gbg.spec import GameSpec

ESTIMATE_PROBES = 300
SLACK = 10.0


@dataclass(frozen=True)
class SizedGame:
    """A candidate's estimated and (when counted) exact size, and whether it was chosen."""

    game: str
    estimate: float
    histories: int | None  # exact when counted and within the limit; None otherwise
    counted: bool
    chosen: bool

    @property
    def reason(self) -> str:
        if self.chosen:
            return "solved"
        if not self.counted:
            return "estimate over the counting bound"
        if self.histories is None:
            return "over the limit"
        return "larger than the chosen games"


def estimate_histories(spec: GameSpec, probes: int = ESTIMATE_PROBES, seed: int = 0) -> float:
    """Knuth's estimate of the number of histories of ``spec``'s explicit-chance tree, the mean
    over ``probes`` random root-to-leaf paths (step 1)."""
    if probes < 1:
        raise ValueError(f"probes must be at least 1, got {probes}")
    rng = random.Random(seed)
    total = 0.0
    for _ in range(probes):
        state = new_deal(spec, explicit_chance=True)
        width, nodes = 1.0, 1.0
        while state.current_player != TERMINAL:
            if state.current_player == CHANCE:
                outcomes = [o for o, _ in state.chance_outcomes()]
                width *= len(outcomes)
                state.apply_chance(rng.choice(outcomes))
            else:
                legal = state.legal_actions()
                width *= len(legal)
                state.apply(rng.choice(legal))
            nodes += width
        total += nodes
    return total / probes


def smallest_that_fit(
    candidates: Sequence[str],
    estimate: Callable[[str], float],
    count_exact: Callable[[str, int], int],
    limit: int,
    count: int,
    slack: float = SLACK,
) -> list[SizedGame]:
    """Every candidate with its sizes, the ``count`` smallest that fit under ``limit``
    histories marked ``chosen`` (the module's steps).  ``count_exact(game, limit)`` returns the
    exact count, or any number above ``limit`` as soon as the tree has more."""
    if limit < 1 or count < 0 or slack < 1:
        raise ValueError(
            f"need limit >= 1, count >= 0 and slack >= 1; got {limit}, {count}, {slack}"
        )
    games = list(dict.fromkeys(candidates))
    estimates = {g: float(estimate(g)) for g in games}
    exact: dict[str, int | None] = {}
    for g in sorted(games, key=lambda g: (estimates[g], games.index(g))):
        if estimates[g] > slack * limit:
            break
        n = count_exact(g, limit)
        exact[g] = n if n <= limit else None
    fitting = [g for g in games if exact.get(g) is not None]
    chosen = set(sorted(fitting, key=lambda g: (exact[g], games.index(g)))[:count])
    return [SizedGame(g, estimates[g], exact.get(g), g in exact, g in chosen) for g in games]
