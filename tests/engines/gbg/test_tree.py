"""The compiled game tree is a memo of the interpreter: same seed, same deal, same records."""

from __future__ import annotations

import random

import pytest

from engines.gbg import GameSpec, new_deal, presets
from engines.gbg.rules import game_rules
from engines.gbg.tree import GameTree, TreeState


def _play(spec: GameSpec, seed: int, tree: bool) -> tuple[object, ...]:
    rng = random.Random(seed * 7 + 1)
    state = new_deal(spec, seed, tree=tree)
    infos = []
    while not state.is_terminal():
        infos.append(state.information_state(state.current_player))
        state.apply(rng.choice(state.legal_actions()))
    return (tuple(state.history), tuple(state.events), state.returns(), tuple(infos))


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_tree_and_interpreter_give_identical_deals(name: str) -> None:
    spec = presets.PRESETS[name]()
    assert isinstance(new_deal(spec, 0), TreeState)
    for seed in range(300):
        assert _play(spec, seed, tree=True) == _play(spec, seed, tree=False)


def test_large_games_are_interpreted() -> None:
    assert not game_rules(presets.holdem_limit()).tree_eligible
    assert not isinstance(new_deal(presets.holdem_limit(), 1), TreeState)


def test_exhausted_budget_continues_the_deal_in_the_interpreter() -> None:
    spec = presets.leduc()
    game = game_rules(spec)
    saved = game.tree
    try:
        game.tree = GameTree(game, budget=40)  # far too small for Leduc: deals go live midway
        went_live = 0
        for seed in range(200):
            rng = random.Random(seed * 7 + 1)
            state = new_deal(spec, seed)
            while not state.is_terminal():
                state.apply(rng.choice(state.legal_actions()))
            went_live += isinstance(state, TreeState) and state._live is not None
            expected = _play(spec, seed, tree=False)
            assert (tuple(state.history), tuple(state.events), state.returns()) == expected[:3]
        assert went_live > 0
        assert not game.tree.enabled  # new deals are interpreted from now on
    finally:
        game.tree = saved


def test_tree_state_reads_rich_attributes_from_the_interpreter() -> None:
    state = new_deal(presets.kuhn(), 4)
    assert isinstance(state, TreeState)
    obs = state.observation("alice")
    assert len(obs["hand"]) == 1
    assert state.pot() == 2
    copy = state.clone()
    state.apply(state.legal_actions()[0])
    assert copy.history == [] and len(state.history) == 1
    with pytest.raises(ValueError, match="illegal action"):
        copy.apply("raise 7")
