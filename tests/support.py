"""Helpers shared by tests (importable, unlike conftest.py)."""

from __future__ import annotations

import contextlib
import os
import pwd
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

REPO_ROOT = Path(__file__).resolve().parents[1]
# The instance configuration shipped for deployments (docs/DEPLOY.md, section 1).
POSTGRES_INSTANCE_YAML = REPO_ROOT / "deploy" / "dagster.postgres.yaml"
# The run profile of the tests on a Dask cluster, on both sides of their comparisons.
CLUSTER_PROFILE = "tiny"

T = TypeVar("T")


@dataclass(frozen=True)
class ProjectEnv:
    """Where a test's asset files and Dagster instance live."""

    data: Path
    dagster_home: Path

    def tables(self, profile: str = "demo", edition: int = 1) -> Path:
        """Where the asset files of ``profile``'s ``edition`` live under the data folder
        (``assets.resources.ProjectPaths.data_path``)."""
        return self.data / profile / f"edition-{edition}"


@contextlib.contextmanager
def signals_kept() -> Iterator[None]:
    """Put SIGINT's and SIGTERM's dispositions back as they were on entry (main thread only).

    Dagster's in-process execution sets SIGTERM to whatever SIGINT does and leaves it so
    (``pipelines/dagster_private.py`` names where). A test worker started with SIGINT ignored
    (``make test`` as a background job of a script, or under ``nohup``) thus ignored SIGTERM
    after its first in-process run, and so did every process it started afterwards, which a
    SIGTERM then no longer stopped (``tests/e2e/test_processes.py`` failed that way).
    ``tests/conftest.py`` wraps every test in this."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            if handler is not None:  # None: set outside Python, left alone
                signal.signal(sig, handler)


def default_signals(
    parent: int, sig: int = signal.SIGTERM, account: pwd.struct_passwd | None = None
) -> None:
    """``preexec_fn`` of every long-lived process the tests start (``parent``: the starting
    process's pid): default SIGTERM/SIGINT (they may be inherited ignored), a session and
    process group of its own, to stop it with its children, ``account``'s ids if given, then
    ``sig`` when the thread that started it dies (``die_with_parent``, as the tournament's
    workers; set last, as a change of ids clears it): a test session killed before its
    fixtures stop their processes (SIGTERM to pytest, SIGKILL, an xdist worker lost) leaves no
    webserver, daemon, database server or Dask process running."""
    from arena.tournament.shards import die_with_parent

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setsid()
    if account is not None:
        os.setgroups([])
        os.setgid(account.pw_gid)
        os.setuid(account.pw_uid)
    die_with_parent(parent, sig)


def gone(pid: int) -> bool:
    """No such process, or a zombie (dead, waiting for init to reap it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


@contextlib.contextmanager
def stand_in_session(script: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Run ``script`` (Python, the repository importable) as a stand-in for a test session in a
    session of its own; yield the process and the first line it prints.  Killed at the end if
    it still runs."""
    session = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a signal sent to it is its own, not the test worker's
    )
    try:
        assert session.stdout is not None
        yield session, session.stdout.readline()
    finally:
        if session.poll() is None:
            session.kill()
            session.wait()


def outliving(pids: list[int], seconds: float) -> list[int]:
    """The processes of ``pids`` still running after up to ``seconds``; each is then killed,
    so that a failing test leaves none behind."""
    deadline = time.monotonic() + seconds
    while not all(gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in pids if not gone(pid)]
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left


def interpreted(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the interpreted engine (``arena.compiled_engine.interpret``), in a fresh
    process: the reference, and the engine a test can instrument by patching its classes (a
    compiled class calls its own methods natively, past a patch).  ``fn`` and its result must
    pickle; ``fn`` is imported by its module in the child, after the engine is set to source."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from arena.compiled_engine import interpret

    with ProcessPoolExecutor(1, mp_context=get_context("spawn"), initializer=interpret) as pool:
        return pool.submit(fn, *args).result()


def instance_environment(root: Path, profile: str) -> dict[str, str]:
    """``make run``'s environment for a fresh instance under ``root``: the shipped instance
    settings in ``root/home``, data in ``root/data``, releases in ``root/releases``, the given
    profile, this checkout first on ``PYTHONPATH``."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text((REPO_ROOT / "instance" / "dagster.yaml").read_text())
    inherited = filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))
    python_path = [str(REPO_ROOT), *inherited]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(python_path)),
        "PYTHONHASHSEED": "0",
        "DAGSTER_HOME": str(home),
        "GENSTRAT_DATA": str(root / "data"),
        "GENSTRAT_RELEASES": str(root / "releases"),
        "GENSTRAT_PROFILE": profile,
    }


def releases_by_profile(store: Path) -> dict[str, str]:
    """``{profile: release id}`` of the newest release of each profile in a store's index
    (empty when the store has none)."""
    from releases.store import read_index  # the store's reader: a test double stays cheap

    return {str(e["profile"]): str(e["release_id"]) for e in read_index(store)["releases"]}
