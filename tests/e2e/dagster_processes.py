"""Real Dagster processes for the end-to-end tests, and a GraphQL client to drive them.

A deployment is a temporary Dagster instance (a copy of the project's ``dagster.yaml``), its own
``GENSTRAT_DATA``, ``GENSTRAT_RELEASES`` and ``GENSTRAT_ROSTER``, the demo profile, and the
processes serving it: ``dagster dev`` (what ``make ui`` starts) or a ``dagster-webserver`` and
a ``dagster-daemon run`` (the production shape, docs/DEPLOY.md). Every process is started on
127.0.0.1 in a process group of its own and stopped as a whole group (so the code servers and
run workers it spawned go with it) when the deployment closes, whatever happened.

``GraphQL`` sends the queries and mutations the Dagster UI sends; the UI's own sources are
quoted where a test imitates a button.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from assets.roster import DEMO_ROSTER
from pipelines.automation import AUTOMATION_TAGS, INTERVAL_ENV_VAR, REFRESH_TAG, ROOT_ASSETS
from tests.e2e.chromium import HEADLESS_FLAGS
from tests.support import REPO_ROOT, default_signals

LOCATION = "genstrat"
REPOSITORY = "__repository__"
STARTUP_TIMEOUT_S = 300  # importing the code location is slow on two busy cores


@contextlib.contextmanager
def scratch_folder(prefix: str) -> Iterator[Path]:
    """A temporary folder for a deployment, removed on exit.

    Not under pytest's ``tmp_path_factory``: pytest keeps the folders of only the last three
    sessions of a user and deletes older ones when a session starts, so another pytest session
    started meanwhile (a second worktree of the project) would delete the instance and the data
    of a deployment still running."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop ``proc``'s whole process group: SIGTERM, then SIGKILL after 10 s."""
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


