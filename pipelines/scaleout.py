"""The reconstructable entry point of ``scaleout_job`` for processes outside the code server.

Dask workers (and ``dg.execute_job``) rebuild a job from a module-level function; this is it.

The job runs on the project's Dask executor (``pipelines/executors.py``: dagster-dask's, with
run-scoped task keys, step arguments Dask does not walk and steps submitted as they become
ready, so that a run of one partition works, two runs can share a cluster and a dynamic
fan-out's steps run; ``pipelines/dask_execution.py`` names the upstream issues), which
``pipelines/jobs.py`` names.
"""

from __future__ import annotations

import dagster as dg

from pipelines.jobs import SCALEOUT_JOB_NAME


def scaleout_job() -> dg.JobDefinition:
    """The resolved ``scaleout_job`` of the code location (on the project's Dask executor)."""
    from pipelines.definitions import defs

    return defs.resolve_job_def(SCALEOUT_JOB_NAME)


def local_cluster_config(workers: int = 2) -> dict[str, object]:
    """Run config for a local Dask cluster of ``workers`` single-threaded processes."""
    return {
        "execution": {
            "config": {
                "cluster": {
                    "local": {"n_workers": workers, "threads_per_worker": 1, "processes": True}
                }
            }
        }
    }
