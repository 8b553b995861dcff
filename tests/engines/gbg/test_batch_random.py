"""The compiled random-play loop (engines.gbg.batch_random) plays the interpreter's deals:
for the same play seeds and the same uniforms every deal ends with the same returns after the
same number of decisions, by a fold or not alike, through the same phases and branches; on
every preset, on generated games over the generator's whole range (property-based), and on
generated games whose predicates, side bets and blinds are rewritten to reach what the
generator does not draw.  Where the interpreter raises, the loop hands the game back (None),
and so do the callers' fallbacks; the acceptance filter and ``simulate`` publish the same
figures either way."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numba.core import config as numba_config

from engines.axes.screening import _offers_amounts as offers_amounts
from engines.axes.screening import _random_play as screening_random_play
from engines.axes.screening import coarse_state
from engines.axes.state_space import state_space
from engines.backend import BACKENDS, using
from engines.gbg import presets
from engines.gbg.acceptance import evaluate
from engines.gbg.batch_random import (
    RandomPlay,
    abstract_random_play,
    coarse_random_play,
    distinct_per_seat,
    python_uniforms,
    random_play,
)
from engines.gbg.engine import new_deal
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.random_play import simulate
from engines.gbg.rng import derive_seed, derive_seeds
from engines.gbg.spec import GameSpec
from engines.gbg.structure import max_decisions

COMPLEXITY = GenerationConfig.model_fields["complexity"].metadata
LOW = next(c.ge for c in COMPLEXITY if hasattr(c, "ge"))
HIGH = next(c.le for c in COMPLEXITY if hasattr(c, "le"))


def examples(n: int) -> int:
    """``n`` hypothesis examples, a tenth with numba off (``make coverage-kernel``: the kernel
    then runs as Python, which coverage.py measures)."""
    return max(3, n // 10) if numba_config.DISABLE_JIT else n


def _reference(spec: GameSpec, seeds: range, first: int) -> dict[str, Any]:
    """The interpreter's loop (the acceptance filter's), tallied per deal."""
    draw = random.Random(first).random
    n_phases, n_edges = len(spec.phases), max([1] + [len(p.next) for p in spec.phases])
    out: dict[str, Any] = {
        "returns": [],
        "decisions": [],
        "folded": [],
        "fired": [0] * n_phases,
        "reached": [0] * n_phases,
        "evaluated": np.zeros((n_phases, n_edges), np.int64),
        "held": np.zeros((n_phases, n_edges), np.int64),
    }
    for seed in seeds:
        state = new_deal(spec, seed, tree=False)
        n = 0
        while state.current_player >= 0:
            legal = state.legal_actions()
            state.apply(legal[int(draw() * len(legal))])
            n += 1
        a, b = state.returns()
        assert a == -b  # zero-sum: Alice's returns say both
        out["returns"].append(a)
        out["decisions"].append(n)
        out["folded"].append(bool(state.history) and state.history[-1].action == "fold")
        phases = [ev[3] for ev in state.events if ev[1] == "phase"]
        for p in phases:
            out["fired"][p] += 1
        for p in set(phases):
            out["reached"][p] += 1
        for phase, taken in state.branches:
            for k in range(taken + 1):
                if spec.phases[phase].next[k].when is not None:
                    out["evaluated"][phase, k] += 1
                    out["held"][phase, k] += k == taken
    return out


def _assert_same_deals(spec: GameSpec, deals: int, first: int) -> RandomPlay | None:
    seeds = range(first * 1_000_003, first * 1_000_003 + deals)
    uniforms = python_uniforms(random.Random(first), deals * max_decisions(spec))
    try:
        ref = _reference(spec, seeds, first)
    except (ValueError, IndexError, AssertionError):
        # The interpreter refuses this game under random play: the loop must hand it back.
        assert random_play(spec, seeds, uniforms) is None
        return None
    out = random_play(spec, seeds, uniforms)
    assert out is not None
    assert out.returns.tolist() == ref["returns"]
    assert out.decisions.tolist() == ref["decisions"]
    assert out.folded.tolist() == ref["folded"]
    assert out.fired.tolist() == ref["fired"]
    assert out.reached.tolist() == ref["reached"]
    assert np.array_equal(out.evaluated, ref["evaluated"])
    assert np.array_equal(out.held, ref["held"])
    assert out.uniforms_used == sum(ref["decisions"])
    return out


@pytest.mark.parametrize(
    "spec",
    [presets.kuhn(), presets.leduc(), presets.example4643(), presets.holdem_limit()],
    ids=["kuhn", "leduc", "example4643", "holdem-limit"],
)
def test_every_preset_plays_the_interpreters_deals(spec: GameSpec) -> None:
    out = _assert_same_deals(spec, deals=400, first=3)
    assert out is not None and out.folded.any() and not out.folded.all()


@settings(max_examples=examples(300), deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    complexity=st.floats(min_value=LOW, max_value=HIGH, allow_nan=False),
    first=st.integers(min_value=0, max_value=2**40),
)
def test_generated_games_play_the_interpreters_deals(
    seed: int, complexity: float, first: int
) -> None:
    _assert_same_deals(generate(seed, GenerationConfig(complexity=complexity)), 60, first)


QUANTIFIERS = ("alice", "bob", "either", "both", "neither")


def _rewrite(spec: GameSpec, data: st.DataObject) -> GameSpec:
    """``spec`` with every predicate's quantifier and negation redrawn, side bets sometimes on
    the pot, and blinds sometimes posted: rules the generator does not draw."""
    raw = spec.model_dump(mode="json")
    for phase in raw["phases"]:
        for edge in phase.get("next", []):
            if edge.get("when"):
                edge["when"]["who"] = data.draw(st.sampled_from(QUANTIFIERS))
                edge["when"]["negate"] = data.draw(st.booleans())
        if phase["kind"] == "side_bet" and data.draw(st.booleans()):
            phase["proposition"] = {
                "kind": "pot_at_least",
                "amount": data.draw(st.integers(0, 3)),
                "negate": data.draw(st.booleans()),
            }
        if phase["kind"] == "betting" and data.draw(st.booleans()):
            phase["forced"] = [data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))]
    try:
        return GameSpec.model_validate(raw)
    except ValueError:
        assume(False)
        raise


@settings(max_examples=examples(100), deadline=None, derandomize=True)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1), data=st.data())
def test_rewritten_games_play_the_interpreters_deals(seed: int, data: st.DataObject) -> None:
    _assert_same_deals(_rewrite(generate(seed, GenerationConfig(complexity=3.0)), data), 60, 1)


def test_the_sample_reaches_every_kind_of_rule() -> None:
    """What the property tests draw covers every phase kind and showdown metric (so every
    branch of the loop is compared with the interpreter)."""
    kinds, metrics = set(), set()
    for seed in range(60):
        for complexity in (LOW, 2.5, HIGH):
            spec = generate(seed, GenerationConfig(complexity=complexity))
            kinds |= {p.kind for p in spec.phases}
            metrics.add(spec.showdown.metric.kind)
    assert kinds == {
        "deal",
        "reveal",
        "betting",
        "simultaneous",
        "auction",
        "peek",
        "draw",
        "swap",
        "position",
        "side_bet",
    }
    assert metrics == {"high_card", "rank_sum", "low_sum", "pair_with_board", "best_five"}


@pytest.mark.parametrize("first", [0, 1, 2**40 + 7, 2**64 + 5])
def test_python_uniforms_are_the_generators_draws_and_leave_it_alone(first: int) -> None:
    rng = random.Random(first)
    rng.random()  # a generator part-way through its stream
    before = rng.getstate()
    drawn = python_uniforms(rng, 1000)
    assert rng.getstate() == before
    assert drawn.tolist() == [rng.random() for _ in range(1000)]


def test_too_few_uniforms_hand_the_game_back() -> None:
    spec = presets.leduc()
    assert random_play(spec, range(50), python_uniforms(random.Random(0), 10)) is None


def _unaffordable_auction() -> GameSpec:
    """Kuhn with an auction none of whose bids a seat can afford: an empty menu."""
    raw = presets.kuhn().model_dump(mode="json")
    raw["name"] = "unaffordable-auction"
    raw["phases"].insert(
        1,
        {
            "kind": "auction",
            "id": "auction",
            "bids": [raw["stack"] + 1, raw["stack"] + 2],
            "item": {"kind": "position", "position": "button"},
        },
    )
    return GameSpec.model_validate(raw)


def test_a_game_the_interpreter_refuses_is_handed_back_and_still_refused() -> None:
    """An auction none of whose bids a seat can afford offers an empty menu: the interpreter
    cannot pick from it, so the loop hands the game back and the filter raises as before."""
    spec = _unaffordable_auction()
    uniforms = python_uniforms(random.Random(0), 100)
    assert random_play(spec, range(10), uniforms) is None
    with pytest.raises(IndexError):
        evaluate(spec)


@pytest.mark.parametrize("seed", [0, 4, 5, 43, 125, 130])
def test_the_acceptance_filter_publishes_the_same_figures_either_way(seed: int) -> None:
    spec = generate(seed)
    fast = evaluate(spec, seed=seed)
    with using("reference"):
        assert fast == evaluate(spec, seed=seed)


@pytest.mark.parametrize(
    "spec", [presets.leduc(), presets.example4643(), generate(7)], ids=["leduc", "4643", "seed7"]
)
def test_simulate_publishes_the_same_figures_either_way(spec: GameSpec) -> None:
    fast = simulate(spec, 500, 11)
    with using("reference"):
        slow = simulate(spec, 500, 11)
    fast.pop("deals_per_second")
    slow.pop("deals_per_second")
    assert fast == slow


@pytest.mark.parametrize("first", [0, 9, 2**70 + 3])
def test_moves_from_a_generator_are_its_draws_and_advance_it_as_the_loop_would(
    first: int,
) -> None:
    spec = generate(43)
    seeds = range(100, 400)
    uniforms = python_uniforms(random.Random(first), 300 * max_decisions(spec))
    from_array = random_play(spec, seeds, uniforms)
    rng = random.Random(first)
    from_generator = random_play(spec, seeds, rng)
    assert from_array is not None and from_generator is not None
    assert from_generator.returns.tolist() == from_array.returns.tolist()
    assert from_generator.decisions.tolist() == from_array.decisions.tolist()
    follow = random.Random(first)
    for _ in range(from_array.uniforms_used):
        follow.random()
    assert rng.getstate() == follow.getstate()  # past 624 words: the twister regenerated


def test_a_generator_is_left_alone_when_the_game_is_handed_back() -> None:
    raw = presets.kuhn().model_dump(mode="json")
    raw["phases"].insert(
        1,
        {
            "kind": "auction",
            "id": "auction",
            "bids": [raw["stack"] + 1, raw["stack"] + 2],
            "item": {"kind": "position", "position": "button"},
        },
    )
    rng = random.Random(4)
    before = rng.getstate()
    assert random_play(GameSpec.model_validate(raw), range(10), rng) is None
    assert rng.getstate() == before


# --- rollouts from positions (the information axis's search) ------------------------------------


def _rollouts_both(spec: GameSpec, seed: int, max_amounts: int) -> tuple[int, int]:
    """From decisions reached by random explicit-chance play, every action finished by the
    compiled L0 rollouts and by ``play_out``; returns how many jobs were compared and how
    many starts repeated a state object listed before."""
    from engines.axes.play import Stream, chip_lead, draw_chance, play_out, resolve_chance
    from engines.axes.population import L0
    from engines.gbg.batch_random import l0_rollouts
    from engines.gbg.engine import CHANCE

    rng = np.random.default_rng(seed)
    starts, futures, jobs, expected = [], [], [], []
    for _ in range(4):
        chance = draw_chance(spec, rng)
        aux = chance.stream()
        state = new_deal(spec, explicit_chance=True)
        while state.current_player >= 0 or state.current_player == CHANCE:
            if state.current_player == CHANCE:
                resolve_chance(state, chance.rank, aux)
                continue
            if len(state.legal_actions()) > 1 and rng.random() < 0.5:
                # One position under one or two futures, listed once per future as one state
                # object (a decision's worlds that re-dealt alike): it is loaded once.
                position = state.clone()
                for _ in range(1 + int(rng.random() < 0.5)):
                    world = draw_chance(spec, rng)  # the rollout's own future, as a world's
                    moves = rng.random(len(world.aux)).tolist()
                    for action in state.legal_actions():
                        replay = state.clone()
                        replay.apply(action)
                        play_out(
                            replay, [L0, L0], world.rank, world.stream(), Stream(moves), max_amounts
                        )
                        expected.append(chip_lead(replay, 0) // 2)
                        jobs.append((len(starts), action))
                    starts.append(position)
                    futures.append((world.rank, world.aux, moves))
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    if not jobs:
        return 0, 0
    returns = l0_rollouts(spec, starts, futures, jobs, max_amounts)
    assert returns is not None
    assert returns.tolist() == expected
    return len(jobs), len(starts) - len({id(start) for start in starts})


@pytest.mark.parametrize(
    "spec",
    [presets.kuhn(), presets.leduc(), presets.example4643(), presets.holdem_limit()],
    ids=["kuhn", "leduc", "example4643", "holdem-limit"],
)
def test_rollouts_from_positions_equal_play_out_on_every_preset(spec: GameSpec) -> None:
    jobs, repeated = _rollouts_both(spec, 5, 6)
    assert jobs > 0 and repeated > 0


@settings(max_examples=examples(120), deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    complexity=st.floats(min_value=LOW, max_value=HIGH, allow_nan=False),
    max_amounts=st.sampled_from([3, 4, 6]),
)
def test_rollouts_from_positions_equal_play_out_on_generated_games(
    seed: int, complexity: float, max_amounts: int
) -> None:
    _rollouts_both(generate(seed, GenerationConfig(complexity=complexity)), seed % 997, max_amounts)


# --- the screening's random play (coarse keys) --------------------------------------------------


def _coarse_both_ways(spec: GameSpec, deals: int, seed: int) -> dict[str, float]:
    """The screening's random play on the kernel and interpreted: the same figures, and the
    move generator left in the same state."""
    rng = random.Random(derive_seed(seed, 0x5C1))
    before = rng.getstate()
    compiled = coarse_random_play(spec, derive_seeds(seed, 0x5C2, count=deals), rng)
    if compiled is None:  # handed back: the interpreter refuses the game, both paths raise
        assert rng.getstate() == before
        with pytest.raises((IndexError, ValueError, AssertionError)), using("reference"):
            screening_random_play(spec, deals, seed)
        with pytest.raises((IndexError, ValueError, AssertionError)):
            screening_random_play(spec, deals, seed)
        return {}
    reference = random.Random(derive_seed(seed, 0x5C1))
    with using("reference"):
        figures = screening_random_play(spec, deals, seed)
    reference_states = _reference_coarse_counts(spec, deals, seed, reference)
    assert compiled.distinct == reference_states
    assert rng.getstate() == reference.getstate()
    assert screening_random_play(spec, deals, seed) == figures
    return figures


def _reference_coarse_counts(
    spec: GameSpec, deals: int, seed: int, rng: random.Random
) -> tuple[int, int]:
    """The interpreter's distinct coarse states per seat, ``rng`` advanced by its choices."""
    seen: tuple[set[Any], set[Any]] = (set(), set())
    for k in range(deals):
        state = new_deal(spec, derive_seed(seed, 0x5C2, k), tree=False)
        while state.current_player >= 0:
            menu = state.legal_actions()
            if not offers_amounts(menu):
                seen[state.current_player].add(coarse_state(state, state.current_player))
            state.apply(rng.choice(menu))
    return len(seen[0]), len(seen[1])


