"""Jobs of the code location.

``main_job`` materializes the whole asset graph (with the checks of every asset); ``make run``
executes it and the nightly schedule targets it. The profile (``demo`` or ``paper``) is not
part of the job: it comes from the ``profile`` resource.

``scaleout_job`` is the same graph on ``dagster-dask``'s executor: each step a task on a Dask
cluster (a local cluster by default; a scheduler address in production, see docs/DEPLOY.md).
It must be launched as a reconstructable job (from the UI, the daemon, or
``pipelines.scaleout.scaleout_job``), since Dask workers rebuild the job in their processes.
"""

from __future__ import annotations

import dagster as dg

from pipelines.executors import dask_executor

MAIN_JOB_NAME = "main_job"

# issue 18: the ``openspiel`` benchmark group has partitions of its own (one per OpenSpiel game),
# and a job holds one partitions definition: it has its own job, and the graph's jobs leave it
# out.
OPENSPIEL_GROUP = "openspiel"
OPENSPIEL_JOB_NAME = "openspiel_job"
GRAPH = dg.AssetSelection.all() - dg.AssetSelection.groups(OPENSPIEL_GROUP)

main_job = dg.define_asset_job(
    name=MAIN_JOB_NAME,
    selection=GRAPH,
    description="Materialize every asset of the graph and run their checks.",
)

SCALEOUT_JOB_NAME = "scaleout_job"

scaleout_job = dg.define_asset_job(
    name=SCALEOUT_JOB_NAME,
    selection=GRAPH,
    executor_def=dask_executor,
    description="The whole graph on a Dask cluster (distributed executor).",
)

openspiel_job = dg.define_asset_job(
    name=OPENSPIEL_JOB_NAME,
    selection=dg.AssetSelection.groups(OPENSPIEL_GROUP),
    description="The openspiel benchmark group: OpenSpiel's games, their tournament and "
    "leaderboard (a partition per game).",
)

JOBS = [main_job, scaleout_job, openspiel_job]
