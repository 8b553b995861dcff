"""The ``ablations`` asset: a plain function on built-in players, then through Dagster with a
scripted local model standing in for the LLM (players, author and judge)."""

from pathlib import Path

import dagster as dg
import pandas as pd

from assets.ablations import AblationsConfig, ablations, build_ablations
from assets.resources import ProjectPaths
from assets.roster import roster_table
from engines.agents.roster import parse_roster
from engines.agents.scripted_server import ScriptedServer
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
PAIRS = pd.DataFrame()  # no tournament: the lambda fit is left out, every other ablation runs


def test_ablations_on_built_in_players_as_a_plain_function(tmp_path: Path) -> None:
    config = AblationsConfig(games=["kuhn"], runs=2, bootstrap=20, local_model=False)
    table, metadata = build_ablations(config, ROSTER, PAIRS, str(tmp_path))
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

    @dg.asset(name="complete_pairs")
    def pairs_stub() -> pd.DataFrame:
        return PAIRS

    with ScriptedServer(script) as server:
        result = dg.materialize(
            [roster_stub, pairs_stub, ablations],
            resources={"paths": ProjectPaths(data_dir=str(tmp_path))},
            run_config={
                "ops": {
                    "ablations": {
                        "config": {
                            "games": ["kuhn"],
                            "runs": 1,
                            "bootstrap": 10,
                            "llm_url": server.url,
                        }
                    }
                }
            },
        )
    assert result.success
    table = result.output_for_node("ablations")
    assert set(table["ablation"]) == {"programs", "thinking_budget", "judge", "authoring"}
    families = set(table.loc[table["ablation"] == "thinking_budget", "subject"])
    assert families == {"search", "smollm2"}
    metadata = result.asset_materializations_for_node("ablations")[0].metadata
    assert "| True | admitted |" in metadata["authoring_attempts"].value  # the repair
    assert (tmp_path / "ablations" / "cache.sqlite").exists()
