"""Bootstrap over deals for the ablations (paper, Section 8: "bootstrap 95% CIs over deals").

A deal (the two seat-swapped matches sharing a play seed) is the resampling unit: every
statistic of an ablation is a weighted function of its rows, and one bootstrap replicate is the
same function with each row weighted by how many times its deal was drawn.  Deals are drawn with
replacement from an injected ``numpy`` generator; intervals are percentile intervals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

Statistic = Callable[[pd.DataFrame, np.ndarray], dict[str, float]]


@dataclass(frozen=True)
class Estimate:
    """A statistic with its bootstrap percentile interval."""

    value: float
    low: float
    high: float


def weighted_mean(values: np.ndarray, weights: np.ndarray) -> float:
    total = float(weights.sum())
    return float((values * weights).sum() / total) if total > 0 else float("nan")


def bootstrap(
    frame: pd.DataFrame,
    units: Sequence[str],
    statistic: Statistic,
    n_boot: int,
    rng: np.random.Generator,
    level: float = 0.95,
) -> dict[str, Estimate]:
    """Each named figure of ``statistic`` with its interval over ``n_boot`` resamples of the
    deals (rows sharing the ``units`` columns form one deal)."""
    if n_boot < 1:
        raise ValueError(f"the bootstrap needs at least one replicate, got {n_boot}")
    if frame.empty:
        return {}
    codes = frame.groupby(list(units), sort=True).ngroup().to_numpy()
    n_units = int(codes.max()) + 1
    point = statistic(frame, np.ones(len(frame)))
    draws: dict[str, list[float]] = {k: [] for k in point}
    for _ in range(n_boot):
        counts = np.bincount(rng.integers(0, n_units, size=n_units), minlength=n_units)
        replicate = statistic(frame, counts[codes].astype(np.float64))
        for key in point:
            draws[key].append(replicate.get(key, float("nan")))
    tail = 100.0 * (1.0 - level) / 2.0
    out: dict[str, Estimate] = {}
    for key, value in point.items():
        sample = np.asarray(draws[key], dtype=np.float64)
        sample = sample[np.isfinite(sample)]
        if sample.size == 0:
            out[key] = Estimate(value, float("nan"), float("nan"))
        else:
            low, high = np.percentile(sample, [tail, 100.0 - tail])
            out[key] = Estimate(value, float(low), float(high))
    return out
