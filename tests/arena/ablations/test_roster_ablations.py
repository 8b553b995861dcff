"""The ablations from the roster: the profile's (or the config's) roles name which roster LLM
players play the disclosed and hidden arms, write programs, form thinking-budget families and
judge.  With the scripted server (always) and the local SmolLM2 server (slow; as CI runs it)
every arm and the judge table have rows."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.ablations.judge import TRACKING_QUANTITY
from arena.roster import parse_roster
from assets.ablations import AblationsConfig, build_ablations, roster_settings, settings_for
from assets.roster import roster_table
from assets.run_profiles import AblationRoles, get_profile
from tests.doubles.scripted_server import ScriptedServer
from tests.engines.ablations.scripted import SCORES, script

URL_ENV = "GENSTRAT_LOCAL_LLM_URL"
BOARD = pd.DataFrame()


def roster_of(url: str, **extra: Any) -> Any:
    model = {"kind": "openai", "base_url": url, "settings": {"temperature": 0}}
    return parse_roster(
        {
            "players": [
                {"name": "random", "kind": "builtin", "agent": "random"},
                {**model, "name": "fast", "model": "m", "settings": {"max_tokens": 8}},
                {**model, "name": "slow", "model": "m", "settings": {"max_tokens": 64}},
                {**model, "name": "writer", "model": "author-model"},
                {**model, "name": "grader", "model": "judge-model"},
            ],
            **extra,
        }
    )


def test_roles_resolve_to_roster_entries() -> None:
    roster = roster_of("http://127.0.0.1:9/v1", protocol="paper")
    roles = AblationRoles(players=("fast",), authors=("writer",), families=(("fast", "slow"),),
                          judge="grader")  # fmt: skip
    out = roster_settings(roster, roles)
    players = {str(e["name"]): e for e in out["llm_players"]}  # type: ignore[attr-defined]
    assert set(players) == {"fast", "slow"}
    assert players["fast"]["variant"] == "low" and players["slow"]["variant"] == "high"
    assert players["fast"]["family"] == players["slow"]["family"] == "fast+slow"
    assert players["slow"]["settings"] == {"max_tokens": 64}
    assert [e["name"] for e in out["authors"]] == ["writer"]  # type: ignore[attr-defined]
    assert out["judge"]["model"] == "judge-model"  # type: ignore[index]
    assert out["protocol"] == "paper"
    every = roster_settings(roster, AblationRoles(players=("*",), judge="*"))
    assert len(every["llm_players"]) == 4  # type: ignore[arg-type]
    assert every["judge"]["name"] == "fast"  # type: ignore[index]
    with pytest.raises(ValueError, match="ablation judge 'random' is not an LLM player"):
        roster_settings(roster, AblationRoles(judge="random"))
    with pytest.raises(ValueError, match="ablation player 'nobody'"):
        roster_settings(roster, AblationRoles(players=("nobody",)))


def test_the_paper_profile_names_roles_and_the_config_overrides_them() -> None:
    paper = get_profile("paper").ablation_roles
    assert paper.players == ("*",) and paper.authors == ("*",) and paper.judge == "*"
    table = roster_table(roster_of("http://127.0.0.1:9/v1"))
    config = AblationsConfig(games=["kuhn"], players=["fast"], authors=[], judge="grader")
    settings = settings_for(config, table, get_profile("paper"))
    assert [e["name"] for e in settings.llm_players] == ["fast"]
    assert settings.authors == () and settings.judge is not None
    with pytest.raises(ValueError, match=r"\[low, high\]"):
        settings_for(AblationsConfig(families=[["fast"]]), table, get_profile("paper"))


def test_every_arm_and_the_judge_have_rows_with_scripted_roster_players(tmp_path: Path) -> None:
    with ScriptedServer(script) as server:
        table = roster_table(roster_of(server.url, protocol="paper"))
        config = AblationsConfig(
            games=["kuhn"], runs=1, bootstrap=10, local_model=False, players=["fast"],
            authors=["writer"], families=[["fast", "slow"]], judge="grader", judge_max=6,
        )  # fmt: skip
        summary, metadata = build_ablations(config, table, BOARD, str(tmp_path),
                                            get_profile("paper"))  # fmt: skip
        bodies = [r.body for r in server.requests]
    assert set(summary["ablation"]) == {"programs", "thinking_budget", "judge", "authoring"}
    families = set(summary.loc[summary["ablation"] == "thinking_budget", "subject"])
    assert "fast+slow" in families
    disclosure = summary[summary["quantity"] == "disclosure_effect"]
    assert {"fast", "slow"} <= set(disclosure["subject"])
    judge = summary[summary["ablation"] == "judge"]
    tracked = judge["quantity"].str.startswith(TRACKING_QUANTITY)
    assert len(judge[~tracked]) == 3 and judge["n"].gt(0).all()  # a rubric's association each
    assert len(judge[tracked]) == 3  # and how far it tracks its axis (Section 8)
    # the roster's settings reached the provider, and under the paper protocol no rethink
    assert {"max_tokens": 8}.items() <= next(b for b in bodies if b.get("max_tokens") == 8).items()
    assert all(len(b["messages"]) <= 3 for b in bodies if b.get("model") == "m")
    assert "author-model" in str(metadata["program_admissions"])
    assert str(SCORES["planning_depth"]) in str(metadata["judgements"])


@pytest.mark.slow
def test_every_arm_and_the_judge_have_rows_with_the_local_model(tmp_path: Path) -> None:
    url = os.environ.get(URL_ENV)
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{URL_ENV} is not set under CI")
        pytest.skip(f"no local LLM server ({URL_ENV} unset); `make pytest` starts one")
    base = {"kind": "openai", "model": "smollm2", "base_url": url,
            "response_format": "json_object_schema", "family": "smollm2"}  # fmt: skip
    roster = parse_roster(
        {
            "players": [
                {"name": "random", "kind": "builtin", "agent": "random"},
                base | {"name": "smol-low", "variant": "low",
                        "settings": {"temperature": 0, "max_tokens": 16, "seed": 0}},
                base | {"name": "smol-high", "variant": "high",
                        "settings": {"temperature": 0, "max_tokens": 32, "seed": 0}},
            ],
            "protocol": "paper",
        }
    )  # fmt: skip
    config = AblationsConfig(games=["kuhn"], runs=1, bootstrap=10, local_model=False,
                             players=["*"], authors=[], judge="smol-high", judge_max=6)  # fmt: skip
    summary, metadata = build_ablations(config, roster_table(roster), BOARD, str(tmp_path),
                                        get_profile("paper"))  # fmt: skip
    disclosure = summary[summary["quantity"] == "disclosure_effect"]
    assert {"smol-low", "smol-high"} <= set(disclosure["subject"]), metadata["notes"]
    assert "smollm2" in set(summary.loc[summary["ablation"] == "thinking_budget", "subject"])
    judge = summary[summary["ablation"] == "judge"]
    tracked = judge["quantity"].str.startswith(TRACKING_QUANTITY)
    assert len(judge[~tracked]) == 3 and judge["n"].gt(0).all(), metadata["notes"]
    assert len(judge[tracked]) == 3, metadata["notes"]
