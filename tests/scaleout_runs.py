"""One selection of the graph, run in this process or on a Dask cluster, and its outputs.

The selection is the paper-shaped, partitioned part of the graph: the pool stage (``seed_pool``,
``accepted_games``, ``screening_axes``, ``benchmark_games``, the ``roster`` and their checks) in
one run, then per benchmark game (the first ``games``; the dynamic partition set that
``benchmark_games`` writes, ``assets/partitions.py``) one run of its ``axis_scores``, then per
game one run of its tournament (``match_corpus``, ``match_moves``) with the matches dealt into
``steps`` play steps (the daemon's ``follow_upstream`` launches the same two runs per game).
Both ways run ``scaleout_job`` (``pipelines.scaleout``): in this process with
``execute_in_process`` (steps one after another, each step's process pool on both cores), or
with ``dg.execute_job`` on the cluster (each step a Dask task; the axis runs ``concurrent_runs``
at a time, each from its own process, as the queued run coordinator of
``deploy/dagster.postgres.yaml`` and the run launcher would run a backfill's runs; the
tournaments one at a time, each spreading its play steps over the whole cluster).

``tests/pipelines/test_scaleout.py`` compares the two ways' outputs; ``benchmarks/scaleout.py``
times them.
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import dagster as dg
import pandas as pd

from assets.partitions import BENCHMARK_GAMES
from pipelines.scaleout import scaleout_job
from releases.contents import WALL_CLOCK_COLUMNS
from tests.servers import DaskCluster

POOL_STAGE = tuple(
    dg.AssetKey(key)
    for key in ("seed_pool", "accepted_games", "screening_axes", "benchmark_games", "roster")
)
PER_GAME = (dg.AssetKey("axis_scores"),)
TOURNAMENT = (dg.AssetKey("match_corpus"), dg.AssetKey("match_moves"))
# The step keys of a game's tournament: the plan, one play step per share, the collection.
PLAY_STEP = "match_corpus.play_matches["


def game_run_config(steps: int) -> dict[str, object]:
    """Run config of a game's run: its tournament in ``steps`` play steps."""
    return {"ops": {"match_corpus": {"config": {"steps": steps}}}}


@dataclass(frozen=True)
class RunOutcome:
    """A finished run: its id and whether it succeeded (its events are in the instance)."""

    run_id: str
    success: bool


@dataclass
class SelectionRuns:
    """The runs of one selection: the pool stage's, then per game its axes' and its
    tournament's, and the wall times (the whole selection, and the pool stage's run)."""

    pool: RunOutcome
    games: dict[str, RunOutcome] = field(default_factory=dict)
    tournaments: dict[str, RunOutcome] = field(default_factory=dict)
    seconds: float = 0.0
    pool_seconds: float = 0.0

    def all_runs(self) -> list[RunOutcome]:
        return [self.pool, *self.games.values(), *self.tournaments.values()]

    @property
    def success(self) -> bool:
        return all(run.success for run in self.all_runs())


def _execute_on_cluster(
    instance: dg.DagsterInstance,
    address: str,
    selection: tuple[dg.AssetKey, ...],
    partition: str | None,
    steps: int = 1,
) -> RunOutcome:
    config = DaskCluster.run_config_for(address)
    if partition is not None:
        config = {**config, **game_run_config(steps)}
    result = dg.execute_job(
        dg.reconstructable(scaleout_job),
        instance=instance,
        run_config=config,
        asset_selection=list(selection),
        tags={"dagster/partition": partition} if partition else None,
    )
    return RunOutcome(result.run_id, result.success)


def _launch_game_run(address: str, partition: str) -> RunOutcome:
    """One game's run from its own process against ``$DAGSTER_HOME``'s instance (a run
    launcher's job: Dagster's run orchestration is not safe to share between threads)."""
    with dg.DagsterInstance.get() as instance:
        return _execute_on_cluster(instance, address, PER_GAME, partition)


def run_selection(
    instance: dg.DagsterInstance,
    *,
    games: int,
    cluster: DaskCluster | None = None,
    concurrent_runs: int = 2,
    steps: int = 1,
) -> SelectionRuns:
    """Run the selection in this process (``cluster`` None) or on ``cluster``, each game's
    tournament in ``steps`` play steps.

    On the cluster, the per-game runs are launched from ``concurrent_runs`` processes (spawned,
    each opening the instance of ``$DAGSTER_HOME``), as a daemon's run launcher would.
    """

    def in_process(selection: tuple[dg.AssetKey, ...], partition: str | None) -> RunOutcome:
        result = scaleout_job().execute_in_process(
            instance=instance,
            asset_selection=list(selection),
            partition_key=partition,
            run_config=game_run_config(steps) if partition is not None else None,
            raise_on_error=False,
        )
        return RunOutcome(result.run_id, result.success)

    started = time.perf_counter()
    if cluster is None:
        runs = SelectionRuns(pool=in_process(POOL_STAGE, None))
    else:
        runs = SelectionRuns(pool=_execute_on_cluster(instance, cluster.address, POOL_STAGE, None))
    runs.pool_seconds = time.perf_counter() - started
    if runs.pool.success:
        keys = BENCHMARK_GAMES.get_partition_keys(dynamic_partitions_store=instance)[:games]
        if cluster is None:
            runs.games = {key: in_process(PER_GAME, key) for key in keys}
            runs.tournaments = {key: in_process(TOURNAMENT, key) for key in keys}
        else:
            spawn = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=concurrent_runs, mp_context=spawn) as pool:
                outcomes = pool.map(partial(_launch_game_run, cluster.address), keys)
                runs.games = dict(zip(keys, outcomes, strict=True))
            runs.tournaments = {
                key: _execute_on_cluster(instance, cluster.address, TOURNAMENT, key, steps)
                for key in keys
            }
    runs.seconds = time.perf_counter() - started
    return runs


def step_pids(instance: dg.DagsterInstance, run_id: str) -> dict[str, int]:
    """The process id that ran each successful step of a run, from the instance's event log."""
    return {
        record.step_key: record.dagster_event.pid
        for record in instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_SUCCESS)
        if record.step_key and record.dagster_event is not None and record.dagster_event.pid
    }


def read_outputs(data: Path) -> dict[str, pd.DataFrame]:
    """Every Parquet file under ``data``, keyed by its path relative to ``data``, without the
    columns that hold a wall time (which differ between any two runs)."""
    return {
        str(path.relative_to(data)): pd.read_parquet(path).drop(
            columns=list(WALL_CLOCK_COLUMNS), errors="ignore"
        )
        for path in sorted(data.rglob("*.parquet"))
    }
