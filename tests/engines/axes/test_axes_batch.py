"""The axes' play on fixed-chance trees (engines.gbg.fixed_chance) gives the numbers the interpreter
gives: action tables, population scores and the screening axes are equal, value for value, to
interpreting every deal (the reference path each call site keeps), and so are the rollouts
played on the compiled loop and the screening's incremental random play; the five axes of two
games equal the figures the interpreter-only code published before the trees existed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.axes import information, worlds
from engines.axes.budgets import axis_budget, screening_budget
from engines.axes.compute import compute_axes
from engines.axes.decisions import decision_distribution
from engines.axes.information import SearchStats, information_differences
from engines.axes.keys import DealKeys
from engines.axes.play import (
    Stream,
    chip_lead,
    draw_chance,
    fixed_chance_tree,
    node_lead,
    play_out,
    play_tree,
    play_trees,
    stream_length,
)
from engines.axes.population import (
    L0,
    build_population,
    forget_strategies,
    ranking_deals,
    scores_against_l0,
    strategy,
    strategy_seeds,
)
from engines.axes.replay import action_values
from engines.axes.screening import (
    MAX_AMOUNTS,
    _information_on_kernel,
    _random_play,
    screening_axes,
)
from engines.axes.state_space import state_space
from engines.backend import using
from engines.gbg import presets
from engines.gbg.batch_random import l0_rollouts
from engines.gbg.engine import new_deal
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.spec import GameSpec
from tests.support import interpreted

GAMES = {
    "kuhn": presets.kuhn(),
    "leduc": presets.leduc(),
    "example4643": presets.example4643(),
    "seed4": generate(4),
    "seed43": generate(43),
    "seed130": generate(130),
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_play_tree_equals_play_out_deal_for_deal(name: str) -> None:
    spec = GAMES[name]
    rng = np.random.default_rng(11)
    length = stream_length(spec)
    members = [strategy(s) for s in strategy_seeds(7, 3)]
    for deal in range(8):
        chance = draw_chance(spec, rng)
        tree = fixed_chance_tree(new_deal(spec, explicit_chance=True), chance.rank, chance.aux)
        amounts = 6 if deal % 2 else 3  # one tree serves one A(I) size
        for policies in [(L0, L0), (members[0], L0), (L0, members[1]), (members[2], members[0])]:
            uniforms = rng.random(length).tolist()
            state = new_deal(spec, explicit_chance=True)
            play_out(state, policies, chance.rank, chance.stream(), Stream(uniforms), amounts)
            end = play_tree(tree, tree.root, policies, uniforms, amounts)
            assert end.player == state.current_player
            assert tree.state(end).history == state.history
            assert node_lead(end, 0) == chip_lead(state, 0)
            assert node_lead(end, 1) == chip_lead(state, 1)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_one_walk_per_node_equals_the_walks_of_play_trees(name: str) -> None:
    """``play_trees`` from several nodes under one pair of policies ends where ``play_tree``
    from each node ends, on a fresh tree or on one the other walks expanded."""
    spec = GAMES[name]
    rng = np.random.default_rng(5)
    length = stream_length(spec)
    members = [strategy(s) for s in strategy_seeds(9, 2)]
    compared = 0
    for deal in range(6):
        chance = draw_chance(spec, rng)
        start = new_deal(spec, explicit_chance=True)
        ours = fixed_chance_tree(start, chance.rank, chance.aux)
        theirs = fixed_chance_tree(start, chance.rank, chance.aux)
        menu = ours.root.legal
        for policies in [(L0, L0), (members[0], members[1]), (members[1], L0)]:
            uniforms = rng.random(length).tolist()
            starts = [ours.child(ours.root, a) for a in menu] if ours.root.player >= 0 else []
            others = [theirs.child(theirs.root, a) for a in menu] if starts else []
            ends = play_trees(ours, starts, policies, uniforms, 4)
            for end, node in zip(ends, others, strict=True):
                alone = play_tree(theirs, node, policies, uniforms, 4)
                assert ours.state(end).history == theirs.state(alone).history
                assert node_lead(end, deal % 2) == node_lead(alone, deal % 2)
                compared += 1
    assert compared >= 6 * 3 * 2  # every deal, every pair of policies, two actions or more


@pytest.mark.parametrize("name", ["leduc", "seed4", "seed130"])
def test_population_scores_equal_the_interpreted_scores(name: str) -> None:
    spec = GAMES[name]
    seeds = strategy_seeds(3, 12)
    deals = ranking_deals(spec, 3, 10)
    forget_strategies()
    memo = scores_against_l0(spec, seeds, deals, 6)
    forget_strategies()
    with using("reference"):
        assert memo == scores_against_l0(spec, seeds, deals, 6)
    assert len(set(memo)) > 1  # the members differ: the comparison is not vacuous


@pytest.mark.parametrize("name", ["leduc", "seed43", "seed130"])
def test_action_tables_equal_the_interpreted_tables(name: str) -> None:
    spec = GAMES[name]
    budget = axis_budget("quick")
    population = build_population(spec, budget, 5)
    selfplay = decision_distribution(spec, population, budget, 9)
    for decision in selfplay.decisions[:4]:
        trace = selfplay.traces[decision.deal]
        memo = action_values(spec, trace, decision, population, budget, 2)
        with using("reference"):
            reference = action_values(spec, trace, decision, population, budget, 2)
        assert np.array_equal(memo.values, reference.values)
        assert (memo.fallbacks, memo.world_attempts) == (
            reference.fallbacks,
            reference.world_attempts,
        )


@pytest.mark.parametrize("name", ["leduc", "example4643", "seed4", "seed130"])
def test_screening_axes_equal_the_interpreted_axes(name: str) -> None:
    budget = screening_budget("quick")
    memo = screening_axes(GAMES[name], budget, 17)
    with using("reference"):
        assert memo == screening_axes(GAMES[name], budget, 17)


def _compiled_plays_equal_play_out(spec: GameSpec, seed: int) -> None:
    rng = np.random.default_rng(seed)
    length = stream_length(spec)
    draws = [
        (draw_chance(spec, rng), [rng.random(length).tolist() for _ in range(3)]) for _ in range(8)
    ]
    leads = np.full((8, 3), np.nan)
    assert _information_on_kernel(spec, draws, leads)  # the kernel played them all
    for i, (chance, moves) in enumerate(draws):
        for j, uniforms in enumerate(moves):
            state = new_deal(spec, explicit_chance=True)
            play_out(state, (L0, L0), chance.rank, chance.stream(), Stream(uniforms), MAX_AMOUNTS)
            assert leads[i, j] == chip_lead(state, 0)


# The generated games the hypothesis tests draw: any generator seed, the whole complexity range.
GENERATOR_SEEDS = st.integers(min_value=0, max_value=2**40)
COMPLEXITIES = st.floats(min_value=0.5, max_value=4.0, allow_nan=False)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_information_sensitivity_plays_are_play_out_deal_for_deal(name: str) -> None:
    """The screening's information-sensitivity plays, on the compiled loop (the first move
    chosen in Python, the rest in one call), are ``play_out``'s deals: the same chip lead."""
    _compiled_plays_equal_play_out(GAMES[name], 23)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    seed=GENERATOR_SEEDS,
    complexity=COMPLEXITIES,
)
def test_information_sensitivity_plays_of_generated_games(seed: int, complexity: float) -> None:
    _compiled_plays_equal_play_out(generate(seed, GenerationConfig(complexity=complexity)), seed)


