"""The overall leaderboard: sum-to-zero least squares on chip margins (Section 6, Table 1).

Why it exists: the leaderboard is the number people quote. For match s between models i and j,
Section 6 regresses the signed chip margin on model indicators, y_s = alpha_i - alpha_j + eps_s
with sum_m alpha_m = 0, and takes intervals from a bootstrap over runs (B = 2,000, 95% percentile).

How it is computed: the design matrix X has rows e_i - e_j, so X'X is the Laplacian of the
comparison graph weighted by matches and X'y sums each pair's margins. Both are sums over cells of
(run count) x (pair outer product) and (margin sum) x (pair difference), so the data and every
bootstrap replicate are solved the same way, as a batch of M x M systems. The constraint is imposed
by solving (X'X + 1 1'/M) alpha = X'y, whose solution is the constrained least-squares one when
the comparison graph is connected (X'y sums to zero, so 1'alpha = 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.stats.bootstrap import (
    DEFAULT_BOOTSTRAP,
    CellSums,
    observed_cells,
    percentile_interval,
    resample_cells,
)
from engines.stats.runs import RunTable, run_table

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

LEADERBOARD_COLUMNS: tuple[str, ...] = (
    "model",
    "alpha",
    "ci_low",
    "ci_high",
    "rank",
    "matches",
    "tier",
)


@dataclass(frozen=True)
class RunSample:
    """A corpus's runs with the data's cell statistics and the bootstrap replicates'."""

    runs: RunTable
    observed: CellSums
    replicates: CellSums

    @classmethod
    def draw(cls, runs: RunTable, n_boot: int, rng: np.random.Generator) -> RunSample:
        return cls(
            runs=runs, observed=observed_cells(runs), replicates=resample_cells(runs, n_boot, rng)
        )

    def all_cells(self) -> BoolArray:
        return np.ones(self.runs.n_cells, dtype=np.bool_)


@dataclass(frozen=True)
class Leaderboard:
    """A fitted leaderboard: the table, the point estimates and the replicates (model order)."""

    table: pd.DataFrame
    alpha: FloatArray
    replicates: FloatArray
    models: tuple[str, ...]

    def spread(self) -> float:
        """Distance between the top and bottom strengths (chips/game), as quoted in Section 6."""
        return float(np.nanmax(self.alpha) - np.nanmin(self.alpha))

    def ranking(self) -> FloatArray:
        """Point strengths in model order (NaN for models absent from the fit)."""
        return self.alpha


def cell_design(runs: RunTable) -> tuple[FloatArray, FloatArray]:
    """Per cell: twice the pair's outer product (flattened M*M), and the pair's difference e_i-e_j.

    The factor two is the run's two deals, which share the design row.
    """
    m, k = runs.n_models, runs.n_cells
    diff = np.zeros((k, m), dtype=np.float64)
    rows = np.arange(k)
    diff[rows, runs.cell_first] = 1.0
    diff[rows, runs.cell_second] = -1.0
    outer = 2.0 * (diff[:, :, None] * diff[:, None, :]).reshape(k, m * m)
    return outer, diff


def normal_equations(
    runs: RunTable, cells: CellSums, cell_mask: BoolArray
) -> tuple[FloatArray, FloatArray]:
    """X'X (B, M, M) and X'y (B, M) over the cells in ``cell_mask``, one per replicate row."""
    outer, diff = cell_design(runs)
    m = runs.n_models
    lap = (cells.counts[:, cell_mask] @ outer[cell_mask]).reshape(-1, m, m)
    rhs = cells.sums[:, cell_mask] @ diff[cell_mask]
    return lap, rhs


def solve_sum_to_zero(lap: FloatArray, rhs: FloatArray, present: BoolArray) -> FloatArray:
    """Solve a batch of Laplacian systems with sum_m alpha_m = 0 over the present models.

    Steps:
    1. A = L + p p'/|p| + diag(1 - p), where p marks the models that played (absent models get
       alpha = 0 and are then reported as NaN);
    2. solve A alpha = X'y in one batched call;
    3. where a replicate's comparison graph is disconnected (A singular), use the pseudo-inverse,
       whose minimum-norm solution sums to zero on each connected component.
    """
    m = lap.shape[-1]
    p = np.broadcast_to(present.astype(np.float64), rhs.shape)
    k = np.maximum(p.sum(axis=-1), 1.0)
    a = lap + p[..., :, None] * p[..., None, :] / k[..., None, None]
    a = a + (1.0 - p)[..., :, None] * np.eye(m)
    try:
        alpha = np.linalg.solve(a, rhs[..., None])[..., 0]
        residual = np.abs(np.einsum("...ij,...j->...i", a, alpha) - rhs).max(axis=-1)
        bad = ~(residual <= 1e-6 * (1.0 + np.abs(rhs).max(axis=-1)))
    except np.linalg.LinAlgError:
        alpha = np.zeros_like(rhs)
        bad = np.ones(rhs.shape[:-1], dtype=np.bool_)
    if bad.any():
        fixed = np.einsum("...ij,...j->...i", np.linalg.pinv(a[bad]), rhs[bad])
        pb = p[bad]
        fixed -= pb * (fixed * pb).sum(axis=-1, keepdims=True) / k[bad][..., None]
        alpha[bad] = fixed
    out: FloatArray = np.where(p > 0, alpha, np.nan)
    return out


