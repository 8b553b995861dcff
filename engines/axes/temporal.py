"""Temporal contingency (Section 3.1; Appendix C, "Temporal contingency").

A good decision now may depend on what the players will do later.  Over the replay table of a
decision (``values[a, k, theta, w]``), part of the payoff variation comes from actions being
better on average, part from favourable cards or play whatever the action, and part from their
interaction: how much the comparison between actions changes with the conditions of play.

Choice (the paper's formula is not given): the conditions of play are the later play, the pair
(continuation k, opponent theta), compared within each world w.  The score of a decision is

    sum over (a, p, w) of (y[a,p,w] - y[a,.,w] - y[.,p,w] + y[.,.,w])^2  /  sum (y - y[.,.,.])^2

with p = (k, theta) and dots for means: the action x later-play interaction (including its
variation across worlds) as a share of the total variance of the table.  The action x world
part is left out on purpose: it measures how the best action depends on the cards, which the
information and precision axes see, and it would make a game with one decision and nothing
after it temporally contingent.  Such a game scores exactly 0 (later chance is tied to the
world, so nothing varies with p).  The axis is the mean over mu_i's decisions, averaged over
seats; it is a share, not divided by STD_g.
"""

from __future__ import annotations

import numpy as np

TOLERANCE = 1e-12


def temporal_share(values: np.ndarray) -> float:
    """The temporal score of one decision's table ``values[a, k, theta, w]``."""
    a, k, t, w = values.shape
    table = values.reshape(a, k * t, w)
    total = float(((table - table.mean()) ** 2).sum())
    if total <= TOLERANCE:
        return 0.0
    within = table - table.mean(axis=1, keepdims=True)
    interaction = within - within.mean(axis=0, keepdims=True)
    return float((interaction**2).sum()) / total
