"""A watch on the local LLM server that ``make test`` starts before pytest (``tools/local_llm.py``).

When that server dies in the middle of a run, its tests do not fail: every move's request meets
a refused connection, which the transport retries with backoff (about 50 s per move under the
default policy), so a run of many matches waits for hours and says nothing.
``watch_server(url)`` turns that into one clear stop: a daemon thread connects to the server
every ``interval`` seconds, and once it refuses two connections in a row (a server that is only
busy still accepts them: the kernel queues them) it reports one line naming the server, with the
tail of its log when ``log`` is given, then interrupts this process as Ctrl-C would (SIGINT):
pytest stops, reports the tests it ran and that line, and exits with its "interrupted" status
(2), and the Makefile's trap stops what is left.  A process whose SIGINT is ignored (one started
in the background by a shell without job control, ``make test &`` in a script: Python then
installs no handler of its own) would let that interruption pass unnoticed and sleep on, so the
watch gives SIGINT Python's own handler first.  ``tests/conftest.py`` starts it in the
process that runs the session (pytest-xdist's controller, or the only process), from
``$GENSTRAT_LOCAL_LLM_URL`` and ``$GENSTRAT_LOCAL_LLM_LOG`` (every ``$GENSTRAT_WATCH_INTERVAL``
seconds, 2 by default).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from tests.servers import log_tail

LOG_LINES = 5  # the lines of the server's log printed with the stop


def address(url: str) -> tuple[str, int]:
    """The host and port of ``url`` (the scheme's default port when it names none)."""
    parts = urlsplit(url)
    if parts.hostname is None:
        raise ValueError(f"not a server URL: {url!r}")
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)


def refuses(host: str, port: int, timeout: float = 2.0) -> bool:
    """Whether a connection to ``host:port`` is refused (a timeout is not a refusal)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return False
    except ConnectionRefusedError:
        return True
    except OSError:
        return False


def watch_server(
    url: str,
    *,
    name: str = "the local LLM server",
    log: Path | None = None,
    interval: float = 2.0,
    on_stop: Callable[[str], None] | None = None,
) -> None:
    """Start the watch (module docstring) in a daemon thread; call it from the main thread.
    The line is handed to ``on_stop`` (pytest prints it in its summary: while a test runs,
    pytest holds the standard streams) or, without one, printed to this process's standard
    error."""
    host, port = address(url)
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL):
        signal.signal(signal.SIGINT, signal.default_int_handler)  # see the module docstring

    def watch() -> None:
        refused = 0
        while True:
            time.sleep(interval)
            refused = refused + 1 if refuses(host, port) else 0
            if refused >= 2:
                tail = "" if log is None else "\n" + textwrap.indent(log_tail(log, LOG_LINES), "  ")
                message = (
                    f"error: {name} at {url} stopped accepting connections (it exited), so "
                    f"the tests that call it cannot finish: stopping the run{tail}"
                )
                if on_stop is None:
                    print(message, file=sys.__stderr__, flush=True)
                else:
                    on_stop(message)
                os.kill(os.getpid(), signal.SIGINT)
                return

    threading.Thread(target=watch, name=f"watch {url}", daemon=True).start()
