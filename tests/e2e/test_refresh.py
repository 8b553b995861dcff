"""End to end: the ways a refresh of the whole graph starts, on one real deployment.

One deployment for the module (docs/DEPLOY.md, section 5): a ``dagster-webserver`` and a
``dagster-daemon run`` on a fresh temporary instance (a copy of the project's ``dagster.yaml``:
the queued run coordinator, one run at a time), ``GENSTRAT_ROSTER`` a copy of the demo roster,
the ``tiny`` profile (the whole graph, every stage, in seconds per stage: these tests check the
orchestration, the science has its own tests) and the automation interval at 5 s
(``GENSTRAT_AUTOMATION_INTERVAL_S``) so that the waves of a refresh do not wait 30 s each.
Things are turned on and launched through GraphQL, as the UI does. ``make run``
(``python -m pipelines.run_main``) runs meanwhile in a process and instance of its own.

The tests build on each other, in this order (each refresh is a module fixture, so a test that
needs one fails at once if it failed):

1. the webserver serves the graph, its checks, the schedule and the sensors; Chromium renders
   the asset graph;
2. on the fresh instance, the UI's way to refresh everything (``follow_upstream`` on, the roots
   materialized) publishes a release, its runs grouped under one refresh tag; the roster it
   read is ``$GENSTRAT_ROSTER``;
3. the leaderboard's asset page: its column schema, a plot, a check on every asset that
   publishes numbers; Chromium renders it;
4. ``make run`` on the same profile prints its step lines and summary and publishes the same
   release, with the same tables;
5. a player added to the roster, then a tick of ``nightly_refresh``: a new release, and only
   that player's matches were played;
6. another player added, ``roster_sensor`` on: the sensor's run and the cascade publish a new
   release, only that player's matches played.

``GENSTRAT_SCREENSHOTS=<folder>`` keeps the two screenshots there (``asset-graph.png``,
``leaderboards.png``; docs/img holds the committed ones).
"""

from __future__ import annotations

import functools
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

from assets.roster import DEMO_ROSTER
from assets.run_profiles import get_profile
from engines.stats.analysis import MIN_PROFILE_GAMES
from engines.tournament.records import WALL_CLOCK_COLUMNS
from pipelines.automation import REFRESH_TAG
from tests.e2e.chromium import browser
from tests.e2e.dagster_processes import (
    LEFT_OUT,
    ROOT_ASSETS,
    Deployment,
    Driver,
    Run,
    chromium_path,
    deployment,
    embedded_png,
    fast_automation,
    png_colours,
    scratch_folder,
    screenshot,
    stop,
    timeline,
)
from tests.support import REPO_ROOT, default_signals

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

PROFILE = "tiny"
# A refresh takes minutes on a quiet machine; ten times that on two cores shared with others.
REFRESH_TIMEOUT_S = 2400
SCREENSHOTS_ENV_VAR = "GENSTRAT_SCREENSHOTS"
PAGE_SIZE = (1600, 1400)
# The asset page has rendered its column schema (the "Columns" section lists ``ci_high``).
SHOWS_COLUMN_SCHEMA = (
    "document.body.innerText.includes('Columns') && document.body.innerText.includes('ci_high')"
)
# The data-URL images the page has drawn (loaded and decoded), as [width, height] pairs.
DRAWN_PLOTS = (
    "(() => { const drawn = [...document.querySelectorAll('img')].filter(i => "
    "i.src.startsWith('data:image/png') && i.complete && i.naturalWidth > 0); "
    "return drawn.length > 0 && drawn.map(i => [i.naturalWidth, i.naturalHeight]); })()"
)

# Every asset of pipelines/definitions.py that publishes numbers (all of them: a table of games,
# players, matches, scores or statistics, or the release that bundles them). Listed, not read
# from the graph, so that a new asset without a check fails here until it is added.
NUMBER_PUBLISHING_ASSETS = (
    "reference_games",
    "seed_pool",
    "accepted_games",
    "screening_axes",
    "benchmark_games",
    "axis_scores",
    "benchmark_axes",
    "roster",
    "match_corpus",
    "match_moves",
    "complete_pairs",
    "leaderboards",
    "capability_profiles",
    "ablations",
    "release_bundle",
)