# The five axes at the quick budget (seed 0), as the interpreter-only code computed them at
# commit ba42d6f (before the fixed-chance trees); JSON round-trips floats exactly.
PUBLISHED = {
    "leduc": {
        "information": -0.08483060750725391,
        "opponent": 0.11507204769100117,
        "precision": 0.29129933371180816,
        "state_space": 2.693726948923647,
        "temporal": 0.34089084030096606,
    },
    "seed4": {
        "information": -0.01611254804664051,
        "opponent": 0.05935624053834791,
        "precision": 0.3672318242296815,
        "state_space": 2.792391689498254,
        "temporal": 0.1638300015706655,
    },
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_the_five_axes_are_the_published_figures(name: str) -> None:
    spec: GameSpec = GAMES[name]
    report = compute_axes(spec, axis_budget("quick"), 0)
    assert report.to_dict()["axes"] == PUBLISHED[name]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_incremental_keys_equal_the_states(name: str) -> None:
    """Every key equals the reference state (``State.abstract_state``), for the mover and, at
    random times, the other seat."""
    spec = GAMES[name]
    rng = np.random.default_rng(4)
    for deal in range(40):
        state = new_deal(spec, deal, tree=False)
        keys = DealKeys()
        while state.current_player >= 0:
            seat = state.current_player
            seats = (seat, 1 - seat) if rng.random() < 0.5 else (seat,)
            for s in seats:
                assert keys.key(state, s) == state.abstract_state(s)
            menu = state.legal_actions()
            state.apply(menu[int(rng.integers(len(menu)))])


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_screening_random_play_equals_the_interpreted_play(name: str) -> None:
    """State space, temporal depth and risk: the incremental loop (coarse states built from
    the one before, ``rng.choice`` written out) gives the reference's floats exactly."""
    spec = GAMES[name]
    fast = _random_play(spec, 120, 5)
    with using("reference"):
        assert fast == _random_play(spec, 120, 5)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    seed=GENERATOR_SEEDS,
    complexity=COMPLEXITIES,
    play_seed=st.integers(min_value=0, max_value=2**64 - 1),
)
def test_the_screening_random_play_of_generated_games(
    seed: int, complexity: float, play_seed: int
) -> None:
    spec = generate(seed, GenerationConfig(complexity=complexity))
    fast = _random_play(spec, 40, play_seed)
    with using("reference"):
        assert fast == _random_play(spec, 40, play_seed)