@pytest.mark.parametrize(
    "spec",
    [presets.kuhn(), presets.leduc(), presets.example4643(), presets.holdem_limit()],
    ids=["kuhn", "leduc", "example4643", "holdem-limit"],
)
def test_the_screenings_random_play_counts_the_interpreters_states_on_every_preset(
    spec: GameSpec,
) -> None:
    figures = _coarse_both_ways(spec, 400, 11)
    assert figures["state_space"] > 0 and figures["temporal_depth"] > 0


@settings(max_examples=examples(200), deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    complexity=st.floats(min_value=LOW, max_value=HIGH, allow_nan=False),
    play_seed=st.integers(min_value=0, max_value=2**64 - 1),
)
def test_the_screenings_random_play_of_generated_games(
    seed: int, complexity: float, play_seed: int
) -> None:
    _coarse_both_ways(generate(seed, GenerationConfig(complexity=complexity)), 40, play_seed)


@settings(max_examples=examples(60), deadline=None, derandomize=True)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1), data=st.data())
def test_the_screenings_random_play_of_rewritten_games(seed: int, data: st.DataObject) -> None:
    _coarse_both_ways(_rewrite(generate(seed, GenerationConfig(complexity=3.0)), data), 40, 2)


def test_the_sample_reaches_hidden_positions_and_every_swap_and_auction_item() -> None:
    """The coarse keys log events these rules alone produce (a position told to its holder
    only, a discard, a card taken from the opponent or the board, an auctioned position)."""
    seen: set[tuple[str, object]] = set()
    for seed in range(60):
        for complexity in (LOW, 2.5, HIGH):
            for p in generate(seed, GenerationConfig(complexity=complexity)).phases:
                if p.kind == "position":
                    seen.add(("position", p.hidden))
                elif p.kind == "swap":
                    seen.add(("swap", p.source))
                elif p.kind == "auction":
                    seen.add(("auction", p.item.kind))
    assert seen == {
        ("position", True),
        ("position", False),
        ("swap", "deck"),
        ("swap", "board"),
        ("swap", "opponent"),
        ("auction", "card"),
        ("auction", "peek"),
        ("auction", "position"),
    }


