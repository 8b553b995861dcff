"""Showdowns and play never raise on any holding a generated game can produce.

Seed 100062 (default config) dealt a four-card hand of one value to a ``best_five`` showdown,
and the engine raised (no kicker).  Hands of any size, from decks with several copies of a card,
are ranked; a five-to-seven-card hand is ranked as its best five-card subset.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.gbg.engine import new_deal
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.rules import best_five, best_five_bruteforce

CARD = st.tuples(st.integers(min_value=2, max_value=14), st.integers(min_value=0, max_value=3))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(CARD, min_size=5, max_size=7))
def test_best_five_is_the_best_five_card_subset(cards: list[tuple[int, int]]) -> None:
    values, suits = [v for v, _ in cards], [s for _, s in cards]
    assert best_five(values, suits) == best_five_bruteforce(values, suits)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(CARD, min_size=1, max_size=4))
def test_short_hands_are_ranked(cards: list[tuple[int, int]]) -> None:
    values, suits = [v for v, _ in cards], [s for _, s in cards]
    rank = best_five(values, suits)
    assert 0 <= rank[0] <= 7


def test_four_of_a_kind_without_a_kicker() -> None:
    assert best_five([9, 9, 9, 9], [0, 1, 2, 3]) == (7, 9)
    assert best_five([9, 9, 9, 9, 9], [0, 1, 2, 3, 0]) == (7, 9, 9)  # two copies of a card
    assert best_five([9, 9, 9, 9, 3], [0, 1, 2, 3, 0]) == (7, 9, 3)


def test_seed_100062_plays_to_the_end() -> None:
    spec = generate(100062)
    rng = random.Random(0)
    for deal in range(300):
        state = new_deal(spec, deal)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        assert sum(state.returns()) == 0


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**40),
    complexity=st.floats(min_value=0.5, max_value=4.0, allow_nan=False),
)
def test_random_play_of_any_generated_game_never_raises(seed: int, complexity: float) -> None:
    spec = generate(seed, GenerationConfig(complexity=complexity))
    rng = random.Random(seed)
    for deal in range(6):
        state = new_deal(spec, deal)
        moves = 0
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            moves += 1
            assert moves < 10_000
        assert sum(state.returns()) == 0