def player_line(name: str, params: str) -> str:
    """A roster line: a search bot in a later block (it plays the earlier players)."""
    return f"  - {{name: {name}, kind: builtin, agent: search, params: {params}, block: block-2}}\n"


# --- make run, in a process and an instance of its own -----------------------------------------


@dataclass
class MakeRun:
    """``make run``'s refresh (``python -m pipelines.run_main``) on a fresh instance under
    ``root``, the module's profile, ``GENSTRAT_ROSTER`` unset (so the demo roster)."""

    root: Path
    process: subprocess.Popen[str]
    started: float

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def home(self) -> Path:
        return self.root / "dagster_home"

    @classmethod
    def start(cls, root: Path) -> MakeRun:
        home = root / "dagster_home"
        home.mkdir(parents=True)
        shutil.copy(REPO_ROOT / "instance" / "dagster.yaml", home / "dagster.yaml")
        env = {k: v for k, v in os.environ.items() if k not in ("GENSTRAT_ROSTER", *LEFT_OUT)}
        env |= {
            "DAGSTER_HOME": str(home),
            "GENSTRAT_DATA": str(root / "data"),
            "GENSTRAT_RELEASES": str(root / "releases"),
            "GENSTRAT_PROFILE": PROFILE,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])),
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "pipelines.run_main"],
            cwd=REPO_ROOT,
            env=env,
            stdout=(root / "stdout.txt").open("w"),
            stderr=(root / "stderr.txt").open("w"),
            text=True,
            preexec_fn=functools.partial(default_signals, os.getpid()),  # dies with the session
        )
        return cls(root, process, time.monotonic())

    def finish(self, timeout_s: float) -> tuple[str, str]:
        """Wait for it; its stdout and stderr (it must have succeeded)."""
        try:
            code = self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            stop(self.process)
            raise
        out = (self.root / "stdout.txt").read_text()
        err = (self.root / "stderr.txt").read_text()
        assert code == 0, out[-3000:] + err[-3000:]
        return out, err


@dataclass(frozen=True)
class Refresh:
    release_id: str
    runs: list[Run]
    seconds: float


@pytest.fixture(scope="module")
def root() -> Iterator[Path]:
    with scratch_folder("genstrat-e2e-") as folder:
        yield folder


@pytest.fixture(scope="module")
def make_run(root: Path) -> Iterator[MakeRun]:
    """Started before the deployment, so that it runs while the deployment starts and waits."""
    started = MakeRun.start(root / "make-run")
    try:
        yield started
    finally:
        if started.process.poll() is None:
            stop(started.process)  # its process group: make run's runs go with it


@pytest.fixture(scope="module")
def deployed(root: Path, make_run: MakeRun) -> Iterator[Deployment]:
    env = {**fast_automation(), "GENSTRAT_PROFILE": PROFILE}
    with deployment(root / "deployment", shape="daemon", extra_env=env) as found:
        yield found


@pytest.fixture(scope="module")
def driver(deployed: Deployment) -> Driver:
    return Driver(deployed)


@pytest.fixture(scope="module")
def ui_refresh(driver: Driver) -> Refresh:
    """The README's way to refresh from the UI, on the fresh instance: turn ``follow_upstream``
    on (Automation page), select the roots in the asset graph (``roots(*)``) and click
    "Materialize selected"."""
    assert not driver.runs() and not driver.releases()  # a fresh instance
    started = time.monotonic()
    driver.start_sensor("follow_upstream")
    root_run = driver.materialize(ROOT_ASSETS)
    release_id, _ = driver.wait_for_refresh(set(), REFRESH_TIMEOUT_S)
    seconds = time.monotonic() - started
    runs = driver.runs()
    print(f"UI refresh: release {release_id} in {seconds:.0f} s\n{timeline(runs)}", flush=True)
    assert runs[0].run_id == root_run
    return Refresh(release_id, runs, seconds)


def keep_screenshot(shot: Path) -> None:
    folder = os.environ.get(SCREENSHOTS_ENV_VAR)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(folder) / shot.name)


def tables(data: Path) -> Path:
    """Where the profile's first edition keeps its tables under the data folder ``data``."""
    return data / PROFILE / "edition-1"