def tail(path: Path, chars: int = 3000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return f"({path} unreadable)"


class GraphQLError(Exception):
    """A GraphQL reply with errors (the poll is retried; a mutation's caller fails)."""


@dataclass(frozen=True)
class GraphQL:
    """POSTs to a webserver's ``/graphql``; a reply with ``errors`` raises ``GraphQLError``."""

    url: str

    def __call__(self, query: str, timeout: float = 60, **variables: Any) -> dict[str, Any]:
        reply = httpx.post(
            f"{self.url}/graphql", json={"query": query, "variables": variables}, timeout=timeout
        )
        reply.raise_for_status()
        body = reply.json()
        if body.get("errors"):
            raise GraphQLError(f"GraphQL errors: {body['errors']}")
        data: dict[str, Any] = body["data"]
        return data


REPOSITORIES = """
{
  repositoriesOrError {
    ... on RepositoryConnection { nodes { name location { name } } }
  }
}
"""
DAEMON_HEALTH = """
{ instance { daemonHealth { allDaemonStatuses { daemonType required healthy } } } }
"""


def selector(**name: str) -> dict[str, str]:
    """A schedule/sensor selector (``scheduleName=`` or ``sensorName=``) in the code location."""
    return {"repositoryLocationName": LOCATION, "repositoryName": REPOSITORY, **name}


@dataclass
class Deployment:
    """A temporary instance and the processes serving it (see the module docstring)."""

    root: Path
    env: dict[str, str]
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    logs: dict[str, Path] = field(default_factory=dict)
    url: str = ""

    @property
    def home(self) -> Path:
        return Path(self.env["DAGSTER_HOME"])

    @property
    def data(self) -> Path:
        return Path(self.env["GENSTRAT_DATA"])

    @property
    def releases(self) -> Path:
        return Path(self.env["GENSTRAT_RELEASES"])

    @property
    def roster(self) -> Path:
        return Path(self.env["GENSTRAT_ROSTER"])

    @property
    def graphql(self) -> GraphQL:
        return GraphQL(self.url)

    def start(self, name: str, args: Sequence[str]) -> None:
        """Start ``args`` (a console script of this virtualenv) from the project's folder."""
        log = self.root / f"{name}.log"
        executable = Path(sys.executable).with_name(args[0])
        with log.open("wb") as out:
            self.processes[name] = subprocess.Popen(
                [str(executable), *args[1:]],
                cwd=REPO_ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=functools.partial(default_signals, os.getpid()),
                env=self.env,
            )
        self.logs[name] = log

    def stop_all(self) -> None:
        for proc in self.processes.values():
            stop(proc)

    def log_tails(self, chars: int = 3000) -> str:
        return "\n".join(f"--- {name} log ---\n{tail(p, chars)}" for name, p in self.logs.items())

    def assert_alive(self) -> None:
        for name, proc in self.processes.items():
            if proc.poll() is not None:
                raise AssertionError(f"{name} exited ({proc.returncode}):\n{self.log_tails()}")

    def wait_until(
        self,
        done: Callable[[], bool],
        what: str,
        timeout_s: float,
        progress: Callable[[], str] | None = None,
        every_s: float = 2.0,
    ) -> float:
        """Poll ``done`` until it holds (returns the seconds waited); on timeout or a dead
        process, fail with ``progress()`` and the logs' tails. Progress lines are printed
        every 30 s (pytest shows them when the test fails)."""
        started = time.monotonic()
        reported = started
        last_error = ""
        while True:
            self.assert_alive()
            try:
                if done():
                    return time.monotonic() - started
                last_error = ""
            except (httpx.HTTPError, GraphQLError, KeyError, TypeError, ValueError) as exc:
                last_error = f" (last poll: {exc!s:.300})"
            now = time.monotonic()
            if now - started > timeout_s:
                state = progress() if progress is not None else ""
                raise AssertionError(
                    f"{what}: not within {timeout_s:.0f} s{last_error}\n{state}\n{self.log_tails()}"
                )
            if progress is not None and now - reported >= 30:
                reported = now
                print(f"[{now - started:5.0f} s] waiting for {what}: {progress()}", flush=True)
            time.sleep(every_s)

    def wait_for_webserver(self) -> float:
        def serving() -> bool:
            nodes = self.graphql(REPOSITORIES, timeout=10)["repositoriesOrError"].get("nodes")
            return bool(nodes)

        return self.wait_until(
            serving, "the webserver to serve the code location", STARTUP_TIMEOUT_S
        )

    def wait_for_daemons(self) -> float:
        def healthy() -> bool:
            statuses = self.graphql(DAEMON_HEALTH)["instance"]["daemonHealth"]["allDaemonStatuses"]
            return all(s["healthy"] for s in statuses if s["required"])

        return self.wait_until(
            healthy, "every required daemon to report healthy", STARTUP_TIMEOUT_S
        )


# Not passed on to a deployment: the profile (``extra`` sets it; else the demo profile) and the
# local model server (``make test`` starts one; without it the ablations play the built-in
# bots only, which is what these orchestration tests need).
LEFT_OUT = ("GENSTRAT_PROFILE", "GENSTRAT_LOCAL_LLM_URL")


def make_env(root: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """The environment of a deployment's processes: a copy of ours (but ``LEFT_OUT``), with the
    instance, data, release store and roster under ``root`` (the roster a copy of the demo
    roster), and this checkout first on ``PYTHONPATH``."""
    home = root / "dagster_home"
    home.mkdir(parents=True)
    shutil.copy(REPO_ROOT / "instance" / "dagster.yaml", home / "dagster.yaml")
    roster = root / "roster.yaml"
    shutil.copy(DEMO_ROSTER, roster)
    env = {key: value for key, value in os.environ.items() if key not in LEFT_OUT}
    python_path = [str(REPO_ROOT), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env |= {
        "DAGSTER_HOME": str(home),
        "GENSTRAT_DATA": str(root / "data"),
        "GENSTRAT_RELEASES": str(root / "releases"),
        "GENSTRAT_ROSTER": str(roster),
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(python_path)),
        **extra,
    }
    return env


@contextlib.contextmanager
def deployment(
    root: Path, *, shape: str, extra_env: Mapping[str, str] = {}
) -> Iterator[Deployment]:
    """Start a deployment under ``root`` and stop all its processes on exit.

    ``shape``: ``"dg"`` is ``dg dev`` (webserver and daemon in one command, what ``make ui``
    runs; the code location from ``[tool.dg.project]``); ``"dev"`` is ``dagster dev -w
    workspace.yaml``; ``"daemon"`` is ``dagster-webserver`` plus ``dagster-daemon run``, each
    its own process.
    """
    if shape not in ("dg", "dev", "daemon"):
        raise ValueError(f"shape must be 'dg', 'dev' or 'daemon', not {shape!r}")
    env = make_env(root, extra_env)
    port = free_port()
    found = Deployment(root=root, env=env, url=f"http://127.0.0.1:{port}")
    workspace = ["-w", "workspace.yaml"]
    host = ["-h", "127.0.0.1", "-p", str(port)]
    try:
        if shape == "dg":
            venv = Path(sys.executable).parent
            found.env |= {"VIRTUAL_ENV": str(venv.parent), "PATH": f"{venv}:{env['PATH']}"}
            found.start("dg-dev", ["dg", "dev", "--host", "127.0.0.1", "--port", str(port)])
            found.wait_for_webserver()
        elif shape == "dev":
            found.start("dagster-dev", ["dagster", "dev", *host, *workspace])
            found.wait_for_webserver()
        else:
            # one after the other: both would create the new instance's SQLite tables
            found.start("webserver", ["dagster-webserver", *host, *workspace])
            found.wait_for_webserver()
            found.start("daemon", ["dagster-daemon", "run", *workspace])
        found.wait_for_daemons()
        yield found
    finally:
        found.stop_all()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium_path() -> str:
    if CHROMIUM is None:
        raise AssertionError("chromium is not installed: run 'make install' (it installs it)")
    return CHROMIUM


SCREENSHOT_SIZE = (1600, 1000)


def screenshot(
    url: str, shot: Path, profile: Path, size: tuple[int, int] = SCREENSHOT_SIZE
) -> Path:
    """A headless Chromium screenshot of ``url`` (a window of ``size``) into ``shot``."""
    width, height = size
    subprocess.run(
        [
            chromium_path(),
            *HEADLESS_FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            "--virtual-time-budget=20000",
            f"--screenshot={shot}",
            url,
        ],
        check=True,
        timeout=180,
        capture_output=True,
        preexec_fn=functools.partial(default_signals, os.getpid()),
    )
    return shot


def png_colours(png: bytes | Path) -> tuple[tuple[int, int], int]:
    """A PNG's size and how many distinct colours it has (a blank canvas has a handful)."""
    import io

    from PIL import Image

    source = io.BytesIO(png) if isinstance(png, bytes) else png
    image = Image.open(source).convert("RGB")
    return image.size, len(image.getcolors(maxcolors=10_000_000) or [])


def embedded_png(markdown: str) -> bytes:
    """The PNG an ``image_metadata`` value embeds (``![title](data:image/png;base64,...)``)."""
    marker = "data:image/png;base64,"
    start = markdown.index(marker) + len(marker)
    return base64.b64decode(markdown[start : markdown.index(")", start)])


# --- what the UI sends ---------------------------------------------------------------------

START_SENSOR = """
mutation($s: SensorSelector!) {
  startSensor(sensorSelector: $s) {
    __typename
    ... on Sensor { sensorState { status } }
    ... on PythonError { message }
  }
}
"""
START_SCHEDULE = """
mutation($s: ScheduleSelector!) {
  startSchedule(scheduleSelector: $s) {
    __typename
    ... on ScheduleStateResult { scheduleState { status } }
    ... on PythonError { message }
  }
}
"""
SCHEDULE_STATE = """
query($s: ScheduleSelector!) {
  scheduleOrError(scheduleSelector: $s) {
    __typename
    ... on Schedule { scheduleState { id status } }
  }
}
"""
STOP_SCHEDULE = """
mutation($id: String) {
  stopRunningSchedule(id: $id) {
    __typename
    ... on ScheduleStateResult { scheduleState { status } }
    ... on PythonError { message }
  }
}
"""
# ui-core/src/ticks/EvaluateScheduleDialog.tsx (SCHEDULE_DRY_RUN_MUTATION, RUN_REQUEST_FRAGMENT)
SCHEDULE_DRY_RUN = """
mutation($s: ScheduleSelector!, $timestamp: Float) {
  scheduleDryRun(selectorData: $s, timestamp: $timestamp) {
    __typename
    ... on DryRunInstigationTick {
      timestamp
      evaluationResult {
        runRequests {
          runConfigYaml
          tags { key value }
          runKey
          jobName
          assetSelection { path }
          assetChecks { name assetKey { path } }
        }
        skipReason
        error { message }
      }
    }
    ... on PythonError { message }
  }
}
"""
LAUNCH_RESULT = """
    __typename
    ... on LaunchRunSuccess { run { runId } }
    ... on PythonError { message }
    ... on InvalidSubsetError { message }
    ... on RunConfigValidationInvalid { errors { message } }
"""
LAUNCH_MULTIPLE_RUNS = f"""
mutation($p: [ExecutionParams!]!) {{
  launchMultipleRuns(executionParamsList: $p) {{
    __typename
    ... on LaunchMultipleRunsResult {{ launchMultipleRunsResult {{ {LAUNCH_RESULT} }} }}
    ... on PythonError {{ message }}
  }}
}}
"""
LAUNCH_PIPELINE_EXECUTION = f"""
mutation($p: ExecutionParams!) {{
  launchPipelineExecution(executionParams: $p) {{ {LAUNCH_RESULT} }}
}}
"""
# ui-core/src/assets/LaunchAssetExecutionButton.tsx (LaunchAssetExecutionAssetNodeFragment, cut
# to what executionParamsForAssetJob reads)
ASSET_NODES_TO_LAUNCH = """
query($keys: [AssetKeyInput!]!) {
  assetNodes(assetKeys: $keys) {
    assetKey { path }
    jobNames
    partitionDefinition { type }
    assetChecksOrError { ... on AssetChecks { checks { name jobNames } } }
  }
}
"""
RUNS = """
query($filter: RunsFilter) {
  runsOrError(filter: $filter) {
    ... on Runs {
      results {
        runId status creationTime startTime endTime runConfigYaml
        tags { key value }
        assetSelection { path }
        assetCheckSelection { name assetKey { path } }
      }
    }
  }
}
"""
LATEST_MATERIALIZATION = """
query($keys: [AssetKeyInput!]!) {
  assetNodes(assetKeys: $keys, loadMaterializations: true) {
    assetKey { path }
    assetMaterializations(limit: 1) { runId }
  }
}
"""
# What the asset page shows (ui-core/src/assets/AssetView.tsx, cut to what the tests read).
ASSET_PAGE = """
query($keys: [AssetKeyInput!]!) {
  assetNodes(assetKeys: $keys, loadMaterializations: true) {
    assetKey { path }
    metadataEntries {
      label
      ... on TableSchemaMetadataEntry { schema { columns { name type } } }
    }
    assetChecksOrError { ... on AssetChecks { checks { name blocking } } }
    assetMaterializations(limit: 1) {
      runId
      metadataEntries {
        label
        __typename
        ... on MarkdownMetadataEntry { mdStr }
        ... on TextMetadataEntry { text }
        ... on PathMetadataEntry { path }
      }
    }
  }
}
"""
SENSOR_TICKS = """
query($s: SensorSelector!) {
  sensorOrError(sensorSelector: $s) {
    ... on Sensor { sensorState { ticks(limit: 5) { status timestamp endTimestamp runIds } } }
  }
}
"""
UNFINISHED = {"QUEUED", "NOT_STARTED", "STARTING", "STARTED", "CANCELING", "MANAGED"}


def launched(result: dict[str, Any]) -> str:
    """The run id of a ``LaunchRunResult``; anything else fails with its message."""
    if result["__typename"] != "LaunchRunSuccess":
        raise AssertionError(f"launch refused: {result}")
    run_id: str = result["run"]["runId"]
    return run_id


@dataclass(frozen=True)
class Run:
    run_id: str
    status: str
    created: float
    started: float | None
    ended: float | None
    tags: dict[str, str]
    assets: tuple[str, ...]
    checks: tuple[str, ...]
    run_config_yaml: str

    @property
    def refresh(self) -> str | None:
        return self.tags.get(REFRESH_TAG)

    @property
    def automated(self) -> bool:
        return AUTOMATION_TAGS.items() <= self.tags.items()

    def line(self) -> str:
        what = ",".join(self.assets)
        partition = self.tags.get("dagster/partition", "")
        return f"{self.run_id[:8]} {self.status:<9} {what[:60]} {partition} {self.refresh}"


def timeline(runs: list[Run]) -> str:
    """When each run of a refresh was created, started and ended, in seconds from the first
    one's creation (the queue's wait is start - created): where a refresh spends its time."""
    if not runs:
        return "no runs"
    zero = runs[0].created

    def at(moment: float | None) -> str:
        return "     -" if moment is None else f"{moment - zero:6.1f}"

    return "\n".join(f"  {at(r.created)} {at(r.started)} {at(r.ended)}  {r.line()}" for r in runs)


def parse_run(node: dict[str, Any]) -> Run:
    return Run(
        run_id=node["runId"],
        status=node["status"],
        created=node["creationTime"],
        started=node["startTime"],
        ended=node["endTime"],
        tags={t["key"]: t["value"] for t in node["tags"]},
        assets=tuple("/".join(a["path"]) for a in node["assetSelection"] or []),
        checks=tuple(
            "/".join(c["assetKey"]["path"]) + ":" + c["name"]
            for c in node["assetCheckSelection"] or []
        ),
        run_config_yaml=node["runConfigYaml"],
    )


class Driver:
    """Turns things on and starts refreshes the way the UI does, and watches what follows."""

    def __init__(self, deployment: Deployment) -> None:
        self.d = deployment
        self.gql = deployment.graphql

    def start_sensor(self, name: str) -> None:
        reply = self.gql(START_SENSOR, s=selector(sensorName=name))["startSensor"]
        assert reply["__typename"] == "Sensor", reply
        assert reply["sensorState"]["status"] == "RUNNING", reply

    def asset_page(self, asset: str) -> dict[str, Any]:
        """What the asset page of ``asset`` shows: its definition's metadata, its checks, and
        its latest materialization's metadata."""
        (node,) = self.gql(ASSET_PAGE, keys=[{"path": [asset]}])["assetNodes"]
        return node

    def start_schedule(self, name: str) -> None:
        reply = self.gql(START_SCHEDULE, s=selector(scheduleName=name))["startSchedule"]
        assert reply["__typename"] == "ScheduleStateResult", reply
        assert reply["scheduleState"]["status"] == "RUNNING", reply

    def stop_schedule(self, name: str) -> None:
        """The Automation page's switch, off: ``stopRunningSchedule`` on the schedule's state."""
        found = self.gql(SCHEDULE_STATE, s=selector(scheduleName=name))["scheduleOrError"]
        assert found["__typename"] == "Schedule", found
        reply = self.gql(STOP_SCHEDULE, id=found["scheduleState"]["id"])["stopRunningSchedule"]
        assert reply["__typename"] == "ScheduleStateResult", reply
        assert reply["scheduleState"]["status"] == "STOPPED", reply

    def fire_schedule(self, name: str) -> list[str]:
        """A tick of schedule ``name`` now, as the UI's "Preview tick result" dialog fires it:
        evaluate the schedule (``scheduleDryRun``), then "Launch all & commit tick result"
        (``launchMultipleRuns`` with the parameters of ui-core's
        ``buildExecutionParamsListSchedule``). Returns the launched run ids."""
        tick = self.gql(SCHEDULE_DRY_RUN, s=selector(scheduleName=name), timestamp=time.time())
        result = tick["scheduleDryRun"]
        assert result["__typename"] == "DryRunInstigationTick", result
        evaluation = result["evaluationResult"]
        assert not evaluation["error"] and evaluation["runRequests"], evaluation
        params = [
            {
                "runConfigData": request["runConfigYaml"],
                "selector": {
                    "jobName": request["jobName"] or name_of_job(self.gql, name),
                    "repositoryLocationName": LOCATION,
                    "repositoryName": REPOSITORY,
                    "assetSelection": request["assetSelection"] or [],
                    "assetCheckSelection": request["assetChecks"] or [],
                },
                "mode": "default",
                "executionMetadata": {"tags": request["tags"]},
            }
            for request in evaluation["runRequests"]
        ]
        reply = self.gql(LAUNCH_MULTIPLE_RUNS, p=params)["launchMultipleRuns"]
        assert reply["__typename"] == "LaunchMultipleRunsResult", reply
        return [launched(r) for r in reply["launchMultipleRunsResult"]]

    def materialize(self, assets: Sequence[str]) -> str:
        """The asset graph's "Materialize selected" button on ``assets`` (unpartitioned, no
        config required): one run of the job they share, with their checks and no tags
        (ui-core's ``executionParamsForAssetJob``). Returns the run id."""
        keys = [{"path": [name]} for name in assets]
        nodes = self.gql(ASSET_NODES_TO_LAUNCH, keys=keys)["assetNodes"]
        assert not any(n["partitionDefinition"] for n in nodes), "partitioned: a backfill dialog"
        # getCommonJob: the first job every selected asset is in
        job = next(j for j in nodes[0]["jobNames"] if all(j in n["jobNames"] for n in nodes))
        checks = [
            {"assetKey": n["assetKey"], "name": c["name"]}
            for n in nodes
            for c in n["assetChecksOrError"]["checks"]
            if not c["jobNames"] or job in c["jobNames"]
        ]
        params = {
            "mode": "default",
            "executionMetadata": {"tags": []},
            "runConfigData": "{}",
            "selector": {
                "repositoryLocationName": LOCATION,
                "repositoryName": REPOSITORY,
                "pipelineName": job,
                "assetSelection": [n["assetKey"] for n in nodes],
                "assetCheckSelection": checks,
            },
        }
        return launched(self.gql(LAUNCH_PIPELINE_EXECUTION, p=params)["launchPipelineExecution"])

    def runs(self, tags: Mapping[str, str] | None = None) -> list[Run]:
        """The instance's runs, oldest first (only those with ``tags``, if given)."""
        flt = {"tags": [{"key": k, "value": v} for k, v in tags.items()]} if tags else None
        nodes = self.gql(RUNS, filter=flt)["runsOrError"]["results"]
        return sorted((parse_run(n) for n in nodes), key=lambda r: r.created)

    def latest_materialization_run(self, asset: str) -> str | None:
        nodes = self.gql(LATEST_MATERIALIZATION, keys=[{"path": [asset]}])["assetNodes"]
        events = nodes[0]["assetMaterializations"]
        return str(events[0]["runId"]) if events else None

    def quiet_since(self, moment: float) -> bool:
        """Whether a tick of ``follow_upstream`` started after ``moment`` and requested nothing."""
        reply = self.gql(SENSOR_TICKS, s=selector(sensorName="follow_upstream"))
        ticks = reply["sensorOrError"]["sensorState"]["ticks"]
        return any(t["timestamp"] > moment and t["status"] == "SKIPPED" for t in ticks)

    def releases(self) -> set[str]:
        store = self.d.releases
        if not store.is_dir():
            return set()
        return {p.name for p in store.iterdir() if p.is_dir() and not p.name.startswith(".")}

    def progress(self) -> str:
        runs = self.runs()
        by_status: dict[str, int] = {}
        for run in runs:
            by_status[run.status] = by_status.get(run.status, 0) + 1
        recent = "\n  ".join(r.line() for r in runs[-6:])
        return f"{len(runs)} runs {by_status}; releases {sorted(self.releases())}\n  {recent}"

    def wait_for_refresh(self, before: set[str], timeout_s: float) -> tuple[str, float]:
        """Wait until the refresh has settled: a release not in ``before`` is published, no run
        is queued or in progress, every run carries its refresh tag, and a tick of
        ``follow_upstream`` after the last run requested nothing more. A failed run fails at
        once. Returns the new release id (exactly one) and the seconds waited."""
        found: list[str] = []

        def settled() -> bool:
            runs = self.runs()
            failed = [r for r in runs if r.status in ("FAILURE", "CANCELED")]
            if failed:
                raise AssertionError(
                    "a run failed:\n  "
                    + "\n  ".join(r.line() for r in failed)
                    + f"\n{self.d.log_tails()}"
                )
            new = self.releases() - before
            if not new or any(r.status in UNFINISHED for r in runs):
                return False
            if any(r.refresh is None for r in runs):
                return False  # refresh_tags has not seen the last runs yet
            found[:] = sorted(new)
            # and follow_upstream has looked since the last run ended, and requested nothing
            return self.quiet_since(max(r.ended or r.created for r in runs))

        waited = self.d.wait_until(
            settled, "a refresh to publish a release", timeout_s, self.progress
        )
        assert len(found) == 1, found
        return found[0], waited


def name_of_job(gql: GraphQL, schedule: str) -> str:
    query = """
    query($s: ScheduleSelector!) {
      scheduleOrError(scheduleSelector: $s) { ... on Schedule { pipelineName } }
    }
    """
    name: str = gql(query, s=selector(scheduleName=schedule))["scheduleOrError"]["pipelineName"]
    return name


def fast_automation(seconds: int = 5) -> dict[str, str]:
    """The deployment setting that makes the daemon evaluate the automation conditions (and
    ``refresh_tags`` tag runs) every ``seconds`` instead of every 30 s."""
    return {INTERVAL_ENV_VAR: str(seconds)}


__all__ = ["ROOT_ASSETS", "Deployment", "Driver", "deployment", "fast_automation"]
