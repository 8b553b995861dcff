"""End to end: ``dagster dev`` serves the code location; GraphQL shows the asset graph, the
checks, the schedule and the sensor; headless Chromium takes a screenshot of the asset graph.

The test starts every process itself on 127.0.0.1 and stops all of them (their whole process
group) when it ends, whatever happens.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import REPO_ROOT, ProjectEnv

pytestmark = pytest.mark.slow  # make test runs it; make check leaves it out

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
QUERY = """
{
  assetNodes { assetKey { path } }
  repositoriesOrError {
    ... on RepositoryConnection {
      nodes {
        name
        location { name }
        schedules { name cronSchedule executionTimezone }
        sensors { name }
      }
    }
  }
}
"""
CHECKS_QUERY = """
{
  assetNodes {
    assetKey { path }
    assetChecksOrError { ... on AssetChecks { checks { name blocking } } }
  }
}
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _default_signals() -> None:
    # Processes started here may inherit ignored SIGTERM/SIGINT; restore the defaults so the
    # server can be stopped, and give it its own process group to stop as a whole.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setsid()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture
def dagster_ui(project_env: ProjectEnv, tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    log = (tmp_path / "dagster-dev.log").open("wb")
    dagster = Path(sys.executable).with_name("dagster")
    proc = subprocess.Popen(
        [str(dagster), "dev", "-h", "127.0.0.1", "-p", str(port), "-w", "workspace.yaml"],
        cwd=REPO_ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=_default_signals,
        env={**os.environ, "DAGSTER_HOME": str(project_env.dagster_home)},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(
                    f"dagster dev exited: {(tmp_path / 'dagster-dev.log').read_text()[-2000:]}"
                )
            try:
                reply = httpx.post(f"{url}/graphql", json={"query": QUERY}, timeout=5)
                nodes = reply.json()["data"]["repositoriesOrError"].get("nodes")
                if nodes:
                    break
            except (httpx.HTTPError, KeyError, ValueError, TypeError):
                pass
            time.sleep(1)
        else:
            raise AssertionError("dagster dev did not serve the code location within 180 s")
        yield url
    finally:
        _stop(proc)
        log.close()


def test_ui_serves_the_graph_checks_schedule_and_sensor(dagster_ui: str, tmp_path: Path) -> None:
    data = httpx.post(f"{dagster_ui}/graphql", json={"query": QUERY}, timeout=30).json()["data"]
    assets = {"/".join(node["assetKey"]["path"]) for node in data["assetNodes"]}
    assert {"reference_games", "seed_pool", "accepted_games"} <= assets
    (repo,) = data["repositoriesOrError"]["nodes"]
    assert {s["name"]: (s["cronSchedule"], s["executionTimezone"]) for s in repo["schedules"]} == {
        "nightly_refresh": ("0 2 * * *", "UTC")
    }
    assert "roster_sensor" in {s["name"] for s in repo["sensors"]}

    checks = httpx.post(f"{dagster_ui}/graphql", json={"query": CHECKS_QUERY}, timeout=30)
    by_asset = {
        "/".join(n["assetKey"]["path"]): [c["name"] for c in n["assetChecksOrError"]["checks"]]
        for n in checks.json()["data"]["assetNodes"]
    }
    assert by_asset["accepted_games"] == ["conformance_and_rulebooks"]
    assert by_asset["reference_games"] == ["well_formed"]

    if CHROMIUM is None:
        raise AssertionError("chromium is not installed: run 'make install' (it installs it)")
    shot = tmp_path / "asset-graph.png"
    profile = tmp_path / "chromium-profile"
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--hide-scrollbars",
            "--window-size=1600,1000",
            "--virtual-time-budget=20000",
            f"--screenshot={shot}",
            f"{dagster_ui}/asset-groups",
        ],
        check=True,
        timeout=120,
        capture_output=True,
        preexec_fn=_default_signals,
    )
    from PIL import Image

    image = Image.open(shot).convert("RGB")
    assert image.size == (1600, 1000)
    colours = image.getcolors(maxcolors=1_000_000) or []
    assert len(colours) > 200  # a rendered page, not a blank canvas
    keep = os.environ.get("GENSTRAT_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)
