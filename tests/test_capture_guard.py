"""tests/capture_guard.py: a test that closes the captured streams fails by name, alone.

A planted suite in a child pytest (in this process or on an xdist worker): the first test
closes ``sys.stdout`` or ``sys.stderr``, the next ones print and pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

PLANTED = """
import sys

def test_closes_it():
    sys.{stream}.close()

def test_prints_after_it():
    print("still captured")

def test_and_another():
    print("still captured", file=sys.stderr)
"""


def run_planted(tmp_path: Path, suite: str, *options: str) -> subprocess.CompletedProcess[str]:
    """A child pytest over ``suite`` (written as ``test_planted.py`` in ``tmp_path``)."""
    (tmp_path / "test_planted.py").write_text(suite)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *options, "."],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
@pytest.mark.parametrize("workers", [[], ["-n", "1"]], ids=["in-process", "xdist"])
def test_the_test_that_closes_a_stream_fails_and_the_others_pass(
    tmp_path: Path, stream: str, workers: list[str]
) -> None:
    done = run_planted(
        tmp_path, PLANTED.format(stream=stream), "-p", "tests.capture_guard", *workers
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "1 failed, 2 passed" in out, out
    assert "I/O operation on closed file" not in out, out
    assert (
        f"standard streams closed by a test: test_planted.py::test_closes_it (call): "
        f"closed {stream}" in out
    ), out
    # the failure shows the line that closed it
    assert f"sys.{stream} was closed by:" in out, out
    assert f"sys.{stream}.close()" in out.split("was closed by:")[1], out


def test_a_close_by_a_finaliser_shows_the_collection_that_ran_it(tmp_path: Path) -> None:
    """The close that hides: a text wrapper over ``sys.stderr.buffer`` made in one test and
    collected in a later one closes the capture there; the failure shows the finaliser's
    stack, whose caller is the garbage collection the later test triggered."""
    planted = (
        "import gc, io, sys\n"
        "def test_makes_a_wrapper():\n"
        "    wrapper = io.TextIOWrapper(sys.stderr.buffer)\n"
        "    wrapper.loop = wrapper  # a cycle: only the collector frees it\n"
        "def test_collects_it():\n"
        "    gc.collect()\n"
        "def test_after():\n"
        "    print('still captured', file=sys.stderr)\n"
    )
    done = run_planted(tmp_path, planted, "-p", "tests.capture_guard")
    out = done.stdout
    assert "1 failed, 2 passed" in out, out + done.stderr
    assert "test_planted.py::test_collects_it (call): closed stderr" in out, out
    assert "gc.collect()" in out.split("was closed by:")[1], out


def test_without_the_guard_the_planted_suite_cascades(tmp_path: Path) -> None:
    """What the guard is for (and a pytest upgrade that makes it moot shows here)."""
    done = run_planted(tmp_path, PLANTED.format(stream="stdout"), "-p", "no:cacheprovider")
    assert "I/O operation on closed file" in done.stdout + done.stderr
