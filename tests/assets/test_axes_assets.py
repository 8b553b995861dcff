"""The axes stage: screening_axes, benchmark_games, axis_scores (per game) and benchmark_axes,
materialized through Dagster on the demo profile (the tables' functions are tested in
tests/engines/axes/test_axes_benchmark.py)."""

from __future__ import annotations

import dagster as dg
import pandas as pd
import pytest

from assets import axes
from assets.partitions import BENCHMARK_GAMES
from engines.axes.names import AXES
from engines.axes.screening import SCREENING_AXES
from tests.assets.resources import resources
from tests.engines.axes.accepted_pool import POOL_SEEDS, accepted_frame
from tests.support import ProjectEnv


@pytest.mark.slow  # over 5 s: make test only
def test_the_stage_materializes_on_the_demo_profile(project_env: ProjectEnv) -> None:
    env = resources(project_env)
    instance = dg.DagsterInstance.ephemeral()
    project_env.tables().mkdir(parents=True, exist_ok=True)
    accepted_frame().to_parquet(project_env.tables() / "accepted_games.parquet")
    upstream = [dg.AssetSpec("accepted_games"), axes.screening_axes, axes.benchmark_games]
    first = dg.materialize(
        upstream,
        selection=[dg.AssetKey("screening_axes"), dg.AssetKey("benchmark_games")],
        resources=env,
        instance=instance,
    )
    assert first.success
    screening = pd.read_parquet(project_env.tables() / "screening_axes.parquet")
    chosen = pd.read_parquet(project_env.tables() / "benchmark_games.parquet")
    assert list(screening["seed"]) == list(POOL_SEEDS)
    assert screening[list(SCREENING_AXES)].notna().all().all()
    assert len(chosen) == 8  # the demo profile's benchmark size
    selection = first.asset_materializations_for_node("benchmark_games")[0].metadata
    assert "image/png;base64" in selection["selection"].value

    # benchmark_games registered the selected games as the dynamic partition set.
    keys = BENCHMARK_GAMES.get_partition_keys(dynamic_partitions_store=instance)
    assert keys == list(chosen["game"])
    for key in keys:
        result = dg.materialize(
            [dg.AssetSpec("benchmark_games"), axes.axis_scores],
            partition_key=key,
            resources=env,
            instance=instance,
        )
        assert result.success
        metadata = result.asset_materializations_for_node("axis_scores")[0].metadata
        assert metadata["game"].value == key and "precision" in metadata["axes"].value
    row = pd.read_parquet(project_env.tables() / "axis_scores" / f"{keys[-1]}.parquet")
    assert len(row) == 1 and row["game"].iloc[0] == keys[-1]
    assert row[list(AXES)].notna().all().all()
    assert row[[f"rerun_{a}" for a in AXES]].notna().all().all()  # the rerun diagnostic ran
    assert bool(row["selected"].iloc[0]) == (keys[-1] in set(chosen["game"]))

    last = dg.materialize(
        [
            dg.AssetSpec("axis_scores", partitions_def=BENCHMARK_GAMES),
            axes.benchmark_axes,
            axes.axis_scores_sound,
        ],
        resources=env,
        instance=instance,
    )
    assert last.success
    assert [c.passed for c in last.get_asset_check_evaluations()] == [True]
    table = pd.read_parquet(project_env.tables() / "benchmark_axes.parquet")
    assert sorted(table["game"]) == sorted(keys)
    metadata = last.asset_materializations_for_node("benchmark_axes")[0].metadata
    assert "image/png;base64" in metadata["figure_1"].value
    assert "rerun correlation" in metadata["diagnostics"].value
