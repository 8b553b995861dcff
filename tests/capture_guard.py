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
the run. It reads pytest's capture manager (``_pytest.capture``), which has no public API for
this; a pytest upgrade that moves it fails ``tests/test_capture_guard.py``.
"""

from __future__ import annotations

from collections.abc import Generator
from tempfile import TemporaryFile

import pytest
from _pytest.capture import CaptureManager, EncodedFile, FDCapture, SysCapture

CLOSED_KEY = "closed_streams"
FOUND: list[str] = []  # "<test> (<phase>): closed <streams>", in this process or from workers


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


def renew(capman: CaptureManager) -> None:
    """Fresh capture files for the closed ones (made as ``FDCapture`` makes them)."""
    capturing = getattr(capman, "_global_capturing", None)
    for name in ("out", "err"):
        capture = getattr(capturing, name, None)
        if isinstance(capture, FDCapture) and capture.tmpfile.closed:
            fresh = EncodedFile(
                TemporaryFile(buffering=0),  # noqa: SIM115 (held by the capture, as pytest holds it)
                encoding="utf-8",
                errors="replace",
                newline="",
                write_through=True,
            )
            capture.tmpfile = fresh
            if isinstance(capture.syscapture, SysCapture):
                capture.syscapture.tmpfile = fresh


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    capman = item.config.pluginmanager.getplugin("capturemanager")
    if not isinstance(capman, CaptureManager):
        return report
    closed = closed_streams(capman)
    if closed:
        renew(capman)
        line = f"{item.nodeid} ({call.when}): closed {' and '.join(closed)}"
        report.outcome = "failed"
        report.longrepr = (
            f"this test closed the {' and '.join(closed)} that pytest captures (sys.stdout / "
            f"sys.stderr are its capture files while a test runs): fix the code that closes "
            f"them; the capture was renewed so that later tests are not blamed"
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
