"""``episode_adaptation`` with the roster's LLM players (issue 41, item 5): they play episodes
against the exploitable bot beside the built-ins, at their own number of episode pairs, their
rows in the adaptation table and their calls, tokens and cost in the metadata, equal to the
provider's own account; a roster of built-ins gets the table it got before."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.recorded_episodes import EPISODE_MOVES
from assets.anchored_scales import EpisodeAssetConfig, build_episode_adaptation, episode_llms
from assets.roster import roster_table
from tests.doubles.planted_server import PlantedServer, planted_field, roster_players


def test_llm_players_play_episodes_with_their_costs(tmp_path: Path) -> None:
    field = planted_field(2, illegal_rate=0.1, latency_s=0.001)
    games = resolve_games(["kuhn"])
    with PlantedServer(field, [g.spec for g in games]) as server:
        players, providers = roster_players(field, server.url)
        entries = [{"name": "random", "kind": "builtin", "agent": "random"}, *players]
        roster = roster_table(parse_roster({"players": entries, "providers": providers}))
        config = EpisodeAssetConfig(games=["kuhn"], hands=4, episodes=3, llm_episodes=2)
        table, metadata = build_episode_adaptation(roster, config, tmp_path / "e", 50)
        account = server.stats()
        config = config.model_copy(update={"llm_players": []})
        builtins, _ = build_episode_adaptation(roster, config, tmp_path / "b", 50)
    pairs = table.groupby("player")["episode_pairs"].max()
    assert pairs["random"] == 3 and pairs["planted-00"] == 2 and pairs["planted-01"] == 2
    assert metadata["llm_players"] == "planted-00, planted-01"
    moves = pd.read_parquet(tmp_path / "e" / "llm" / EPISODE_MOVES)
    assert metadata["llm_calls"] == sum(a["requests"] for a in account.values()) > 0
    assert metadata["llm_cost_usd"] == pytest.approx(sum(a["cost_usd"] for a in account.values()))
    assert metadata["llm_cost_usd"] == pytest.approx(moves["cost_usd"].sum())
    # without LLM players: the built-ins' rows alone, with the same estimates (their
    # intervals draw from one generator over every row, so they move)
    assert set(builtins["player"]) == {"random", "adaptive", "overfolder"}
    columns = ["game", "player", "opponent", "quantity", "estimate", "episode_pairs", "hands"]
    kept = table[table["player"].isin(["random", "adaptive"])][columns]
    alone = builtins[builtins["player"].isin(["random", "adaptive"])][columns]
    pd.testing.assert_frame_equal(kept.reset_index(drop=True), alone.reset_index(drop=True))


def test_llm_player_names_are_checked() -> None:
    entries = [{"name": "r", "kind": "builtin", "agent": "random"},
               {"name": "m", "kind": "openai", "model": "m"}]  # fmt: skip
    roster = parse_roster({"players": entries})
    assert episode_llms(roster, ["*"]) == ["m"] and episode_llms(roster, []) == []
    with pytest.raises(ValueError, match="'r' is not an LLM player"):
        episode_llms(roster, ["r"])
