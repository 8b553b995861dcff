"""Diagnostics of the axes (Appendix C, "Estimation", Table 3; Appendix D).

Per game: each axis's sampling error (the standard error of a mean over decisions or deals,
combined over the two seats) and the two seats' values (their agreement).  Across the
benchmark: seat agreement (the correlation over games of Alice's and Bob's values of an axis),
the correlation with a rerun at about two-thirds of the budget on an independent population
draw, pairwise correlations of the five axes and their variance inflation factors.
Correlations are Spearman's rho (a choice: the paper writes rho without saying which); the
variance inflation factors are the diagonal of the inverse of the axes' (Pearson) correlation
matrix.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from engines.numeric.special import spearman_statistic


def mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    """The mean and its standard error (NaN mean for no values; 0 error for one)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = float(np.mean(values))
    if n == 1:
        return mean, 0.0
    return mean, float(np.std(values, ddof=1) / math.sqrt(n))


def combine_seats(values: Sequence[float], errors: Sequence[float]) -> tuple[float, float]:
    """The mean over the seats that have a value, and its standard error (seats independent).
    No seat with a value gives (0, 0): a game without such decisions demands nothing."""
    kept = [(v, e) for v, e in zip(values, errors, strict=True) if not math.isnan(v)]
    if not kept:
        return 0.0, 0.0
    mean = sum(v for v, _ in kept) / len(kept)
    error = math.sqrt(sum(0.0 if math.isnan(e) else e * e for _, e in kept)) / len(kept)
    return mean, error


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho of two sequences (NaN when undefined: fewer than 3 pairs or a constant)."""
    pairs = [(a, b) for a, b in zip(x, y, strict=True) if not (math.isnan(a) or math.isnan(b))]
    if len(pairs) < 3:
        return math.nan
    xs, ys = zip(*pairs, strict=True)
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return math.nan
    return spearman_statistic(xs, ys)


def pairwise_correlations(table: Mapping[str, Sequence[float]]) -> dict[tuple[str, str], float]:
    """Spearman's rho of every pair of axes over games."""
    names = list(table)
    return {
        (a, b): spearman(table[a], table[b]) for i, a in enumerate(names) for b in names[i + 1 :]
    }


def variance_inflation(table: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """VIF of each axis: 1 / (1 - R^2) of its regression on the others (inf if collinear,
    NaN with fewer games than axes + 2 or a constant axis)."""
    names = list(table)
    data = np.array([list(table[n]) for n in names], dtype=float)
    n_games = data.shape[1]
    if n_games < len(names) + 2 or np.any(np.std(data, axis=1) == 0):
        return {n: math.nan for n in names}
    corr = np.corrcoef(data)
    try:
        inverse = np.linalg.inv(corr)
    except np.linalg.LinAlgError:
        return {n: math.inf for n in names}
    return {n: float(inverse[i, i]) for i, n in enumerate(names)}


def seat_agreement(alice: Sequence[float], bob: Sequence[float]) -> float:
    """Spearman's rho over games of the two seats' values of one axis."""
    return spearman(alice, bob)


def rerun_correlation(full: Sequence[float], rerun: Sequence[float]) -> float:
    """Spearman's rho over games of an axis and its rerun."""
    return spearman(full, rerun)


def benchmark_diagnostics(
    axes: Mapping[str, Sequence[float]],
    alice: Mapping[str, Sequence[float]],
    bob: Mapping[str, Sequence[float]],
    rerun: Mapping[str, Sequence[float]] | None = None,
) -> dict[str, dict[str, float]]:
    """Table 3 and Appendix D over the benchmark: per axis, the seat agreement and the rerun
    correlation; the pairwise correlations (keyed "a~b") and variance inflation factors."""
    out: dict[str, dict[str, float]] = {
        "seat_agreement": {a: seat_agreement(alice[a], bob[a]) for a in alice},
        "rerun_correlation": (
            {a: rerun_correlation(axes[a], rerun[a]) for a in axes} if rerun is not None else {}
        ),
        "pairwise_correlation": {
            f"{a}~{b}": rho for (a, b), rho in pairwise_correlations(axes).items()
        },
        "variance_inflation": variance_inflation(axes),
    }
    return out
