"""A refresh killed with SIGKILL, then ``python -m pipelines.run_main`` again, publishes the
release an uninterrupted refresh publishes (issue 43, item 1); so does a refresh after
``roster`` was materialized by hand.

Each case is a fresh instance (the project's ``dagster.yaml``), data folder and release store,
the ``tiny`` profile and the demo roster, and real processes: ``make run``'s entry point,
killed where the case says (``kill -9`` of its process, as the issue's reproduction does; the
pool workers it forked are then killed too, as an orphan is not what these cases are about),
then started again.  Before the fix the second refresh said "... runs in ... waves succeeded",
exit 0, and published nothing: the killed run stayed STARTED, its assets "in progress" for
ever, and a game the first evaluation had requested was never requested again.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import dagster as dg
import pytest

from releases.store import STAGING
from tests.e2e.dagster_processes import scratch_folder
from tests.support import REPO_ROOT, default_signals

# A fail-safe, not a bound: the first case builds the shared uninterrupted refresh too.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

PROFILE = "tiny"
REFRESH_TIMEOUT_S = 1500  # a fail-safe: a tiny refresh is under a minute on two idle cores
RELEASE_LINE = re.compile(r"release (gs-[0-9a-f]+) published at")


@dataclass(frozen=True)
class Place:
    """An instance, a data folder and a release store of one case."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "dagster_home"

    @property
    def releases(self) -> Path:
        return self.root / "releases"

    @property
    def env(self) -> dict[str, str]:
        # none of the caller's GENSTRAT_* settings (a local model's URL, an edition, a roster)
        kept = {k: v for k, v in os.environ.items() if not k.startswith("GENSTRAT_")}
        return {
            **kept,
            "DAGSTER_HOME": str(self.home),
            "GENSTRAT_DATA": str(self.root / "data"),
            "GENSTRAT_RELEASES": str(self.releases),
            "GENSTRAT_PROFILE": PROFILE,
            "PYTHONPATH": str(REPO_ROOT),
        }

    def published(self) -> list[str]:
        if not self.releases.is_dir():
            return []
        return sorted(p.name for p in self.releases.iterdir() if p.name.startswith("gs-"))

    def runs(self) -> list[dg.DagsterRun]:
        # the file's storage is under $DAGSTER_HOME: this case's, for the time of the query
        with (
            mock.patch.dict(os.environ, {"DAGSTER_HOME": str(self.home)}),
            dg.DagsterInstance.from_config(str(self.home)) as instance,
        ):
            return list(instance.get_runs())


@contextlib.contextmanager
def place() -> Iterator[Place]:
    with scratch_folder("genstrat-killed-") as root:
        found = Place(root)
        found.home.mkdir()
        (found.home / "dagster.yaml").write_bytes(
            (REPO_ROOT / "instance" / "dagster.yaml").read_bytes()
        )
        yield found


def start_refresh(where: Place, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "pipelines.run_main"],
            cwd=REPO_ROOT,
            env=where.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            # a process group of its own, stopped when the test's process dies
            preexec_fn=functools.partial(default_signals, os.getpid()),
        )


def refresh(where: Place, name: str) -> tuple[int, str]:
    """A whole refresh: its exit status and output."""
    log = where.root / f"{name}.log"
    process = start_refresh(where, log)
    try:
        status = process.wait(timeout=REFRESH_TIMEOUT_S)
    finally:
        kill_group(process)
    return status, log.read_text(errors="replace")


def kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def release_of(output: str) -> str:
    found = RELEASE_LINE.findall(output)
    assert len(found) == 1, output[-3000:]
    return str(found[0])


@pytest.fixture(scope="module")
def uninterrupted() -> Iterator[str]:
    """The release id an uninterrupted refresh publishes (shared by every case)."""
    with place() as where:
        status, output = refresh(where, "uninterrupted")
        assert status == 0, output[-3000:]
        release = release_of(output)
        assert where.published() == [release]
        yield release


def output_has(log: Path, pattern: str) -> Callable[[], bool]:
    return lambda: bool(re.search(pattern, log.read_text(errors="replace")))


def staging_exists(where: Place) -> Callable[[], bool]:
    return lambda: (where.releases / STAGING).is_dir()


# Where each case kills the refresh: a condition on its output or files, polled.
KILL_POINTS: dict[str, Callable[[Place, Path], Callable[[], bool]]] = {
    # the pool stage's run, its first step done (the screening and the rest going on)
    "pool": lambda where, log: output_has(log, r"\] accepted_games +ok"),
    # a game's run, its matches being played or collected
    "tournament": lambda where, log: output_has(log, r"\] match_corpus\.play_matches"),
    # the release being published: its staging folder is there, the release is not
    "release": lambda where, log: staging_exists(where),
}


def wait_for(process: subprocess.Popen[bytes], done: Callable[[], bool], log: Path) -> None:
    deadline = time.monotonic() + REFRESH_TIMEOUT_S
    while not done():
        if process.poll() is not None:
            raise AssertionError(
                f"the refresh ended first ({process.returncode}):\n{log.read_text()}"
            )
        if time.monotonic() > deadline:
            raise AssertionError(f"the kill point was not reached:\n{log.read_text()[-3000:]}")
        time.sleep(0.02)


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_a_refresh_killed_mid_way_is_resumed_to_the_uninterrupted_release(
    uninterrupted: str, point: str
) -> None:
    with place() as where:
        log = where.root / "killed.log"
        process = start_refresh(where, log)
        try:
            wait_for(process, KILL_POINTS[point](where, log), log)
            process.send_signal(signal.SIGKILL)  # ``kill -9 $!``
            process.wait()
        finally:
            kill_group(process)
        assert where.published() == []
        left = [r for r in where.runs() if r.status == dg.DagsterRunStatus.STARTED]
        assert len(left) == 1, [(r.run_id, r.status) for r in where.runs()]

        status, output = refresh(where, "resumed")
        assert status == 0, output[-3000:]
        assert (
            f"genstrat: run {left[0].run_id[:8]} (" in output
            and f"was left STARTED and its process ({process.pid} on " in output
        ), output[:3000]
        assert release_of(output) == uninterrupted
        assert where.published() == [uninterrupted]
        # every run has ended; the killed one failed, no other did
        runs = {r.run_id: r.status for r in where.runs()}
        failed = [run_id for run_id, s in runs.items() if s != dg.DagsterRunStatus.SUCCESS]
        assert failed == [left[0].run_id], runs
        assert runs[left[0].run_id] == dg.DagsterRunStatus.FAILURE


def test_a_refresh_after_roster_was_materialized_by_hand_publishes(uninterrupted: str) -> None:
    """The OpenSpiel recipe's first step (README), then ``make run``'s refresh."""
    with place() as where:
        dagster = Path(sys.executable).with_name("dagster")
        materialized = subprocess.run(
            [
                str(dagster),
                "asset",
                "materialize",
                "-m",
                "pipelines.definitions",
                "--select",
                "roster",
            ],
            cwd=REPO_ROOT,
            env=where.env,
            capture_output=True,
            text=True,
            timeout=REFRESH_TIMEOUT_S,
            check=False,
        )
        assert materialized.returncode == 0, materialized.stderr[-3000:]
        (by_hand,) = where.runs()
        assert by_hand.status == dg.DagsterRunStatus.SUCCESS

        status, output = refresh(where, "after-roster")
        assert status == 0, output[-3000:]
        assert release_of(output) == uninterrupted
        assert where.published() == [uninterrupted]
