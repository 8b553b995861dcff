"""The reconstructable entry point of ``scaleout_job`` for processes outside the code server.

Dask workers (and ``dg.execute_job``) rebuild a job from a module-level function; this is it.
"""

from __future__ import annotations

import dagster as dg

from pipelines.jobs import SCALEOUT_JOB_NAME


def scaleout_job() -> dg.JobDefinition:
    """The resolved ``scaleout_job`` of the code location."""
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
