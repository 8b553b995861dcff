"""Opponent dependence (Section 3.1; Appendix C, "Opponent dependence").

How much the relative payoffs of actions depend on who the opponent is: average over cards
(worlds) and the seat's own later choices (continuations), then measure the variation of the
payoff differences across opponents.  For one decision, with m[a, theta] the mean of the
replay table over k and w and d[a, theta] = m[a, theta] - mean over actions of m[., theta],

    v = mean over a of the variance over theta of d[a, theta]      (chips squared).

Choices (the formula is not given): the variance is cross-fitted over the two halves of the
worlds (the covariance across opponents of d computed on each half), which removes the
simulation noise of the means from the estimate (``cross_fit=False`` gives the plain
variance); the seat's axis is the square root of the mean of v over mu_i's decisions (floored
at 0), in chips, divided by STD_g; seats are averaged.
"""

from __future__ import annotations

import numpy as np


def _centred_differences(values: np.ndarray) -> np.ndarray:
    """d[a, theta]: each action's mean payoff against theta minus the mean over actions,
    centred across opponents."""
    means = values.mean(axis=(1, 3))
    diffs = means - means.mean(axis=0, keepdims=True)
    centred: np.ndarray = diffs - diffs.mean(axis=1, keepdims=True)
    return centred


def opponent_variance(values: np.ndarray, cross_fit: bool = True) -> float:
    """The opponent score v of one decision's table ``values[a, k, theta, w]``."""
    a, _, t, w = values.shape
    if t < 2:
        return 0.0
    if cross_fit and w >= 2:
        half = w // 2
        first = _centred_differences(values[..., :half])
        second = _centred_differences(values[..., half:])
        return float((first * second).sum() / (a * (t - 1)))
    d = _centred_differences(values)
    return float((d * d).sum() / (a * (t - 1)))
