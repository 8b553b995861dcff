"""End to end: the daemon keeps the graph fresh (docs/DEPLOY.md, section 5).

One deployment for the module: a ``dagster-webserver`` and a ``dagster-daemon run`` on a
temporary instance (a copy of the project's ``dagster.yaml``: the queued run coordinator, one
run at a time), the demo profile, ``GENSTRAT_ROSTER`` a copy of the demo roster, and the
automation interval at 5 s (``GENSTRAT_AUTOMATION_INTERVAL_S``) so that the seven waves of a
refresh do not wait 30 s each. The tests turn things on through GraphQL, as the UI does.

1. A tick of ``nightly_refresh``, fired the way the UI's "Preview tick result" dialog fires one
   (a cron of 02:00 cannot tick during a test): its root run, then ``follow_upstream``'s
   cascade, publish a release with the same tables as ``make run`` of the same commit.
2. A player added to the roster: ``roster_sensor`` runs the roster, only the new player's
   matches are played, and a new release is published.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from engines.tournament.records import WALL_CLOCK_COLUMNS
from pipelines.automation import REFRESH_TAG
from tests.e2e.dagster_processes import (
    ROOT_ASSETS,
    Deployment,
    Driver,
    Run,
    deployment,
    fast_automation,
)
from tests.support import REPO_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

REFRESH_TIMEOUT_S = 1800
NEW_PLAYER = "search-1"
NEW_PLAYER_LINE = (
    f"  - {{name: {NEW_PLAYER}, kind: builtin, agent: search, params: {{depth: 1}}, "
    "block: block-2}\n"
)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with deployment(
        tmp_path_factory.mktemp("daemon"), shape="daemon", extra_env=fast_automation()
    ) as found:
        yield found


@dataclass(frozen=True)
class Refresh:
    release_id: str
    runs: list[Run]
    seconds: float


@pytest.fixture(scope="module")
def nightly(daemon: Deployment) -> Refresh:
    """The first refresh: ``follow_upstream`` and ``nightly_refresh`` on, a tick fired now."""
    driver = Driver(daemon)
    started = time.monotonic()
    driver.start_sensor("follow_upstream")
    driver.start_schedule("nightly_refresh")
    (root_run,) = driver.fire_schedule("nightly_refresh")
    release_id, _ = driver.wait_for_refresh(set(), REFRESH_TIMEOUT_S)
    seconds = time.monotonic() - started
    print(f"nightly refresh: release {release_id} in {seconds:.0f} s", flush=True)
    runs = driver.runs()
    assert runs[0].run_id == root_run
    return Refresh(release_id, runs, seconds)


def make_run(root: Path) -> Path:
    """``make run``'s refresh (``python -m pipelines.run_main``) on a fresh instance under
    ``root``, the demo profile and roster; returns its data folder."""
    home = root / "dagster_home"
    home.mkdir(parents=True)
    shutil.copy(REPO_ROOT / "instance" / "dagster.yaml", home / "dagster.yaml")
    env = {k: v for k, v in os.environ.items() if k not in ("GENSTRAT_PROFILE", "GENSTRAT_ROSTER")}
    env |= {
        "DAGSTER_HOME": str(home),
        "GENSTRAT_DATA": str(root / "data"),
        "GENSTRAT_RELEASES": str(root / "releases"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])),
    }
    completed = subprocess.run(
        [sys.executable, "-m", "pipelines.run_main"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    return root / "data"


def table(data: Path, name: str) -> pd.DataFrame:
    """An asset's table without its wall-clock columns, in a canonical row order."""
    frame = pd.read_parquet(data / f"{name}.parquet")
    frame = frame.drop(columns=list(WALL_CLOCK_COLUMNS), errors="ignore")
    by = "match_id" if "match_id" in frame.columns else list(frame.columns)
    return frame.sort_values(by).reset_index(drop=True)


def corpus(data: Path) -> pd.DataFrame:
    """Every partition of ``match_corpus``, by match id."""
    frames = [pd.read_parquet(path) for path in sorted((data / "match_corpus").glob("*.parquet"))]
    return pd.concat(frames).sort_values("match_id").reset_index(drop=True)


def test_a_schedule_tick_refreshes_the_graph_as_make_run_does(
    daemon: Deployment, nightly: Refresh, tmp_path: Path
) -> None:
    root, *followers = nightly.runs
    assert set(root.assets) == set(ROOT_ASSETS)
    # the tick's root run reads the roster the sensor watches, and runs the roots' checks
    assert str(daemon.roster) in root.run_config_yaml
    assert {"reference_games:well_formed", "roster:release_gates"} <= set(root.checks)
    refresh_id = root.refresh
    assert refresh_id is not None and refresh_id.startswith("nightly-")
    assert root.tags["dagster/schedule_name"] == "nightly_refresh"
    # the cascade: follow_upstream's runs, all of them in the tick's refresh
    assert followers and all(run.automated for run in followers)
    assert {run.refresh for run in nightly.runs} == {refresh_id}
    assert {run.status for run in nightly.runs} == {"SUCCESS"}
    assert "release_bundle" in followers[-1].assets
    assert (daemon.releases / nightly.release_id / "manifest.json").is_file()

    started = time.monotonic()
    reference = make_run(tmp_path / "make-run")
    print(f"make run: {time.monotonic() - started:.0f} s", flush=True)
    for name in ("leaderboards", "complete_pairs"):
        pd.testing.assert_frame_equal(table(daemon.data, name), table(reference, name))
    published = pd.read_parquet(reference / "release_bundle.parquet")["release_id"].iloc[0]
    assert published == nightly.release_id


def test_a_new_player_plays_only_its_matches_and_a_new_release_follows(
    daemon: Deployment, nightly: Refresh
) -> None:
    driver = Driver(daemon)
    before = corpus(daemon.data)
    players = set(before["alice"]) | set(before["bob"])
    assert NEW_PLAYER not in players
    with daemon.roster.open("a", encoding="utf-8") as roster:
        roster.write(NEW_PLAYER_LINE)
    known = {run.run_id for run in driver.runs()}

    started = time.monotonic()
    driver.start_sensor("roster_sensor")
    release_id, _ = driver.wait_for_refresh(driver.releases(), REFRESH_TIMEOUT_S)
    print(f"roster refresh: release {release_id} in {time.monotonic() - started:.0f} s")

    runs = [run for run in driver.runs() if run.run_id not in known]
    root, *followers = runs
    assert root.assets == ("roster",) and root.tags["dagster/sensor_name"] == "roster_sensor"
    assert str(daemon.roster) in root.run_config_yaml
    assert {run.refresh for run in runs} == {root.tags[REFRESH_TAG]}
    assert all(run.automated for run in followers)
    assert {run.status for run in runs} == {"SUCCESS"}
    assert release_id != nightly.release_id
    assert (daemon.releases / release_id / "manifest.json").is_file()

    after = corpus(daemon.data)
    old = after[after["alice"].isin(players) & after["bob"].isin(players)]
    # the earlier players' matches were not played again: same ids, same values (their
    # wall-clock columns included, which a replay would have changed)
    pd.testing.assert_frame_equal(old.reset_index(drop=True), before)
    new = after[~after["match_id"].isin(before["match_id"])]
    assert len(new) > 0
    assert ((new["alice"] == NEW_PLAYER) | (new["bob"] == NEW_PLAYER)).all()
    assert len(after) == len(before) + len(new)