def fit_alpha(
    runs: RunTable, cells: CellSums, cell_mask: BoolArray, present: BoolArray
) -> FloatArray:
    """Sum-to-zero strengths (B, M) for each replicate row of ``cells``."""
    lap, rhs = normal_equations(runs, cells, cell_mask)
    return solve_sum_to_zero(lap, rhs, present)


def models_present(runs: RunTable, cell_mask: BoolArray) -> BoolArray:
    """Models that play at least one run in the selected cells."""
    present = np.zeros(runs.n_models, dtype=np.bool_)
    present[runs.cell_first[cell_mask]] = True
    present[runs.cell_second[cell_mask]] = True
    return present


def matches_in(runs: RunTable, observed: CellSums, cell_mask: BoolArray) -> IntArray:
    """Single-deal matches per model in the selected cells."""
    counts = observed.counts[0] * cell_mask
    per_model = np.bincount(runs.cell_first, weights=counts, minlength=runs.n_models)
    per_model += np.bincount(runs.cell_second, weights=counts, minlength=runs.n_models)
    matches: IntArray = np.rint(2.0 * per_model).astype(np.int64)
    return matches


def assign_tiers(alpha: FloatArray, low: FloatArray, high: FloatArray) -> IntArray:
    """Tiers down the ranking: a new tier starts at the first model whose whole interval lies
    below the interval of the current tier's leader (their 95% intervals do not overlap).

    Entries with NaN strength get tier 0.
    """
    tiers = np.zeros(len(alpha), dtype=np.int64)
    order = [int(i) for i in np.argsort(-alpha, kind="stable") if np.isfinite(alpha[i])]
    if not order:
        return tiers
    tier, leader = 1, order[0]
    for i in order:
        if high[i] < low[leader]:
            tier, leader = tier + 1, i
        tiers[i] = tier
    return tiers


def fit_leaderboard(
    sample: RunSample, cell_mask: BoolArray | None = None, level: float = 0.95
) -> Leaderboard:
    """Leaderboard on the selected cells (all by default), with bootstrap percentile intervals.

    Steps: find the models that play in the selection; solve the data's normal equations; solve
    every replicate's; take percentile intervals; rank by strength; cut tiers.
    """
    runs = sample.runs
    mask = sample.all_cells() if cell_mask is None else cell_mask
    if not mask.any():
        raise ValueError("the selection holds no runs to fit a leaderboard on")
    present = models_present(runs, mask)
    alpha = fit_alpha(runs, sample.observed, mask, present)[0]
    replicates = fit_alpha(runs, sample.replicates, mask, present)
    low, high = percentile_interval(replicates, level)
    tiers = assign_tiers(alpha, low, high)
    matches = matches_in(runs, sample.observed, mask)
    table = leaderboard_frame(runs.models, alpha, low, high, matches, tiers)
    return Leaderboard(table=table, alpha=alpha, replicates=replicates, models=runs.models)


def leaderboard_frame(
    models: tuple[str, ...],
    alpha: FloatArray,
    low: FloatArray,
    high: FloatArray,
    matches: IntArray,
    tiers: IntArray,
) -> pd.DataFrame:
    """The leaderboard table, best first; models absent from the fit are left out."""
    frame = pd.DataFrame(
        {
            "model": list(models),
            "alpha": alpha,
            "ci_low": low,
            "ci_high": high,
            "matches": matches,
            "tier": tiers,
        }
    )
    frame = frame.loc[np.isfinite(alpha)].sort_values(
        ["alpha", "model"], ascending=[False, True], kind="stable"
    )
    frame.insert(4, "rank", np.arange(1, len(frame) + 1, dtype=np.int64))
    return frame.reset_index(drop=True).loc[:, list(LEADERBOARD_COLUMNS)]


def overall_leaderboard(
    matches: pd.DataFrame, rng: np.random.Generator, n_boot: int = DEFAULT_BOOTSTRAP
) -> pd.DataFrame:
    """Table 1 from a match table in one call: complete runs, fit, clustered bootstrap, tiers."""
    sample = RunSample.draw(run_table(matches), n_boot, rng)
    return fit_leaderboard(sample).table
