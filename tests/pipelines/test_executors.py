"""The project's Dask executor (pipelines/executors.py, pipelines/dask_execution.py) and the
measurement that motivates it:
dagster-dask's own executor cannot run one partition of a dynamically partitioned asset.

No ``from __future__ import annotations`` here: Dagster reads the asset's ``context`` annotation
at definition time."""

from typing import Any

import dagster as dg
import pytest
from dagster_dask import dask_executor as stock_dask_executor

from pipelines import dask_execution, executors
from tests.servers import DaskCluster
from tests.support import ProjectEnv

PROBE_GAMES = dg.DynamicPartitionsDefinition(name="probe_games")


@dg.asset(partitions_def=PROBE_GAMES)
def probe(context: dg.AssetExecutionContext) -> str:
    return context.partition_key


def stock_probe_job() -> dg.JobDefinition:
    """``probe`` on dagster-dask's executor (rebuilt by the workers from this module)."""
    job = dg.define_asset_job("probe_job", selection=[probe], executor_def=stock_dask_executor)
    return dg.Definitions(assets=[probe], jobs=[job]).resolve_job_def("probe_job")


def project_probe_job() -> dg.JobDefinition:
    """``probe`` on the project's Dask executor."""
    job = dg.define_asset_job("probe_job", selection=[probe], executor_def=executors.dask_executor)
    return dg.Definitions(assets=[probe], jobs=[job]).resolve_job_def("probe_job")


def run_probe(target: Any, instance: dg.DagsterInstance, cluster: DaskCluster) -> Any:
    instance.add_dynamic_partitions(PROBE_GAMES.name or "", ["kuhn"])
    return dg.execute_job(
        dg.reconstructable(target),
        instance=instance,
        run_config=cluster.run_config(),
        tags={"dagster/partition": "kuhn"},
    )


def failure_text(result: Any) -> str:
    texts = []
    for event in result.all_events:
        error = getattr(event.event_specific_data, "error", None)
        while error is not None:
            texts.append(error.message)
            error = error.cause
    return "\n".join(texts)


@pytest.mark.slow
def test_dagster_dask_cannot_run_a_partition_and_the_project_executor_can(
    postgres_env: ProjectEnv, dask_cluster: DaskCluster
) -> None:
    with dg.DagsterInstance.get() as instance:
        stock = run_probe(stock_probe_job, instance, dask_cluster)
        # If this starts passing after an upgrade, dagster-dask is fixed: drop dask_execution.py.
        assert not stock.success
        assert "Iteration is not allowed on `@record` KeyRangesPartitionsSubset" in failure_text(
            stock
        )
        ours = run_probe(project_probe_job, instance, dask_cluster)
        assert ours.success
        latest = instance.get_latest_materialization_event(dg.AssetKey("probe"))
        assert latest is not None and latest.run_id == ours.run_id
        assert latest.asset_materialization is not None
        assert latest.asset_materialization.partition == "kuhn"
        assert latest.dagster_event is not None
        assert latest.dagster_event.pid in set(dask_cluster.worker_pids.values())


@dg.op(out=dg.DynamicOut(int))
def fan_out() -> Any:
    for share in range(2):
        yield dg.DynamicOutput(share, mapping_key=str(share))


@dg.op
def play(share: int) -> int:
    return share + 1


@dg.op
def collect(played: list[int]) -> int:
    return sum(played)


def stock_fan_job() -> dg.JobDefinition:
    """A dynamic fan-out (a game's tournament in play steps has this shape) on dagster-dask's
    executor."""

    @dg.job(name="fan_job", executor_def=stock_dask_executor)
    def fan_job() -> None:
        collect(fan_out().map(play).collect())

    return fan_job


def project_fan_job() -> dg.JobDefinition:
    """The same fan-out on the project's Dask executor."""

    @dg.job(name="fan_job", executor_def=executors.dask_executor)
    def fan_job() -> None:
        collect(fan_out().map(play).collect())

    return fan_job


def succeeded_steps(result: Any) -> set[str]:
    return {e.step_key for e in result.all_events if e.event_type_value == "STEP_SUCCESS"}


@pytest.mark.slow
def test_dagster_dask_skips_a_fan_outs_steps_and_the_project_executor_runs_them(
    postgres_env: ProjectEnv, dask_cluster: DaskCluster
) -> None:
    """dagster issue 9785: dagster-dask submits the plan's steps before the fan-out resolves."""
    with dg.DagsterInstance.get() as instance:
        config = dask_cluster.run_config()
        stock = dg.execute_job(dg.reconstructable(stock_fan_job), instance, run_config=config)
        # If this starts failing after an upgrade, dagster-dask runs fan-outs: see the module
        # docstring of pipelines/dask_execution.py, item 3.
        assert stock.success
        assert succeeded_steps(stock) == {"fan_out"}  # "success", and nothing was played
        with dg.execute_job(
            dg.reconstructable(project_fan_job), instance, run_config=config
        ) as ours:
            assert ours.success
            assert succeeded_steps(ours) == {"fan_out", "play[0]", "play[1]", "collect"}
            assert ours.output_for_node("collect") == 3  # 1 + 2: both shares played


