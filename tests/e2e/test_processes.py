"""The processes the end-to-end tests start die with the session that started them, however it
ends: a session killed before its fixtures stop them (SIGKILL, or SIGTERM to a pytest that
does not run its teardown) leaves no webserver, daemon or ``make run`` behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

# A stand-in for a test session: it starts a long-lived child the way the deployment starts
# the webserver and the daemon, prints the child's pid, and waits to be killed.
SESSION = textwrap.dedent(
    """
    import functools, os, subprocess, sys, time
    from tests.e2e.dagster_processes import default_signals
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(300)"],
        preexec_fn=functools.partial(default_signals, os.getpid()),
    )
    print(child.pid, flush=True)
    time.sleep(300)
    """
)


def gone(pid: int) -> bool:
    """No such process, or a zombie (dead, waiting for init to reap it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_started_process_dies_with_the_session_that_started_it(sig: signal.Signals) -> None:
    session = subprocess.Popen(
        [sys.executable, "-c", SESSION],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    child = None
    try:
        assert session.stdout is not None
        child = int(session.stdout.readline())
        assert not gone(child)
        session.send_signal(sig)
        session.wait(timeout=30)
        deadline = time.monotonic() + 30
        while not gone(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert gone(child), f"process {child} outlived the session killed by {sig.name}"
    finally:
        if session.poll() is None:
            session.kill()
            session.wait()
        if child is not None and not gone(child):
            os.kill(child, signal.SIGKILL)
