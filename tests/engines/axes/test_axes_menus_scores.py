"""A(I), neighbours, and the per-decision temporal, opponent and precision scores on tables
whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from engines.axes.menus import amount_of, grid_extras, kept_amounts, neighbours, reduce_menu
from engines.axes.opponent import opponent_variance
from engines.axes.precision import precision_loss
from engines.axes.temporal import temporal_share


def test_amount_menus_keep_the_four_smallest_the_midpoint_and_the_largest() -> None:
    assert kept_amounts([1, 2, 3, 4, 5, 6]) == [1, 2, 3, 4, 5, 6]
    # Seven values: the midpoint of 1..7 is 4, already kept; the nearest value left is 5.
    # Ten values 1..10: the midpoint 5.5 is as near 5 as 6; ties go to the smaller.
    assert kept_amounts([1, 2, 3, 4, 5, 6, 7]) == [1, 2, 3, 4, 5, 7]
    assert kept_amounts([1, 2, 3, 4, 5, 6, 8, 10, 15, 20]) == [1, 2, 3, 4, 10, 20]
    menu = ("fold", "call", *(f"raise {v}" for v in range(1, 11)))
    assert reduce_menu(menu) == (
        "fold",
        "call",
        "raise 1",
        "raise 2",
        "raise 3",
        "raise 4",
        "raise 5",
        "raise 10",
    )
    short = ("check", "bet 1", "bet 2")
    assert reduce_menu(short) is short
    assert amount_of("bid 3") == ("bid", 3) and amount_of("swap K♠") is None


def test_neighbours_are_adjacent_amounts_or_every_other_action() -> None:
    menu = ("fold", "call", "raise 2", "raise 4", "raise 8")
    assert neighbours(menu, "raise 4") == ("raise 2", "raise 8")
    assert neighbours(menu, "raise 2") == ("raise 4",)
    assert neighbours(menu, "call") == ("fold", "raise 2", "raise 4", "raise 8")
    # A single amount on offer is a categorical choice.
    assert neighbours(("check", "bet 2"), "bet 2") == ("check",)
    with pytest.raises(ValueError, match="not in the menu"):
        neighbours(menu, "raise 3")


def test_an_amount_is_compared_with_its_neighbours_on_the_full_wager_grid() -> None:
    # Section 3.1: "adjacent amounts of the wager grid for bets and bids".  Of the grid 1..7,
    # A(I) keeps 1, 2, 3, 4, 5 and 7; on the grid, 5 lies between 4 and 6 and 7 next to 6,
    # although A(I) left 6 out.
    legal = ("check", *(f"bet {v}" for v in range(1, 8)))
    menu = reduce_menu(legal)
    assert menu == ("check", "bet 1", "bet 2", "bet 3", "bet 4", "bet 5", "bet 7")
    assert neighbours(menu, "bet 5", legal) == ("bet 4", "bet 6")
    assert neighbours(menu, "bet 7", legal) == ("bet 6",)
    assert neighbours(menu, "bet 4", legal) == ("bet 3", "bet 5")
    assert neighbours(menu, "check", legal) == tuple(a for a in menu if a != "check")
    assert neighbours(menu, "bet 5") == ("bet 4", "bet 7")  # within A(I) alone
    assert grid_extras(menu, legal) == ("bet 6",)
    # Raises of 1..10: A(I) keeps 1, 2, 3, 4, 5 and 10; the grid adds 6 (beside 5) and 9
    # (beside 10).
    raises = ("fold", "call", *(f"raise {v}" for v in range(1, 11)))
    assert grid_extras(reduce_menu(raises), raises) == ("raise 6", "raise 9")
    # Nothing cut, nothing extra.
    assert grid_extras(("check", "bet 1", "bet 2"), ("check", "bet 1", "bet 2")) == ()


def _table(f: np.ndarray, shape: tuple[int, int, int, int]) -> np.ndarray:
    return np.broadcast_to(f, shape).astype(float).copy()


def test_temporal_share_is_the_action_by_later_play_interaction() -> None:
    rng = np.random.default_rng(1)
    a, k, t, w = 3, 4, 5, 6
    # Additive effects (action, continuation, opponent, world) and action x world: 0.
    additive = (
        rng.normal(size=(a, 1, 1, 1))
        + rng.normal(size=(1, k, 1, 1))
        + rng.normal(size=(1, 1, t, 1))
        + rng.normal(size=(1, 1, 1, w))
        + rng.normal(size=(a, 1, 1, w))
    )
    assert temporal_share(_table(additive, (a, k, t, w))) == pytest.approx(0.0, abs=1e-12)
    # A pure action x opponent interaction: all of the variance.
    pure = rng.normal(size=(a, 1, t, 1))
    pure = pure - pure.mean(axis=0, keepdims=True) - pure.mean(axis=2, keepdims=True)
    pure += pure.mean()
    assert temporal_share(_table(pure, (a, k, t, w))) == pytest.approx(1.0)
    # A constant table has no variance to share.
    assert temporal_share(np.ones((a, k, t, w))) == 0.0


def test_opponent_variance_recovers_a_planted_spread_and_ignores_noise() -> None:
    rng = np.random.default_rng(2)
    a, k, t, w = 3, 4, 9, 10
    # Action 0 gains +s against half the opponents and -s against the others.
    s = 2.0
    effect = np.zeros((a, 1, t, 1))
    effect[0, 0, :, 0] = np.where(np.arange(t) % 2 == 0, s, -s)
    plain = opponent_variance(_table(effect, (a, k, t, w)), cross_fit=False)
    crossed = opponent_variance(_table(effect, (a, k, t, w)), cross_fit=True)
    assert crossed == pytest.approx(plain)
    assert plain > 0
    # Pure noise: the plain estimate is biased upward, the cross-fitted one is not.
    noise = [rng.normal(size=(a, k, t, w)) for _ in range(400)]
    plain_mean = np.mean([opponent_variance(x, cross_fit=False) for x in noise])
    crossed = [opponent_variance(x, cross_fit=True) for x in noise]
    crossed_mean, crossed_error = np.mean(crossed), np.std(crossed) / np.sqrt(len(crossed))
    assert plain_mean > 0.01
    assert abs(crossed_mean) < 3 * crossed_error


def test_precision_loss_compares_the_best_action_with_its_neighbours() -> None:
    menu = ("check", "bet 1", "bet 2", "bet 3")
    means = np.array([0.0, 1.0, 5.0, 2.0])
    table = np.broadcast_to(means[:, None, None, None], (4, 2, 2, 4)).copy()
    # Best is "bet 2"; its neighbours are "bet 1" and "bet 3": 5 - (1 + 2) / 2.
    assert precision_loss(table, menu) == pytest.approx(3.5)
    # Best on the first half of the worlds, valued on the second: no selection bias when the
    # halves disagree.
    table[..., 2:] = table[..., 2:][::-1]
    loss = precision_loss(table, menu)
    assert loss < 3.5
    with pytest.raises(ValueError, match="one row per action"):
        precision_loss(table[:3], menu)


def test_precision_values_a_grid_neighbour_that_a_i_left_out() -> None:
    # Hand-computed: the grid is bet 1..7 and A(I) = check, bet 1, 2, 3, 4, 5, 7.  Mean payoffs
    # (chips): check 0, bet 1 1, bet 2 1, bet 3 1, bet 4 2, bet 5 6, bet 7 0, and the left-out
    # bet 6 4.  The best action is bet 5; its grid neighbours are bet 4 and bet 6:
    # 6 - (2 + 4) / 2 = 3.  Compared within A(I) alone (bet 4 and bet 7) it would be
    # 6 - (2 + 0) / 2 = 5.
    legal = ("check", *(f"bet {v}" for v in range(1, 8)))
    menu = reduce_menu(legal)
    means = np.array([0.0, 1.0, 1.0, 1.0, 2.0, 6.0, 0.0])
    table = np.broadcast_to(means[:, None, None, None], (7, 2, 3, 4)).copy()
    extra = np.full((1, 2, 3, 4), 4.0)
    assert precision_loss(table, menu, legal, ("bet 6",), extra) == pytest.approx(3.0)
    assert precision_loss(table, menu) == pytest.approx(5.0)
    with pytest.raises(ValueError, match="one row per extra action"):
        precision_loss(table, menu, legal, (), extra)
