"""The ``ablations`` asset: a plain function on built-in players, then through Dagster with a
scripted local model standing in for the LLM (players, author and judge)."""

import os
from pathlib import Path

import dagster as dg
import pandas as pd
import pytest

from arena.ablations.judge import tracking_problems
from arena.roster import parse_roster
from assets.ablations import (
    AblationsConfig,
    ablation_games,
    ablations,
    build_ablations,
    settings_for,
)
from assets.resources import LOCAL_LLM_ENV_VAR, LocalModel, ProjectPaths, RunProfile
from assets.roster import roster_table
from assets.run_profiles import get_profile
from tests.doubles.scripted_server import ScriptedServer
from tests.engines.ablations.scripted import script

ROSTER = roster_table(
    parse_roster(
        {
            "players": [
                {"name": "random", "kind": "builtin", "agent": "random"},
                {"name": "heuristic", "kind": "builtin", "agent": "heuristic"},
            ]
        }
    )
)
BOARD = pd.DataFrame()  # no leaderboard: the lambda fit is left out, every other ablation runs


def test_ablations_on_built_in_players_as_a_plain_function(tmp_path: Path) -> None:
    config = AblationsConfig(games=["kuhn"], runs=2, bootstrap=20, local_model=False)
    table, metadata = build_ablations(config, ROSTER, BOARD, str(tmp_path))
    assert list(table.columns) == [
        "ablation", "quantity", "subject", "estimate", "ci_low", "ci_high", "n"
    ]  # fmt: skip
    assert {"programs", "thinking_budget", "authoring"} <= set(table["ablation"])
    efficiency = table[table["quantity"].str.startswith("efficiency")]
    assert len(efficiency) > 0 and efficiency["estimate"].notna().all()
    assert "judge: no traces" in str(metadata["notes"])
    assert str(metadata["plot"]).find("data:image/png;base64,") > 0


def test_ablations_materialize_with_a_scripted_local_model(tmp_path: Path) -> None:
    @dg.asset(name="roster")
    def roster_stub() -> pd.DataFrame:
        return ROSTER

    @dg.asset(name="leaderboards")
    def board_stub() -> pd.DataFrame:
        return BOARD

    @dg.asset(name="benchmark_games")
    def benchmark_stub() -> pd.DataFrame:
        return pd.DataFrame({"order": [0], "game": ["kuhn"]})

    @dg.asset(name="accepted_games")
    def pool_stub() -> pd.DataFrame:
        return pd.DataFrame({"seed": [], "spec_json": []})

    with ScriptedServer(script) as server:
        result = dg.materialize(
            [roster_stub, board_stub, benchmark_stub, pool_stub, ablations],
            resources={
                "paths": ProjectPaths(data_dir=str(tmp_path), profile="demo", edition=1),
                "profile": RunProfile(name="demo", edition=1),
                "local_llm": LocalModel(url=server.url),  # the server through the resource
            },
            run_config={
                "ops": {"ablations": {"config": {"games": ["kuhn"], "runs": 1, "bootstrap": 10}}}
            },
        )
    assert result.success
    table = result.output_for_node("ablations")
    assert set(table["ablation"]) == {"programs", "thinking_budget", "judge", "authoring"}
    families = set(table.loc[table["ablation"] == "thinking_budget", "subject"])
    assert families == {"search", "smollm2"}
    metadata = result.asset_materializations_for_node("ablations")[0].metadata
    assert "| True | admitted |" in metadata["authoring_attempts"].value  # the repair
    assert (tmp_path / "demo" / "edition-1" / "ablations" / "cache.sqlite").exists()


