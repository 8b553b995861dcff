"""The Dask executor of ``scaleout_job`` (what differs from dagster-dask's, and why: see
``pipelines/dask_execution.py``, which is imported only when a run uses it, so that loading the
code location does not import Dask)."""

from __future__ import annotations

import dagster as dg


@dg.executor(
    name="dask",
    requirements=dg.multiple_process_executor_requirements(),
    config_schema={
        "cluster": dg.Field(
            dg.Selector(
                {
                    "existing": dg.Field(
                        {"address": dg.StringSource},
                        description="Connect to a running scheduler (tcp://host:port).",
                    ),
                    "local": dg.Field(
                        dg.Permissive(),
                        is_required=False,
                        description="Start a dask.distributed.LocalCluster with these arguments.",
                    ),
                }
            )
        )
    },
)
def dask_executor(init_context: dg.InitExecutorContext) -> dg.Executor:
    """Each step a task on a Dask cluster (see the module docstring for what differs from
    dagster-dask's ``dask_executor``)."""
    from pipelines.dask_execution import RunScopedDaskExecutor

    ((cluster_type, cluster_configuration),) = init_context.executor_config["cluster"].items()
    return RunScopedDaskExecutor(cluster_type, cluster_configuration)
