"""The bootstrap of GENSTRAT: units drawn with replacement, in one place (Sections 6-8).

Why it exists: every interval of the paper is a percentile bootstrap over independent units,
and both of its uses draw those units the same way, so they share one resampling core
(:func:`draws`: per replicate, ``n_units`` unit indices uniformly with replacement from an
injected generator, in chunks that bound memory; :func:`replicate_counts`: how often each unit,
or each group of units, was drawn in each replicate) and one interval
(:func:`percentile_interval`). The two uses are thin calls on it:

- the clustered bootstrap over runs of the leaderboards and profiles (Sections 6-7,
  Appendices E-F; B = 2,000): refitting from raw rows 2,000 times per table is what makes a
  naive analysis slow. A run enters every estimator only through its cell (block, game, pair),
  its margin sum and the fact that it counts once, so a replicate is fully described by two
  numbers per cell: how many runs of the cell were drawn and the sum of their margins
  (:func:`resample_cells`). One draw of those (B x cells) matrices feeds the overall
  leaderboard, the per-game strengths, the subsets and the pairwise tables alike, so all of
  them share the same replicates;
- the bootstrap over deals of the ablations (Section 8, "bootstrap 95% CIs over deals";
  :func:`weighted_bootstrap`): every statistic of an ablation is a weighted function of its
  rows, and a replicate is the same function with each row weighted by how many times its deal
  was drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.stats.runs import RunTable

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

DEFAULT_BOOTSTRAP = 2000
_CHUNK_DRAWS = 4_000_000


def draws(n_units: int, n_boot: int, rng: np.random.Generator) -> Iterator[IntArray]:
    """The resampled unit indices of ``n_boot`` replicates, as ``(replicates, n_units)`` chunks.

    Each row is one replicate: ``n_units`` indices drawn uniformly with replacement. Chunks
    hold at most a few million draws; the generator's stream does not depend on the chunking.
    """
    if n_boot < 1:
        raise ValueError(f"the number of bootstrap replicates must be positive, got {n_boot}")
    chunk = max(1, _CHUNK_DRAWS // n_units)
    for start in range(0, n_boot, chunk):
        yield rng.integers(0, n_units, size=(min(chunk, n_boot - start), n_units))


def replicate_counts(
    drawn: IntArray, labels: IntArray, n_labels: int, weights: FloatArray | None = None
) -> npt.NDArray[np.float64] | IntArray:
    """Per replicate (row of ``drawn``), how often each label (``labels[unit]``) was drawn, or
    with ``weights`` (one per unit) the sum of the drawn units' weights per label.

    Steps: map each drawn unit to its label and offset it by its replicate's row; ``bincount``
    the offsets (weighted for the sums); reshape to ``(replicates, n_labels)``.
    """
    size = drawn.shape[0]
    offset = (np.arange(size, dtype=np.int64) * n_labels)[:, None]
    flat = (labels[drawn] + offset).ravel()
    summed = None if weights is None else weights[drawn].ravel()
    counts = np.bincount(flat, weights=summed, minlength=size * n_labels)
    return counts.reshape(size, n_labels)


@dataclass(frozen=True)
class CellSums:
    """Per-cell run counts and margin sums, one row per replicate (one row for the data itself)."""

    counts: FloatArray
    sums: FloatArray

    @property
    def n_replicates(self) -> int:
        return int(self.counts.shape[0])


def observed_cells(runs: RunTable) -> CellSums:
    """The data's own cell statistics (every run counted once), as a single replicate."""
    counts = np.bincount(runs.cell, minlength=runs.n_cells).astype(np.float64)
    sums = np.bincount(runs.cell, weights=runs.margin, minlength=runs.n_cells).astype(np.float64)
    return CellSums(counts=counts[None, :], sums=sums[None, :])


