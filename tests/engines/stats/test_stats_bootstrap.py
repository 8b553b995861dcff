"""The one resampling core: its draws do not depend on chunking, and both uses are thin calls."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import engines.stats.bootstrap as bootstrap
from engines.stats.bootstrap import draws, percentile_interval, weighted_bootstrap, weighted_mean


def test_draws_do_not_depend_on_the_chunking(monkeypatch: pytest.MonkeyPatch) -> None:
    whole = np.vstack(list(draws(13, 40, np.random.default_rng(3))))
    monkeypatch.setattr(bootstrap, "_CHUNK_DRAWS", 30)  # two replicates per chunk
    chunks = list(draws(13, 40, np.random.default_rng(3)))
    assert len(chunks) == 20
    np.testing.assert_array_equal(np.vstack(chunks), whole)
    with pytest.raises(ValueError, match="positive"):
        next(draws(13, 0, np.random.default_rng(3)))


def test_the_weighted_bootstrap_is_the_mean_over_the_drawn_units() -> None:
    values = np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0])
    frame = pd.DataFrame({"deal": np.arange(len(values)), "value": values})

    def statistic(part: pd.DataFrame, weights: np.ndarray) -> dict[str, float]:
        return {"mean": weighted_mean(part["value"].to_numpy(np.float64), weights)}

    found = weighted_bootstrap(frame, ["deal"], statistic, 200, np.random.default_rng(8))
    (drawn,) = draws(len(values), 200, np.random.default_rng(8))
    low, high = percentile_interval(values[drawn].mean(axis=1))
    assert found["mean"].value == pytest.approx(values.mean())
    assert (found["mean"].low, found["mean"].high) == pytest.approx((float(low), float(high)))
