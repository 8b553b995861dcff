"""The same graph runs on the distributed executor (dagster-dask, a local Dask cluster)."""

from __future__ import annotations

import dagster as dg
import pandas as pd
import pytest

from pipelines.scaleout import local_cluster_config, scaleout_job
from tests.support import ProjectEnv


@pytest.mark.slow
def test_pool_stage_runs_on_a_local_dask_cluster(project_env: ProjectEnv) -> None:
    selection = [
        dg.AssetKey("reference_games"),
        dg.AssetKey("seed_pool"),
        dg.AssetKey("accepted_games"),
    ]
    with dg.DagsterInstance.get() as instance:
        result = dg.execute_job(
            dg.reconstructable(scaleout_job),
            instance=instance,
            run_config=local_cluster_config(workers=2),
            asset_selection=selection,
        )
        assert result.success
        steps = {e.step_key for e in result.all_events if e.is_step_success}
        assert {"reference_games", "seed_pool", "accepted_games"} <= steps
        run = instance.get_run_by_id(result.run_id)
        assert run is not None and run.tags.get("dagster/solid_selection") is None
    games = pd.read_parquet(project_env.data / "accepted_games.parquet")
    assert len(games) == 60
