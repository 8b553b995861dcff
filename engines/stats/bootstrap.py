"""The clustered bootstrap over runs, as resampled per-cell sufficient statistics (Section 6).

Why it exists: every interval in Sections 6-7 and Appendices E-F comes from one resampling
scheme, runs drawn with replacement (B = 2,000). Refitting from raw rows 2,000 times per table is
what makes a naive analysis slow. A run enters every estimator only through its cell
(block, game, pair), its margin sum and the fact that it counts once, so a bootstrap replicate is
fully described by two numbers per cell: how many runs of the cell were drawn, and the sum of
their margins. One draw of those (B x cells) matrices feeds the overall leaderboard, the per-game
strengths, the subsets and the pairwise tables alike, so all of them share the same replicates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engines.stats.runs import RunTable

FloatArray = npt.NDArray[np.float64]

DEFAULT_BOOTSTRAP = 2000
_CHUNK_DRAWS = 4_000_000


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
    """Cluster-bootstrap replicates over runs, reduced to per-cell sums.

    Steps (per chunk of replicates, to bound memory):
    1. draw, for each replicate, ``n_runs`` run indices uniformly with replacement;
    2. map each drawn run to its cell and offset it by the replicate's row;
    3. ``bincount`` the offsets for the counts and, weighted by the runs' margins, for the sums.
    """
    if n_boot < 1:
        raise ValueError(f"the number of bootstrap replicates must be positive, got {n_boot}")
    n_runs, n_cells = runs.n_runs, runs.n_cells
    counts = np.empty((n_boot, n_cells), dtype=np.float64)
    sums = np.empty((n_boot, n_cells), dtype=np.float64)
    chunk = max(1, _CHUNK_DRAWS // n_runs)
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        drawn = rng.integers(0, n_runs, size=(size, n_runs))
        offset = (np.arange(size, dtype=np.int64) * n_cells)[:, None]
        flat = (runs.cell[drawn] + offset).ravel()
        length = size * n_cells
        counts[start : start + size] = np.bincount(flat, minlength=length).reshape(size, n_cells)
        sums[start : start + size] = np.bincount(
            flat, weights=runs.margin[drawn].ravel(), minlength=length
        ).reshape(size, n_cells)
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
