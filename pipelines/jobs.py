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

main_job = dg.define_asset_job(
    name=MAIN_JOB_NAME,
    selection=dg.AssetSelection.all(),
    description="Materialize every asset of the graph and run their checks.",
)

SCALEOUT_JOB_NAME = "scaleout_job"

scaleout_job = dg.define_asset_job(
    name=SCALEOUT_JOB_NAME,
    selection=dg.AssetSelection.all(),
    executor_def=dask_executor,
    description="The whole graph on a Dask cluster (distributed executor).",
)

JOBS = [main_job, scaleout_job]
