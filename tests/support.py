"""Helpers shared by tests (importable, unlike conftest.py)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# The instance configuration shipped for deployments (docs/DEPLOY.md, section 1).
POSTGRES_INSTANCE_YAML = REPO_ROOT / "deploy" / "dagster.postgres.yaml"
# The run profile of the tests on a Dask cluster, on both sides of their comparisons.
CLUSTER_PROFILE = "tiny"


@dataclass(frozen=True)
class ProjectEnv:
    """Where a test's asset files and Dagster instance live."""

    data: Path
    dagster_home: Path


@contextlib.contextmanager
def signals_kept() -> Iterator[None]:
    """Put SIGINT's and SIGTERM's dispositions back as they were on entry (main thread only).

    Dagster's in-process execution sets SIGTERM to whatever SIGINT does and leaves it so
    (``dagster._utils.interrupts``). A test worker started with SIGINT ignored (``make test``
    as a background job of a script, or under ``nohup``) thus ignored SIGTERM after its first
    in-process run, and so did every process it started afterwards, which a SIGTERM then no
    longer stopped (``tests/e2e/test_processes.py`` failed that way). ``tests/conftest.py``
    wraps every test in this."""
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
