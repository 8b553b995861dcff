"""Scheduling: paired deals, seeds from (game, pair, run), blocks, stable identities."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.runner import tournament_schedule
from engines.gbg import presets
from engines.gbg.rng import derive_seed
from engines.tournament.schedule import pair_key, parse_game_list, preset_game_seed, round_robin


def bots(*names: str, block: str = "block-1") -> list[dict[str, object]]:
    return [{"name": n, "kind": "builtin", "agent": "random", "block": block} for n in names]


def test_round_robin_plays_every_pair_on_every_game_in_paired_deals() -> None:
    roster = parse_roster({"players": bots("a", "b", "c")})
    games = resolve_games(["kuhn", "leduc"])
    schedule = tournament_schedule(roster, games, 5)
    assert len(schedule) == 3 * 2 * 5 * 2
    assert len({m.match_id for m in schedule}) == len(schedule)
    runs: dict[str, list[object]] = {}
    for m in schedule:
        runs.setdefault(m.run_id, []).append(m)
    assert len(runs) == 3 * 2 * 5
    for deals in runs.values():
        one, two = deals  # type: ignore[misc]
        assert (one.alice, one.bob) == (two.bob, two.alice)  # seats swapped
        assert one.play_seed == two.play_seed  # the same cards
        assert (one.deal, two.deal) == (0, 1)
        assert one.match_id == f"{one.run_id}.0" and two.match_id == f"{two.run_id}.1"
    pairs = Counter(frozenset(m.players) for m in schedule)
    assert set(pairs.values()) == {2 * 5 * 2}


def test_play_seeds_derive_from_game_pair_and_run() -> None:
    roster = parse_roster({"players": bots("a", "b")})
    (game,) = resolve_games(["kuhn"])
    schedule = tournament_schedule(roster, [game], 3)
    for m in schedule:
        assert m.play_seed == derive_seed(game.game_seed, pair_key("a", "b"), m.run_index)
    assert len({m.play_seed for m in schedule}) == 3


def test_adding_a_player_keeps_every_existing_matchup() -> None:
    games = resolve_games(["kuhn", "3"])
    before = tournament_schedule(parse_roster({"players": bots("a", "b")}), games, 4)
    after = tournament_schedule(parse_roster({"players": bots("a", "b", "c")}), games, 4)
    assert {m.match_id for m in before} <= {m.match_id for m in after}
    old = {m.match_id: m.play_seed for m in before}
    assert all(m.play_seed == old[m.match_id] for m in after if m.match_id in old)


def test_later_blocks_meet_k_existing_players_across_all_games() -> None:
    players = bots("a", "b", "c", "d", "e") + bots("new1", "new2", block="september")
    roster = parse_roster({"players": players, "schedule": {"opponents": 3}})
    games = resolve_games(["kuhn", "leduc", "0", "4", "5", "6"])
    schedule = tournament_schedule(roster, games, 2)
    first = [m for m in schedule if m.block == "block-1"]
    later = [m for m in schedule if m.block == "september"]
    assert len(first) == 10 * 6 * 2 * 2
    for newcomer in ("new1", "new2"):
        mine = [m for m in later if newcomer in m.players]
        rivals = {p for m in mine for p in m.players} - {newcomer}
        assert len(rivals) == 3 and rivals <= {"a", "b", "c", "d", "e"}
        assert {m.game.token for m in mine} == {g.token for g in games}  # every game
        assert len(mine) == 6 * 2 * 2
    assert not any({"new1", "new2"} <= set(m.players) for m in later)


def test_first_block_can_play_a_subset_of_games() -> None:
    roster = parse_roster({"players": bots("a", "b"), "schedule": {"first_block_games": 1}})
    schedule = tournament_schedule(roster, resolve_games(["kuhn", "leduc"]), 1)
    assert {m.game.token for m in schedule} == {"kuhn"}


def test_game_seeds_for_generated_and_named_games() -> None:
    seeds = {g.token: g.game_seed for g in resolve_games(["4", "kuhn"])}
    assert seeds["4"] == 4
    assert seeds["kuhn"] == preset_game_seed(presets.kuhn()) < 0
    assert seeds["kuhn"] == -(1 + int(presets.kuhn().spec_hash[:13], 16))
    assert abs(seeds["kuhn"]) < 2**52


def test_bad_game_lists_fail_in_one_line() -> None:
    assert parse_game_list("kuhn, 4 ,5") == ["kuhn", "4", "5"]
    with pytest.raises(ValueError, match="empty game"):
        resolve_games(parse_game_list("kuhn,,4"))
    with pytest.raises(ValueError, match="same game"):
        resolve_games(["kuhn", "kuhn"])
    with pytest.raises(ValueError, match="is not a game"):
        resolve_games(["chess"])
    with pytest.raises(ValueError, match="runs must be at least 1"):
        tournament_schedule(parse_roster({"players": bots("a", "b")}), resolve_games(["4"]), 0)
    assert round_robin(["a"], resolve_games(["4"]), 1, "b", {"a": ""}) == []  # no pair, no deal
