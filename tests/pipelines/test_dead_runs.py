"""Runs whose process is gone are marked failed (issue 43, item 1): ``fail_dead_runs``, which
``make run`` calls before it refreshes, and the ``dead_runs`` sensor on the daemon.

Real processes hold real runs of a Dagster instance (SQLite, the project's ``dagster.yaml``):
each materializes an asset that waits for a file, some are killed with SIGKILL mid-run, and
the test tells which runs were marked failed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from pipelines.automation import (
    PROCESS_TAG,
    dead_runs,
    fail_dead_runs,
    gone,
    local_storage,
    process_identity,
)
from tests.support import REPO_ROOT, ProjectEnv

# Materializes ``complete_pairs`` (a stand-in with the product's name), which waits until the
# file argv[1] exists; with argv[2] == "tagged" the run names this process as ``make run``'s do.
HOLDER = """
import sys, time
from pathlib import Path
import dagster as dg
from pipelines.automation import PROCESS_TAG, process_identity

release = Path(sys.argv[1])

@dg.asset(name="complete_pairs")
def held() -> None:
    while not release.exists():
        time.sleep(0.05)

tags = {PROCESS_TAG: process_identity()} if sys.argv[2] == "tagged" else {}
with dg.DagsterInstance.get() as instance:
    dg.materialize([held], instance=instance, tags=tags)
"""


def wait_for(done: object, what: str, timeout_s: float = 180.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s:.0f} s")
        time.sleep(0.2)


@contextlib.contextmanager
def holders(release: Path, kinds: list[str]) -> Iterator[list[subprocess.Popen[bytes]]]:
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(release), kind],
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        )
        for kind in kinds
    ]
    try:
        yield processes
    finally:
        release.touch()
        for process in processes:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def run_of(instance: dg.DagsterInstance, pid: int) -> dg.DagsterRun:
    """The run process ``pid`` started (its ``RUN_START`` event names the process)."""
    for run in instance.get_runs():
        starts = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.RUN_START)
        if starts and starts[0].dagster_event and starts[0].dagster_event.pid == pid:
            return run
    raise AssertionError(f"no run started by process {pid}")


@pytest.mark.slow  # four processes import Dagster and hold a run each (about 10 s)
def test_runs_of_killed_processes_are_marked_failed_and_those_of_live_ones_are_not(
    project_env: ProjectEnv, tmp_path: Path
) -> None:
    release = tmp_path / "release"
    kinds = ["tagged", "untagged", "tagged", "untagged"]
    with holders(release, kinds) as processes, dg.DagsterInstance.get() as instance:
        assert local_storage(instance)

        def all_started() -> bool:
            runs = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
            return len(runs) == len(kinds)

        wait_for(all_started, "four runs STARTED")
        killed, alive = processes[:2], processes[2:]
        for process in killed:
            process.send_signal(signal.SIGKILL)
            process.wait()
        untagged = run_of(instance, killed[1].pid)
        # a run without the tag names no machine: judged only where the runs are (SQLite)
        assert gone(instance, untagged, judge_untagged=False) is None
        found = fail_dead_runs(instance, by="nobody")  # what a refresh does first
        assert sorted(run.run_id for run, _ in found) == sorted(
            run_of(instance, process.pid).run_id for process in killed
        )

        # the daemon's sensor finds nothing more; marking again is a no-op
        reason = dead_runs(dg.build_sensor_context(instance=instance))
        assert isinstance(reason, dg.SkipReason)
        assert reason.skip_message == "0 runs marked failed"
        for process in killed:
            run = instance.get_run_by_id(run_of(instance, process.pid).run_id)
            assert run is not None and run.status == dg.DagsterRunStatus.FAILURE
            (failure,) = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.RUN_FAILURE)
            assert f"its process ({process.pid}" in failure.message
            assert "is gone: run marked failed by nobody" in failure.message
        for process in alive:
            run = instance.get_run_by_id(run_of(instance, process.pid).run_id)
            assert run is not None and run.status == dg.DagsterRunStatus.STARTED
        release.touch()
        for process in alive:
            assert process.wait(timeout=120) == 0
            run = instance.get_run_by_id(run_of(instance, process.pid).run_id)
            assert run is not None and run.status == dg.DagsterRunStatus.SUCCESS


@pytest.mark.slow  # a process imports Dagster and holds a run (about 5 s)
def test_the_sensor_marks_a_killed_run_failed(project_env: ProjectEnv, tmp_path: Path) -> None:
    """What the daemon runs every ``GENSTRAT_AUTOMATION_INTERVAL_S``: without it a run whose
    process was killed stays STARTED for ever (Dagster's run monitoring cannot tell a dead
    worker of its default run launcher)."""
    release = tmp_path / "release"
    with holders(release, ["untagged"]) as (process,), dg.DagsterInstance.get() as instance:

        def started() -> bool:
            runs = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
            return len(runs) == 1

        wait_for(started, "a run STARTED")
        process.send_signal(signal.SIGKILL)
        process.wait()
        (run,) = instance.get_runs()
        assert instance.get_run_by_id(run.run_id).status == dg.DagsterRunStatus.STARTED  # type: ignore[union-attr]
        reason = dead_runs(dg.build_sensor_context(instance=instance))
        assert isinstance(reason, dg.SkipReason)
        assert reason.skip_message == (
            f"1 runs marked failed: {run.run_id[:8]} (its process ({process.pid}) is gone)"
        )
        assert instance.get_run_by_id(run.run_id).status == dg.DagsterRunStatus.FAILURE  # type: ignore[union-attr]


def _run(tags: dict[str, str]) -> dg.DagsterRun:
    return dg.DagsterRun(job_name="j", run_id="r", status=dg.DagsterRunStatus.STARTED, tags=tags)


def test_a_tag_of_another_process_with_the_same_id_or_another_boot_is_gone() -> None:
    host, pid, ticks, boot = process_identity().split(":", 3)
    assert (host, pid) == (socket.gethostname(), str(os.getpid()))
    with dg.DagsterInstance.ephemeral() as instance:
        this = _run({PROCESS_TAG: process_identity()})
        assert gone(instance, this, judge_untagged=True) is None
        reused = _run({PROCESS_TAG: f"{host}:{pid}:{int(ticks) - 1}:{boot}"})
        assert gone(instance, reused, judge_untagged=True) == (
            f"its process ({pid} on {host}) is gone"
        )
        rebooted = _run({PROCESS_TAG: f"{host}:{pid}:{ticks}:another-boot"})
        assert gone(instance, rebooted, judge_untagged=True) == (
            f"its process ({pid} on {host}) ran before the machine restarted"
        )
        # another machine's process is not judged from here, whatever its id, nor a tag
        # that does not name a process
        elsewhere = _run({PROCESS_TAG: f"not-{host}:1:1:{boot}"})
        assert gone(instance, elsewhere, judge_untagged=True) is None
        for malformed in (host, f"{host}:x:1:{boot}", f"{host}:{pid}", f"{host}:{pid}:{ticks}:"):
            assert gone(instance, _run({PROCESS_TAG: malformed}), judge_untagged=True) is None
