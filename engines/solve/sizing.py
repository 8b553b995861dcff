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
2. count exactly the candidates whose estimate is at most ``slack`` times the limit, smallest
   estimate first (the estimate is unbiased but heavy-tailed: a game estimated far above the
   limit is not counted, so counting stays within the limit's cost); each count stops at the
   limit, and once ``count`` games fit, at the largest of the ``count`` smallest so far: a game
   larger than that cannot be chosen, so the choice is the same and the counting far shorter
   (a pool of thousands of small games is counted in seconds, not hours);
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
    histories: int | None  # exact when counted and within its bound; None otherwise
    counted: bool
    chosen: bool
    bound: int | None = None  # where its count stopped: the limit, or the chosen games' largest

    @property
    def reason(self) -> str:
        if self.chosen:
            return "solved"
        if not self.counted:
            return "estimate over the counting bound"
        if self.histories is None and self.bound is None:
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
    position = {g: i for i, g in enumerate(games)}
    estimates = {g: float(estimate(g)) for g in games}
    exact: dict[str, int | None] = {}
    bounds: dict[str, int | None] = {}  # None: counted to the limit
    fitting: list[tuple[int, int, str]] = []  # (histories, candidate order, game), sorted
    for g in sorted(games, key=lambda g: (estimates[g], position[g])):
        if estimates[g] > slack * limit:
            break
        bound = fitting[count - 1][0] if count and len(fitting) >= count else limit
        n = count_exact(g, bound)
        exact[g] = n if n <= bound else None
        bounds[g] = bound if bound < limit else None
        if n <= bound:
            fitting.append((n, position[g], g))
            fitting.sort()
    chosen = {g for _, _, g in fitting[:count]}
    return [
        SizedGame(g, estimates[g], exact.get(g), g in exact, g in chosen, bounds.get(g))
        for g in games
    ]
