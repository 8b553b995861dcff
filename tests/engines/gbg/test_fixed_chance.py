"""The fixed-chance tree (engines.gbg.fixed_chance) is the interpreter memoised: every walk
meets the states the interpreter plays, move for move, on every preset and on generated games across
the generator's whole complexity range (property-based); a revisit is served from the memo;
a node's state is rebuilt exactly from its ancestors; the node budget bounds the memo, not
the answers; an illegal move is refused as the interpreter refuses it; a released tree is
freed without the cycle collector."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.axes.play import (
    Stream,
    chance_resolver,
    draw_chance,
    fixed_chance_tree,
    resolve_chance,
)
from engines.gbg import presets
from engines.gbg.engine import CHANCE, State, new_deal
from engines.gbg.fixed_chance import FixedChanceTree, Node
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.spec import GameSpec
from engines.tasks import cycle_collection_paused

COMPLEXITY = GenerationConfig.model_fields["complexity"].metadata
LOW = next(c.ge for c in COMPLEXITY if hasattr(c, "ge"))
HIGH = next(c.le for c in COMPLEXITY if hasattr(c, "le"))


def _snapshot(state: State) -> tuple[object, ...]:
    """Everything a deal's outcome and a seat's knowledge depend on."""
    return (
        state.current_player,
        state.legal_actions(),
        state.returns(),
        state.information_state(0),
        state.information_state(1),
        tuple(state.history),
        tuple(state.events),
    )


def _walk_both(spec: GameSpec, deals: int, walks: int, seed: int) -> int:
    """Play ``walks`` random walks per deal on a tree and on the interpreter side by side,
    asserting equality at every node; return how many walks were served partly from memo."""
    rng = np.random.default_rng(seed)
    revisits = 0
    for _ in range(deals):
        chance = draw_chance(spec, rng)
        tree = fixed_chance_tree(new_deal(spec, explicit_chance=True), chance.rank, chance.aux)
        for _ in range(walks):
            state = new_deal(spec, explicit_chance=True)
            aux = chance.stream()
            while state.current_player == CHANCE:
                resolve_chance(state, chance.rank, aux)
            node, live = tree.root, None
            known = True
            while True:
                assert _snapshot(tree.state(node, live)) == _snapshot(state)
                assert (node.player, node.legal, node.returns) == (
                    state.current_player,
                    state.legal_actions(),
                    state.returns(),
                )
                assert node.cursor == aux.index
                if node.player < 0:
                    break
                # Few choices, so that walks share prefixes and the memo is exercised.
                action = node.legal[int(rng.integers(min(2, len(node.legal))))]
                node, live = tree.step(node, action, live)
                known = known and live is None
                state.apply(action)
                while state.current_player == CHANCE:
                    resolve_chance(state, chance.rank, aux)
            revisits += known
    return revisits


@pytest.mark.parametrize(
    "spec",
    [presets.kuhn(), presets.leduc(), presets.example4643(), presets.holdem_limit()],
    ids=["kuhn", "leduc", "example4643", "holdem-limit"],
)
def test_walks_equal_the_interpreter_on_every_preset(spec: GameSpec) -> None:
    assert _walk_both(spec, deals=6, walks=12, seed=1) > 0


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    complexity=st.floats(min_value=LOW, max_value=HIGH, allow_nan=False),
)
def test_walks_equal_the_interpreter_on_generated_games(seed: int, complexity: float) -> None:
    spec = generate(seed, GenerationConfig(complexity=complexity))
    _walk_both(spec, deals=2, walks=6, seed=seed % 1000)


def test_a_known_move_is_served_from_the_memo() -> None:
    spec = presets.leduc()
    chance = draw_chance(spec, np.random.default_rng(3))
    tree = fixed_chance_tree(new_deal(spec, explicit_chance=True), chance.rank, chance.aux)
    first, live = tree.step(tree.root, tree.root.legal[0], None)
    assert live is not None and first.state is None  # new ground: the walk owns the state
    again, live_again = tree.step(tree.root, tree.root.legal[0], None)
    assert again is first and live_again is None
    assert tree.size == 2


def test_a_nodes_state_is_rebuilt_from_its_nearest_kept_ancestor() -> None:
    spec = presets.leduc()
    chance = draw_chance(spec, np.random.default_rng(5))
    tree = fixed_chance_tree(new_deal(spec, explicit_chance=True), chance.rank, chance.aux)
    node: Node = tree.root
    live: State | None = None
    path = []
    while node.player >= 0:
        action = node.legal[-1]
        path.append(action)
        node, live = tree.step(node, action, live)
    assert node.state is None
    rebuilt = tree.state(node)
    assert node.state is rebuilt  # kept once rebuilt
    direct = new_deal(spec, explicit_chance=True)
    aux = Stream(chance.aux)
    for action in [None, *path]:
        if action is not None:
            direct.apply(action)
        while direct.current_player == CHANCE:
            resolve_chance(direct, chance.rank, aux)
    assert _snapshot(rebuilt) == _snapshot(direct)


def test_the_budget_bounds_the_memo_not_the_answers() -> None:
    spec = presets.kuhn()
    chance = draw_chance(spec, np.random.default_rng(0))
    start = new_deal(spec, explicit_chance=True)
    small = FixedChanceTree(start, chance_resolver(chance.rank, chance.aux), budget=2)
    big = fixed_chance_tree(start, chance.rank, chance.aux)
    for action in big.root.legal:
        a, b = small.child(small.root, action), big.child(big.root, action)
        assert (a.player, a.legal, a.returns) == (b.player, b.legal, b.returns)
    assert small.size == 2 and len(small.root.children) == 1
    assert big.size == 1 + len(big.root.legal)
    assert start.current_player == CHANCE  # the start is copied, never moved


def test_an_illegal_move_is_refused_as_the_interpreter_refuses_it() -> None:
    spec = presets.kuhn()
    chance = draw_chance(spec, np.random.default_rng(0))
    tree = fixed_chance_tree(new_deal(spec, explicit_chance=True), chance.rank, chance.aux)
    with pytest.raises(ValueError, match="illegal action 'raise 9'"):
        tree.step(tree.root, "raise 9", None)
    assert tree.size == 1 and not tree.root.children


def _live_nodes() -> int:
    return sum(isinstance(o, Node) for o in gc.get_objects())


def _grown(seed: int) -> FixedChanceTree:
    """A Leduc tree with every first move and every reply below them kept."""
    spec = presets.leduc()
    chance = draw_chance(spec, np.random.default_rng(seed))
    tree = fixed_chance_tree(new_deal(spec, explicit_chance=True), chance.rank, chance.aux)
    for action in tree.root.legal:
        kid = tree.child(tree.root, action)
        for reply in kid.legal:
            tree.child(kid, reply)
    return tree


def test_a_released_tree_is_freed_by_reference_counting() -> None:
    """A parent and its children refer to each other, so a dropped tree waits for the cycle
    collector; ``release`` unlinks them and the tree goes as soon as it is dropped."""
    gc.collect()
    before = _live_nodes()
    with cycle_collection_paused():
        kept = _grown(4)
        assert kept.size > 4 and _live_nodes() - before == kept.size
        kept.release()
        del kept
        assert _live_nodes() == before
        unreleased = _grown(4)
        size = unreleased.size
        del unreleased
        assert _live_nodes() - before == size  # held by their cycles until a collection
    gc.collect()
    assert _live_nodes() == before
