"""The same graph runs on the distributed executor: on a local Dask cluster that the run starts,
and on a running cluster (a scheduler and two workers, separate processes) with the Postgres
deployment instance, where a game's tournament runs as several steps on both workers and the
outputs match an in-process run of the same selection with each tournament in one step."""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg
import pandas as pd
import pytest

from assets.run_profiles import PROFILE_ENV_VAR, get_profile
from pipelines.executors import dask_executor
from pipelines.scaleout import local_cluster_config, scaleout_job
from tests.scaleout_runs import PLAY_STEP, POOL_STAGE, read_outputs, run_selection, step_pids
from tests.servers import DaskCluster
from tests.support import CLUSTER_PROFILE, ProjectEnv

# Benchmark games whose axis_scores and tournament run on the cluster (one run per game).
GAMES = 2
# Play steps of a game's tournament on the cluster (in-process: one).
STEPS = 2


def test_scaleout_job_runs_on_the_project_dask_executor() -> None:
    assert scaleout_job().executor_def is dask_executor


@pytest.mark.slow
def test_pool_stage_runs_on_a_local_dask_cluster(
    project_env: ProjectEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PROFILE_ENV_VAR, CLUSTER_PROFILE)  # the cluster's workers inherit it
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
    games = pd.read_parquet(project_env.tables(CLUSTER_PROFILE) / "accepted_games.parquet")
    assert len(games) == get_profile(CLUSTER_PROFILE).max_accepted


@pytest.mark.slow
def test_pool_and_game_partitions_on_a_dask_cluster_match_an_in_process_run(
    postgres_env: ProjectEnv,
    dask_cluster: DaskCluster,
    cluster_data: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(PROFILE_ENV_VAR, CLUSTER_PROFILE)  # the cluster's workers run on it
    with dg.DagsterInstance.get() as instance:
        here = run_selection(instance, games=GAMES)  # files under postgres_env.data
        assert here.success and len(here.games) == GAMES
        there = run_selection(
            instance, games=GAMES, cluster=dask_cluster, concurrent_runs=2, steps=STEPS
        )
        assert there.success and list(there.games) == list(here.games)

        # Every step ran in a worker process of the cluster, none in this process.
        workers = set(dask_cluster.worker_pids.values())
        pool_steps = step_pids(instance, there.pool.run_id)
        assert {key.to_user_string() for key in POOL_STAGE} <= set(pool_steps)
        for outcome in there.all_runs():
            pids = step_pids(instance, outcome.run_id)
            assert pids and set(pids.values()) <= workers and os.getpid() not in pids.values()
        for game, outcome in there.games.items():
            run = instance.get_run_by_id(outcome.run_id)
            assert run is not None and run.tags["dagster/partition"] == game
            assert set(step_pids(instance, outcome.run_id)) == {
                "axis_scores",
                "axis_scores_contract",
            }
        spread = []
        for game, outcome in there.tournaments.items():
            run = instance.get_run_by_id(outcome.run_id)
            assert run is not None and run.tags["dagster/partition"] == game
            pids = step_pids(instance, outcome.run_id)
            assert set(pids) == {
                "match_corpus.plan_matches",
                *(f"{PLAY_STEP}step{k}]" for k in range(STEPS)),
                "match_corpus.collect_matches",
                "match_moves_contract",
            }
            spread.append({pid for key, pid in pids.items() if key.startswith(PLAY_STEP)})
        # a game's tournament ran as several steps at once, on both workers
        assert workers in spread, spread
        one_step = step_pids(instance, next(iter(here.tournaments.values())).run_id)
        assert [k for k in one_step if k.startswith(PLAY_STEP)] == [f"{PLAY_STEP}step0]"]

    expected = read_outputs(postgres_env.tables(CLUSTER_PROFILE))
    produced = read_outputs(ProjectEnv(cluster_data, cluster_data).tables(CLUSTER_PROFILE))
    for game in here.games:
        assert {f"{asset}/{game}.parquet" for asset in ("axis_scores", "match_corpus")} <= set(
            expected
        )
    assert set(expected) <= set(produced)
    # the same tables (wall times aside): the tournaments in two steps recorded the matches,
    # ids and rows, of the tournaments in one
    for name, frame in expected.items():
        pd.testing.assert_frame_equal(produced[name], frame, check_like=False)
