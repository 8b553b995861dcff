"""The playing loop's shortcuts give exactly what the engine gives: incremental information
keys equal ``State.information_state``, and explicit chance from a card order is uniform."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from constructed_games import bet_game, copies_game

from engines.axes.play import (
    InfoKeys,
    Stream,
    draw_chance,
    resolve_chance,
    stream_length,
)
from engines.gbg import presets
from engines.gbg.engine import CHANCE, new_deal
from engines.gbg.generator import generate
from engines.gbg.spec import GameSpec
from engines.gbg.structure import max_decisions


@pytest.mark.parametrize(
    "spec",
    [
        presets.kuhn(),
        presets.leduc(),
        presets.example4643(),
        copies_game(),
        generate(7),
        generate(24),
        generate(57),
    ],
    ids=["kuhn", "leduc", "example4643", "copies", "seed7", "seed24", "seed57"],
)
def test_incremental_keys_equal_the_engines_information_states(spec: GameSpec) -> None:
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(40):
        state = new_deal(spec, explicit_chance=True)
        chance = draw_chance(spec, rng)
        aux = chance.stream()
        keys = InfoKeys(state.g.label_of)
        branch = None
        while not state.is_terminal():
            if state.current_player == CHANCE:
                resolve_chance(state, chance.rank, aux)
                continue
            for seat in (0, 1):
                assert keys.key(state, seat) == state.information_state(seat)
                checked += 1
            if branch is None and rng.random() < 0.3:
                branch = (state.clone(), keys.copy())  # a replay from this position
            menu = state.legal_actions()
            state.apply(menu[int(rng.integers(len(menu)))])
        if branch is not None:
            other, other_keys = branch
            while not other.is_terminal():
                if other.current_player == CHANCE:
                    resolve_chance(other, chance.rank, chance.stream())
                    continue
                seat = other.current_player
                assert other_keys.key(other, seat) == other.information_state(seat)
                other.apply(other.legal_actions()[-1])
    assert checked > 100


def test_a_card_order_deals_uniformly() -> None:
    # Alice's card in "bet-cards" (six cards) over 3,000 fresh card orders: uniform.
    spec = bet_game(cards_matter=True)
    rng = np.random.default_rng(1)
    counts: Counter[int] = Counter()
    n = 3_000
    for _ in range(n):
        state = new_deal(spec, explicit_chance=True)
        chance = draw_chance(spec, rng)
        resolve_chance(state, chance.rank, Stream(chance.aux))
        counts[state.hands[0][0]] += 1
    assert sorted(counts) == list(range(6))
    assert all(abs(c - n / 6) < 4 * (n * 5 / 36) ** 0.5 for c in counts.values())


def test_stream_length_covers_every_decision_and_is_cached_per_spec() -> None:
    kuhn, leduc = presets.kuhn(), presets.leduc()
    assert stream_length(kuhn) == max_decisions(kuhn) + 4 * len(kuhn.phases) + 8
    assert stream_length(leduc) == max_decisions(leduc) + 4 * len(leduc.phases) + 8
    assert stream_length(kuhn) != stream_length(leduc)
