"""The order in which a tournament starts its matches (``arena.tournament.play.interleaved``):
one match of each pair of players in turn, so that every player has matches in flight from the
start instead of the first pair's runs alone; the corpus stays in schedule order."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES
from arena.tournament.play import interleaved
from arena.tournament.runner import run_tournament, tournament_schedule
from arena.tournament.shards import plan_shares, play_share
from engines.tournament.schedule import ScheduledMatch
from tests.doubles.scripted_server import ScriptedServer

MODELS = ("m-a", "m-b", "m-c", "m-d")


def roster(url: str) -> object:
    return parse_roster(
        {
            "players": [{"name": m, "kind": "openai", "model": m, "base_url": url} for m in MODELS],
            "providers": {f"openai@{url}": {"concurrency": 8}},
        }
    )


def scheduled(players: int, runs: int, games: tuple[str, ...]) -> list[ScheduledMatch]:
    names = [f"p{i}" for i in range(players)]
    entries = [{"name": n, "kind": "builtin", "agent": "random"} for n in names]
    return tournament_schedule(parse_roster({"players": entries}), resolve_games(list(games)), runs)


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(2, 6),
    runs=st.integers(1, 5),
    games=st.sampled_from([("kuhn",), ("kuhn", "leduc")]),
    drop=st.sets(st.integers(0, 400), max_size=40),
)
def test_every_prefix_of_the_order_is_balanced_over_pairs(
    players: int, runs: int, games: tuple[str, ...], drop: set[int]
) -> None:
    # a resumed run's pending matches: any subset of the schedule
    matches = [m for i, m in enumerate(scheduled(players, runs, games)) if i not in drop]
    order = interleaved(matches)
    assert sorted(m.match_id for m in order) == sorted(m.match_id for m in matches)
    left = Counter(frozenset(m.players) for m in matches)
    started: Counter[frozenset[str]] = Counter()
    for m in order:
        pair = frozenset(m.players)
        # no pair starts its next match before every pair with matches left has as many
        assert all(started[pair] <= started[p] for p in left if started[p] < left[p])
        started[pair] += 1
    for pair in left:  # each pair's matches in schedule order
        mine = [m.match_id for m in matches if frozenset(m.players) == pair]
        assert [m.match_id for m in order if frozenset(m.players) == pair] == mine


def test_the_first_matches_seat_every_player_and_the_corpus_keeps_schedule_order(
    tmp_path: Path,
) -> None:
    games = resolve_games(["kuhn"])
    pairs = len(MODELS) * (len(MODELS) - 1) // 2
    with ScriptedServer() as server:
        field = roster(server.url)
        summary = run_tournament(field, games, 3, tmp_path / "t", parallel=pairs)  # type: ignore[arg-type]
        first = [r.body["model"] for r in server.requests[:pairs]]
    assert summary.finished and summary.status_counts == {"complete": 3 * 2 * pairs}
    # schedule order would start the first pair's six deals: two models only
    assert len(set(first)) >= 3, first
    matches = pd.read_parquet(tmp_path / "t" / MATCHES)
    schedule = [m.match_id for m in tournament_schedule(field, games, 3)]  # type: ignore[arg-type]
    assert matches["match_id"].tolist() == schedule


def test_a_dagster_step_plays_its_share_in_the_same_order(tmp_path: Path) -> None:
    games = resolve_games(["kuhn"])
    pairs = len(MODELS) * (len(MODELS) - 1) // 2
    with ScriptedServer() as server:
        field = roster(server.url)
        (share,) = plan_shares(field, games, 3, tmp_path / "t", 1)  # type: ignore[arg-type]
        played = play_share(field, games, 3, tmp_path / "t", share, parallel=pairs)  # type: ignore[arg-type]
        first = [r.body["model"] for r in server.requests[:pairs]]
    assert played.played == 3 * 2 * pairs
    assert len(set(first)) >= 3, first  # the schedule's order: the first pair's two models
