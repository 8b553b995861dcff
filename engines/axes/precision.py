"""Precision (Section 3.1; Appendix C, "Precision").

The cost of small departures from the best action: the best action's payoff minus the average
payoff of its neighbours (adjacent amounts of the wager grid for bets, raises and bids, kept in
A(I) or not; every other action of A(I) for categorical choices;
``engines.axes.menus.neighbours``).  The best action is one of A(I).  To limit selection bias
it is chosen on one half of the worlds and valued on the other.  Choice: both directions are
used (choose on the first half and value on the second, and the reverse) and averaged; the
halves are the first and last ``worlds // 2`` worlds with every continuation and opponent.
Scores are chips, divided by STD_g, averaged over mu_i's decisions and over seats.
"""

from __future__ import annotations

import numpy as np

from engines.axes.menus import neighbours


def _loss(
    choose: np.ndarray,
    value: np.ndarray,
    menu: tuple[str, ...],
    legal: tuple[str, ...] | None,
    extra: tuple[str, ...],
    extra_value: np.ndarray,
) -> float:
    best = int(np.argmax(choose))  # ties: the earlier action of the menu
    near = [
        value[menu.index(n)] if n in menu else extra_value[extra.index(n)]
        for n in neighbours(menu, menu[best], legal)
    ]
    return float(value[best] - np.mean(near))


def precision_loss(
    values: np.ndarray,
    menu: tuple[str, ...],
    legal: tuple[str, ...] | None = None,
    extra: tuple[str, ...] = (),
    extra_values: np.ndarray | None = None,
) -> float:
    """The precision score (chips) of one decision's table ``values[a, k, theta, w]`` over
    A(I) ``menu``.  ``legal`` is the full menu A(I) was cut from (its wager grid gives an
    amount's neighbours; ``menu`` when None), and ``extra_values`` the same table for the
    neighbours ``extra`` that A(I) left out (``engines.axes.menus.grid_extras``)."""
    if values.shape[0] != len(menu):
        raise ValueError("the table has one row per action of the menu")
    if extra_values is None:
        extra_values = np.empty((0, *values.shape[1:]))
    if extra_values.shape[0] != len(extra):
        raise ValueError("the extra table has one row per extra action")
    half = values.shape[3] // 2
    first = values[..., :half].mean(axis=(1, 2, 3))
    second = values[..., half:].mean(axis=(1, 2, 3))
    extra_first = extra_values[..., :half].mean(axis=(1, 2, 3))
    extra_second = extra_values[..., half:].mean(axis=(1, 2, 3))
    return 0.5 * (
        _loss(first, second, menu, legal, extra, extra_second)
        + _loss(second, first, menu, legal, extra, extra_first)
    )
