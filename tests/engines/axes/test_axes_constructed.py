"""Evidence that the axes measure what they claim, on constructed games whose answer is known
(issue: "Evidence the axes measure what they claim").  Each test states its expectation."""

from __future__ import annotations

import math

import pytest
from constructed_games import bet_game, draw_game, family_game, peek_game

from engines.axes.budgets import AxisBudget, axis_budget
from engines.axes.compute import AxisReport, compute_axes
from engines.axes.state_space import state_space
from engines.gbg.spec import GameSpec

BUDGET: AxisBudget = axis_budget("quick").model_copy(
    update={
        "decisions_per_seat": 16,
        "info_opponents": 4,
        "info_deals": 30,
        "search_worlds": 8,
        "rerun": False,
    }
)

_CACHE: dict[tuple[str, int], AxisReport] = {}


def axes_of(spec: GameSpec, seed: int = 0) -> AxisReport:
    key = (spec.spec_hash, seed)
    if key not in _CACHE:
        _CACHE[key] = compute_axes(spec, BUDGET, seed)
    return _CACHE[key]


@pytest.mark.parametrize("seed", [0, 1])
def test_information_is_zero_when_own_cards_cannot_change_the_payoff(seed: int) -> None:
    # Expectation: in "bet-blind" every rank has the same value, so every showdown is a
    # refund whatever the cards; searching with or without one's own cards values the actions
    # alike, and the informed player gains nothing: information = 0 within 3 standard errors.
    report = axes_of(bet_game(cards_matter=False), seed)
    info, error = report.axes["information"], report.sampling_error["information"]
    assert abs(info) <= 3 * error + 1e-9, (info, error)


@pytest.mark.parametrize("seed", [0, 1])
def test_information_is_clearly_positive_when_own_cards_matter(seed: int) -> None:
    # Expectation: the same game with ranks of different value: an informed searcher calls or
    # folds, bets or checks according to its card and beats the uninformed one, clearly above
    # zero and above the blind variant (both by more than 3 standard errors).
    blind = axes_of(bet_game(cards_matter=False), seed)
    cards = axes_of(bet_game(cards_matter=True), seed)
    info, error = cards.axes["information"], cards.sampling_error["information"]
    assert info > 3 * error
    gap = info - blind.axes["information"]
    assert gap > 3 * math.hypot(error, blind.sampling_error["information"])


def test_temporal_is_zero_for_a_single_decision_with_nothing_after() -> None:
    # Expectation: in "draw" Alice's draw-or-stand is the only decision of the game; with
    # nothing played after it, later play cannot interact with the action: temporal = 0
    # (exactly, since chance after the decision belongs to the world), for every decision.
    report = axes_of(draw_game(then_bet=False))
    assert report.diagnostics["decisions"] == [BUDGET.decisions_per_seat, 0]
    assert report.axes["temporal"] == pytest.approx(0.0, abs=1e-12)
    assert report.seats["temporal"][0] == pytest.approx(0.0, abs=1e-12)
    assert report.seats["temporal"][1] == 0.0  # Bob never decides: he scores 0


def test_temporal_is_positive_once_play_follows_the_decision() -> None:
    # Expectation: the same draw followed by a betting round: the value of drawing now depends
    # on how the bets go, so temporal is clearly above zero (more than 3 standard errors).
    report = axes_of(draw_game(then_bet=True))
    assert report.axes["temporal"] > 3 * report.sampling_error["temporal"]
    assert report.axes["temporal"] > 0.05


def test_precision_loss_is_high_when_one_action_dominates() -> None:
    # Expectation: drawing always wins "draw" (two cards outscore one), standing wins only
    # with a high card: choosing the best action and losing the difference to its neighbour
    # costs about 4 chips on average, around one STD_g; the estimate is far above its error.
    # Bob never decides and scores 0, so the axis is half of Alice's value.
    report = axes_of(draw_game(then_bet=False))
    precision, error = report.axes["precision"], report.sampling_error["precision"]
    assert report.seats["precision"][0] > 0.5
    assert precision == pytest.approx(report.seats["precision"][0] / 2)
    assert precision > 4 * error


def test_precision_loss_is_zero_when_the_choice_cannot_matter() -> None:
    # Expectation: in "peek" Alice's peek-or-pass changes nothing that is ever scored, and both
    # actions meet the same cards (common random numbers): precision = 0 exactly.
    report = axes_of(peek_game())
    assert report.axes["precision"] == pytest.approx(0.0, abs=1e-12)
    assert report.axes["temporal"] == pytest.approx(0.0, abs=1e-12)


def test_state_space_grows_with_deck_and_hand_size() -> None:
    # Expectation: on a family of otherwise identical games, more ranks (a bigger deck) and
    # more cards in hand each give strictly more distinct information states over 3,000 deals.
    def log_states(n_ranks: int, hand: int) -> float:
        return state_space(family_game(n_ranks, hand), 3_000, seed=0).log10_states

    decks = [log_states(n, 1) for n in (3, 4, 5, 6)]
    assert decks == sorted(decks) and len(set(decks)) == len(decks), decks
    hands = [log_states(6, h) for h in (1, 2, 3)]
    assert hands == sorted(hands) and len(set(hands)) == len(hands), hands
    both = [log_states(n, h) for n, h in ((3, 1), (4, 2), (6, 3))]
    assert both == sorted(both) and len(set(both)) == len(both), both