def table(data: Path, name: str) -> pd.DataFrame:
    """An asset's table without its wall-clock columns, in a canonical row order."""
    frame = pd.read_parquet(tables(data) / f"{name}.parquet")
    frame = frame.drop(columns=list(WALL_CLOCK_COLUMNS), errors="ignore")
    by = "match_id" if "match_id" in frame.columns else list(frame.columns)
    return frame.sort_values(by).reset_index(drop=True)


def corpus(data: Path) -> pd.DataFrame:
    """Every partition of ``match_corpus``, by match id."""
    found = sorted((tables(data) / "match_corpus").glob("*.parquet"))
    frames = [pd.read_parquet(path) for path in found]
    return pd.concat(frames).sort_values("match_id").reset_index(drop=True)


def assert_only_new_matches(before: pd.DataFrame, after: pd.DataFrame, player: str) -> None:
    """The matches of ``before`` are in ``after`` unchanged (their wall-clock columns included,
    which a replay would have changed); every other match of ``after`` seats ``player``."""
    players = set(before["alice"]) | set(before["bob"])
    assert player not in players
    old = after[after["alice"].isin(players) & after["bob"].isin(players)]
    pd.testing.assert_frame_equal(old.reset_index(drop=True), before)
    new = after[~after["match_id"].isin(before["match_id"])]
    assert len(new) > 0
    assert ((new["alice"] == player) | (new["bob"] == player)).all()
    assert len(after) == len(before) + len(new)


# --- 1. what the UI shows ------------------------------------------------------------------------

