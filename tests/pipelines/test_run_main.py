"""``make run``'s entry point, run as the Makefile runs it: a fresh process, a real instance.

Its whole refresh (step lines, summary, the release, the same tables as the UI's refresh) is
tested in ``tests/e2e/test_refresh.py``, next to the deployment it is compared with.
"""

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from pipelines.run_main import Interrupted, SignalWatch, raise_interrupted
from tests.support import REPO_ROOT, ProjectEnv


def run_main(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipelines.run_main"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )


def test_run_main_without_dagster_home_fails_in_one_line(project_env: ProjectEnv) -> None:
    env = {key: value for key, value in os.environ.items() if key != "DAGSTER_HOME"}
    completed = run_main(env)

    assert completed.returncode == 2
    assert completed.stderr.strip().count("\n") == 0, completed.stderr
    assert "DAGSTER_HOME is not set" in completed.stderr


@pytest.mark.parametrize("value", ["abc", "2", "86401", "1e3"])
def test_a_bad_automation_interval_is_one_line_and_exit_2(
    project_env: ProjectEnv, value: str
) -> None:
    """Issue 43, item 15: ``GENSTRAT_AUTOMATION_INTERVAL_S=abc make run`` gave a traceback."""
    completed = run_main({**os.environ, "GENSTRAT_AUTOMATION_INTERVAL_S": value})
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.strip().count("\n") == 0, completed.stderr
    assert completed.stderr.startswith("genstrat run: error: GENSTRAT_AUTOMATION_INTERVAL_S=")


def _interrupted_refresh(sig: signal.Signals, *, sigint_ignored: bool) -> tuple[int, str]:
    """``make run``'s refresh (the ``tiny`` profile) sent ``sig`` once its first step has
    finished; its exit status and stderr."""
    env = {**os.environ, "GENSTRAT_PROFILE": "tiny"}
    # As a script's background job starts it: SIGINT ignored (``trap '' INT``), which exec keeps.
    trap = "trap '' INT; " if sigint_ignored else ""
    process = subprocess.Popen(
        ["sh", "-c", f'{trap}exec "$0" -m pipelines.run_main', sys.executable],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("  [1/"):  # a step has finished: the refresh is under way
                break
        else:
            raise AssertionError(f"no step finished: {process.communicate()}")
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, stderr


@pytest.mark.slow  # a refresh started, then stopped after its first step (about 6 s each)
@pytest.mark.parametrize(
    ("sig", "sigint_ignored"),
    [(signal.SIGTERM, True), (signal.SIGINT, False)],
    ids=["SIGTERM-with-SIGINT-ignored", "SIGINT"],
)
def test_an_interrupted_refresh_stops_in_one_line_and_leaves_no_run_open(
    project_env: ProjectEnv, sig: signal.Signals, sigint_ignored: bool
) -> None:
    status, stderr = _interrupted_refresh(sig, sigint_ignored=sigint_ignored)

    assert status == 128 + sig.value, stderr
    assert stderr.strip().count("\n") == 0, stderr
    assert f"interrupted by {sig.name}" in stderr
    instance = dg.DagsterInstance.from_config(str(project_env.dagster_home))
    with instance:
        runs = instance.get_runs()
        assert runs  # the runs so far are kept
        statuses = {run.status for run in runs}
    assert statuses <= {dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE}, statuses


@dg.asset
def _sends_sigterm_to_its_own_process() -> int:
    os.kill(os.getpid(), signal.SIGTERM)
    return 1


@dg.asset
def _one() -> int:
    return 1


def test_after_a_run_with_sigint_ignored_sigterm_still_stops_the_refresh() -> None:
    """In process: Dagster leaves SIGTERM ignored after a run when SIGINT is ignored; the watch
    puts its handler back, and names a SIGTERM that Dagster's own handler took during a run."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # conftest puts it back after the test
    watch = SignalWatch()
    try:
        dg.materialize([_one])
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN  # what Dagster left
        watch.rearm()
        with pytest.raises(Interrupted) as stopped:
            os.kill(os.getpid(), signal.SIGTERM)
        assert stopped.value.signum == signal.SIGTERM
        assert watch.received() == signal.SIGTERM
        assert watch.received() is None  # read once

        result = dg.materialize([_sends_sigterm_to_its_own_process], raise_on_error=False)
        assert not result.success  # Dagster stopped the run at the step boundary
        watch.rearm()
        assert watch.received() == signal.SIGTERM
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # SIGINT stays ignored
    finally:
        watch.close()
    assert signal.getsignal(signal.SIGTERM) != raise_interrupted


# Holds ``complete_pairs`` in a run that goes on until the file argv[1] exists (a stand-in with
# the product's asset key: a run of another deployment, or a refresh still going).
HOLDER = """
import sys, time
from pathlib import Path
import dagster as dg

release = Path(sys.argv[1])

@dg.asset(name="complete_pairs")
def held() -> None:
    print("holding", flush=True)
    while not release.exists():
        time.sleep(0.05)

with dg.DagsterInstance.get() as instance:
    dg.materialize([held], instance=instance)
"""


@pytest.mark.slow  # a tiny refresh up to the statistics (about a minute)
def test_a_refresh_that_publishes_nothing_says_why_in_one_line_and_fails(
    project_env: ProjectEnv, tmp_path: Path
) -> None:
    """Every run of the refresh succeeds, but a live run holds ``complete_pairs``, so nothing
    below it, the release included, is requested: one line naming the held asset and the run,
    exit status 1 (it used to say "... succeeded" and exit 0).  The holder's run is left
    alone: its process is alive."""
    env = {**os.environ, "GENSTRAT_PROFILE": "tiny"}
    release = tmp_path / "release"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(release)],
        cwd=REPO_ROOT,
        env={**env, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "holding\n"
        completed = run_main(env)
    finally:
        release.touch()
        holder.wait(timeout=120)
    assert holder.returncode == 0  # its run went on and succeeded
    assert completed.returncode == 1, completed.stderr
    line = completed.stderr.strip()
    assert line.count("\n") == 0, completed.stderr
    assert re.fullmatch(
        r"genstrat run: error: refresh [0-9a-f]{12} \(\d+ runs in \d+ waves\) published no "
        r"release: \d+ assets were not refreshed, first complete_pairs: "
        r"run [0-9a-f]{8} \(STARTED\) holds complete_pairs",
        line,
    ), line
    assert "release_bundle" not in completed.stdout
