"""Selecting the benchmark: farthest-point sampling on the screening axes (Section 4).

Each screening axis is min-max normalised over the pool (a constant axis becomes 0).  The
first game is the one farthest from the pool's centroid (a choice: the paper does not say how
the sampling starts); each next game is the one whose smallest Euclidean distance to the games
already selected is largest.  Ties go to the earlier game in the pool's order (the pool is
ordered by seed), so the selection is a deterministic function of the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def normalise(columns: Mapping[str, Sequence[float]]) -> np.ndarray:
    """Games x axes, each column min-max normalised to [0, 1]."""
    data = np.array([list(v) for v in columns.values()], dtype=float).T
    if data.size == 0:
        return data
    if np.isnan(data).any():
        raise ValueError("screening axes contain NaN; every game needs all six values")
    low, high = data.min(axis=0), data.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    scaled: np.ndarray = (data - low) / span
    return scaled


def farthest_point(points: np.ndarray, n: int) -> list[tuple[int, float]]:
    """Indices of ``n`` points chosen by farthest-point sampling, each with its distance to
    the points chosen before it (to the centroid for the first)."""
    count = points.shape[0]
    if not 0 < n <= count:
        raise ValueError(f"cannot select {n} games from a pool of {count}")
    centroid = points.mean(axis=0)
    first_distance = np.linalg.norm(points - centroid, axis=1)
    first = int(np.argmax(first_distance))  # argmax takes the first of ties
    chosen = [(first, float(first_distance[first]))]
    nearest = np.linalg.norm(points - points[first], axis=1)
    taken = np.zeros(count, dtype=bool)
    taken[first] = True
    for _ in range(n - 1):
        candidates = np.where(taken, -1.0, nearest)
        pick = int(np.argmax(candidates))
        chosen.append((pick, float(nearest[pick])))
        taken[pick] = True
        nearest = np.minimum(nearest, np.linalg.norm(points - points[pick], axis=1))
    return chosen
