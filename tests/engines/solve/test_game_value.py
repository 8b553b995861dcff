"""The equilibrium value by the sequence-form LP, against known values and OpenSpiel's LP."""

from __future__ import annotations

import pytest
from open_spiel.python.algorithms import sequence_form_lp

from arena.games import resolve_game
from engines.agents.equilibrium import count_histories
from engines.gbg import presets
from engines.gbg.state import State
from engines.solve import value
from engines.solve.best_response import policy_value, uniform_policy
from engines.solve.openspiel_bridge import as_pyspiel_game
from engines.solve.value import SequenceForm, game_value, solve_sequence_form

# The seeds below 200 whose generated game has at most 4,000 histories (GENERATOR_VERSION 1):
# OpenSpiel's LP solves each in well under a second. Seed 49's game has no decision.
SMALL_SEEDS = (0, 15, 17, 19, 20, 49, 50, 61, 99, 171, 177, 180, 193)
SMALL_HISTORIES = 4_000


def test_game_values_are_the_known_ones() -> None:
    # Kuhn: -1/18 for the first player (Kuhn 1950); Leduc: -0.085606424078 (OpenSpiel's
    # sequence_form_lp_test, leduc_poker, to the digits it gives)
    assert game_value(presets.kuhn()) == pytest.approx(-1 / 18, abs=1e-12)
    assert game_value(presets.leduc()) == pytest.approx(-0.085606424078, abs=1e-9)


def test_the_sequence_form_has_one_sequence_per_action_of_each_information_set() -> None:
    form = SequenceForm(presets.kuhn())
    # Kuhn: 6 information sets per seat (3 cards x 2 histories), 2 actions each
    assert form.sequences == [13, 13]
    assert [len(m) for m in form.members[0]] == [2] * 6
    for seat in (0, 1):
        constraints = form.constraints(seat).toarray()
        assert constraints.shape == (7, 13)
        # every sequence but the empty one belongs to exactly one information set
        assert sorted(s for m in form.members[seat] for s in m) == list(range(1, 13))
        assert ((constraints[1:, 1:] == 1).sum(axis=0) == 1).all()


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_the_presets_equal_openspiels_sequence_form_lp(name: str) -> None:
    spec = presets.PRESETS[name]()
    theirs = sequence_form_lp.solve_zero_sum_game(as_pyspiel_game(spec))[0]
    assert game_value(spec) == pytest.approx(float(theirs), abs=1e-7)


@pytest.mark.slow
def test_small_generated_games_equal_openspiels_sequence_form_lp() -> None:
    compared = 0
    for seed in SMALL_SEEDS:
        spec = resolve_game(str(seed))
        assert count_histories(spec, SMALL_HISTORIES) <= SMALL_HISTORIES, seed
        form = SequenceForm(spec)
        ours = solve_sequence_form(form)
        if form.sequences == [1, 1]:
            # nobody decides (OpenSpiel's LP finds no decision state and raises): the value is
            # the expected chips under chance alone
            expected = policy_value(spec, 0, uniform_policy, uniform_policy)
            assert ours == pytest.approx(expected, abs=1e-12)
            continue
        theirs = float(sequence_form_lp.solve_zero_sum_game(as_pyspiel_game(spec))[0])
        assert ours == pytest.approx(theirs, abs=1e-7), seed
        compared += 1
    assert compared == len(SMALL_SEEDS) - 1


def test_the_game_value_of_a_generated_game_is_cached_by_its_spec_hash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a generated spec is not hashable (it carries its generation record): regression for a
    # cache keyed by the spec itself
    first = game_value(resolve_game("0"))
    assert abs(first) < 1.0  # a small generated game: a fraction of a chip per deal

    def solved_already(form: SequenceForm) -> float:
        raise AssertionError("the LP ran again")

    monkeypatch.setattr(value, "solve_sequence_form", solved_already)
    assert game_value(resolve_game("0")) == first  # from the cache, by spec hash


def test_a_game_without_perfect_recall_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every decision of a seat in one information state: Kuhn's second decisions then follow
    # different sequences into the same state, which the sequence form cannot express
    monkeypatch.setattr(State, "information_state", lambda self, seat: f"seat {seat}")
    with pytest.raises(ValueError, match=r"kuhn.*reached by two different sequences"):
        SequenceForm(presets.kuhn())