GRAPH_QUERY = """
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


def test_the_webserver_serves_the_graph_schedule_and_sensors_and_renders_the_graph(
    deployed: Deployment, tmp_path: Path
) -> None:
    data = deployed.graphql(GRAPH_QUERY)
    assets = {"/".join(node["assetKey"]["path"]) for node in data["assetNodes"]}
    assert set(NUMBER_PUBLISHING_ASSETS) <= assets
    (repo,) = data["repositoriesOrError"]["nodes"]
    assert {s["name"]: (s["cronSchedule"], s["executionTimezone"]) for s in repo["schedules"]} == {
        "nightly_refresh": ("0 2 * * *", "UTC")
    }
    assert {"roster_sensor", "follow_upstream", "refresh_tags"} <= {
        s["name"] for s in repo["sensors"]
    }

    shot = screenshot(
        f"{deployed.url}/asset-groups", tmp_path / "asset-graph.png", tmp_path / "chromium"
    )
    size, colours = png_colours(shot)
    assert size == (1600, 1000) and colours > 200  # a rendered page, not a blank canvas
    keep_screenshot(shot)


# --- 2. the UI's refresh of everything -----------------------------------------------------------


def test_materializing_the_roots_in_the_ui_refreshes_everything_as_one_refresh(
    deployed: Deployment, driver: Driver, ui_refresh: Refresh
) -> None:
    assert (deployed.releases / ui_refresh.release_id / "manifest.json").is_file()
    root, *followers = ui_refresh.runs
    assert set(root.assets) == set(ROOT_ASSETS)
    assert followers and all(run.automated for run in followers)
    assert {run.status for run in ui_refresh.runs} == {"SUCCESS"}
    assert "release_bundle" in followers[-1].assets
    # one refresh, named after the run that started it; the runs page filters on its tag
    refresh_id = f"manual-{root.run_id[:12]}"
    assert {run.refresh for run in ui_refresh.runs} == {refresh_id}
    grouped = driver.runs(tags={REFRESH_TAG: refresh_id})
    assert [run.run_id for run in grouped] == [run.run_id for run in ui_refresh.runs]
    # the button sends no run config: the roster read is the deployment's $GENSTRAT_ROSTER
    assert "roster" not in root.run_config_yaml
    roster_page = driver.asset_page("roster")
    (latest,) = roster_page["assetMaterializations"]
    source = {e["label"]: e.get("text") for e in latest["metadataEntries"]}["source"]
    assert source == str(deployed.roster)


# --- 3. the leaderboard's asset page -------------------------------------------------------------


def test_the_leaderboard_page_shows_its_columns_a_plot_and_every_publisher_has_a_check(
    deployed: Deployment, driver: Driver, ui_refresh: Refresh, tmp_path: Path
) -> None:
    page = driver.asset_page("leaderboards")
    schemas = [e for e in page["metadataEntries"] if e["label"] == "dagster/column_schema"]
    (schema,) = schemas
    columns = {c["name"] for c in schema["schema"]["columns"]}
    assert {"rank", "model", "alpha", "ci_low", "ci_high"} <= columns
    (latest,) = page["assetMaterializations"]
    entries = {e["label"]: e for e in latest["metadataEntries"]}
    plot = entries["plot_leaderboard"]
    assert plot["__typename"] == "MarkdownMetadataEntry"
    size, colours = png_colours(embedded_png(plot["mdStr"]))
    assert min(size) >= 200 and colours > 20  # a drawn figure

    for asset in NUMBER_PUBLISHING_ASSETS:
        checks = driver.asset_page(asset)["assetChecksOrError"]["checks"]
        assert checks, f"{asset} publishes numbers and has no asset check"

    # The page as a user sees it: the columns, and the plot behind its "[Show Markdown]" button
    # (Dagster shows a Markdown entry in a dialog), drawn by the browser at its own size.
    with browser(chromium_path(), tmp_path / "chromium", PAGE_SIZE) as tab:
        tab.goto(f"{deployed.url}/assets/leaderboards")
        tab.wait_for(SHOWS_COLUMN_SCHEMA, "the column schema")
        tab.click_text("[Show Markdown]")  # the first one: plot_leaderboard
        drawn = tab.wait_for(DRAWN_PLOTS, "the leaderboard's plot drawn")
        shot = tab.screenshot(tmp_path / "leaderboards.png")
    assert [tuple(s) for s in drawn] == [size]  # the plot of the metadata, drawn whole
    shot_size, colours = png_colours(shot)
    assert shot_size == PAGE_SIZE and colours > 200
    keep_screenshot(shot)


# --- 4. make run ---------------------------------------------------------------------------------


def test_make_run_prints_its_steps_and_publishes_the_release_the_ui_published(
    deployed: Deployment, ui_refresh: Refresh, make_run: MakeRun
) -> None:
    out, _ = make_run.finish(timeout_s=REFRESH_TIMEOUT_S)
    print(f"make run: done {time.monotonic() - make_run.started:.0f} s after it started")
    data = tables(make_run.data)
    games = pd.read_parquet(data / "reference_games.parquet")
    assert {"kuhn", "leduc", "holdem-limit", "example4643"} <= set(games["name"])
    for name, spec_hash in zip(games["name"], games["spec_hash"], strict=True):
        assert name in out and spec_hash in out
    assert "] match_corpus" in out and "succeeded" in out  # the step lines and the summary
    # The whole graph ran: the selection, the tournament on it, the leaderboard, a release.
    chosen = pd.read_parquet(data / "benchmark_games.parquet")
    assert len(chosen) == get_profile(PROFILE).benchmark_games
    pairs = pd.read_parquet(data / "complete_pairs.parquet")
    assert set(pairs["game"].astype(str)) == set(chosen["game"].astype(str))
    board = pd.read_parquet(data / "leaderboards.parquet")
    assert len(board) == 4 and "chips/game" in out
    profiles = pd.read_parquet(data / "capability_profiles.parquet")
    if len(chosen) >= MIN_PROFILE_GAMES:
        assert set(profiles["model"]) == set(board["model"])
    else:  # too few games to fit profiles: the stage ran and published an empty table
        assert profiles.empty and "model" in profiles.columns
    release_id = pd.read_parquet(data / "release_bundle.parquet")["release_id"].iloc[0]
    assert f"release {release_id} published" in out
    assert (make_run.root / "releases" / release_id / "manifest.json").is_file()
    assert (make_run.home / "history" / "runs.db").is_file()  # the UI shows its runs
    # make run read the demo roster ($GENSTRAT_ROSTER unset), the deployment a copy of it:
    # the same release, the same tables
    assert DEMO_ROSTER.read_bytes() == deployed.roster.read_bytes()
    assert release_id == ui_refresh.release_id
    for name in ("leaderboards", "complete_pairs"):
        pd.testing.assert_frame_equal(table(deployed.data, name), table(make_run.data, name))


# --- 5. a nightly tick, 6. a roster change -------------------------------------------------------


@pytest.fixture(scope="module")
def nightly(
    deployed: Deployment, driver: Driver, ui_refresh: Refresh
) -> tuple[Refresh, str, pd.DataFrame]:
    """A player added to the roster, then a tick of ``nightly_refresh``, fired the way the UI's
    "Preview tick result" dialog fires one. The schedule is turned on and off again first: left
    on, the daemon would also fire the real 02:00 UTC tick when the test runs at that time (a
    second refresh, whose root run is not one ``follow_upstream`` launched, failed this test
    in a run from 01:53 to 02:06 UTC); a tick fired by hand does not need it on."""
    added = "search-1"
    before = corpus(deployed.data)
    with deployed.roster.open("a", encoding="utf-8") as roster:
        roster.write(player_line(added, "{depth: 1}"))
    known = {run.run_id for run in driver.runs()}
    started = time.monotonic()
    driver.start_schedule("nightly_refresh")
    driver.stop_schedule("nightly_refresh")
    (root_run,) = driver.fire_schedule("nightly_refresh")
    release_id, _ = driver.wait_for_refresh(driver.releases(), REFRESH_TIMEOUT_S)
    seconds = time.monotonic() - started
    runs = [run for run in driver.runs() if run.run_id not in known]
    print(f"nightly refresh: release {release_id} in {seconds:.0f} s\n{timeline(runs)}", flush=True)
    assert runs[0].run_id == root_run
    return Refresh(release_id, runs, seconds), added, before


def test_a_schedule_tick_refreshes_the_graph_through_the_daemon(
    deployed: Deployment, ui_refresh: Refresh, nightly: tuple[Refresh, str, pd.DataFrame]
) -> None:
    refresh, added, before = nightly
    root, *followers = refresh.runs
    assert set(root.assets) == set(ROOT_ASSETS)
    # the tick's root run reads the roster the sensor watches, and runs the roots' checks
    assert str(deployed.roster) in root.run_config_yaml
    assert {"reference_games:well_formed", "roster:release_gates"} <= set(root.checks)
    refresh_id = root.refresh
    assert refresh_id is not None and refresh_id.startswith("nightly-")
    assert root.tags["dagster/schedule_name"] == "nightly_refresh"
    # the cascade: follow_upstream's runs, all of them in the tick's refresh
    assert followers and all(run.automated for run in followers)
    assert {run.refresh for run in refresh.runs} == {refresh_id}
    assert {run.status for run in refresh.runs} == {"SUCCESS"}
    assert "release_bundle" in followers[-1].assets
    assert refresh.release_id != ui_refresh.release_id
    assert (deployed.releases / refresh.release_id / "manifest.json").is_file()
    assert_only_new_matches(before, corpus(deployed.data), added)


def test_a_new_player_plays_only_its_matches_and_a_new_release_follows(
    deployed: Deployment, driver: Driver, nightly: tuple[Refresh, str, pd.DataFrame]
) -> None:
    previous, _, _ = nightly
    before = corpus(deployed.data)
    added = "search-1w"
    with deployed.roster.open("a", encoding="utf-8") as roster:
        roster.write(player_line(added, "{depth: 1, worlds: 4}"))
    known = {run.run_id for run in driver.runs()}

    started = time.monotonic()
    driver.start_sensor("roster_sensor")
    release_id, _ = driver.wait_for_refresh(driver.releases(), REFRESH_TIMEOUT_S)
    runs = [run for run in driver.runs() if run.run_id not in known]
    seconds = time.monotonic() - started
    print(f"roster refresh: release {release_id} in {seconds:.0f} s\n{timeline(runs)}")

    root, *followers = runs
    assert root.assets == ("roster",) and root.tags["dagster/sensor_name"] == "roster_sensor"
    assert str(deployed.roster) in root.run_config_yaml
    assert {run.refresh for run in runs} == {root.tags[REFRESH_TAG]}
    assert all(run.automated for run in followers)
    assert {run.status for run in runs} == {"SUCCESS"}
    # one run per game (only its new matches), then the refits: not the pool or the axes
    assert not {"seed_pool", "accepted_games", "axis_scores"} & {a for r in runs for a in r.assets}
    assert release_id != previous.release_id
    assert (deployed.releases / release_id / "manifest.json").is_file()
    assert_only_new_matches(before, corpus(deployed.data), added)
