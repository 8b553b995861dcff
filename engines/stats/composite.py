"""Composite complexity and the hardest games (Section 6 "The hardest games", Appendix E).

Why it exists: five axes are too many to rank games by. Appendix E collapses them into one
learned discrimination score and asks whether the leaderboard spreads out on the hardest games.

Steps:
1. z-score each axis across the benchmark games (Section 7's z_a(g));
2. for each model and axis separately, the slope of alpha_{m,g} on z_a(g);
3. centre the model x axis slope matrix's columns over models and take its first principal
   component; rescale the weights to unit absolute sum, with the temporal weight positive;
4. score each game by the weighted sum of its z-scores; refit the leaderboard on the top eight;
5. check against overfitting by learning the weights on a random half of the games and scoring the
   other half (20 splits, the top four of each half);
6. refit within tertiles of an axis (temporal) or of the score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.axes.names import AXES
from engines.numeric.zscores import zscores
from engines.stats.leaderboard import Leaderboard, RunSample, fit_leaderboard
from engines.stats.robustness import refit_on_games

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

HARDEST = 8
N_SPLITS = 20


@dataclass(frozen=True)
class Composite:
    """Weights per axis (unit absolute sum), the variance share of the first component, scores."""

    weights: FloatArray
    explained: float
    scores: FloatArray
    slopes: FloatArray


def zscore_axes(axis_scores: pd.DataFrame, game_seeds: IntArray) -> FloatArray:
    """z_a(g) = (x_a(g) - mean_a) / sd_a over the corpus's games (G, 5), in ``game_seeds`` order.

    The standard deviation is the population one (ddof = 0), so each column has unit variance
    (see ``engines.numeric.zscores`` for the choice).
    """
    missing = [c for c in ("game_seed", *AXES) if c not in axis_scores.columns]
    if missing:
        raise ValueError(f"axis scores lack column(s) {', '.join(missing)}")
    table = axis_scores.drop_duplicates("game_seed").set_index("game_seed")
    absent = [int(s) for s in game_seeds if int(s) not in table.index]
    if absent:
        raise ValueError(f"no axis scores for game(s) {absent[:5]}; every played game needs them")
    x = table.loc[list(game_seeds), list(AXES)].to_numpy(dtype=np.float64)
    return regressor_zscores(x)


def regressor_zscores(x: FloatArray) -> FloatArray:
    """Section 7's z-scores of regressors (columns, population SD: unit variance); a constant or
    non-finite column raises, since no slope can be fitted on it."""
    if not np.isfinite(x).all() or (np.ptp(x, axis=0) == 0).any():
        raise ValueError(
            "an axis is constant or non-finite across the games; it cannot be z-scored"
        )
    return zscores(x, ddof=0)


def axis_slopes(alpha_game: FloatArray, z: FloatArray) -> FloatArray:
    """(M, A): slope of alpha_{m,g} on each z_a(g) in its own simple regression (finite games)."""
    m, a = alpha_game.shape[0], z.shape[1]
    slopes = np.empty((m, a))
    for i in range(m):
        keep = np.isfinite(alpha_game[i])
        y = alpha_game[i, keep] - alpha_game[i, keep].mean()
        zc = z[keep] - z[keep].mean(axis=0)
        slopes[i] = (zc * y[:, None]).sum(axis=0) / (zc * zc).sum(axis=0)
    return slopes


def composite_weights(slopes: FloatArray) -> tuple[FloatArray, float]:
    """First principal component of the column-centred slope matrix, unit absolute sum,
    temporal weight positive; and the share of variance it explains."""
    centred = slopes - slopes.mean(axis=0)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    weights = vt[0] / np.abs(vt[0]).sum()
    if weights[AXES.index("temporal")] < 0:
        weights = -weights
    explained = float(singular[0] ** 2 / (singular**2).sum())
    return weights, explained


def composite(alpha_game: FloatArray, z: FloatArray) -> Composite:
    """Weights, explained share and per-game scores of the composite complexity."""
    slopes = axis_slopes(alpha_game, z)
    weights, explained = composite_weights(slopes)
    return Composite(weights=weights, explained=explained, scores=z @ weights, slopes=slopes)


def top_games(scores: FloatArray, k: int) -> IntArray:
    """Indices of the ``k`` highest-scoring games (ties broken by position)."""
    return np.argsort(-scores, kind="stable")[:k].astype(np.int64)


def games_leaderboard(sample: RunSample, games: IntArray) -> Leaderboard:
    """The leaderboard refit on the runs of the given games, with bootstrap intervals."""
    return fit_leaderboard(sample, np.isin(sample.runs.cell_game, games))


def half_split_check(
    sample: RunSample,
    alpha_game: FloatArray,
    z: FloatArray,
    rng: np.random.Generator,
    n_splits: int = N_SPLITS,
    k: int = HARDEST,
) -> pd.DataFrame:
    """Cross-validated spread on the hardest games: weights learned on one half of the games
    score the other half; the top k/2 of each half form the hard set; refit and measure the spread.
    """
    g = z.shape[0]
    selections = np.zeros((n_splits, g))
    for s in range(n_splits):
        perm = rng.permutation(g)
        half_a, half_b = perm[: g // 2], perm[g // 2 :]
        for learn, score in ((half_a, half_b), (half_b, half_a)):
            weights, _ = composite_weights(axis_slopes(alpha_game[:, learn], z[learn]))
            hard = score[top_games(z[score] @ weights, k // 2)]
            selections[s, hard] = 1.0
    refits = refit_on_games(sample, selections)
    spread = np.nanmax(refits, axis=1) - np.nanmin(refits, axis=1)
    return pd.DataFrame({"split": np.arange(n_splits), "spread": spread})


def tertiles(values: FloatArray) -> IntArray:
    """Tertile (0 lowest, 2 highest) of each game by ``values``, sizes as equal as possible."""
    order = np.argsort(values, kind="stable")
    tertile = np.empty(len(values), dtype=np.int64)
    tertile[order] = (3 * np.arange(len(values))) // len(values)
    return tertile


def tertile_leaderboards(sample: RunSample, values: FloatArray) -> list[Leaderboard]:
    """Table 6: one leaderboard per tertile of the games by ``values``, easiest first."""
    tertile = tertiles(values)
    return [games_leaderboard(sample, np.flatnonzero(tertile == t)) for t in range(3)]
