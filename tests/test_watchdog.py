"""The watch on the local LLM server (tests/watchdog.py): a server that exits mid-run stops the
pytest run with one line and its log's tail, a busy or healthy one never does."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import free_port
from tests.support import REPO_ROOT
from tests.watchdog import address, refuses


def _listening() -> socket.socket:
    """A socket listening on a free loopback port that never accepts (a busy server)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    return sock


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with _listening() as sock:
        yield sock


def test_address_reads_the_host_and_port_of_a_url() -> None:
    assert address("http://127.0.0.1:38543/v1") == ("127.0.0.1", 38543)
    assert address("http://localhost/v1") == ("localhost", 80)
    assert address("https://example.org") == ("example.org", 443)
    with pytest.raises(ValueError, match="not a server URL"):
        address("/v1/models")


def test_a_listening_server_is_not_refused_even_when_it_never_accepts(
    listener: socket.socket,
) -> None:
    port = listener.getsockname()[1]
    assert not refuses("127.0.0.1", port)
    assert not refuses("127.0.0.1", port)  # the kernel queues connections it has not accepted


def test_a_closed_port_is_refused() -> None:
    assert refuses("127.0.0.1", free_port())


# pytest started with SIGINT ignored, as a shell without job control starts a background command
# (``make test &`` in a script): the ignored disposition survives the exec.
_SIGINT_IGNORED = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def _run_pytest(
    tmp_path: Path, url: str, log: Path | None, seconds: int, *, sigint_ignored: bool = False
) -> subprocess.Popen[str]:
    """pytest in a child process, with the suite's conftest as a plugin, on one test that sleeps
    ``seconds`` (after touching ``tmp_path/started``), watching ``url`` (every 0.2 s);
    ``sigint_ignored``: started with SIGINT ignored."""
    test = tmp_path / "test_sleeps.py"
    started = tmp_path / "started"
    test.write_text(
        "import pathlib, time\n\ndef test_sleeps():\n"
        f"    pathlib.Path({str(started)!r}).touch()\n    time.sleep({seconds})\n"
    )
    env = {**os.environ, "GENSTRAT_LOCAL_LLM_URL": url, "GENSTRAT_WATCH_INTERVAL": "0.2"}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("GENSTRAT_LOCAL_LLM_LOG", None)
    if log is not None:
        env["GENSTRAT_LOCAL_LLM_LOG"] = str(log)
    launcher = ["-c", _SIGINT_IGNORED] if sigint_ignored else []
    return subprocess.Popen(
        [
            sys.executable,
            *launcher,
            "-m",
            "pytest",
            "-q",
            "-p",
            "tests.conftest",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            str(test),
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


# A server in a process of its own, as the local LLM server is: it listens on a free loopback port,
# prints the port and never accepts.  Killing the process is what closes the port; closing a
# listening socket of the test's own process would not, should any process have been forked from
# the test's process while the socket was open (the fork holds it too).
_SERVER = """
import socket, time
sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.bind(("127.0.0.1", 0))
sock.listen(8)
print(sock.getsockname()[1], flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["sigint-default", "sigint-ignored"])
def test_a_server_that_exits_stops_the_run_with_one_line_and_its_log(
    tmp_path: Path, sigint_ignored: bool
) -> None:
    server = subprocess.Popen([sys.executable, "-c", _SERVER], stdout=subprocess.PIPE, text=True)
    run: subprocess.Popen[str] | None = None
    try:
        assert server.stdout is not None
        url = f"http://127.0.0.1:{int(server.stdout.readline())}/v1"
        log = tmp_path / "server.log"
        log.write_text("".join(f"line {i}\n" for i in range(20)))
        run = _run_pytest(tmp_path, url, log, seconds=120, sigint_ignored=sigint_ignored)
        deadline = time.monotonic() + 60
        while not (tmp_path / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.05)  # until the run is under way, its watchdog seeing the server
        assert (tmp_path / "started").exists() and run.poll() is None
        with log.open("a") as sink:  # its last words: the tail is read when it dies
            sink.write("Llama._create_completion: cache miss\n")
        server.kill()  # the server exits
        server.wait()
        out, err = run.communicate(timeout=60)  # the run ends long before its test's 120 s
    finally:
        server.kill()
        server.communicate()
        if run is not None and run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == pytest.ExitCode.INTERRUPTED
    assert f"error: the local LLM server at {url} stopped accepting connections" in out
    assert "Llama._create_completion: cache miss" in out  # the log's tail
    assert "line 14" not in out and "line 16" in out  # its last five lines only
    assert "KeyboardInterrupt" in out + err


def test_a_run_whose_server_stays_up_is_never_stopped(
    tmp_path: Path, listener: socket.socket
) -> None:
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    run = _run_pytest(tmp_path, url, None, seconds=3)
    out, err = run.communicate(timeout=120)
    assert run.returncode == pytest.ExitCode.OK, out + err
    assert "stopped accepting connections" not in out + err
