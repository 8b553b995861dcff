"""A test that closes the standard streams pytest captures fails by name, and only it.

With fd capturing, ``sys.stdout`` and ``sys.stderr`` *are* pytest's capture files while a test
runs. Code under test that closes them (directly, or by closing a wrapper around
``sys.stdout.buffer``) leaves the process's capture closed: every later test of that process
then errors with ``ValueError: I/O operation on closed file`` in its set-up and tear-down, and a
run of 3,700 tests reports 3,700 errors that name everything but the cause.

After each phase of each test this plugin looks at the global capture's files. If one was
closed, it gives the capture fresh files (the state is "suspended" there, the descriptors back
on the terminal, so only the files are swapped) and turns that phase's report into a failure
that names the test and what it closed; the controller prints the names again at the end of
the run. Every capture file it hands out is a ``TracedFile`` that keeps the stack of whoever
closes it, so the failure also shows the line that closed the stream (the close may come from
a finaliser of an object an earlier test made, run when the garbage collector reached it). It
reads pytest's capture manager (``_pytest.capture``), which has no public API for
this; a pytest upgrade that moves it fails ``tests/test_capture_guard.py``.
"""

from __future__ import annotations

import io
import os
import tempfile
import traceback
from collections.abc import Generator

import pytest
from _pytest.capture import CaptureManager, EncodedFile, FDCapture, SysCapture

CLOSED_KEY = "closed_streams"
FOUND: list[str] = []  # "<test> (<phase>): closed <streams>", in this process or from workers


class TracedFile(io.FileIO):
    """An unnamed read-write temporary file (as ``TemporaryFile(buffering=0)``) that keeps
    the stack of the call that closed it."""

    def __init__(self) -> None:
        fd, path = tempfile.mkstemp(prefix="capture-")
        os.unlink(path)
        super().__init__(fd, "rb+")
        self.closed_by = ""

    def close(self) -> None:
        if not self.closed and not self.closed_by:
            self.closed_by = "".join(traceback.format_stack()[:-1])
        super().close()


def traced_capture_file() -> EncodedFile:
    """A capture file made as ``FDCapture`` makes its own, over a ``TracedFile``."""
    return EncodedFile(
        TracedFile(), encoding="utf-8", errors="replace", newline="", write_through=True
    )


def closed_streams(capman: CaptureManager) -> list[str]:
    """The names of the global capture's streams whose capture file is closed."""
    capturing = getattr(capman, "_global_capturing", None)
    if capturing is None:
        return []
    found = []
    for name in ("out", "err"):
        capture = getattr(capturing, name)
        if isinstance(capture, FDCapture) and capture.tmpfile.closed:
            found.append("stdout" if name == "out" else "stderr")
    return found


def renew(capman: CaptureManager) -> str:
    """Traced capture files for the closed ones and for pytest's own (untraced) ones, swapped
    in while the capture is suspended (its content already read); the stack that closed a
    closed one, if it was traced."""
    capturing = getattr(capman, "_global_capturing", None)
    stacks = []
    for name in ("out", "err"):
        capture = getattr(capturing, name, None)
        if not isinstance(capture, FDCapture):
            continue
        held = capture.tmpfile.buffer
        if capture.tmpfile.closed and isinstance(held, TracedFile) and held.closed_by:
            stream = "sys.stdout" if name == "out" else "sys.stderr"
            stacks.append(f"{stream} was closed by:\n{held.closed_by}")
        if capture.tmpfile.closed or not isinstance(held, TracedFile):
            if not capture.tmpfile.closed:
                capture.tmpfile.close()
            fresh = traced_capture_file()
            capture.tmpfile = fresh
            if isinstance(capture.syscapture, SysCapture):
                capture.syscapture.tmpfile = fresh
    return "\n".join(stacks)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    capman = item.config.pluginmanager.getplugin("capturemanager")
    if not isinstance(capman, CaptureManager):
        return report
    closed = closed_streams(capman)
    stacks = renew(capman)
    if closed:
        line = f"{item.nodeid} ({call.when}): closed {' and '.join(closed)}"
        report.outcome = "failed"
        report.longrepr = (
            f"this test closed the {' and '.join(closed)} that pytest captures (sys.stdout / "
            f"sys.stderr are its capture files while a test runs): fix the code that closes "
            f"them; the capture was renewed so that later tests are not blamed"
            + (f"\n{stacks}" if stacks else "")
        )
        report.user_properties.append((CLOSED_KEY, line))
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for key, value in report.user_properties:
        if key == CLOSED_KEY and value not in FOUND:
            FOUND.append(str(value))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in FOUND:
        terminalreporter.write_line(f"standard streams closed by a test: {line}", red=True)