_SEARCH = axis_budget("quick").model_copy(update={"info_deals": 3, "search_worlds": 3})


def _search_differences_equal(spec: GameSpec, seed: int) -> int:
    """Assert both paths agree; return the decisions searched."""
    population = build_population(spec, axis_budget("quick"), seed % 7)
    searched = 0
    for seat in (0, 1):
        stats, reference = SearchStats(), SearchStats()
        found = information_differences(spec, population, _SEARCH, seed, seat, 0, stats)
        with using("reference"):
            expected = information_differences(spec, population, _SEARCH, seed, seat, 0, reference)
        assert found == expected
        assert stats == reference
        searched += stats.decisions
    return searched


@pytest.mark.parametrize("name", sorted(GAMES))
def test_search_rollouts_equal_the_interpreted_rollouts(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The information axis's search players roll out on the compiled loop: every deal's
    chip-lead difference, and the worlds and fallbacks counted, as interpreting them."""
    played: list[bool] = []

    def counted(*args: Any) -> Any:  # the real loop, its calls counted
        returns = l0_rollouts(*args)
        played.append(returns is not None)
        return returns

    monkeypatch.setattr(information, "l0_rollouts", counted)
    assert _search_differences_equal(GAMES[name], 31) > 0
    assert played and all(played)  # the compiled loop played every search: not vacuous


@settings(max_examples=10, deadline=None, derandomize=True)
@given(
    seed=GENERATOR_SEEDS,
    complexity=COMPLEXITIES,
)
def test_search_rollouts_of_generated_games(seed: int, complexity: float) -> None:
    _search_differences_equal(generate(seed, GenerationConfig(complexity=complexity)), seed)


@pytest.mark.parametrize("name", ["leduc", "example4643", "seed4", "seed130"])
def test_the_state_space_count_equals_the_interpreted_count(name: str) -> None:
    spec = GAMES[name]
    fast = state_space(spec, 300, 3)
    with using("reference"):
        assert fast == state_space(spec, 300, 3)


def _worlds_drawn(name: str) -> tuple[int, bool]:
    """How many drawn worlds shared a state with another, and whether every drawn state was
    left as drawn, over the replays and the searches of a few decisions, on both paths."""
    spec = GAMES[name]
    drawn: list[tuple[Any, list[Any], list[Any]]] = []
    draw = worlds.WorldSampler.draw

    def kept(self: worlds.WorldSampler, rng: np.random.Generator) -> worlds.World:
        world = draw(self, rng)
        drawn.append((world.state, list(world.state.events), list(world.state.history)))
        return world

    worlds.WorldSampler.draw = kept  # type: ignore[method-assign]  # a fresh process
    budget = axis_budget("quick")
    population = build_population(spec, budget, 5)
    selfplay = decision_distribution(spec, population, budget, 9)
    for backend in ("kernel", "reference"):
        with using(backend):
            for decision in selfplay.decisions[:3]:
                trace = selfplay.traces[decision.deal]
                action_values(spec, trace, decision, population, budget, 2)
            for seat in (0, 1):
                information_differences(spec, population, _SEARCH, 7, seat, 0)
    shared = len(drawn) - len({id(state) for state, _, _ in drawn})
    unmoved = all(
        state.events == events and state.history == history for state, events, history in drawn
    )
    return shared, unmoved


@pytest.mark.parametrize("name", ["leduc", "example4643", "seed43"])
def test_the_worlds_states_that_decisions_share_are_never_moved(name: str) -> None:
    """A decision's worlds that re-dealt alike share one state (``WorldSampler.draw``): the
    replays and the search players' rollouts read it and never move it, on either path.
    Counted by patching ``WorldSampler.draw``, on the interpreted engine (a compiled sampler
    calls its own method natively, past a patch)."""
    shared, unmoved = interpreted(_worlds_drawn, name)
    assert shared > 0  # some worlds did share a state: not vacuous
    assert unmoved
