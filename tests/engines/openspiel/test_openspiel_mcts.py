"""The ``mcts`` built-in agent on OpenSpiel games: legal, reproducible, stronger than random."""

from __future__ import annotations

import random

import pytest

from engines.agents.builtin import builtin_agent
from engines.openspiel import parse_openspiel


def play(token: str, agents: tuple, play_seed: int, move_seed: int) -> tuple[int, int]:
    state = parse_openspiel(token).new_deal(play_seed)
    rngs = (random.Random(move_seed), random.Random(move_seed + 1))
    while not state.is_terminal():
        seat = state.current_player
        move = agents[seat].act(state, seat, rngs[seat])
        assert move in state.legal_actions()
        state.apply(move)
    result: tuple[int, int] = state.returns()
    return result


@pytest.mark.parametrize(
    "token", ["openspiel:liars_dice", "openspiel:hunl", "openspiel:hex(board_size=5)"]
)
def test_mcts_plays_legal_moves_and_replays_alike(token: str) -> None:
    mcts, rnd = builtin_agent("mcts", {"simulations": 20, "worlds": 2}), builtin_agent("random")
    first = [play(token, (mcts, rnd), s, s) for s in range(3)]
    assert first == [play(token, (mcts, rnd), s, s) for s in range(3)]  # seeded: same games
    assert all(a + b == 0 for a, b in first)


def test_mcts_beats_random_at_connect_four() -> None:
    mcts, rnd = builtin_agent("mcts", {"simulations": 100}), builtin_agent("random")
    score = 0
    for s in range(4):  # both seats
        score += play("openspiel:connect_four", (mcts, rnd), s, s)[0]
        score += play("openspiel:connect_four", (rnd, mcts), s, s)[1]
    assert score >= 6  # of 8 games; seeded, so the same every run


def test_mcts_beats_random_at_liars_dice_without_seeing_the_dice() -> None:
    mcts, rnd = builtin_agent("mcts", {"simulations": 200, "worlds": 4}), builtin_agent("random")
    score = sum(
        play("openspiel:liars_dice", (mcts, rnd), s, s)[0]
        + play("openspiel:liars_dice", (rnd, mcts), s, s)[1]
        for s in range(15)
    )
    assert score > 6  # of 30 games: a clear edge (seeded)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"simulations": 0}, "at least 1"),
        ({"uct_c": -1.0}, "positive"),
        ({"depth": 2}, "no parameter"),
    ],
)
def test_bad_parameters_are_refused(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        builtin_agent("mcts", params)