def test_the_screenings_random_play_hands_a_refused_game_back() -> None:
    spec = _unaffordable_auction()
    rng = random.Random(3)
    before = rng.getstate()
    assert coarse_random_play(spec, derive_seeds(1, count=5), rng) is None
    assert rng.getstate() == before
    for backend in BACKENDS:
        with pytest.raises(IndexError), using(backend):
            screening_random_play(spec, 5, 1)


def test_keys_are_told_apart_by_both_hashes_and_by_seat() -> None:
    keys = np.array(
        [[0, 1, 1], [0, 1, 1], [0, 1, 2], [0, 2, 1], [1, 1, 1], [1, 1, 1], [1, 5, 5]],
        dtype=np.uint64,
    )
    assert distinct_per_seat(keys) == (3, 2)
    assert distinct_per_seat(np.zeros((0, 3), np.uint64)) == (0, 0)


@settings(max_examples=examples(200), deadline=None)
@given(
    parts=st.lists(st.integers(min_value=-(2**70), max_value=2**70), max_size=3),
    count=st.integers(min_value=0, max_value=300),
)
def test_derived_seeds_are_derive_seed_of_each_index(parts: list[int], count: int) -> None:
    assert derive_seeds(*parts, count=count).tolist() == [
        derive_seed(*parts, k) for k in range(count)
    ]


