"""The one z-scoring (``engines.numeric.zscores``): both divisors, degenerate columns, NaN, rows,
and bit-for-bit agreement with the formulas the published tables were computed with."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from engines.numeric.zscores import zscores
from engines.stats.composite import regressor_zscores


def test_population_and_sample_divisors() -> None:
    x = np.random.default_rng(3).normal(2.0, 5.0, size=(12, 5))
    population, sample = zscores(x, ddof=0), zscores(x, ddof=1)
    np.testing.assert_allclose(population.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(population.std(axis=0, ddof=0), 1.0)
    np.testing.assert_allclose(sample.std(axis=0, ddof=1), 1.0)
    np.testing.assert_allclose(population / sample, math.sqrt(12 / 11))


def test_the_formulas_of_the_published_tables_to_the_bit() -> None:
    """capability profiles: NumPy over the columns of the games x axes matrix (ddof 0);
    benchmark_axes: pandas over one axis at a time (ddof 1); Appendix G.1: NumPy over rows."""
    rng = np.random.default_rng(11)
    for games in (2, 7, 8, 9, 50, 130):
        x = rng.normal(size=(games, 5)) * rng.uniform(0.1, 100.0) + rng.uniform(-50.0, 50.0)
        assert np.array_equal(zscores(x, ddof=0), (x - x.mean(axis=0)) / x.std(axis=0))
        for column in x.T:
            series = pd.Series(column)
            expected = ((series - series.mean()) / series.std(ddof=1)).to_numpy()
            assert np.array_equal(zscores(column, ddof=1), expected)
        grid = x.T
        rows = (grid - grid.mean(axis=1, keepdims=True)) / grid.std(axis=1, keepdims=True)
        assert np.array_equal(zscores(grid, ddof=0, axis=1), rows)


def test_a_column_without_spread_is_all_zeros() -> None:
    x = np.array([[1.0, 4.0], [1.0, 5.0], [1.0, 9.0]])
    z = zscores(x, ddof=1)
    assert (z[:, 0] == 0.0).all() and z[:, 1].std(ddof=1) == pytest.approx(1.0)
    assert zscores([3.0], ddof=1).tolist() == [0.0]  # one value: no sample SD
    assert zscores([3.0], ddof=0).tolist() == [0.0]
    assert zscores([math.nan, math.nan], ddof=0).tolist() == [0.0, 0.0]


def test_nan_entries_are_left_out_and_stay_nan() -> None:
    z = zscores([1.0, math.nan, 3.0, 5.0], ddof=1)
    assert math.isnan(z[1])
    np.testing.assert_allclose(z[[0, 2, 3]], zscores([1.0, 3.0, 5.0], ddof=1))


def test_only_the_two_divisors() -> None:
    with pytest.raises(ValueError, match="ddof must be 0"):
        zscores([1.0, 2.0], ddof=2)


def test_regressors_must_vary_and_be_finite() -> None:
    good = np.array([[1.0, 2.0], [2.0, 4.0], [4.0, 3.0]])
    assert np.array_equal(regressor_zscores(good), zscores(good, ddof=0))
    for bad in (np.array([[1.0, 2.0], [1.0, 3.0]]), np.array([[1.0, math.inf], [2.0, 3.0]])):
        with pytest.raises(ValueError, match="constant or non-finite"):
            regressor_zscores(bad)
