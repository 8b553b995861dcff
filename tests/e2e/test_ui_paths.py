"""End to end: every documented way to refresh, pressed as a person presses it, on one fresh
instance served by ``dg dev`` (what ``make ui`` runs), with the schedule and the sensors as
shipped (nothing turned on but what the docs say to turn on).

One deployment for the module: ``dg dev`` on a fresh temporary instance (a copy of the
project's ``dagster.yaml``), the ``tiny`` profile (the whole graph, every stage, in seconds per
stage), the automation interval at 5 s.  ``make run`` runs meanwhile in a process and an
instance of its own; every path must publish its release.  The paths, in this order (each
waits for the previous refresh to settle):

1. ``dagster job launch -w workspace.yaml -j main_job`` against ``dg dev``'s daemon: one code
   location name in both, the run dequeued, and ``follow_upstream`` (on as shipped) refreshes
   the rest: the release is published;
2. Jobs -> ``main_job`` -> "Materialize all", clicked in headless Chromium: one run of the
   roots (not a backfill dialog), the refresh publishes the release again, and ``main_job``'s
   Runs tab lists the run;
3. the global lineage, ``roots(*)`` typed into its selection box and Enter, then
   "Materialize all": the three roots and ``openspiel_games`` (empty under this profile) in one
   run, the refresh publishes the release;
4. an asset's own "Materialize" (``leaderboards``' page): that asset, then what follows it,
   the release published;
5. the nightly schedule turned on (the one step the docs ask for) and a tick of it: the
   refresh publishes the release.

Each path's refresh is one ``genstrat/refresh``, every run of it succeeded, and its
``release_bundle`` names ``make run``'s release (the inputs are the same).
"""

from __future__ import annotations

import functools
import json
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from pipelines.automation import REFRESH_TAG
from tests.e2e.chromium import Page, browser
from tests.e2e.dagster_processes import (
    LOCATION,
    ROOT_ASSETS,
    Deployment,
    Driver,
    Run,
    chromium_path,
    deployment,
    fast_automation,
    scratch_folder,
    stop,
    timeline,
)
from tests.e2e.test_refresh import MakeRun
from tests.support import REPO_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(7200)]

PROFILE = "tiny"
REFRESH_TIMEOUT_S = 2400
PAGE_SIZE = (1600, 1000)
UNFINISHED = {"QUEUED", "NOT_STARTED", "STARTING", "STARTED", "CANCELING"}


@dataclass(frozen=True)
class Refresh:
    release_id: str
    runs: list[Run]
    seconds: float


@pytest.fixture(scope="module")
def root() -> Iterator[Path]:
    with scratch_folder("genstrat-ui-") as folder:
        yield folder


@pytest.fixture(scope="module")
def make_run(root: Path) -> Iterator[MakeRun]:
    started = MakeRun.start(root / "make-run")
    try:
        yield started
    finally:
        if started.process.poll() is None:
            stop(started.process)


@pytest.fixture(scope="module")
def make_run_release(make_run: MakeRun) -> Callable[[], str]:
    """The release ``make run`` published, waited for when first asked (it runs meanwhile)."""

    @functools.cache
    def release() -> str:
        make_run.finish(timeout_s=REFRESH_TIMEOUT_S)
        return release_of(make_run.data)

    return release


@pytest.fixture(scope="module")
def deployed(root: Path, make_run: MakeRun) -> Iterator[Deployment]:
    env = {**fast_automation(), "GENSTRAT_PROFILE": PROFILE}
    with deployment(root / "deployment", shape="dg", extra_env=env) as found:
        yield found


@pytest.fixture(scope="module")
def driver(deployed: Deployment) -> Driver:
    return Driver(deployed)


@pytest.fixture(scope="module")
def tab(deployed: Deployment, root: Path) -> Iterator[Page]:
    with browser(chromium_path(), root / "chromium", PAGE_SIZE) as page:
        yield page


def release_of(data: Path) -> str:
    """The release id ``release_bundle`` last published, from its table under ``data``."""
    table = pd.read_parquet(data / PROFILE / "edition-1" / "release_bundle.parquet")
    return str(table["release_id"].iloc[0])


def settle(driver: Driver, first: str, known: set[str]) -> Refresh:
    """Wait until the refresh that run ``first`` started has settled: every run since is
    finished and tagged, none failed, ``release_bundle`` was materialized by one of them, and
    a tick of ``follow_upstream`` after the last one requested nothing more."""
    started = time.monotonic()

    def new_runs() -> list[Run]:
        return [run for run in driver.runs() if run.run_id not in known]

    def settled() -> bool:
        runs = new_runs()
        failed = [r for r in runs if r.status in ("FAILURE", "CANCELED")]
        if failed:
            raise AssertionError(
                "a run failed:\n  " + "\n  ".join(r.line() for r in failed) + "\n"
                f"{driver.d.log_tails()}"
            )
        if not any(r.run_id == first for r in runs):
            return False
        if any(r.status in UNFINISHED or r.refresh is None for r in runs):
            return False
        if driver.latest_materialization_run("release_bundle") not in {r.run_id for r in runs}:
            return False
        return driver.quiet_since(max(r.ended or r.created for r in runs))

    driver.d.wait_until(settled, "the refresh to publish", REFRESH_TIMEOUT_S, driver.progress)
    runs = new_runs()
    print(f"refresh of {first[:8]}: {time.monotonic() - started:.0f} s\n{timeline(runs)}")
    assert runs[0].run_id == first, timeline(runs)
    return Refresh(release_of(driver.d.data), runs, time.monotonic() - started)


