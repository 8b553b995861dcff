"""Head-to-head tables and the win-indicator Bradley-Terry check (Appendix E, Tables 9-10).

Why it exists: the margin leaderboard is a model; Appendix E shows the raw material beside it.
Table 9 is each pair's mean chip margin per deal (row minus column) over the games on which the
pair met, both seats balanced because only complete runs enter, with paired-cluster bootstrap
intervals; Table 10 counts paired deals per pair. Section 6 then checks how many pairs' margins
point the leaderboard's way, and fits Bradley-Terry on the win indicator (ties dropped) to see how
much the order depends on using margins (Spearman rho with the margin fit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.numeric.special import expit
from engines.stats.bootstrap import percentile_interval
from engines.stats.leaderboard import RunSample
from engines.stats.ranks import spearman_rho
from engines.stats.runs import RunTable

FloatArray = npt.NDArray[np.float64]

PAIRWISE_COLUMNS: tuple[str, ...] = (
    "row",
    "column",
    "mean_margin",
    "ci_low",
    "ci_high",
    "significant",
    "paired_deals",
    "games",
)


@dataclass(frozen=True)
class DirectionCheck:
    """How many pairs that met have a mean margin in the leaderboard's direction."""

    pairs: int
    agree: int
    exceptions: int
    significant_exceptions: int


def pairwise_margins(sample: RunSample, level: float = 0.95) -> pd.DataFrame:
    """Table 9/10 in long form, one row per pair that met (row = the pair's first model).

    Steps: sum cells over games into pairs, for the data and each replicate; the mean margin per
    deal is the pair's margin sum over twice its run count; intervals are percentile intervals
    of the replicates; 'significant' means the interval excludes zero.
    """
    runs = sample.runs
    m = runs.n_models
    pair_of_cell = runs.cell_first * m + runs.cell_second
    keys, pair = np.unique(pair_of_cell, return_inverse=True)
    n_pairs = len(keys)
    onehot = np.zeros((runs.n_cells, n_pairs))
    onehot[np.arange(runs.n_cells), pair] = 1.0
    obs_counts = sample.observed.counts @ onehot
    obs_sums = sample.observed.sums @ onehot
    rep_counts = sample.replicates.counts @ onehot
    rep_sums = sample.replicates.sums @ onehot
    mean = (obs_sums / (2.0 * obs_counts))[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        rep_mean = np.where(rep_counts > 0, rep_sums / (2.0 * rep_counts), np.nan)
    low, high = percentile_interval(rep_mean, level)
    # cells are (block, game, pair): count distinct games per pair
    game_pairs = np.unique(np.stack([pair, runs.cell_game], axis=1), axis=0)
    games = np.bincount(game_pairs[:, 0], minlength=n_pairs).astype(np.int64)
    names = np.asarray(runs.models, dtype=object)
    return pd.DataFrame(
        {
            "row": names[keys // m],
            "column": names[keys % m],
            "mean_margin": mean,
            "ci_low": low,
            "ci_high": high,
            "significant": (low > 0) | (high < 0),
            "paired_deals": np.rint(obs_counts[0]).astype(np.int64),
            "games": games,
        }
    ).loc[:, list(PAIRWISE_COLUMNS)]


def pairwise_matrix(pairs: pd.DataFrame, order: list[str], value: str) -> pd.DataFrame:
    """A square table in leaderboard order: ``mean_margin`` (row - column, antisymmetric) or
    ``paired_deals`` (symmetric); NaN marks pairs that never met."""
    if value not in ("mean_margin", "paired_deals"):
        raise ValueError(f"value must be mean_margin or paired_deals, got {value!r}")
    table = pd.DataFrame(np.nan, index=pd.Index(order), columns=pd.Index(order))
    sign = -1.0 if value == "mean_margin" else 1.0
    for row, col, v in zip(pairs["row"], pairs["column"], pairs[value], strict=True):
        if row in table.index and col in table.columns:
            table.loc[row, col] = float(v)
            table.loc[col, row] = sign * float(v)
    return table


def direction_agreement(pairs: pd.DataFrame, leaderboard: pd.DataFrame) -> DirectionCheck:
    """Count pairs whose mean margin has the sign of their leaderboard difference (Section 6)."""
    alpha = dict(zip(leaderboard["model"], leaderboard["alpha"], strict=True))
    agree = exceptions = significant = 0
    for row, col, mean, sig in zip(
        pairs["row"], pairs["column"], pairs["mean_margin"], pairs["significant"], strict=True
    ):
        if row not in alpha or col not in alpha:
            continue
        if np.sign(mean) == np.sign(alpha[row] - alpha[col]):
            agree += 1
        else:
            exceptions += 1
            significant += int(bool(sig) and mean != 0)
    return DirectionCheck(
        pairs=agree + exceptions,
        agree=agree,
        exceptions=exceptions,
        significant_exceptions=significant,
    )


def win_matrix(runs: RunTable) -> FloatArray:
    """wins[i, j] = decisive deals model i won against model j (ties dropped)."""
    m = runs.n_models
    wins = np.zeros((m, m))
    np.add.at(wins, (runs.first, runs.second), runs.wins_first)
    np.add.at(wins, (runs.second, runs.first), runs.wins_second)
    return wins


def bradley_terry(wins: FloatArray, tol: float = 1e-10, max_iter: int = 200) -> FloatArray:
    """Win-indicator Bradley-Terry log-strengths, P(i beats j) = expit(theta_i - theta_j),
    sum theta = 0, by Newton's method.

    Steps: start at zero; at each step the gradient is sum_j (w_ij - n_ij p_ij) and the Hessian is
    the comparison-graph Laplacian weighted by n_ij p_ij (1 - p_ij); solve with the sum-to-zero
    augmentation; stop when the step is below ``tol``. The maximum-likelihood estimate exists only
    if every model has won and lost a decisive deal, which is checked first.
    """
    wins = np.asarray(wins, dtype=np.float64)
    m = wins.shape[0]
    played = (wins + wins.T).sum(axis=1) > 0
    if not played.all():
        raise ValueError("Bradley-Terry needs every model to have a decisive deal")
    if (wins.sum(axis=1) == 0).any() or (wins.sum(axis=0) == 0).any():
        raise ValueError("Bradley-Terry has no finite fit: some model won or lost every deal")
    n = wins + wins.T
    theta = np.zeros(m)
    ones = np.ones((m, m)) / m
    for _ in range(max_iter):
        p = expit(theta[:, None] - theta[None, :])
        grad = (wins - n * p).sum(axis=1)
        weight = n * p * (1.0 - p)
        hessian = np.diag(weight.sum(axis=1)) - weight
        step = np.linalg.solve(hessian + ones, grad)
        theta += step
        if np.abs(step).max() < tol:
            break
    else:
        raise ValueError("Bradley-Terry did not converge")
    result: FloatArray = theta - theta.mean()
    return result


def bradley_terry_frame(runs: RunTable, alpha: FloatArray) -> tuple[pd.DataFrame, float]:
    """The win-indicator fit beside the margin fit, and their Spearman correlation."""
    wins = win_matrix(runs)
    theta = bradley_terry(wins)
    frame = pd.DataFrame(
        {
            "model": list(runs.models),
            "theta": theta,
            "wins": wins.sum(axis=1).astype(np.int64),
            "losses": wins.sum(axis=0).astype(np.int64),
            "alpha": alpha,
        }
    ).sort_values("theta", ascending=False, kind="stable")
    frame.insert(2, "rank", np.arange(1, len(frame) + 1, dtype=np.int64))
    return frame.reset_index(drop=True), spearman_rho(theta, alpha)
