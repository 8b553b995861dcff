"""The ``werewolf`` group (``assets/werewolf.py``) materialized once for the module: two LLM
players on the loopback OpenAI-compatible server (``tests/doubles/werewolf_planted.py``: a
sharp model and a model that plays uniformly at random) and two built-in bots (``rule``,
``random``) play a balanced schedule; the ratings are fitted and the group's release is
published into a release store (issue 47, "Done when").  The release's role ratings recover the
planted order, with intervals; the release verifies, and a tampered game is refused by its
gates."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import pandas as pd
import pytest

from assets import roster, werewolf
from engines.werewolf.rules import ENGINE_VERSION
from releases.store import GateFailed, verify
from releases.werewolf import (
    GATE_NAMES,
    attestation,
    publish_werewolf_release,
    werewolf_gates,
)
from tests.assets.resources import resources
from tests.doubles.scripted_server import ScriptedServer
from tests.doubles.werewolf_planted import PlantedWerewolf, planted_script
from tests.support import ProjectEnv

pytestmark = pytest.mark.slow  # 192 games through the LLM path and Dagster

FIELD = {"sharp": PlantedWerewolf("sharp", 1.0), "dull": PlantedWerewolf("dull", 0.0)}
BLOCKS = 24  # 192 games, six complete groups of the four players' blocks
GROUP_ASSETS = [
    roster.roster,
    werewolf.werewolf_games,
    werewolf.werewolf_ratings,
    werewolf.werewolf_release,
    werewolf.werewolf_release_verifies,
]


@dataclass(frozen=True)
class Group:
    result: dg.ExecuteInProcessResult
    store: Path
    release: Path
    requests: int


def read(release: Path, name: str) -> pd.DataFrame:
    return pd.read_parquet(release / "tables" / f"{name}.parquet")


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Group]:
    tmp = tmp_path_factory.mktemp("werewolf_group")
    env = ProjectEnv(data=tmp / "data", dagster_home=tmp / "dagster_home")
    store = tmp / "releases"
    with ScriptedServer(planted_script(FIELD)) as server, pytest.MonkeyPatch.context() as mp:
        mp.setenv("GENSTRAT_DATA", str(env.data))
        mp.delenv("GENSTRAT_PROFILE", raising=False)
        path = tmp / "roster.yaml"
        path.write_text(
            "players:\n"
            f"  - {{name: llm-sharp, kind: openai, model: sharp, base_url: '{server.url}'}}\n"
            f"  - {{name: llm-dull, kind: openai, model: dull, base_url: '{server.url}'}}\n"
        )
        config: dict[str, Any] = {
            "ops": {
                "roster": {"config": {"path": str(path)}},
                "werewolf_games": {"config": {"blocks": BLOCKS, "discussion_rounds": 1}},
                "werewolf_ratings": {"config": {"n_boot": 200, "seed": 3}},
                "werewolf_release": {"config": {"store": str(store)}},
            }
        }
        result = dg.materialize(
            GROUP_ASSETS,
            resources=resources(env),
            run_config=config,
            instance=dg.DagsterInstance.ephemeral(),
        )
        requests = len(server.requests)
    published = result.output_for_node("werewolf_release")
    yield Group(result, store, Path(str(published["path"].iloc[0])), requests)


def test_the_group_plays_its_schedule_through_the_llm_path(group: Group) -> None:
    result = group.result
    assert result.success
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks == {"games_replay": True, "published_release_verifies": True}
    games = read(group.release, "werewolf_games")
    decisions = read(group.release, "werewolf_decisions")
    assert len(games) == 8 * BLOCKS and set(games["engine_version"]) == {ENGINE_VERSION}
    llm = decisions.loc[decisions["player"].str.startswith("llm-")]
    # every model decision was one request answered by the loopback server, none forfeited
    assert int(llm["calls"].sum()) == len(llm) == group.requests
    assert llm["forfeit"].isna().all() and (llm["verdict"] == "ok").all()
    assert "latency_s" not in decisions.columns  # wall clock stays out of a release
    players = read(group.release, "werewolf_players")
    assert players.to_dict("records") == [
        {"name": "llm-sharp", "kind": "model", "spec": ""},
        {"name": "llm-dull", "kind": "model", "spec": ""},
        {"name": "rule", "kind": "bot", "spec": "rule"},
        {"name": "random", "kind": "bot", "spec": "random"},
    ]
    assert sorted(read(group.release, "roster")["name"]) == ["llm-dull", "llm-sharp"]


def test_the_release_role_ratings_recover_the_planted_order_with_intervals(group: Group) -> None:
    ratings = read(group.release, "werewolf_ratings")
    overall = read(group.release, "werewolf_overall").set_index("model")
    assert len(ratings) == 4 * 4 and ratings["seats"].gt(0).all()
    assert (ratings["ci_low"] <= ratings["skill"]).all()
    assert (ratings["skill"] <= ratings["ci_high"]).all()
    skill = ratings.set_index(["model", "role"])["skill"]
    # the planted order: the sharp model above the one that plays at random, in every role
    # whose play the sharp policy changes (the Seer's claims, the Doctor's guard) and overall,
    # with disjoint intervals; so is the rule bot above the random bot overall
    by = ratings.set_index(["model", "role"])
    for role in ("seer", "doctor"):
        assert skill[("llm-sharp", role)] > skill[("llm-dull", role)], role
        assert by.loc[("llm-sharp", role), "ci_low"] > by.loc[("llm-dull", role), "ci_high"]
    assert overall.loc["llm-sharp", "ci_low"] > overall.loc["llm-dull", "ci_high"]
    assert overall.loc["rule", "ci_low"] > overall.loc["random", "ci_high"]
    fit = read(group.release, "werewolf_fit").iloc[0]
    assert fit["games"] == 8 * BLOCKS and fit["n_boot"] == 200
    assert fit["alpha_ci_low"] < fit["alpha"] < fit["alpha_ci_high"]


def test_the_release_verifies_and_records_its_gates(group: Group) -> None:
    verified = verify(group.release)
    assert verified.files > 0
    manifest = json.loads((group.release / "manifest.json").read_text())
    assert manifest["benchmark"] == "werewolf" and manifest["engine_version"] == ENGINE_VERSION
    card = json.loads((group.release / "integrity.json").read_text())
    assert [g for g in GATE_NAMES if card["gates"][g]["passed"]] == list(GATE_NAMES)
    assert card["gates"]["redaction"]["passed"]
    assert (group.release / "report" / "werewolf.html").is_file()


def release_tables(release: Path) -> dict[str, pd.DataFrame]:
    return {p.stem: pd.read_parquet(p) for p in (release / "tables").glob("*.parquet")}


def test_a_tampered_release_is_refused_by_its_gates(group: Group, tmp_path: Path) -> None:
    tables = release_tables(group.release)
    games = tables["werewolf_games"].copy()
    flipped = {"village": "werewolves", "werewolves": "village"}
    games.loc[0, "winner"] = flipped[str(games.loc[0, "winner"])]
    bad = {**tables, "werewolf_games": games}
    assert not attestation(bad).passed
    assert "replays to" in attestation(bad).message
    seats = tables["werewolf_seats"].copy()
    seats.loc[seats["player"] == "llm-dull", "won"] = True  # a rating fed other outcomes
    assert not werewolf_gates({**tables, "werewolf_seats": seats})["reproduction"].passed
    profile = {"name": "demo"}
    with pytest.raises(GateFailed, match="gate attestation failed"):
        publish_werewolf_release(bad, profile, tmp_path / "store")
    assert not (tmp_path / "store" / "index.json").exists()