def assert_one_refresh(refresh: Refresh, published: Callable[[], str], driver: Driver) -> None:
    """One refresh tag over its runs, all succeeded, automation after the first, and the
    release ``make run`` published, the only one in the store."""
    _, *followers = refresh.runs
    assert {run.status for run in refresh.runs} == {"SUCCESS"}
    assert followers and all(run.automated for run in followers)
    assert len({run.refresh for run in refresh.runs}) == 1
    assert refresh.release_id == published()
    assert driver.releases() == {published()}


def launched_after(driver: Driver, known: set[str], what: str) -> Run:
    """The one run that appeared after ``known``, once it is there."""
    found: list[Run] = []

    def appeared() -> bool:
        found[:] = [run for run in driver.runs() if run.run_id not in known]
        return bool(found)

    driver.d.wait_until(appeared, f"a run launched by {what}", 300)
    (run,) = found
    return run


# --- 1. dagster job launch -w workspace.yaml, against dg dev's daemon -------------------------


def test_a_cli_launch_of_main_job_is_dequeued_by_dg_devs_daemon_and_publishes(
    deployed: Deployment, driver: Driver, make_run_release: Callable[[], str]
) -> None:
    assert not driver.runs()  # a fresh instance, nothing turned on
    launch = subprocess.run(
        [
            str(Path(deployed.env["VIRTUAL_ENV"]) / "bin" / "dagster"),
            *("job", "launch", "-w", "workspace.yaml", "-l", LOCATION, "-j", "main_job"),
        ],
        cwd=REPO_ROOT,
        env=deployed.env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert launch.returncode == 0, launch.stdout[-2000:] + launch.stderr[-2000:]
    (run,) = driver.runs()
    assert not run.assets  # the whole job: its three roots
    refresh = settle(driver, run.run_id, set())
    for asset in ROOT_ASSETS:
        assert driver.latest_materialization_run(asset) == run.run_id, asset
    assert_one_refresh(refresh, make_run_release, driver)
    assert refresh.runs[0].refresh == f"manual-{run.run_id[:12]}"


# --- 2. main_job's page, "Materialize all" ----------------------------------------------------


def test_main_jobs_materialize_all_refreshes_and_its_runs_tab_lists_the_run(
    deployed: Deployment, driver: Driver, tab: Page, make_run_release: Callable[[], str]
) -> None:
    known = {run.run_id for run in driver.runs()}
    tab.goto(f"{deployed.url}/locations/{LOCATION}/jobs/main_job")
    tab.press_text("Materialize all")
    run = launched_after(driver, known, "main_job's Materialize all")
    assert set(run.assets) == set(ROOT_ASSETS)
    refresh = settle(driver, run.run_id, known)
    assert_one_refresh(refresh, make_run_release, driver)
    tab.goto(f"{deployed.url}/locations/{LOCATION}/jobs/main_job/runs")
    tab.wait_for(
        f"document.body.innerText.includes({json.dumps(run.run_id[:8])})",
        "the run in main_job's Runs tab",
    )


# --- 3. the global lineage, roots(*) ----------------------------------------------------------


def test_roots_typed_in_the_global_lineage_and_materialize_all_refreshes(
    deployed: Deployment, driver: Driver, tab: Page, make_run_release: Callable[[], str]
) -> None:
    known = {run.run_id for run in driver.runs()}
    tab.goto(f"{deployed.url}/asset-groups")
    tab.wait_for("!!document.querySelector('.CodeMirror')", "the selection box")
    tab.click_at("document.querySelector('.CodeMirror')")
    tab.type_text("roots(*)")
    tab.press_enter()
    tab.wait_for("decodeURIComponent(location.href).includes('roots(*)')", "the selection run")
    tab.press_text("Materialize all")
    run = launched_after(driver, known, "Materialize all on roots(*)")
    assert set(run.assets) == {*ROOT_ASSETS, "openspiel_games"}
    refresh = settle(driver, run.run_id, known)
    assert_one_refresh(refresh, make_run_release, driver)
    # openspiel_games has nothing to do under this profile: it succeeded, empty
    page = driver.asset_page("openspiel_games")
    (latest,) = page["assetMaterializations"]
    assert latest["runId"] == run.run_id
    games = {e["label"]: e.get("text") for e in latest["metadataEntries"]}["games"]
    assert games is not None and "names no OpenSpiel games" in games


# --- 4. an asset's own Materialize --------------------------------------------------------------


def test_an_assets_materialize_refreshes_what_follows_it(
    deployed: Deployment, driver: Driver, tab: Page, make_run_release: Callable[[], str]
) -> None:
    known = {run.run_id for run in driver.runs()}
    tab.goto(f"{deployed.url}/assets/leaderboards")
    tab.press_text("Materialize")
    run = launched_after(driver, known, "the leaderboards page's Materialize")
    assert run.assets == ("leaderboards",)
    refresh = settle(driver, run.run_id, known)
    assert_one_refresh(refresh, make_run_release, driver)
    refreshed = {asset for r in refresh.runs for asset in r.assets}
    assert "release_bundle" in refreshed and not {"seed_pool", "match_corpus"} & refreshed


# --- 5. the nightly schedule ---------------------------------------------------------------------


def test_a_nightly_tick_with_the_shipped_sensors_publishes(
    deployed: Deployment, driver: Driver, make_run_release: Callable[[], str]
) -> None:
    known = {run.run_id for run in driver.runs()}
    driver.start_schedule("nightly_refresh")  # the documented step
    driver.stop_schedule("nightly_refresh")  # no real 02:00 tick during the test
    (first,) = driver.fire_schedule("nightly_refresh")
    refresh = settle(driver, first, known)
    assert_one_refresh(refresh, make_run_release, driver)
    assert refresh.runs[0].tags[REFRESH_TAG].startswith("nightly-")
