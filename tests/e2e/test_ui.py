"""End to end: ``dagster dev`` (what ``make ui`` starts) serves the code location; GraphQL shows
the asset graph, the checks, the schedule and the sensors; headless Chromium takes a screenshot
of the asset graph; and the UI's way to refresh everything publishes a release.

One ``dagster dev`` for the module, on a fresh temporary instance, started and stopped (its
whole process group) by ``tests/e2e/dagster_processes.py`` whatever happens.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pipelines.automation import REFRESH_TAG
from tests.e2e.dagster_processes import (
    ROOT_ASSETS,
    Deployment,
    Driver,
    default_signals,
    deployment,
    fast_automation,
)

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


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with deployment(
        tmp_path_factory.mktemp("dev"), shape="dev", extra_env=fast_automation()
    ) as found:
        yield found


@pytest.fixture
def dagster_ui(dev: Deployment) -> str:
    return dev.url


def test_ui_serves_the_graph_checks_schedule_and_sensor(dagster_ui: str, tmp_path: Path) -> None:
    data = httpx.post(f"{dagster_ui}/graphql", json={"query": QUERY}, timeout=30).json()["data"]
    assets = {"/".join(node["assetKey"]["path"]) for node in data["assetNodes"]}
    assert {"reference_games", "seed_pool", "accepted_games"} <= assets
    (repo,) = data["repositoriesOrError"]["nodes"]
    assert {s["name"]: (s["cronSchedule"], s["executionTimezone"]) for s in repo["schedules"]} == {
        "nightly_refresh": ("0 2 * * *", "UTC")
    }
    assert {"roster_sensor", "follow_upstream", "refresh_tags"} <= {
        s["name"] for s in repo["sensors"]
    }

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
        preexec_fn=default_signals,
    )
    from PIL import Image

    image = Image.open(shot).convert("RGB")
    assert image.size == (1600, 1000)
    colours = image.getcolors(maxcolors=1_000_000) or []
    assert len(colours) > 200  # a rendered page, not a blank canvas
    keep = os.environ.get("GENSTRAT_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)


@pytest.mark.timeout(2400)
def test_materializing_the_roots_in_the_ui_refreshes_everything_as_one_refresh(
    dev: Deployment,
) -> None:
    """The README's way to refresh from the UI: turn ``follow_upstream`` on (Automation page),
    select the roots in the asset graph (``roots(*)``) and click "Materialize selected"."""
    driver = Driver(dev)
    assert not driver.runs() and not driver.releases()  # a fresh instance
    started = time.monotonic()
    driver.start_sensor("follow_upstream")
    root_run = driver.materialize(ROOT_ASSETS)
    release_id, _ = driver.wait_for_refresh(set(), 1800)
    print(f"UI refresh: release {release_id} in {time.monotonic() - started:.0f} s")

    assert (dev.releases / release_id / "manifest.json").is_file()
    runs = driver.runs()
    root, *followers = runs
    assert root.run_id == root_run and set(root.assets) == set(ROOT_ASSETS)
    assert followers and all(run.automated for run in followers)
    assert {run.status for run in runs} == {"SUCCESS"}
    # one refresh, named after the run that started it; the runs page filters on its tag
    refresh_id = f"manual-{root_run[:12]}"
    assert {run.refresh for run in runs} == {refresh_id}
    grouped = driver.runs(tags={REFRESH_TAG: refresh_id})
    assert [run.run_id for run in grouped] == [run.run_id for run in runs]