@pytest.mark.slow
def test_every_ablation_lands_in_the_asset_with_the_local_model(tmp_path: Path) -> None:
    """The real local model (SmolLM2-135M, started by `make pytest`) as players at two token
    budgets, author and judge: both arms, the thinking budget, the judge's association and
    the authoring attempts all land in the asset."""
    url = os.environ.get(LOCAL_LLM_ENV_VAR)
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{LOCAL_LLM_ENV_VAR} is not set under CI")
        pytest.skip(f"no local LLM server ({LOCAL_LLM_ENV_VAR} unset); `make pytest` starts one")
    config = AblationsConfig(games=["kuhn"], runs=1, bootstrap=20, llm_url=url, judge_max=8, seed=0)
    table, metadata = build_ablations(config, ROSTER, BOARD, str(tmp_path))
    assert "stopped" not in str(metadata["notes"]), metadata["notes"]
    quantities = {(r.quantity, r.subject) for r in table.itertuples()}
    for player in ("smollm2-low", "smollm2-high"):
        assert ("disclosure_effect", player) in quantities
        for arm in ("hidden", "disclosed"):
            for program in ("bluffer", "cautious"):
                assert (f"efficiency_{arm}", f"{player} vs {program} on kuhn") in quantities
    assert ("high_minus_low", "smollm2") in quantities
    judge = table[table["ablation"] == "judge"]
    assert set(judge["quantity"]) == {
        "slope_opponent_modelling", "slope_private_information", "slope_planning_depth",
        "tracking_opponent_modelling", "tracking_private_information", "tracking_planning_depth",
    }  # fmt: skip
    assert tracking_problems(table) == []
    assert (judge["n"] > 0).all()
    authoring = table[table["ablation"] == "authoring"]
    assert int(authoring["n"].iloc[0]) in (1, 2)  # one attempt, or one plus the repair turn
    assert "| smollm2-judge |" in str(metadata["judgements"])


def test_the_paper_profile_adds_the_first_benchmark_games_and_its_bootstrap() -> None:
    benchmark = pd.DataFrame({"order": [2, 0, 1], "game": ["17", "kuhn", "4"]})
    paper, demo = get_profile("paper"), get_profile("demo")
    config = AblationsConfig(local_model=False)
    assert ablation_games(config, demo, benchmark) == ["kuhn", "leduc"]
    # selection order, Kuhn not repeated, at most the profile's 20
    assert ablation_games(config, paper, benchmark) == ["kuhn", "leduc", "4", "17"]
    two = AblationsConfig(benchmark_games=1, local_model=False)
    assert ablation_games(two, demo, benchmark) == ["kuhn", "leduc"]  # first is kuhn, a repeat
    settings = settings_for(config, ROSTER, paper, benchmark)
    assert settings.bootstrap == paper.bootstrap_resamples == 2000
    assert settings_for(AblationsConfig(bootstrap=50, local_model=False), ROSTER).bootstrap == 50
    with pytest.raises(ValueError, match="non-negative"):
        ablation_games(AblationsConfig(benchmark_games=-1), demo, benchmark)


def test_the_tiny_profiles_ablate_on_kuhn_alone_unless_the_config_names_games() -> None:
    benchmark = pd.DataFrame({"order": [0], "game": ["4"]})
    for name in ("tiny", "tiny-paper"):
        tiny = get_profile(name)
        assert ablation_games(AblationsConfig(local_model=False), tiny, benchmark) == ["kuhn"]
        named = AblationsConfig(games=["leduc"], local_model=False)
        assert ablation_games(named, tiny, benchmark) == ["leduc"]
        assert tiny.model_dump()["ablation_reference_games"] == ("kuhn",)
    # the paper's reference games are the default, left out of a profile's dump (release ids)
    assert "ablation_reference_games" not in get_profile("demo").model_dump()


def test_the_local_model_comes_from_the_resource_unless_the_config_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(LOCAL_LLM_ENV_VAR, "http://127.0.0.1:9/v1")
    assert LocalModel().base_url() == "http://127.0.0.1:9/v1"
    assert LocalModel(url="http://127.0.0.1:8/v1").base_url() == "http://127.0.0.1:8/v1"
    monkeypatch.setenv(LOCAL_LLM_ENV_VAR, "")
    assert LocalModel().base_url() is None
    url = "http://127.0.0.1:9/v1"
    used = settings_for(AblationsConfig(), ROSTER, local_url=url)
    assert {p["base_url"] for p in used.llm_players} == {url}
    assert settings_for(AblationsConfig(local_model=False), ROSTER, local_url=url).llm_players == ()
    chosen = AblationsConfig(local_model=False, llm_url="http://127.0.0.1:7/v1")
    assert settings_for(chosen, ROSTER, local_url=url).judge["base_url"] == chosen.llm_url
