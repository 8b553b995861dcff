"""The balanced schedule (``engines.werewolf.schedule``): every seat holds every card once per
block, so every player is dealt the roles in the deck's proportions; seat counts vary from
block to block and span every player's direction (what the role ratings need to be
identified), and equal out over each complete group of blocks."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.werewolf.roles import CARDS, ROLE_COUNTS, SEATS, Role
from engines.werewolf.schedule import balanced_schedule


@given(
    n=st.integers(1, 12),
    groups=st.integers(1, 3),
    extra=st.integers(0, 3),
    seed=st.integers(0, 2**63),
)
def test_each_seat_holds_each_card_once_a_block_and_counts_vary(
    n: int, groups: int, extra: int, seed: int
) -> None:
    players = [f"m{k}" for k in range(n)]
    blocks = groups * n + extra
    games = balanced_schedule(players, blocks, seed)
    assert len(games) == SEATS * blocks
    assert len({g.game_id for g in games}) == len(games)
    assert len({g.play_seed for g in games}) == len(games)
    per_block = []
    for b in range(blocks):
        block = [g for g in games if g.block == b]
        assert len({g.players for g in block}) == 1  # one lineup per block
        for seat in range(SEATS):
            assert sorted(g.roles[seat] for g in block) == sorted(CARDS)
        held = Counter((p, r) for g in block for p, r in zip(g.players, g.roles, strict=True))
        seats = Counter(block[0].players)
        for player in players:  # the deck's proportions, for every player, in every block
            for role, cards in ROLE_COUNTS.items():
                assert held[(player, role)] == cards * seats[player]
        per_block.append([seats[p] for p in players])
    counts = np.array(per_block[: groups * n])
    assert (counts.sum(axis=0) == SEATS * groups).all()  # equal over complete groups
    assert np.linalg.matrix_rank(counts) == n  # the seat counts span every player


def test_four_players_each_play_every_role_equally_often() -> None:
    games = balanced_schedule(["a", "b", "c", "d"], 8, seed=1)
    held = Counter((p, r) for g in games for p, r in zip(g.players, g.roles, strict=True))
    for player in "abcd":
        assert [
            held[(player, r)] for r in (Role.WEREWOLF, Role.SEER, Role.DOCTOR, Role.VILLAGER)
        ] == [
            32,
            16,
            16,
            64,
        ]
    assert len({Counter(g.players)["a"] for g in games}) > 1  # a holds more seats in some blocks
    assert balanced_schedule(["a", "b", "c", "d"], 8, seed=1) == games
    assert balanced_schedule(["a", "b", "c", "d"], 8, seed=2) != games


def test_bad_schedules_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one player"):
        balanced_schedule([], 1, 0)
    with pytest.raises(ValueError, match="repeat"):
        balanced_schedule(["a", "a"], 1, 0)
    with pytest.raises(ValueError, match="at least one block"):
        balanced_schedule(["a"], 0, 0)
