"""Exact best and worst responses and the efficiency scale, checked against OpenSpiel."""

from __future__ import annotations

from typing import Any

import pyspiel
import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import best_response as os_best_response

from arena.ablations.opponents import PolicyTable, estimate_policy, table_policy
from arena.ablations.runner import PROGRAMS
from arena.programs.sandbox import Program
from engines.gbg import State, presets
from engines.solve.best_response import (
    efficiency,
    policy_value,
    respond,
    respond_both,
    response_policy,
    uniform_policy,
)

OPENSPIEL = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}
RANK_VALUE = {"J": 11, "Q": 12, "K": 13}


def program(state: State, seat: int) -> dict[str, float]:
    """A fixed, deterministic strategy program: aggressive with a K, or with a pair with the
    board; calls with a Q or better; otherwise checks or folds."""
    legal = state.legal_actions()
    card = state.g.label_of[state.hands[seat][0]]
    board = [state.g.label_of[c][0] for c in state.board]
    strong = card[0] == "K" or card[0] in board
    raises = [a for a in legal if a.startswith(("bet", "raise"))]
    if strong and raises:
        return {raises[0]: 1.0}
    if "call" in legal and RANK_VALUE[card[0]] >= 12:
        return {"call": 1.0}
    return {"check": 1.0} if "check" in legal else {"fold": 1.0}


class _ProgramPolicy(os_policy.Policy):  # type: ignore[misc]
    """The same program, seen by OpenSpiel through our bridge (``state.deal`` is ours)."""

    def action_probabilities(self, state: Any, player_id: Any = None) -> dict[int, float]:
        ours = program(state.deal, state.current_player())
        index = state.tables.index
        return {index[a]: p for a, p in ours.items()}


def _openspiel_values(name: str, seat: int, opponent: str) -> float:
    if opponent == "uniform":
        game = pyspiel.load_game(OPENSPIEL[name])
        fixed = os_policy.UniformRandomPolicy(game)
    else:
        from engines.solve.openspiel_bridge import as_pyspiel_game

        game = as_pyspiel_game(presets.PRESETS[name]())
        fixed = _ProgramPolicy(game, [0, 1])
    br = os_best_response.BestResponsePolicy(game, seat, fixed)
    return float(br.value(game.new_initial_state()))


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("opponent", ["uniform", "program"])
def test_best_response_value_equals_openspiel(name: str, seat: int, opponent: str) -> None:
    spec = presets.PRESETS[name]()
    fixed = uniform_policy if opponent == "uniform" else program
    ours = respond(spec, seat, fixed).value
    assert ours == pytest.approx(_openspiel_values(name, seat, opponent), abs=1e-9)


def test_known_kuhn_best_response_to_uniform() -> None:
    # Against uniform random Kuhn, the first player's best response wins 1/2 a chip a deal
    # (OpenSpiel best_response_test / exploitability: NashConv of uniform = 11/12 = 1/2 + 5/12).
    spec = presets.kuhn()
    assert respond(spec, 0, uniform_policy).value == pytest.approx(0.5)
    assert respond(spec, 1, uniform_policy).value == pytest.approx(5 / 12)


# leduc: over 5 s, make test only
@pytest.mark.parametrize("name", ["kuhn", pytest.param("leduc", marks=pytest.mark.slow)])
def test_efficiency_scale_ends(name: str) -> None:
    spec = presets.PRESETS[name]()
    best = respond(spec, 0, program, best=True)
    worst = respond(spec, 0, program, best=False)
    assert worst.value < best.value
    assert efficiency(spec, 0, response_policy(best), program).score == pytest.approx(1.0)
    assert efficiency(spec, 0, response_policy(worst), program).score == pytest.approx(0.0)
    middle = efficiency(spec, 0, uniform_policy, program).score
    assert 0.0 < middle < 1.0


def test_policy_value_is_zero_sum() -> None:
    spec = presets.kuhn()
    a = policy_value(spec, 0, uniform_policy, program)
    b = policy_value(spec, 1, program, uniform_policy)
    assert a == pytest.approx(-b)


class _TablePolicy(os_policy.Policy):  # type: ignore[misc]
    """A sandboxed program's estimated policy table, seen by OpenSpiel through our bridge."""

    def __init__(self, game: Any, table: PolicyTable) -> None:
        super().__init__(game, [0, 1])
        self.policy = table_policy(table)

    def action_probabilities(self, state: Any, player_id: Any = None) -> dict[int, float]:
        ours = self.policy(state.deal, state.current_player())
        return {state.tables.index[a]: p for a, p in ours.items()}


# leduc: over 5 s, make test only
@pytest.mark.parametrize("name", ["kuhn", pytest.param("leduc", marks=pytest.mark.slow)])
@pytest.mark.parametrize("program_file", ["bluffer", "cautious"])
def test_best_response_to_a_sandboxed_program_equals_openspiel(
    name: str, program_file: str
) -> None:
    """The shipped strategy programs, run in the sandbox: the exact best response's value to
    each (in both seats) equals OpenSpiel's ``BestResponsePolicy`` on the bridged game."""
    from engines.solve.openspiel_bridge import as_pyspiel_game

    spec = presets.PRESETS[name]()
    game = as_pyspiel_game(spec)
    with Program(PROGRAMS / f"{program_file}.py") as sandboxed:
        for program_seat in (0, 1):
            table = estimate_policy(sandboxed, spec, program_seat, seeds=4)
            seat = 1 - program_seat
            ours = respond(spec, seat, table_policy(table)).value
            br = os_best_response.BestResponsePolicy(game, seat, _TablePolicy(game, table))
            assert ours == pytest.approx(float(br.value(game.new_initial_state())), abs=1e-9)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_both_responses_from_one_expansion_equal_the_single_ones(name: str) -> None:
    spec = presets.PRESETS[name]()
    for seat in (0, 1):
        best, worst = respond_both(spec, seat, program)
        # respond_both uses the array form: the same values up to float summation order, and
        # choices that reach them (at a tie either optimal action may be chosen).
        for got, want in ((best, respond(spec, seat, program, best=True)),
                          (worst, respond(spec, seat, program, best=False))):  # fmt: skip
            assert got.value == pytest.approx(want.value, abs=1e-9)
            assert set(got.choices) == set(want.choices)
            reached = policy_value(spec, seat, response_policy(got), program)
            assert reached == pytest.approx(want.value, abs=1e-9)