# --- the state-space axis's random play (abstracted keys) -----------------------------------


def _abstract_both_ways(spec: GameSpec, deals: int, seed: int) -> tuple[int, int] | None:
    """The state-space count compiled and on the interpreter (``State.abstract_state`` at
    every decision): the same counts per seat, the move generator left in the same state."""
    rng = random.Random(derive_seed(seed, 0x55A))
    before = rng.getstate()
    compiled = abstract_random_play(spec, derive_seeds(seed, 0x55B, count=deals), rng)
    reference = random.Random(derive_seed(seed, 0x55A))
    try:
        seen: tuple[set[Any], set[Any]] = (set(), set())
        for k in range(deals):
            state = new_deal(spec, derive_seed(seed, 0x55B, k), tree=False)
            while state.current_player >= 0:
                seen[state.current_player].add(state.abstract_state(state.current_player))
                state.apply(reference.choice(state.legal_actions()))
    except (IndexError, ValueError, AssertionError):
        assert compiled is None  # the interpreter refuses the game: handed back
        assert rng.getstate() == before
        return None
    assert compiled is not None
    assert compiled.distinct == (len(seen[0]), len(seen[1]))
    assert rng.getstate() == reference.getstate()
    counted = state_space(spec, deals, seed)
    assert counted.states == compiled.distinct
    with using("reference"):
        assert counted == state_space(spec, deals, seed)
    return compiled.distinct


