"""Per-game strengths alpha_{m,g} (Section 6 "Strength on each game", Tables 11-12).

Why it exists: Section 7's profiles, Appendix E's composite complexity and Appendix F's variance
decomposition all start from the 12 x 50 grid of per-game strengths. On each game g the estimator
of Section 6 is refit on that game's runs alone, so the alpha_{m,g} sum to zero on every game and
are net of the opponents' strength on g. The grid is computed for the data and for every bootstrap
replicate from the same per-cell statistics as the overall leaderboard (one batch of small systems
per game), so every downstream interval is a clustered-over-runs interval.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.stats.bootstrap import CellSums
from engines.stats.leaderboard import cell_design, solve_sum_to_zero
from engines.stats.runs import RunTable

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

_CHUNK = 250


def per_game_present(runs: RunTable) -> BoolArray:
    """(M, G): whether model m played game g."""
    present = np.zeros((runs.n_models, runs.n_games), dtype=np.bool_)
    present[runs.cell_first, runs.cell_game] = True
    present[runs.cell_second, runs.cell_game] = True
    return present


def game_normal_equations(
    runs: RunTable, counts: FloatArray, sums: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Each game's X'X (b, G, M, M) and X'y (b, G, M) from cell counts and sums (b, K)."""
    m, g = runs.n_models, runs.n_games
    outer, diff = cell_design(runs)
    lap = np.zeros((counts.shape[0], g, m * m), dtype=np.float64)
    rhs = np.zeros((counts.shape[0], g, m), dtype=np.float64)
    for k in range(g):
        idx = np.flatnonzero(runs.cell_game == k)
        lap[:, k] = counts[:, idx] @ outer[idx]
        rhs[:, k] = sums[:, idx] @ diff[idx]
    return lap.reshape(counts.shape[0], g, m, m), rhs


def per_game_alpha(runs: RunTable, cells: CellSums) -> FloatArray:
    """Per-game strengths (B, M, G) for each replicate row of ``cells``; NaN where m did not play g.

    Steps, per chunk of replicates: accumulate each game's X'X and X'y from its cells; solve all
    (replicate, game) systems with the sum-to-zero constraint over the game's models.
    """
    present = per_game_present(runs).T
    out = np.empty((cells.n_replicates, runs.n_models, runs.n_games), dtype=np.float64)
    for start in range(0, cells.n_replicates, _CHUNK):
        stop = min(start + _CHUNK, cells.n_replicates)
        lap, rhs = game_normal_equations(runs, cells.counts[start:stop], cells.sums[start:stop])
        out[start:stop] = solve_sum_to_zero(lap, rhs, present).transpose(0, 2, 1)
    return out


def per_game_frame(runs: RunTable, alpha_game: FloatArray) -> pd.DataFrame:
    """Table 12: games as rows (by seed), models as columns."""
    return pd.DataFrame(
        alpha_game.T,
        index=pd.Index(runs.game_seeds, name="game_seed"),
        columns=list(runs.models),
    )


def per_game_mean_margin(runs: RunTable) -> pd.DataFrame:
    """Table 11: each model's exact mean chip margin per deal on each game (NaN if it never played).

    A run contributes its margin sum to the first model and minus it to the second, over two deals.
    """
    m, g = runs.n_models, runs.n_games
    totals = np.zeros((m, g))
    deals = np.zeros((m, g))
    np.add.at(totals, (runs.first, runs.game), runs.margin)
    np.add.at(totals, (runs.second, runs.game), -runs.margin)
    np.add.at(deals, (runs.first, runs.game), 2.0)
    np.add.at(deals, (runs.second, runs.game), 2.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(deals > 0, totals / np.maximum(deals, 1.0), np.nan)
    return pd.DataFrame(
        mean.T, index=pd.Index(runs.game_seeds, name="game_seed"), columns=list(runs.models)
    )
