"""The deployment instance (``deploy/dagster.postgres.yaml``) on a real PostgreSQL server.

The shipped file is copied unchanged into ``DAGSTER_HOME`` and reads the server's settings
from ``DAGSTER_PG_*`` (``tests/servers.py`` starts the server; docs/DEPLOY.md, section 1).
A real part of the graph is materialized into it; the run, its events and the asset
materializations are read back through the instance and once straight from the server.
"""

from __future__ import annotations

import contextlib

import dagster as dg
import pandas as pd
import pytest
from dagster_postgres import (
    PostgresEventLogStorage,
    PostgresRunStorage,
    PostgresScheduleStorage,
)

from pipelines.definitions import defs
from tests.servers import PostgresServer
from tests.support import ProjectEnv

SELECTION = [dg.AssetKey(k) for k in ("reference_games", "seed_pool", "accepted_games")]


@pytest.mark.slow
def test_the_deploy_instance_stores_runs_events_and_materializations_in_postgres(
    postgres_env: ProjectEnv, postgres_server: PostgresServer
) -> None:
    with dg.DagsterInstance.get() as instance:
        assert isinstance(instance.run_storage, PostgresRunStorage)
        assert isinstance(instance.event_log_storage, PostgresEventLogStorage)
        assert isinstance(instance.schedule_storage, PostgresScheduleStorage)
        assert isinstance(instance.run_coordinator, dg.QueuedRunCoordinator)

        job = defs.resolve_implicit_job_def_def_for_assets(SELECTION)
        assert job is not None
        result = job.execute_in_process(instance=instance, asset_selection=SELECTION)
        assert result.success
        run_id = result.run_id

        # Through the instance (what the UI and the daemon read).
        run = instance.get_run_by_id(run_id)
        assert run is not None and run.status == dg.DagsterRunStatus.SUCCESS
        records = instance.all_logs(run_id)
        logged = [e.dagster_event_type for e in records if e.is_dagster_event]
        assert dg.DagsterEventType.RUN_START in logged
        assert logged[-1] == dg.DagsterEventType.RUN_SUCCESS
        assert logged.count(dg.DagsterEventType.ASSET_MATERIALIZATION) == len(SELECTION)
        assert dg.DagsterEventType.ASSET_CHECK_EVALUATION in logged
        latest = instance.get_latest_materialization_event(dg.AssetKey("accepted_games"))
        assert latest is not None and latest.run_id == run_id
        assert latest.asset_materialization is not None
        rows = latest.asset_materialization.metadata["dagster/row_count"].value
        assert rows == len(pd.read_parquet(postgres_env.tables() / "accepted_games.parquet")) == 60

    # Straight from the server: the rows are in PostgreSQL, not in a local file.
    with contextlib.closing(postgres_server.connect()) as connection, connection.cursor() as sql:
        sql.execute("SELECT status FROM runs WHERE run_id = %s", (run_id,))
        assert sql.fetchall() == [("SUCCESS",)]
        sql.execute("SELECT count(*) FROM event_logs WHERE run_id = %s", (run_id,))
        assert sql.fetchone()[0] == len(records)
        sql.execute(
            "SELECT asset_key FROM event_logs WHERE run_id = %s "
            "AND dagster_event_type = 'ASSET_MATERIALIZATION'",
            (run_id,),
        )
        stored = {row[0] for row in sql.fetchall()}
        assert stored == {key.to_string() for key in SELECTION}
        sql.execute("SELECT asset_key FROM asset_keys")
        assert {key.to_string() for key in SELECTION} <= {row[0] for row in sql.fetchall()}
    assert not list(postgres_env.dagster_home.glob("**/*.db"))  # no SQLite storage on the side
