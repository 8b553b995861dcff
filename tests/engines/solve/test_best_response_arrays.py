"""The array form of the exact best/worst response against the tree-of-states solver: equal
values on Kuhn, Leduc and generated games, on both seats and two opponents."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engines.gbg.engine import State
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.presets import kuhn, leduc
from engines.solve.best_response import (
    expand_tree,
    policy_value,
    respond,
    respond_arrays,
    response_policy,
    uniform_policy,
)


def skewed(state: State, seat: int) -> dict[str, float]:
    """A fixed, non-uniform policy: weights 1, 2, 3, ... over the legal actions."""
    legal = state.legal_actions()
    total = len(legal) * (len(legal) + 1) / 2
    return {a: (k + 1) / total for k, a in enumerate(legal)}


@pytest.mark.parametrize("spec", [kuhn(), leduc()], ids=["kuhn", "leduc"])
@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("opponent", [uniform_policy, skewed], ids=["uniform", "skewed"])
def test_arrays_equal_the_tree_of_states(spec, seat, opponent) -> None:  # type: ignore[no-untyped-def]
    best, worst, sizes = respond_arrays(spec, seat, opponent)
    assert best.value == pytest.approx(respond(spec, seat, opponent, True).value, abs=1e-9)
    assert worst.value == pytest.approx(respond(spec, seat, opponent, False).value, abs=1e-9)
    # The chosen responses really reach those values when played.
    assert policy_value(spec, seat, response_policy(best), opponent) == pytest.approx(best.value)
    assert policy_value(spec, seat, response_policy(worst), opponent) == pytest.approx(worst.value)
    assert sizes["histories"] > 0 and sizes["infosets"] == len(best.choices)


def test_kuhn_best_response_value_is_known() -> None:
    # Against uniform random play in Kuhn poker the first player's best response earns 1/2
    # (bet K, bet Q and check-fold J... computed by hand from the 6 deals: +1/2 chip).
    best, worst, _ = respond_arrays(kuhn(), 0, uniform_policy)
    assert best.value == pytest.approx(0.5)
    assert worst.value == pytest.approx(-2 / 3)


def test_the_size_limit_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="more than 100 histories; too large to solve exactly"):
        expand_tree(leduc(), 0, uniform_policy, limit=100)


@pytest.mark.slow  # over 5 s: make test only
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**6))
def test_generated_games_agree(seed: int) -> None:
    spec = generate(seed, GenerationConfig(max_phases=3, max_hand=2, max_ranks=4))
    try:
        tree = expand_tree(spec, 0, uniform_policy, limit=20_000)
    except ValueError:
        assume(False)
    assert tree.histories <= 20_000
    seat = random.Random(seed).randrange(2)
    best, worst, _ = respond_arrays(spec, seat, uniform_policy, limit=40_000)
    assert best.value == pytest.approx(respond(spec, seat, uniform_policy, True).value, abs=1e-9)
    assert worst.value == pytest.approx(respond(spec, seat, uniform_policy, False).value, abs=1e-9)
