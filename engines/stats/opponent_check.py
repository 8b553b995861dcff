"""The whole-strategy opponent check's play (Appendix C, "Opponent dependence").

For one game: L0 and ``per_seat`` tier-1 members of the axes' population for each seat (Alice
takes tier 1's first ``per_seat``, Bob the next ``per_seat``, or the same ones when tier 1 is
too small) play each other on ``deals`` common deals: the same card order, chance uniforms and
move uniforms for every pair of strategies (common random numbers).  The outcome tensor goes to
``engines.stats.validity.interaction_share``.  The paper's sizes: 40 members and 60 deals;
:data:`CHECK_SIZES` holds those and a quick setting.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engines.axes.budgets import AxisBudget
from engines.axes.play import Policy, Stream, chip_lead, draw_chance, play_out, stream_length
from engines.axes.population import L0, build_population, strategy
from engines.gbg.engine import new_deal
from engines.gbg.rng import derive_seed
from engines.gbg.spec import GameSpec

FloatArray = npt.NDArray[np.float64]

# (tier-1 members per seat, common deals) by axis budget name.
CHECK_SIZES: dict[str, tuple[int, int]] = {"paper": (40, 60), "quick": (8, 16)}


def seat_policies(tier1: tuple[int, ...], per_seat: int) -> tuple[list[Policy], list[Policy]]:
    """L0 plus ``per_seat`` tier-1 members for Alice, and for Bob."""
    alice = [strategy(s) for s in tier1[:per_seat]]
    rest = tier1[per_seat : 2 * per_seat]
    bob = [strategy(s) for s in rest] if len(rest) == per_seat else list(alice)
    return [L0, *alice], [L0, *bob]


def whole_strategy_outcomes(
    spec: GameSpec, budget: AxisBudget, seed: int, per_seat: int, deals: int
) -> FloatArray:
    """``outcomes[a, b, d]``: Alice's chip lead with her strategy ``a`` against Bob's ``b`` on
    common deal ``d``."""
    population = build_population(spec, budget, derive_seed(seed, 0x0770))
    alice, bob = seat_policies(population.tier1, per_seat)
    length = stream_length(spec)
    out = np.zeros((len(alice), len(bob), deals))
    for d in range(deals):
        rng = np.random.default_rng(derive_seed(seed, 0xC0DE, d))
        chance = draw_chance(spec, rng)
        moves = rng.random(length).tolist()
        for a, pa in enumerate(alice):
            for b, pb in enumerate(bob):
                state = new_deal(spec, explicit_chance=True)
                play_out(
                    state, [pa, pb], chance.rank, chance.stream(), Stream(moves), budget.max_amounts
                )
                out[a, b, d] = chip_lead(state, 0)
    return out
