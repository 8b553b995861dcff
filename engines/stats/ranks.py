"""Rank agreement between two leaderboards: Kendall's tau-b and Spearman's rho (Appendix E.1).

Why it exists: the robustness checks of Section 6 and Appendix E.1 refit the leaderboard thousands
of times (leave-one-game-out, 4,000 random game subsets) and compare each refit's order with the
full one. Calling scipy once per refit is slow, so the statistics are written here in vectorised
form; the tests pin them to ``scipy.stats.kendalltau`` and ``scipy.stats.spearmanr``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engines.numeric.special import rankdata

FloatArray = npt.NDArray[np.float64]


def kendall_tau(x: FloatArray, y: FloatArray) -> float:
    """Kendall's tau-b (ties in either ranking handled as scipy does).

    tau_b = sum_{i<j} sgn(x_i - x_j) sgn(y_i - y_j) / sqrt(#{x-untied pairs} #{y-untied pairs}).
    """
    return float(kendall_tau_rows(np.asarray(x, dtype=np.float64)[None, :], np.asarray(y))[0])


def kendall_tau_rows(rows: FloatArray, y: FloatArray) -> FloatArray:
    """Kendall's tau-b of each row of ``rows`` (n, M) against ``y`` (M,)."""
    i, j = np.triu_indices(rows.shape[1], k=1)
    sx = np.sign(rows[:, i] - rows[:, j])
    sy = np.sign(np.asarray(y, dtype=np.float64)[i] - np.asarray(y, dtype=np.float64)[j])
    num = (sx * sy).sum(axis=1)
    den = np.sqrt((sx != 0).sum(axis=1) * float((sy != 0).sum()))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau: FloatArray = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return tau


def spearman_rho(x: FloatArray, y: FloatArray) -> float:
    """Spearman's rho: the Pearson correlation of average ranks."""
    return float(spearman_rows(np.asarray(x, dtype=np.float64)[None, :], np.asarray(y))[0])


def spearman_rows(rows: FloatArray, y: FloatArray) -> FloatArray:
    """Spearman's rho of each row of ``rows`` (n, M) against ``y`` (M,)."""
    rx = rankdata(rows, axis=1)
    ry = rankdata(np.asarray(y, dtype=np.float64))
    rx = rx - rx.mean(axis=1, keepdims=True)
    ry = ry - ry.mean()
    den = np.sqrt((rx * rx).sum(axis=1) * float((ry * ry).sum()))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho: FloatArray = np.where(den > 0, (rx @ ry) / np.where(den > 0, den, 1.0), np.nan)
    return rho
