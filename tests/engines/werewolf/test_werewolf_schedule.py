"""The balanced schedule (``engines.werewolf.schedule``): every seat holds every card once per
block, so every player is dealt the roles in the deck's proportions; seeded and checked."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.werewolf.roles import CARDS, ROLE_COUNTS, SEATS, Role
from engines.werewolf.schedule import balanced_schedule


@given(n=st.integers(1, 12), blocks=st.integers(1, 6), seed=st.integers(0, 2**63))
def test_each_seat_holds_each_card_once_a_block(n: int, blocks: int, seed: int) -> None:
    players = [f"m{k}" for k in range(n)]
    games = balanced_schedule(players, blocks, seed)
    assert len(games) == SEATS * blocks
    assert len({g.game_id for g in games}) == len(games)
    assert len({g.play_seed for g in games}) == len(games)
    for b in range(blocks):
        block = [g for g in games if g.block == b]
        assert len({g.players for g in block}) == 1  # one lineup per block
        for seat in range(SEATS):
            assert sorted(g.roles[seat] for g in block) == sorted(CARDS)
        for game in block:
            assert sorted(game.roles) == sorted(CARDS)
    # every player: the seats it holds (one per block each) times the deck's share of each role
    held: Counter[tuple[str, Role]] = Counter()
    appearances: Counter[str] = Counter()
    for game in games:
        held.update(zip(game.players, game.roles, strict=True))
        appearances.update(game.players)
    seats = {p: appearances[p] // SEATS for p in players}
    for player in players:
        for role, cards in ROLE_COUNTS.items():
            assert held[(player, role)] == cards * seats[player]
    # the 8 x blocks seats go round the players in order: floor or ceiling of the share each
    assert sum(seats.values()) == SEATS * blocks
    assert max(seats.values()) - min(seats.values()) <= 1


def test_four_players_each_play_every_role_equally_often() -> None:
    games = balanced_schedule(["a", "b", "c", "d"], 10, seed=1)
    held = Counter((p, r) for g in games for p, r in zip(g.players, g.roles, strict=True))
    for player in "abcd":
        assert [
            held[(player, r)] for r in (Role.WEREWOLF, Role.SEER, Role.DOCTOR, Role.VILLAGER)
        ] == [
            40,
            20,
            20,
            80,
        ]
    assert balanced_schedule(["a", "b", "c", "d"], 10, seed=1) == games
    assert balanced_schedule(["a", "b", "c", "d"], 10, seed=2) != games


def test_bad_schedules_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one player"):
        balanced_schedule([], 1, 0)
    with pytest.raises(ValueError, match="repeat"):
        balanced_schedule(["a", "a"], 1, 0)
    with pytest.raises(ValueError, match="at least one block"):
        balanced_schedule(["a"], 0, 0)
