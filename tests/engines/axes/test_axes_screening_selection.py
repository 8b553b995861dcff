"""The six screening axes, farthest-point selection, and the cross-game diagnostics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from constructed_games import bet_game, peek_game

from arena.parallel import process_pool
from engines.axes.budgets import screening_budget
from engines.axes.diagnostics import (
    combine_seats,
    pairwise_correlations,
    spearman,
    variance_inflation,
)
from engines.axes.screening import SCREENING_AXES, screen_games, screening_axes
from engines.axes.selection import farthest_point, normalise
from engines.gbg import presets
from engines.gbg.generator import generate

QUICK = screening_budget("quick")


def test_screening_axes_are_finite_and_reproducible() -> None:
    for spec in (presets.kuhn(), presets.leduc(), presets.example4643(), generate(7)):
        values = screening_axes(spec, QUICK, seed=3)
        assert list(values) == list(SCREENING_AXES)
        assert all(math.isfinite(v) and v >= 0 for v in values.values()), values
        assert screening_axes(spec, QUICK, seed=3) == values
    # Leduc has a second betting round after the first: more decisions still to come.
    kuhn = screening_axes(presets.kuhn(), QUICK, seed=0)
    leduc = screening_axes(presets.leduc(), QUICK, seed=0)
    assert leduc["temporal_depth"] > kuhn["temporal_depth"]
    assert leduc["state_space"] > kuhn["state_space"]


def test_screening_axes_see_cards_that_matter_and_moves_that_do_not() -> None:
    # Expectation: when every rank has the same value the cards explain none of the chip
    # lead (information sensitivity 0 up to the noise of 60 card orders, which is about 0.1
    # after flooring at 0), far below the variant whose cards matter (about 0.45); a peek
    # that changes nothing leaves every outcome unchanged (brittleness exactly 0).
    budget = screening_budget("paper")
    blind = screening_axes(bet_game(cards_matter=False), budget, seed=1)
    cards = screening_axes(bet_game(cards_matter=True), budget, seed=1)
    assert blind["information_sensitivity"] < 0.2
    assert cards["information_sensitivity"] > blind["information_sensitivity"] + 0.2
    assert screening_axes(peek_game(), budget, seed=1)["brittleness"] == 0.0


def test_screening_a_pool_does_not_depend_on_workers_or_neighbours() -> None:
    games = [(seed, generate(seed).canonical_json()) for seed in (0, 4, 5, 7)]
    alone = list(screen_games(games, QUICK, seed=9, chunk=3))
    with process_pool(2) as pool:  # two processes, same rows
        pooled = list(screen_games(games, QUICK, seed=9, pool=pool, chunk=1))
    assert alone == pooled
    assert [r["seed"] for r in alone] == [0, 4, 5, 7]
    single = list(screen_games(games[2:3], QUICK, seed=9))
    assert single[0] == alone[2]


def test_farthest_point_sampling_spreads_the_selection() -> None:
    # Four corners of a square, its centre, and a point near a corner.
    points = normalise({"x": [0.0, 1.0, 0.0, 1.0, 0.5, 0.95], "y": [0.0, 0.0, 1.0, 1.0, 0.5, 0.9]})
    chosen = farthest_point(points, 4)
    assert sorted(i for i, _ in chosen) == [0, 1, 2, 3]
    assert chosen[0][0] == 0  # farthest from the centroid; ties to the earlier game
    distances = [d for _, d in chosen[1:]]
    assert distances == sorted(distances, reverse=True)
    assert farthest_point(points, 4) == chosen  # deterministic
    with pytest.raises(ValueError, match="cannot select 7 games from a pool of 6"):
        farthest_point(points, 7)
    scaled = normalise({"a": [2.0, 4.0, 3.0], "b": [5.0, 5.0, 5.0]})
    assert scaled[:, 0].tolist() == [0.0, 1.0, 0.5] and scaled[:, 1].tolist() == [0.0] * 3
    with pytest.raises(ValueError, match="NaN"):
        normalise({"a": [1.0, math.nan]})


def test_cross_game_diagnostics() -> None:
    rng = np.random.default_rng(0)
    n = 200
    a, b, c = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
    independent = variance_inflation({"a": a, "b": b, "c": c})
    assert all(v == pytest.approx(1.0, abs=0.1) for v in independent.values())
    collinear = variance_inflation({"a": a, "b": b, "c": a + b + 0.01 * c})
    assert min(collinear.values()) > 100
    assert all(math.isnan(v) for v in variance_inflation({"a": a[:3], "b": b[:3]}).values())
    assert spearman([1, 2, 3, 4], [2, 4, 6, 9]) == pytest.approx(1.0)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))
    pairs = pairwise_correlations({"a": a, "b": b, "c": -a})
    assert pairs[("a", "c")] == pytest.approx(-1.0)
    assert set(pairs) == {("a", "b"), ("a", "c"), ("b", "c")}
    assert combine_seats([1.0, 3.0], [0.3, 0.4]) == pytest.approx((2.0, 0.25))
    assert combine_seats([math.nan, 3.0], [math.nan, 0.4]) == pytest.approx((3.0, 0.4))
    assert combine_seats([math.nan, math.nan], [math.nan, math.nan]) == (0.0, 0.0)
