"""How the Dask executor of ``scaleout_job`` runs a run: dagster-dask's ``DaskExecutor`` with
its ``execute`` replaced, for three faults of dagster-dask 0.29.27 (Dagster 1.13.27, Dask 2026.8;
``tests/pipelines/test_executors.py`` keeps the measurements):

1. **A run of one partition fails before any step starts** (``Iteration is not allowed on
   `@record` KeyRangesPartitionsSubset``): dagster-dask passes the run record to
   ``Client.submit`` as an argument, Dask walks tuple arguments in search of futures, and
   since Dagster 1.11 a partition's run carries its partitions subset (dagster PR 31624), a
   record that refuses iteration. No upstream issue names it. Here the step's arguments
   travel inside a ``functools.partial``, which Dask does not walk.
2. **Two runs of one job at once share task keys** (``<job>.<step>``), so the scheduler hands
   the second run the first one's results: dagster issue 21418 ("Dagster Dask - Not running
   same job concurrently", closed as stale, unfixed). Here a key is ``<job>.<step>.<run id>``,
   the fix that issue proposes.
3. **A dynamic fan-out's steps never run, and the run succeeds**: dagster-dask submits the
   execution plan's steps up front, level by level, before any ``DynamicOut`` has resolved:
   dagster issue 9785 ("Dynamic out cannot run on the dask", open; the maintainers: dynamic
   map and collect are not supported on Dask, issue 4357 to raise an error). A game's
   tournament in several play steps is such a fan-out. Here Dagster's ``ActiveExecution``
   (what its own multiprocess executor uses) says which steps are ready, each is submitted
   then with the run's known state, and finished steps' events are handed back to it.

The one private Dagster name used is ``ActiveExecution`` (no public API orders the steps of a
plan with dynamic outputs), imported from ``pipelines/dagster_private.py``, whose test fails by
name on a Dagster upgrade that moves or reshapes it.

Everything else is dagster-dask's: the run config (``cluster: {existing: {address: ...}}`` or
``cluster: {local: {...}}`` with ``LocalCluster``'s arguments, ``build_dict``), the function
each worker runs (``query_on_dask_worker``: rebuild the job, execute one step against the
instance, return its events), its retry mode (none) and per-step resource requirements (the
``dagster-dask/resource_requirements`` tag). dagster-dask's other cluster types (YARN, PBS,
SLURM, Kubernetes, ...) need packages this project does not install and are left out.

A run that is terminated while steps are in flight (the UI's "Terminate") is noticed within
``CANCEL_POLL_S``: the steps not yet finished are cancelled on the cluster and the run ends as
interrupted. ``pipelines/executors.py`` declares the executor and imports this module only when
a run uses it, so that a process loading the code location does not import Dask.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import dagster as dg
from dagster_dask.executor import (
    DaskExecutor,
    get_dask_resource_requirements,
    query_on_dask_worker,
)
from dask.distributed import Client, LocalCluster

from pipelines.dagster_private import ActiveExecution

CANCEL_POLL_S = 2.0
POLL_S = 0.05


def task_key(job_name: str, step_key: str, run_id: str) -> str:
    """The Dask key of one step of one run (unique across concurrent runs of a job)."""
    return f"{job_name}.{step_key}.{run_id}"


class RunScopedDaskExecutor(DaskExecutor):
    """dagster-dask's ``DaskExecutor`` whose ``execute`` keys tasks by run, hands Dask opaque
    step arguments and submits each step once it is ready (the module docstring's 1 to 3)."""

    def execute(self, plan_context: Any, execution_plan: Any) -> Iterator[dg.DagsterEvent]:
        instance = plan_context.instance
        if not instance.is_persistent:
            raise dg.DagsterInvariantViolationError(
                "the Dask executor needs a persistent Dagster instance (set DAGSTER_HOME)"
            )
        run = plan_context.dagster_run
        job_name = plan_context.job_name
        with ExitStack() as stack:
            if self.cluster_type == "existing":
                cluster: Any = self.cluster_configuration["address"]
            elif self.cluster_type == "local":
                cluster = stack.enter_context(LocalCluster(**self.build_dict(job_name)))
            else:
                raise dg.DagsterInvariantViolationError(
                    f"cluster type {self.cluster_type!r} is not supported; use existing or local"
                )
            client = stack.enter_context(Client(cluster))
            active = stack.enter_context(ActiveExecution(execution_plan, self.retries))

            def submit(step: Any, known_state: Any) -> Any:
                task = functools.partial(
                    query_on_dask_worker,
                    recon_job=plan_context.reconstructable_job,
                    dagster_run=run,
                    run_config=plan_context.run_config,
                    step_keys=[step.key],
                    instance_ref=instance.get_ref(),
                    known_state=known_state,
                )
                return client.submit(
                    task,
                    [],  # no upstream futures: a step is submitted once its inputs exist
                    key=task_key(job_name, step.key, run.run_id),
                    resources=get_dask_resource_requirements(step.tags),
                    pure=False,
                )

            yield from run_steps(active, submit, plan_context, instance, run.run_id)


def run_steps(
    active: Any,
    submit: Any,
    plan_context: Any,
    instance: dg.DagsterInstance,
    run_id: str,
) -> Iterator[dg.DagsterEvent]:
    """Submit each step of ``active`` (an ``ActiveExecution``) once it is ready, with the run's
    known state (the dynamic outputs so far), and yield each step's events as it finishes;
    every ``CANCEL_POLL_S`` a look at the run's status, and if it is being terminated, the
    steps in flight are cancelled."""
    pending: dict[str, Any] = {}
    checked = time.monotonic()
    while True:
        # asked first: this is where the steps of a fan-out that just ran become known (until
        # then ``is_complete`` does not count them)
        for step in active.get_steps_to_execute():
            pending[step.key] = submit(step, active.get_known_state())
        yield from active.plan_events_iterator(plan_context)
        if active.is_complete and not pending:
            return
        finished = [key for key, future in pending.items() if future.done()]
        for key in finished:
            for event in pending.pop(key).result():
                yield event
                active.handle_event(event)
            active.verify_complete(plan_context, key)
        if time.monotonic() - checked >= CANCEL_POLL_S:
            checked = time.monotonic()
            if _canceling(instance, run_id):
                for future in pending.values():
                    future.cancel()
                active.mark_interrupted()
                raise dg.DagsterExecutionInterruptedError(
                    f"run {run_id} was terminated; {len(pending)} steps cancelled"
                )
        if not finished:
            time.sleep(POLL_S)


def _canceling(instance: dg.DagsterInstance, run_id: str) -> bool:
    record = instance.get_run_by_id(run_id)
    return record is not None and record.status in (
        dg.DagsterRunStatus.CANCELING,
        dg.DagsterRunStatus.CANCELED,
    )
