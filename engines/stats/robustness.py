"""Robustness of the leaderboard to the games, the blocks and the field (Section 6, Appendix E.1).

Why it exists: a leaderboard fit on 50 games could rest on a few of them, on one tournament block,
or on one outlying model. Appendix E.1 answers with four refits:

1. leave one game out (50 refits): mean and minimum Kendall tau with the full ranking, and whether
   the tiers stay intact (no two models in different tiers change order);
2. random game subsets of 5, 8, 12 and 25 games (1,000 each): median and 5th-percentile Spearman;
3. one block only (Table 7), with bootstrap intervals, and Kendall tau on its models;
4. without a named model (Table 8), with bootstrap intervals, and Kendall tau on the rest.

The refits without intervals use the per-game normal equations of the data: a refit on any set of
games is a sum of those, so thousands of refits are one matrix product and one batched solve.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.stats.leaderboard import Leaderboard, RunSample, fit_leaderboard, solve_sum_to_zero
from engines.stats.pergame import game_normal_equations, per_game_present
from engines.stats.ranks import kendall_tau, kendall_tau_rows, spearman_rows

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

SUBSET_SIZES: tuple[int, ...] = (5, 8, 12, 25)
N_SUBSETS = 1000


@dataclass(frozen=True)
class Refit:
    """A refit leaderboard and its rank agreement with the full one (on shared models)."""

    leaderboard: Leaderboard
    kendall_tau: float


def refit_on_games(sample: RunSample, selection: FloatArray) -> FloatArray:
    """Point strengths (n, M) refit on each row of a game-selection matrix (n, G) of 0/1 weights."""
    lap_g, rhs_g = game_normal_equations(sample.runs, sample.observed.counts, sample.observed.sums)
    m = sample.runs.n_models
    g = sample.runs.n_games
    lap = (selection @ lap_g[0].reshape(g, m * m)).reshape(-1, m, m)
    rhs = selection @ rhs_g[0]
    present = (selection @ per_game_present(sample.runs).T.astype(np.float64)) > 0
    return solve_sum_to_zero(lap, rhs, present)


def order_agreement(refits: FloatArray, full: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Kendall tau-b and Spearman rho of each refit (n, M) with the full strengths (M,).

    Models missing from a refit (NaN) are left out of that refit's comparison.
    """
    complete = np.isfinite(refits).all(axis=1)
    tau = np.full(len(refits), np.nan)
    rho = np.full(len(refits), np.nan)
    if complete.any():
        tau[complete] = kendall_tau_rows(refits[complete], full)
        rho[complete] = spearman_rows(refits[complete], full)
    for i in np.flatnonzero(~complete):
        keep = np.isfinite(refits[i])
        tau[i] = kendall_tau_rows(refits[i, keep][None, :], full[keep])[0]
        rho[i] = spearman_rows(refits[i, keep][None, :], full[keep])[0]
    return tau, rho


def tiers_intact(refit: FloatArray, full: FloatArray, tiers: IntArray) -> bool:
    """True when no two models of different tiers swap order in the refit."""
    keep = np.isfinite(refit) & (tiers > 0)
    i, j = np.triu_indices(len(full), k=1)
    pairs = keep[i] & keep[j] & (tiers[i] != tiers[j])
    return bool((np.sign(refit[i] - refit[j])[pairs] == np.sign(full[i] - full[j])[pairs]).all())


def leave_one_game_out(sample: RunSample, full: Leaderboard) -> pd.DataFrame:
    """One refit per game dropped: Kendall tau, Spearman rho, largest rank move, tiers intact."""
    g = sample.runs.n_games
    selection = 1.0 - np.eye(g)
    refits = refit_on_games(sample, selection)
    tau, rho = order_agreement(refits, full.alpha)
    tiers = _tiers_by_model(full)
    full_rank = _ranks(full.alpha)
    shifts = [int(np.nanmax(np.abs(_ranks(r) - full_rank))) for r in refits]
    return pd.DataFrame(
        {
            "dropped_game": sample.runs.game_seeds,
            "kendall_tau": tau,
            "spearman": rho,
            "max_rank_shift": np.asarray(shifts, dtype=np.int64),
            "tiers_intact": [tiers_intact(r, full.alpha, tiers) for r in refits],
        }
    )


def random_game_subsets(
    sample: RunSample,
    full: Leaderboard,
    rng: np.random.Generator,
    sizes: tuple[int, ...] = SUBSET_SIZES,
    n_subsets: int = N_SUBSETS,
) -> pd.DataFrame:
    """Refits on random game subsets: median and 5th-percentile Spearman (and Kendall) per size.

    Steps: for each size draw ``n_subsets`` subsets without replacement (one random permutation
    per subset, first ``size`` games); refit all at once; compare each with the full ranking.
    """
    g = sample.runs.n_games
    rows = []
    for size in sizes:
        if not 1 <= size <= g:
            raise ValueError(f"subset size {size} is outside 1..{g} games")
        picks = np.argsort(rng.random((n_subsets, g)), axis=1)[:, :size]
        selection = np.zeros((n_subsets, g))
        np.put_along_axis(selection, picks, 1.0, axis=1)
        tau, rho = order_agreement(refit_on_games(sample, selection), full.alpha)
        rows.append(
            {
                "games": size,
                "subsets": n_subsets,
                "median_spearman": float(np.nanmedian(rho)),
                "p5_spearman": float(np.nanpercentile(rho, 5)),
                "median_kendall": float(np.nanmedian(tau)),
                "p5_kendall": float(np.nanpercentile(tau, 5)),
            }
        )
    return pd.DataFrame(rows)


def block_refit(sample: RunSample, block: str, full: Leaderboard) -> Refit:
    """Table 7: the leaderboard on one tournament block's runs, with bootstrap intervals."""
    runs = sample.runs
    if block not in runs.blocks:
        raise ValueError(f"unknown block {block!r}; the corpus has {', '.join(runs.blocks)}")
    mask = runs.cell_block == runs.blocks.index(block)
    return _refit(sample, mask, full)


def without_model(sample: RunSample, model: str, full: Leaderboard) -> Refit:
    """Table 8: the leaderboard with every run of ``model`` removed, with bootstrap intervals."""
    k = sample.runs.model_index(model)
    mask = (sample.runs.cell_first != k) & (sample.runs.cell_second != k)
    return _refit(sample, mask, full)


def _refit(sample: RunSample, mask: BoolArray, full: Leaderboard) -> Refit:
    board = fit_leaderboard(sample, mask)
    keep = np.isfinite(board.alpha) & np.isfinite(full.alpha)
    return Refit(leaderboard=board, kendall_tau=kendall_tau(board.alpha[keep], full.alpha[keep]))


def _tiers_by_model(board: Leaderboard) -> IntArray:
    tier_of = dict(zip(board.table["model"], board.table["tier"], strict=True))
    return np.asarray([int(tier_of.get(m, 0)) for m in board.models], dtype=np.int64)


def _ranks(alpha: FloatArray) -> FloatArray:
    """Rank 1 = strongest; NaN stays NaN."""
    ranks = np.full(len(alpha), np.nan)
    keep = np.isfinite(alpha)
    order = np.argsort(-alpha[keep], kind="stable")
    r = np.empty(int(keep.sum()))
    r[order] = np.arange(1, int(keep.sum()) + 1)
    ranks[keep] = r
    return ranks
