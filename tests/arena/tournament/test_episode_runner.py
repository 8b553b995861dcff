"""The episode hook of the tournament runner: an LLM player sees the earlier hands of its
episode in its prompt, and the hands are written as one table (issue 19)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.runner import run_episode_tournament
from engines.tournament.episodes import HAND_COLUMNS, EpisodeConfig
from tests.doubles.scripted_server import ScriptedServer

KEY_ENV = "GENSTRAT_TEST_LLM_KEY"


def roster(url: str):  # type: ignore[no-untyped-def]
    return parse_roster(
        {
            "players": [
                {"name": "bot", "kind": "builtin", "agent": "overfolder"},
                {"name": "adaptive", "kind": "builtin", "agent": "adaptive"},
                {
                    "name": "llm",
                    "kind": "openai",
                    "model": "m-1",
                    "base_url": url,
                    "api_key_env": KEY_ENV,
                },
            ],
            "providers": {f"openai@{url}": {"concurrency": 2, "backoff_base_s": 0.01}},
        }
    )


def user_prompts(server: ScriptedServer) -> list[str]:
    return [str(r.body["messages"][-1]["content"]) for r in server.requests]


def test_llm_prompts_carry_the_episode_history(tmp_path: Path) -> None:
    config = EpisodeConfig(hands=4, reveal="all")
    with ScriptedServer() as server:
        path, stopped = run_episode_tournament(
            roster(server.url), [("llm", "bot"), ("adaptive", "bot")], resolve_games(["kuhn"]),
            1, config, tmp_path, environ={KEY_ENV: "sk-test-0000"},
        )  # fmt: skip
        prompts = user_prompts(server)
    hands = pd.read_parquet(path)
    assert stopped == {}
    assert list(hands.columns) == list(HAND_COLUMNS)
    assert len(hands) == 2 * 2 * 4  # two pairs, two mirrored episodes, four hands
    assert set(hands["status"]) == {"complete"}
    assert not prompts[0].startswith("Earlier hands")
    later = [p for p in prompts if p.startswith("Earlier hands of this episode (3)")]
    assert later, "the last hand's prompts name the three earlier hands"
    assert "Hand 1: you sat" in later[0] and "showed" in later[0]


def test_unknown_players_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown player"):
        run_episode_tournament(
            roster("http://127.0.0.1:9/v1"), [("llm", "nobody")], resolve_games(["kuhn"]),
            1, EpisodeConfig(hands=2), tmp_path,
        )  # fmt: skip
    assert not (tmp_path / "hands.parquet").exists()


def test_a_stopped_player_is_taken_out_and_named(tmp_path: Path) -> None:
    """Without its key variable the LLM starts stopped: its episodes are not recorded, the
    built-ins' are, and the reason names the variable."""
    with ScriptedServer() as server:
        path, stopped = run_episode_tournament(
            roster(server.url), [("llm", "bot"), ("adaptive", "bot")], resolve_games(["kuhn"]),
            2, EpisodeConfig(hands=3), tmp_path, environ={},
        )  # fmt: skip
        assert server.requests == []
    hands = pd.read_parquet(path)
    assert set(hands["first"]) | set(hands["second"]) == {"adaptive", "bot"}
    assert len(hands) == 2 * 2 * 3
    assert set(stopped) == {"llm"} and KEY_ENV in stopped["llm"]
