"""Precision (Section 3.1; Appendix C, "Precision").

The cost of small departures from the best action: the best action's payoff minus the average
payoff of its neighbours (adjacent kept amounts for bets, raises and bids; every other action
for categorical choices; ``engines.axes.menus.neighbours``).  To limit selection bias the best
action is chosen on one half of the worlds and valued on the other.  Choice: both directions
are used (choose on the first half and value on the second, and the reverse) and averaged;
the halves are the first and last ``worlds // 2`` worlds with every continuation and opponent.
Scores are chips, divided by STD_g, averaged over mu_i's decisions and over seats.
"""

from __future__ import annotations

import numpy as np

from engines.axes.menus import neighbours


def _loss(choose: np.ndarray, value: np.ndarray, menu: tuple[str, ...]) -> float:
    best = int(np.argmax(choose))  # ties: the earlier action of the menu
    near = [menu.index(n) for n in neighbours(menu, menu[best])]
    return float(value[best] - value[near].mean())


def precision_loss(values: np.ndarray, menu: tuple[str, ...]) -> float:
    """The precision score (chips) of one decision's table ``values[a, k, theta, w]``."""
    if values.shape[0] != len(menu):
        raise ValueError("the table has one row per action of the menu")
    half = values.shape[3] // 2
    first = values[..., :half].mean(axis=(1, 2, 3))
    second = values[..., half:].mean(axis=(1, 2, 3))
    return 0.5 * (_loss(first, second, menu) + _loss(second, first, menu))