def resample_cells(runs: RunTable, n_boot: int, rng: np.random.Generator) -> CellSums:
    """Cluster-bootstrap replicates over runs, reduced to per-cell run counts and margin sums."""
    counts = np.empty((n_boot, runs.n_cells), dtype=np.float64)
    sums = np.empty((n_boot, runs.n_cells), dtype=np.float64)
    start = 0
    for drawn in draws(runs.n_runs, n_boot, rng):
        rows = slice(start, start + drawn.shape[0])
        counts[rows] = replicate_counts(drawn, runs.cell, runs.n_cells)
        sums[rows] = replicate_counts(drawn, runs.cell, runs.n_cells, runs.margin)
        start = rows.stop
    return CellSums(counts=counts, sums=sums)


def percentile_interval(
    replicates: FloatArray, level: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap interval along the first axis (replicates), ignoring NaN replicates."""
    tail = 100.0 * (1.0 - level) / 2.0
    quantiles = [tail, 100.0 - tail]
    if not np.isnan(replicates).any():
        low, high = np.percentile(replicates, quantiles, axis=0)
        return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    shape = replicates.shape[1:]
    flat = replicates.reshape(replicates.shape[0], -1)
    low_flat = np.full(flat.shape[1], np.nan)
    high_flat = np.full(flat.shape[1], np.nan)
    some = np.isfinite(flat).any(axis=0)
    if some.any():
        low_flat[some], high_flat[some] = np.nanpercentile(flat[:, some], quantiles, axis=0)
    return low_flat.reshape(shape), high_flat.reshape(shape)


def bootstrap_p_value(replicates: FloatArray) -> FloatArray:
    """Two-sided bootstrap p-value for 'the quantity is zero', per column.

    p = min(1, 2 min((1 + #{x* <= 0}) / (B + 1), (1 + #{x* >= 0}) / (B + 1))).
    """
    b = replicates.shape[0]
    below = (replicates <= 0).sum(axis=0)
    above = (replicates >= 0).sum(axis=0)
    p = 2.0 * np.minimum(below + 1, above + 1) / (b + 1)
    return np.asarray(np.minimum(p, 1.0), dtype=np.float64)


Statistic = Callable[[pd.DataFrame, FloatArray], dict[str, float]]


@dataclass(frozen=True)
class Estimate:
    """A statistic with its bootstrap percentile interval."""

    value: float
    low: float
    high: float


def weighted_mean(values: FloatArray, weights: FloatArray) -> float:
    """The mean of ``values`` under replicate weights (NaN when every weight is zero)."""
    total = float(weights.sum())
    return float((values * weights).sum() / total) if total > 0 else float("nan")


def weighted_bootstrap(
    frame: pd.DataFrame,
    units: Sequence[str],
    statistic: Statistic,
    n_boot: int,
    rng: np.random.Generator,
    level: float = 0.95,
) -> dict[str, Estimate]:
    """Each named figure of ``statistic`` with its percentile interval over ``n_boot`` resamples
    of the units (rows sharing the ``units`` columns form one unit, e.g. a deal).

    Steps: number the units; evaluate ``statistic`` with every row weighted 1; for each
    replicate of :func:`draws`, weight each row by how often its unit was drawn and evaluate
    again; the interval of each figure is over its finite replicates (NaN when none is).
    """
    if n_boot < 1:
        raise ValueError(f"the bootstrap needs at least one replicate, got {n_boot}")
    if frame.empty:
        return {}
    codes = frame.groupby(list(units), sort=True).ngroup().to_numpy()
    n_units = int(codes.max()) + 1
    point = statistic(frame, np.ones(len(frame)))
    replicates = np.empty((n_boot, len(point)), dtype=np.float64)
    identity = np.arange(n_units, dtype=np.int64)
    start = 0
    for drawn in draws(n_units, n_boot, rng):
        for counts in replicate_counts(drawn, identity, n_units):
            figures = statistic(frame, counts[codes].astype(np.float64))
            replicates[start] = [figures.get(key, float("nan")) for key in point]
            start += 1
    low, high = percentile_interval(np.where(np.isfinite(replicates), replicates, np.nan), level)
    return {
        key: Estimate(value, float(low[k]), float(high[k]))
        for k, (key, value) in enumerate(point.items())
    }
