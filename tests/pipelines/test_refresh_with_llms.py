"""``GENSTRAT_ROSTER=my.yaml make run`` with LLM players (issue 41, item 5): the refresh of a
small profile (``make run``'s entry point in a fresh process, the ``tiny`` profile for time)
against an OpenAI-compatible server on loopback (the planted-skill field) publishes a release
that holds the LLM players' moves, with their calls, tokens and cost, in its transcripts, its
complete pairs and its leaderboard; the LLM players also played the episodes and the ablations'
arms, and nothing the corpus records exceeds what the server counted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.doubles.planted_server import PlantedModel, PlantedServer
from tests.support import REPO_ROOT, ProjectEnv

DEMO_BOTS = """players:
  - {name: random, kind: builtin, agent: random}
  - {name: heuristic, kind: builtin, agent: heuristic}
  - {name: search-2, kind: builtin, agent: search, params: {depth: 2, worlds: 8}}
"""


@pytest.mark.slow  # a whole refresh of the tiny profile with two LLM players (minutes)
def test_a_refresh_with_an_llm_roster_publishes_their_moves_and_costs(
    project_env: ProjectEnv, tmp_path: Path
) -> None:
    field = [
        PlantedModel("llm-a", skill=0.2, illegal_rate=0.02, latency_s=0.002),
        PlantedModel("llm-b", skill=0.9, illegal_rate=0.02, latency_s=0.002),
    ]
    with PlantedServer(field) as server:
        roster = tmp_path / "my.yaml"
        roster.write_text(
            DEMO_BOTS
            + "".join(
                f"  - {{name: {m.name}, kind: openai, model: {m.name}, base_url: '{server.url}', "
                "price: {input_per_mtok: 1, output_per_mtok: 4}}\n"
                for m in field
            )
        )
        env = {**os.environ, "GENSTRAT_PROFILE": "tiny", "GENSTRAT_ROSTER": str(roster)}
        completed = subprocess.run(
            [sys.executable, "-m", "pipelines.run_main"], cwd=REPO_ROOT, env=env,
            capture_output=True, text=True, timeout=3600, check=False,
        )  # fmt: skip
        account = server.stats()
    assert completed.returncode == 0, completed.stderr[-3000:]
    store = Path(os.environ["GENSTRAT_RELEASES"])
    (release,) = [p for p in store.iterdir() if p.name.startswith("gs-") and p.is_dir()]
    assert release.name in completed.stdout
    tables = release / "tables"
    moves = pd.read_parquet(tables / "match_moves.parquet")
    names = [m.name for m in field]
    released = moves[moves["player"].isin(names)].groupby("player")
    for name in names:
        used = released.get_group(name)
        assert used["calls"].sum() > 0 and used["cost_usd"].sum() > 0
        expected = (used["input_tokens"].sum() * 1 + used["output_tokens"].sum() * 4) / 1e6
        assert used["cost_usd"].sum() == pytest.approx(expected)
        # the release's moves are the tournament's; the episodes and the ablations asked more
        assert used["calls"].sum() < account[name]["requests"]
        assert used["input_tokens"].sum() < account[name]["prompt_tokens"]
    pairs = pd.read_parquet(tables / "complete_pairs.parquet")
    llm_cost = sum(
        pairs.loc[pairs[seat].isin(names), f"cost_usd_{seat}"].sum() for seat in ("alice", "bob")
    )
    assert llm_cost == pytest.approx(moves[moves["player"].isin(names)]["cost_usd"].sum())
    assert set(names) <= set(pd.read_parquet(tables / "leaderboards.parquet")["model"])
    roster_table = pd.read_parquet(tables / "roster.parquet")
    assert set(names) <= set(roster_table["name"])
    assert set(names) <= set(pd.read_parquet(tables / "episode_adaptation.parquet")["player"])
    ablations = pd.read_parquet(tables / "ablations.parquet")
    assert ablations["subject"].astype(str).str.contains("llm-b").any()
    episode_moves = pd.read_parquet(
        project_env.tables("tiny") / "episodes" / "llm" / "episode_moves.parquet"
    )
    assert set(episode_moves["player"]) == set(names) and episode_moves["cost_usd"].sum() > 0
    manifest = json.loads((release / "manifest.json").read_text())
    assert manifest["profile"]["name"] == "tiny"
