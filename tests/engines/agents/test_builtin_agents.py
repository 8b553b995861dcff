"""The built-in agents: population (tier-1 Dirichlet strategies), search, equilibrium."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from arena.games import resolve_game
from engines.agents.builtin import BUILTIN_AGENTS, builtin_agent
from engines.agents.dirichlet import (
    DirichletStrategy,
    PopulationAgent,
    _seeded,
    _state_key,
    chip_lead_against_uniform,
    rank_strategies,
    strategy_seeds,
    tier1,
)
from engines.agents.equilibrium import EquilibriumAgent, count_histories, equilibrium_policy
from engines.agents.search import SearchAgent, sample_world
from engines.gbg import new_deal, presets
from engines.gbg.engine import State
from engines.gbg.rng import derive_seed
from engines.gbg.spec import GameSpec


def play(spec: GameSpec, agents: tuple[Any, Any], play_seed: int, rng_seed: int) -> State:
    rng = random.Random(rng_seed)
    state = new_deal(spec, play_seed)
    while state.current_player >= 0:
        seat = state.current_player
        action = agents[seat].act(state, seat, rng)
        assert action in state.legal_actions()
        state.apply(action)
    return state


def paired_margin(spec: GameSpec, hero: Any, villain: Any, deals: int) -> float:
    """Mean chip lead of ``hero`` over paired deals (each seat once per play seed)."""
    total = 0
    for k in range(deals):
        a = play(spec, (hero, villain), k, 2 * k).returns()
        b = play(spec, (villain, hero), k, 2 * k + 1).returns()
        total += (a[0] - a[1]) + (b[1] - b[0])
    return total / (2 * deals)


def test_mcts_refuses_a_generated_game() -> None:
    """``mcts`` plays OpenSpiel games (tests/engines/openspiel); a tournament never seats it
    on a generated game (``arena.reference_engines.agent_plays``)."""
    with pytest.raises(ValueError, match="OpenSpiel games"):
        play(resolve_game("kuhn"), (builtin_agent("mcts"), builtin_agent("random")), 1, 1)


@pytest.mark.parametrize("name", sorted(set(BUILTIN_AGENTS) - {"mcts"}))
@pytest.mark.parametrize("game", ["kuhn", "0", "5"])
def test_every_builtin_agent_plays_legal_moves(name: str, game: str) -> None:
    spec = resolve_game(game)
    params: dict[str, Any] = {
        "population": {"size": 10, "keep": 5, "deals": 4},
        "search": {"depth": 1, "worlds": 2},
        "equilibrium": {"iterations": 5},
    }.get(name, {})
    agent = builtin_agent(name, params)
    if name == "equilibrium" and game != "kuhn":
        agent = builtin_agent(name, {"iterations": 5, "max_histories": 100})
        with pytest.raises(ValueError, match="too large for the equilibrium agent"):
            play(spec, (agent, agent), 1, 1)
        return
    for seed in range(3):
        assert play(spec, (agent, agent), seed, seed).is_terminal()


def test_dirichlet_mixtures_are_a_pure_function_of_seed_and_information_state() -> None:
    one, two = DirichletStrategy(7), DirichletStrategy(7)
    states = [f"alice:[{i}]" for i in range(50)]
    forward = [one.mixture(s, ("a", "b", "c")) for s in states]
    backward = [two.mixture(s, ("a", "b", "c")) for s in reversed(states)][::-1]
    assert forward == backward  # visiting order does not matter
    assert all(abs(sum(p) - 1) < 1e-12 and min(p) > 0 for p in forward)
    assert DirichletStrategy(8).mixture(states[0], ("a", "b", "c")) != forward[0]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), draws=st.integers(1, 700))
def test_the_mixture_generator_is_random_random_of_the_seed(seed: int, draws: int) -> None:
    """``_seeded`` skips the constructor's Python layers, not its state: the same doubles as
    ``random.Random(seed)``, past the first twist of the Mersenne Twister (624 words)."""
    reference = random.Random(seed)
    fast = _seeded(seed)
    assert [fast.random() for _ in range(draws)] == [reference.random() for _ in range(draws)]


def test_a_mixture_is_the_normalised_exponentials_of_random_random() -> None:
    """The mixture as first written (a ``random.Random`` per information state), pinned."""
    info = "alice:[('card', 0, 'K')]"
    legal = ("fold", "call", "raise 4")
    draw = random.Random(derive_seed(11, _state_key(info)))
    weights = [-math.log(1.0 - draw.random()) for _ in legal]
    assert DirichletStrategy(11).mixture(info, legal) == tuple(w / sum(weights) for w in weights)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**70),
    info=st.text(max_size=40),
    actions=st.integers(min_value=1, max_value=6),
)
def test_every_strategy_seed_draws_the_mixture_as_first_written(
    seed: int, info: str, actions: int
) -> None:
    """The strategy's stem (the first SplitMix64 step of ``derive_seed``, computed once) gives
    the mixture ``random.Random(derive_seed(seed, key))`` gives, for every seed (past 2**64:
    ``derive_seed`` keeps the low 64 bits) and information state."""
    legal = tuple(f"a{i}" for i in range(actions))
    draw = random.Random(derive_seed(seed, _state_key(info)))
    weights = [-math.log(1.0 - draw.random()) for _ in legal]
    expected = tuple(w / sum(weights) for w in weights)
    assert DirichletStrategy(seed).mixture(info, legal) == expected


def test_dirichlet_one_marginals_are_uniform_for_two_actions() -> None:
    # Dirichlet(1, 1): the first probability is uniform on [0, 1]
    strategy = DirichletStrategy(0)
    first = [strategy.mixture(f"s{i}", ("x", "y"))[0] for i in range(2000)]
    assert stats.kstest(first, "uniform").pvalue > 0.001
    # Dirichlet(1, 1, 1): the first probability is Beta(1, 2)
    first3 = [strategy.mixture(f"t{i}", ("x", "y", "z"))[0] for i in range(2000)]
    assert stats.kstest(first3, stats.beta(1, 2).cdf).pvalue > 0.001


def test_tier1_is_the_better_half_against_uniform_play() -> None:
    spec = presets.kuhn()
    seeds = strategy_seeds(3, 20)
    ranked = rank_strategies(spec, seeds, deals=40, deal_seed=3)
    leads = [lead for _, lead in ranked]
    assert leads == sorted(leads, reverse=True)
    best = tier1(spec, size=20, keep=10, deals=40, pool_seed=3)
    assert best == tuple(seed for seed, _ in ranked[:10])
    assert tier1(spec, size=20, keep=10, deals=40, pool_seed=3) is best  # cached per spec
    lead = chip_lead_against_uniform(spec, DirichletStrategy(best[0]), 40, 3)
    assert lead == ranked[0][1]
    with pytest.raises(ValueError, match="keeps between"):
        tier1(spec, size=5, keep=6)


def test_population_agent_plays_a_tier1_member() -> None:
    spec = presets.kuhn()
    agent = PopulationAgent(member=2, size=20, keep=10, deals=40, pool_seed=1)
    assert agent.strategy(spec).seed == tier1(spec, 20, 10, 40, 1)[2]
    with pytest.raises(ValueError, match="member must be in"):
        PopulationAgent(member=10, keep=10)


def test_search_beats_uniform_play() -> None:
    spec = presets.kuhn()
    margin = paired_margin(spec, SearchAgent(depth=2, worlds=6), builtin_agent("random"), 150)
    assert margin > 0.2  # chips per deal; uniform play loses steadily to a best responder


def test_sampled_worlds_keep_what_the_seat_knows_and_redraw_the_rest() -> None:
    spec = presets.leduc()
    state = new_deal(spec, 11)
    seat = state.current_player
    own = sorted(state.hands[seat])
    opponent_cards = []
    rng = random.Random(0)
    for _ in range(300):
        world = sample_world(state, seat, rng)
        assert sorted(world.hands[seat]) == own
        assert world.board == state.board
        assert world.information_state(seat) == state.information_state(seat)
        assert world.deck == sorted(world.deck)
        cards = sorted(world.deck + world.hands[1 - seat] + world.hands[seat] + world.board)
        assert cards == list(range(spec.deck.size))
        opponent_cards.append(world.hands[1 - seat][0])
    counts = [opponent_cards.count(c) for c in range(spec.deck.size) if c not in own]
    assert len(counts) == 5 and min(counts) > 30  # every unseen card, roughly uniformly


def test_equilibrium_reaches_kuhns_value() -> None:
    # Kuhn poker's value for the first player is -1/18 (Kuhn 1950; OpenSpiel's kuhn_poker tests)
    spec = presets.kuhn()
    policy = equilibrium_policy(spec, iterations=300)
    assert len(policy) == 12  # six information states per seat
    value = exact_value(new_deal(spec, explicit_chance=True), policy)
    assert value == pytest.approx(-1 / 18, abs=5e-3)
    agent = EquilibriumAgent(iterations=300)
    assert agent.policy(spec) is policy  # cached
    assert count_histories(spec, 10**6) == 58


def exact_value(state: State, policy: dict[str, dict[str, float]]) -> float:
    """Alice's expected chips when both seats follow ``policy`` (exact tree walk)."""
    if state.is_terminal():
        return float(state.returns()[0])
    if state.is_chance_node():
        total = 0.0
        for outcome, p in state.chance_outcomes():
            child = state.clone()
            child.apply_chance(outcome)
            total += p * exact_value(child, policy)
        return total
    mixture = policy[state.information_state(state.current_player)]
    total = 0.0
    for action, p in mixture.items():
        if p > 0:
            child = state.clone()
            child.apply(action)
            total += p * exact_value(child, policy)
    return total