def test_task_keys_are_scoped_to_the_run() -> None:
    key = dask_execution.task_key
    assert key("job", "step", "run-a") != key("job", "step", "run-b")


class _Step:
    def __init__(self, key: str) -> None:
        self.key = key


class _Future:
    """A Dask future of a step that is done at once (``finishes``) or never."""

    def __init__(self, key: str, finishes: bool) -> None:
        self.key, self.finishes, self.cancelled = key, finishes, False

    def done(self) -> bool:
        return self.finishes

    def result(self) -> list[str]:
        return [f"{self.key} done"]

    def cancel(self) -> None:
        self.cancelled = True


class _Active:
    """What ``run_steps`` asks of Dagster's ``ActiveExecution``: a fan-out ``plan`` whose two
    mapped steps are known only once ``plan``'s events have been handled, then ``collect``."""

    def __init__(self) -> None:
        self.ready = ["plan"]
        self.taken = []
        self.handled: list[str] = []
        self.completed: list[str] = []
        self.interrupted = False

    @property
    def is_complete(self) -> bool:
        # as Dagster's: steps that a fan-out made known are not counted until asked for, so
        # after ``plan`` the run looks complete until ``get_steps_to_execute`` is called
        unfinished = [k for k in self.taken if k not in self.completed]
        return not unfinished or self.interrupted

    taken: list[str]

    def get_steps_to_execute(self) -> list[_Step]:
        steps, self.ready = [_Step(k) for k in self.ready], []
        self.taken += [step.key for step in steps]
        return steps

    def get_known_state(self) -> list[str]:
        return list(self.handled)

    def plan_events_iterator(self, context: Any) -> list[str]:
        return []

    def handle_event(self, event: str) -> None:
        self.handled.append(event)

    def verify_complete(self, context: Any, key: str) -> None:
        self.completed.append(key)
        if key == "plan":
            self.ready = ["play[0]", "play[1]"]
        elif key.startswith("play") and sum(k.startswith("play") for k in self.completed) == 2:
            self.ready = ["collect"]

    def mark_interrupted(self) -> None:
        self.interrupted = True


class _Instance:
    def __init__(self, status: dg.DagsterRunStatus) -> None:
        self.status = status

    def get_run_by_id(self, run_id: str) -> Any:
        return self


def test_steps_of_a_fan_out_are_submitted_once_known_with_the_state_so_far(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dask_execution, "CANCEL_POLL_S", 0.0)
    submitted: list[tuple[str, list[str]]] = []

    def submit(step: _Step, known: list[str]) -> _Future:
        submitted.append((step.key, known))
        return _Future(step.key, finishes=True)

    active = _Active()
    run = _Instance(dg.DagsterRunStatus.STARTED)
    events = list(dask_execution.run_steps(active, submit, None, run, "run"))  # type: ignore[arg-type]
    assert events == ["plan done", "play[0] done", "play[1] done", "collect done"]
    assert submitted == [
        ("plan", []),
        ("play[0]", ["plan done"]),  # the mapped steps see the fan-out's outputs
        ("play[1]", ["plan done"]),
        ("collect", ["plan done", "play[0] done", "play[1] done"]),
    ]


def test_a_terminated_run_cancels_its_steps_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dask_execution, "CANCEL_POLL_S", 0.0)
    futures: list[_Future] = []

    def submit(step: _Step, known: list[str]) -> _Future:
        futures.append(_Future(step.key, finishes=False))
        return futures[-1]

    active = _Active()
    run = _Instance(dg.DagsterRunStatus.CANCELING)
    events = dask_execution.run_steps(active, submit, None, run, "run")  # type: ignore[arg-type]
    with pytest.raises(dg.DagsterExecutionInterruptedError, match="1 steps cancelled"):
        next(events)
    assert [f.cancelled for f in futures] == [True] and active.interrupted


def test_a_running_run_waits_for_its_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dask_execution, "CANCEL_POLL_S", 0.0)
    polls = []

    class Later(_Future):
        def done(self) -> bool:
            polls.append(self.key)
            return len(polls) > 3

    active = _Active()
    run = _Instance(dg.DagsterRunStatus.STARTED)
    submit = lambda step, known: Later(step.key, finishes=False)  # noqa: E731
    events = list(dask_execution.run_steps(active, submit, None, run, "run"))  # type: ignore[arg-type]
    assert events == ["plan done", "play[0] done", "play[1] done", "collect done"]
    assert polls[:3] == ["plan"] * 3  # not done yet: polled again, nothing cancelled
