"""The decision distribution mu_i (Appendix C, "Decision distribution").

Both seats play policies drawn from the population and every decision of seat i with two or
more actions in A(I) is recorded; mu_i is the distribution of the information states at these
decisions, each visit counted once (a state reached twice as often has twice the weight, and
forced moves have none).  We play whole deals, each seat's policy drawn afresh from P_Theta for
every deal (choice: the paper says "policies drawn from the population"), until both seats
have ``decisions_per_seat`` decisions (or ``selfplay_max_deals`` deals were played), and keep
each seat's first ``decisions_per_seat`` in play order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.axes.budgets import AxisBudget
from engines.axes.menus import reduce_menu
from engines.axes.play import ACTION, DealTrace, Stream, draw_chance, play_traced, stream_length
from engines.axes.population import Population
from engines.gbg.engine import new_deal
from engines.gbg.rng import derive_seed
from engines.gbg.spec import GameSpec


@dataclass(frozen=True)
class Decision:
    """One visit of ``seat`` to a decision: deal ``deal``'s first ``upto`` steps reach it."""

    seat: int
    deal: int
    upto: int
    menu: tuple[str, ...]
    info_state: str


@dataclass
class SelfPlay:
    """The self-play deals (as traces) and the decisions drawn from them."""

    traces: list[DealTrace]
    decisions: list[Decision]

    def of_seat(self, seat: int) -> list[Decision]:
        return [d for d in self.decisions if d.seat == seat]


def decision_distribution(
    spec: GameSpec, population: Population, budget: AxisBudget, seed: int
) -> SelfPlay:
    """Sample mu_0 and mu_1 by population self-play (see the module docstring)."""
    rng = np.random.default_rng(derive_seed(seed, 0x5E1F))
    length = stream_length(spec)
    want = budget.decisions_per_seat
    traces: list[DealTrace] = []
    found: list[list[Decision]] = [[], []]
    for deal in range(budget.selfplay_max_deals):
        if len(found[0]) >= want and len(found[1]) >= want:
            break
        policies = [population.opponent(float(rng.random())) for _ in range(2)]
        chance = draw_chance(spec, rng)
        moves = Stream(rng.random(length).tolist())
        _, trace = play_traced(spec, policies, chance, moves, budget.max_amounts)
        traces.append(trace)
        _collect(spec, trace, deal, budget.max_amounts, found)
    kept = [d for seat in (0, 1) for d in found[seat][:want]]
    kept.sort(key=lambda d: (d.deal, d.upto))
    return SelfPlay(traces, kept)


def _collect(
    spec: GameSpec, trace: DealTrace, deal: int, max_amounts: int, found: list[list[Decision]]
) -> None:
    """Replay ``trace`` and record each decision with at least two actions in A(I)."""
    state = new_deal(spec, explicit_chance=True)
    for i, (_, value) in enumerate(trace.steps):
        if trace.kinds[i] == ACTION:
            seat = state.current_player
            menu = reduce_menu(state.legal_actions(), max_amounts)
            if len(menu) >= 2:
                found[seat].append(Decision(seat, deal, i, menu, state.information_state(seat)))
            state.apply(value)
        else:
            state.apply_chance(value)