@pytest.mark.parametrize(
    "spec",
    [presets.kuhn(), presets.leduc(), presets.example4643(), presets.holdem_limit()],
    ids=["kuhn", "leduc", "example4643", "holdem-limit"],
)
def test_the_state_space_count_counts_the_interpreters_states_on_every_preset(
    spec: GameSpec,
) -> None:
    counts = _abstract_both_ways(spec, 300, 7)
    assert counts is not None and min(counts) > 0


@settings(max_examples=examples(200), deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    complexity=st.floats(min_value=LOW, max_value=HIGH, allow_nan=False),
    play_seed=st.integers(min_value=0, max_value=2**64 - 1),
)
def test_the_state_space_count_of_generated_games(
    seed: int, complexity: float, play_seed: int
) -> None:
    _abstract_both_ways(generate(seed, GenerationConfig(complexity=complexity)), 40, play_seed)


@settings(max_examples=examples(60), deadline=None, derandomize=True)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1), data=st.data())
def test_the_state_space_count_of_rewritten_games(seed: int, data: st.DataObject) -> None:
    _abstract_both_ways(_rewrite(generate(seed, GenerationConfig(complexity=3.0)), data), 40, 2)


def _words_as_options() -> GameSpec:
    """Kuhn with a peek (``peek`` or ``pass``) and a simultaneous round whose options are named
    like other actions (``pass``, ``check``, ``bet``): one string from two phases must key
    alike, and an option named ``bet`` is not an amount."""
    raw = presets.kuhn().model_dump(mode="json")
    raw["name"] = "words-as-options"
    raw["phases"][1:1] = [
        {"kind": "peek", "id": "look", "who": "both", "optional": True},
        {
            "kind": "simultaneous",
            "id": "call_it",
            "options": [{"name": "pass"}, {"name": "check", "pot_chips": 1}, {"name": "bet"}],
            "matrix": [{"alice": "bet", "bob": "pass", "transfer": 1}],
        },
    ]
    return GameSpec.model_validate(raw)


def test_an_option_named_like_another_action_is_that_string() -> None:
    spec = _words_as_options()
    assert _abstract_both_ways(spec, 300, 3) is not None
    assert _coarse_both_ways(spec, 300, 3)
