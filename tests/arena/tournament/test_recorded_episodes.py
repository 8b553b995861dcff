"""Episodes with LLM players, every request kept (issue 41, item 5): ``run_recorded_episodes``
plays the hands ``run_episode_tournament`` plays, and keeps each LLM move with its calls, tokens
and cost, which add up to the provider's own account (the planted-skill server over HTTP, with
illegal answers and overloads); the tables do not depend on how many episodes play at once."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.recorded_episodes import run_recorded_episodes
from arena.tournament.runner import run_episode_tournament
from engines.tournament.episodes import HAND_COLUMNS, EpisodeConfig
from engines.tournament.records import MOVE_SCHEMA
from tests.doubles.planted_server import PlantedModel, PlantedServer, roster_players


def test_llm_episodes_keep_every_move_and_its_cost(tmp_path: Path) -> None:
    games = resolve_games(["kuhn", "leduc"])
    field = [
        PlantedModel(
            "llm", skill=0.7, illegal_rate=0.2, latency_s=0.001, overload_rate=0.05,
            overload_retry_after_s=0.001,
        )
    ]  # fmt: skip
    config = EpisodeConfig(hands=5, reveal="all")
    with PlantedServer(field, [g.spec for g in games]) as server:
        players, providers = roster_players(field, server.url, backoff_base_s=0.001)
        roster = parse_roster(
            {"players": [{"name": "over", "kind": "builtin", "agent": "overfolder"}, *players],
             "providers": providers}
        )  # fmt: skip
        pairs = [("llm", "over")]
        run = run_recorded_episodes(roster, pairs, games, 2, config, tmp_path / "a", parallel=4)
        account = server.stats()["llm"]
        server.forget()
        once = run_recorded_episodes(roster, pairs, games, 2, config, tmp_path / "b", parallel=1)
        plain, stopped = run_episode_tournament(roster, pairs, games, 2, config, tmp_path / "c")
    assert run.stopped == {} and stopped == {}
    hands = pd.read_parquet(run.hands_path)
    assert list(hands.columns) == list(HAND_COLUMNS)
    assert len(hands) == 2 * 2 * 2 * 5  # games, episode pairs, mirrors, hands
    # the same hands as the runner's episodes, whatever the parallelism
    pd.testing.assert_frame_equal(hands, pd.read_parquet(plain))
    pd.testing.assert_frame_equal(hands, pd.read_parquet(once.hands_path))
    moves = pd.read_parquet(run.moves_path)
    assert list(moves.columns) == MOVE_SCHEMA.names
    pd.testing.assert_frame_equal(
        moves.drop(columns=["latency_s"]), pd.read_parquet(once.moves_path).drop(
            columns=["latency_s"])
    )  # fmt: skip
    assert set(moves["player"]) == {"llm"}
    # each hand's LLM moves are its rows, in order, under <episode_id>/<hand>
    played = moves[moves["action"].notna()].groupby("match_id").size()
    llm_moves = {f"{row.episode_id}/{row.hand}": 0 for row in hands.itertuples()}
    assert set(played.index) <= set(llm_moves)
    assert moves["rethinks"].sum() > 0
    # every request the server saw, and every token it billed, is in the moves
    assert int(moves["calls"].sum()) == account["requests"] > account["answered"]
    assert int(moves["input_tokens"].sum()) == account["prompt_tokens"]
    assert int(moves["output_tokens"].sum()) == account["completion_tokens"]
    assert moves["cost_usd"].sum() == pytest.approx(account["cost_usd"], rel=1e-9)
    usage = run.usage["llm"]
    assert usage["calls"] == account["requests"]
    assert usage["cost_usd"] == pytest.approx(account["cost_usd"], rel=1e-9)
    assert usage["moves"] == int(moves["action"].notna().sum())
    # later hands' prompts carried the episode so far: more input a call than the first hand's
    first = moves[moves["match_id"].str.endswith("/0")]
    last = moves[moves["match_id"].str.endswith("/4")]
    assert (last["input_tokens"] / last["calls"]).mean() > (
        first["input_tokens"] / first["calls"]
    ).mean()
