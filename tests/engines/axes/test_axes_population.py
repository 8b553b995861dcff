"""The population: lazy, deterministic Dirichlet(1) mixtures; ranking against L0; P_Theta and
P_K; STD_g."""

from __future__ import annotations

import numpy as np
import pytest

from engines.axes.budgets import axis_budget
from engines.axes.population import (
    L0,
    Dirichlet,
    build_population,
    rank,
    std_g,
    strategy_seeds,
)
from engines.gbg import presets

BUDGET = axis_budget("quick")


def test_a_mixture_is_a_pure_function_of_seed_and_information_state() -> None:
    menu = ("check", "bet 1", "bet 2")
    a, b = Dirichlet(42), Dirichlet(42)
    b.mixture("bob:[('card', 1, 3)]", menu)  # visiting another state first changes nothing
    first = a.mixture("alice:[('card', 0, 2)]", menu)
    assert first == b.mixture("alice:[('card', 0, 2)]", menu)
    assert sum(first) == pytest.approx(1.0) and min(first) > 0
    assert first != Dirichlet(43).mixture("alice:[('card', 0, 2)]", menu)
    assert first != a.mixture("alice:[('card', 0, 1)]", menu)


def test_the_axes_and_the_tournament_draw_the_same_mixture_for_a_seed() -> None:
    from engines.agents.dirichlet import DirichletStrategy

    menu = ("fold", "call", "raise 2")
    for seed in (0, 7, 2**40 + 3):
        for info in ("alice:[]", "bob:[('card', 1, 4), ('act', 0, 'bet 2')]"):
            assert Dirichlet(seed).mixture(info, menu) == DirichletStrategy(seed).mixture(
                info, menu
            )


def test_choose_samples_the_mixture_with_the_given_uniform() -> None:
    from engines.gbg.engine import new_deal

    spec = presets.kuhn()
    state = new_deal(spec, 3)
    menu = state.legal_actions()
    member = Dirichlet(5)
    probs = member.mixture(state.information_state(0), menu)
    assert member.choose(state, 0, menu, probs[0] / 2) == menu[0]
    assert member.choose(state, 0, menu, probs[0] + probs[1] / 2) == menu[1]
    assert L0.choose(state, 0, menu, 0.0) == menu[0] and L0.choose(state, 0, menu, 0.99) == menu[-1]


def test_tier1_is_the_better_half_against_l0_and_ranking_is_reproducible() -> None:
    spec = presets.kuhn()
    population = build_population(spec, BUDGET, population_seed=1)
    again = build_population(spec, BUDGET, population_seed=1)
    assert population == again
    assert len(population.members) == BUDGET.population_size
    assert len(population.tier1) == BUDGET.tier1_size
    score = dict(zip(population.members, population.scores, strict=True))
    worst_kept = min(score[s] for s in population.tier1)
    dropped = set(population.members) - set(population.tier1)
    assert all(score[s] <= worst_kept for s in dropped)
    assert population.members == tuple(strategy_seeds(1, BUDGET.population_size))
    # Ties keep population order.
    assert rank([10, 11, 12], [1.0, 2.0, 1.0], 2)[2] == (11, 10)


def test_p_theta_and_p_k_put_a_third_and_a_quarter_on_l0() -> None:
    population = build_population(presets.kuhn(), BUDGET, population_seed=2)
    uniforms = np.random.default_rng(0).random(20_000)
    theta = [population.opponent(float(u)) for u in uniforms]
    kappa = [population.continuation(float(u)) for u in uniforms]
    assert np.mean([p is L0 for p in theta]) == pytest.approx(1 / 3, abs=0.015)
    assert np.mean([p is L0 for p in kappa]) == pytest.approx(1 / 4, abs=0.015)
    tier1 = set(population.tier1)
    assert all(getattr(p, "seed", None) in tier1 for p in theta if p is not L0)
    assert len({getattr(p, "seed", None) for p in theta if p is not L0}) == len(tier1)


def test_std_g_is_the_spread_of_the_chip_lead_between_members() -> None:
    spec = presets.kuhn()
    population = build_population(spec, BUDGET, population_seed=3)
    value = std_g(spec, population, BUDGET, seed=4)
    assert value == std_g(spec, population, BUDGET, seed=4)
    # Kuhn's chip leads are -4, -2, 2 or 4: a spread between 2 and 4.
    assert 2.0 <= value <= 4.0
