"""The processes the end-to-end tests start die with the session that started them, however it
ends: a session killed before its fixtures stop them (SIGKILL, or SIGTERM to a pytest that
does not run its teardown) leaves no webserver, daemon or ``make run`` behind."""

from __future__ import annotations

import signal
import textwrap

import pytest

from tests.support import gone, outliving, stand_in_session

# A stand-in for a test session: it starts a long-lived child the way the deployment starts
# the webserver and the daemon, prints the child's pid, and waits to be killed.
SESSION = textwrap.dedent(
    """
    import functools, os, subprocess, sys, time
    from tests.support import default_signals
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(300)"],
        preexec_fn=functools.partial(default_signals, os.getpid()),
    )
    print(child.pid, flush=True)
    time.sleep(300)
    """
)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_started_process_dies_with_the_session_that_started_it(sig: signal.Signals) -> None:
    with stand_in_session(SESSION) as (session, first_line):
        child = int(first_line)
        assert not gone(child)
        session.send_signal(sig)
        session.wait(timeout=30)
        assert not outliving([child], 30), f"{child} outlived the session killed by {sig.name}"
