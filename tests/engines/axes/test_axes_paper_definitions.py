"""Two of the axes' definitions pinned to the paper (issue 40, item 4):

- precision compares the best action with its neighbours on the full wager grid (Section 3.1:
  "adjacent amounts of the wager grid for bets and bids"), valuing a neighbour that A(I) left
  out under the same contexts as the actions A(I) keeps;
- the temporal, opponent, precision and information scores are averaged over the two seats
  (Section 3.1: "for all four axes other than state space, we average over the two seats"),
  a seat that never decides scoring 0 on each, as it does on information by construction.
"""

from __future__ import annotations

import numpy as np
import pytest
from constructed_games import draw_game

from engines.axes.budgets import axis_budget
from engines.axes.compute import DecisionScore, _assemble, compute_axes
from engines.axes.decisions import Decision, decision_distribution
from engines.axes.menus import reduce_menu
from engines.axes.population import build_population
from engines.axes.replay import action_values
from engines.axes.state_space import StateSpace
from engines.gbg import presets
from engines.gbg.spec import GameSpec


def _first_bets(spec: GameSpec) -> tuple[Decision, object, object, object]:
    """A recorded decision of example4643 whose legal menu offers seven bets (1..7)."""
    budget = axis_budget("quick")
    population = build_population(spec, budget, 5)
    selfplay = decision_distribution(spec, population, budget, 9)
    for decision in selfplay.decisions:
        if decision.menu == ("check", "bet 1", "bet 2", "bet 3", "bet 4", "bet 5", "bet 7"):
            return decision, selfplay.traces[decision.deal], population, budget
    raise AssertionError("no first bet of example4643 among the recorded decisions")


def test_a_left_out_grid_neighbour_is_replayed_under_the_same_contexts() -> None:
    # example4643's first bet: the grid is 1..7 (the stack after the ante), A(I) keeps
    # 1, 2, 3, 4, 5 and 7.  The table holds A(I)'s rows and one more, bet 6 (the grid
    # neighbour of 5 and 7).  The same decision with every amount kept replays bet 6 among
    # its own actions: every row, bet 6 included, is the same number for number.
    spec = presets.example4643()
    decision, trace, population, budget = _first_bets(spec)
    table = action_values(spec, trace, decision, population, budget, 2)  # type: ignore[arg-type]
    legal = ("check", *(f"bet {v}" for v in range(1, 8)))
    assert table.legal == legal and table.extra == ("bet 6",)
    assert table.extra_values is not None and table.extra_values.shape[0] == 1
    assert table.replays == 8 * table.values[0].size
    whole = Decision(decision.seat, decision.deal, decision.upto, legal, decision.info_state)
    full = action_values(spec, trace, whole, population, budget, 2)  # type: ignore[arg-type]
    assert full.extra == ()
    rows = [legal.index(a) for a in decision.menu]
    assert np.array_equal(full.values[rows], table.values)
    assert np.array_equal(full.values[legal.index("bet 6")], table.extra_values[0])
    assert reduce_menu(legal) == decision.menu


def _score(seat: int, temporal: float, opponent: float, precision: float) -> DecisionScore:
    return DecisionScore(seat, 2, temporal, opponent, precision, 1, 0, 1)


def test_a_seat_without_decisions_scores_zero_in_the_average_of_both_seats() -> None:
    # Hand-computed.  Alice decides twice: temporal 0.2 and 0.4, opponent variance 1 and 9
    # chips^2, precision 1 and 3 chips; Bob never decides.  Information differences: Alice
    # 2 and 4 chips, Bob 0 and 0 (a seat without decisions plays alike informed or not).
    # STD_g = 2.  Alice: temporal 0.3, opponent sqrt(5) / 2, precision 2 / 2 = 1, information
    # 3 / 2 = 1.5; Bob 0 on each.  The axes are the means over the two seats.
    decisions = [_score(0, 0.2, 1.0, 1.0), _score(0, 0.4, 9.0, 3.0)]
    report = _assemble(StateSpace(1.0, (5, 5), 10), decisions, [[2.0, 4.0], [0.0, 0.0]], 2.0)
    assert report.seats["temporal"] == [pytest.approx(0.3), 0.0]
    assert report.seats["opponent"] == [pytest.approx(np.sqrt(5) / 2), 0.0]
    assert report.seats["precision"] == [pytest.approx(1.0), 0.0]
    assert report.seats["information"] == [pytest.approx(1.5), 0.0]
    assert report.axes["temporal"] == pytest.approx(0.15)
    assert report.axes["opponent"] == pytest.approx(np.sqrt(5) / 4)
    assert report.axes["precision"] == pytest.approx(0.5)
    assert report.axes["information"] == pytest.approx(0.75)
    assert report.axes["state_space"] == pytest.approx(1.0)


def test_the_draw_game_averages_alice_with_a_bob_who_never_decides() -> None:
    # "draw": Alice alone decides (draw or stand), Bob never does.  Every axis but the state
    # space is the mean of Alice's value and Bob's 0.
    budget = axis_budget("quick").model_copy(update={"rerun": False, "decisions_per_seat": 8})
    report = compute_axes(draw_game(then_bet=False), budget, 0)
    assert report.diagnostics["decisions"] == [8, 0]
    for axis in ("temporal", "opponent", "precision", "information"):
        alice, bob = report.seats[axis]
        assert bob == 0.0
        assert report.axes[axis] == pytest.approx(alice / 2)
    assert report.seats["precision"][0] > 0.5  # drawing always wins: a real loss to halve
