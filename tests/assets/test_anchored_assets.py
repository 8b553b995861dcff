"""The issue-19 stage as plain functions on the demo roster: anchored scales from a real
tournament, episodes against the exploitable bot, the program track of the handwritten
programs; every table matches its declaration and the report shows them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import load_roster, parse_roster
from arena.tournament.runner import run_tournament
from assets.anchored_scales import (
    AnchoredConfig,
    EpisodeAssetConfig,
    ProgramTrackConfig,
    build_anchored_scales,
    build_episode_adaptation,
    build_program_track,
)
from assets.roster import DEMO_ROSTER, roster_table
from engines.stats.program_track import OVERALL
from quality.schema import schema_problems
from releases.report import anchored_section


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("anchored")
    roster = roster_table(load_roster(DEMO_ROSTER))
    summary = run_tournament(load_roster(DEMO_ROSTER), resolve_games(["kuhn"]), 4, folder / "c")
    matches = pd.read_parquet(summary.matches_path)
    scales, scales_meta = build_anchored_scales(matches, roster, AnchoredConfig(), 200)
    episodes, _ = build_episode_adaptation(
        roster, EpisodeAssetConfig(games=["kuhn"], hands=6, episodes=3), folder / "e", 100
    )
    programs, _ = build_program_track(
        roster, ProgramTrackConfig(games=["kuhn"], runs=4), folder / "p", 100
    )
    return {"scales": scales, "meta": scales_meta, "episodes": episodes, "programs": programs}


def test_tables_match_their_declarations(built: dict[str, Any]) -> None:
    for name, key in (
        ("anchored_scales", "scales"),
        ("episode_adaptation", "episodes"),
        ("program_track", "programs"),
    ):
        assert schema_problems(name, built[key]) == [], name


def test_the_demo_roster_is_scored_against_its_field(built: dict[str, Any]) -> None:
    scales = built["scales"].set_index("model")
    assert built["meta"]["field"] == "gbg-builtin-v1" and built["meta"]["note"] == "none"
    assert scales.loc["population", "role"] == "entrant"
    assert scales.loc["population", "status"] == "ranked"  # 12 runs against the field
    assert scales.loc["random", "rating"] == 0.0 and scales.loc["random", "elo"] == 0.0
    assert (scales.loc[["random", "heuristic", "search-2"], "status"] == "reference").all()


def test_episodes_and_programs_cover_every_builtin_and_handwritten_program(
    built: dict[str, Any],
) -> None:
    episodes = built["episodes"]
    assert set(episodes["player"]) == {
        "random", "heuristic", "population", "search-2", "adaptive", "overfolder"
    }  # fmt: skip
    assert (episodes["episode_pairs"] == 3).all()
    overall = built["programs"][built["programs"]["game"] == OVERALL]
    assert list(overall["author"]) == ["handwritten"]
    assert overall["authoring_runs"].item() == 2 and overall["rank"].item() == 1


def test_the_report_section_shows_all_three(built: dict[str, Any]) -> None:
    html = anchored_section(
        {
            "anchored_scales": built["scales"],
            "episode_adaptation": built["episodes"],
            "program_track": built["programs"],
        }
    )
    for text in ("gbg-builtin-v1", "population", "Adaptation over multi-hand episodes",
                 "Program track", "handwritten"):  # fmt: skip
        assert text in html
    assert "&lt;NA&gt;" not in html and "<NA>" not in html
    assert anchored_section({}) == ""


def test_a_roster_playing_other_settings_is_refused(tmp_path: Path) -> None:
    data = {
        "players": [
            {"name": "random", "kind": "builtin", "agent": "random"},
            {"name": "search-2", "kind": "builtin", "agent": "search", "params": {"depth": 1}},
        ]
    }
    roster = roster_table(parse_roster(data))
    with pytest.raises(ValueError, match="search-2: the roster plays search"):
        build_anchored_scales(pd.DataFrame(), roster, AnchoredConfig(), 10)


def test_a_corpus_without_the_field_leaves_entrants_provisional(tmp_path: Path) -> None:
    data = {
        "players": [
            {"name": "random", "kind": "builtin", "agent": "random"},
            {"name": "population", "kind": "builtin", "agent": "population"},
        ]
    }
    summary = run_tournament(parse_roster(data), resolve_games(["kuhn"]), 2, tmp_path)
    matches = pd.read_parquet(summary.matches_path)
    table, meta = build_anchored_scales(
        matches, roster_table(parse_roster(data)), AnchoredConfig(), 10
    )
    assert "lacks reference member(s) heuristic, search-2" in meta["note"]
    entrant = table.set_index("model").loc["population"]
    assert entrant["status"] == "provisional" and "lacks reference member" in entrant["reason"]
    assert pd.isna(entrant["rank"]) and pd.isna(entrant["score"])
