"""Shared fixtures: a private data folder and Dagster instance for tests that need them, and
(session-scoped, started only when a test asks) a real PostgreSQL server and Dask cluster."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.compiled_engine import enable
from tests import capture_guard, servers
from tests.servers import DaskCluster, PostgresServer
from tests.support import (
    CLUSTER_PROFILE,
    POSTGRES_INSTANCE_YAML,
    REPO_ROOT,
    ProjectEnv,
    signals_kept,
)
from tests.watchdog import watch_server

# The suite runs the engine `make test` built (tools/build_engine.py) when the build matches the
# sources, else the interpreted one: decided here, before any test module imports the engine.
ENGINE = enable()

# The modules that take longest under `make test` (the UI paths, the killed refreshes and the
# other end-to-end modules each run whole refreshes; the image's clean install; the Dask
# cluster; the chess ladder; the local-model ablations), longest first, started first so that
# the two workers finish together; the others keep their order. `make test`
# turns off xdist's own reordering (by number of tests per module), which started the longest
# module minutes late; `make check` (no slow tests) keeps it.
LONGEST_FIRST = (
    "tests/e2e/test_ui_paths.py",
    "tests/e2e/test_killed_refresh.py",
    "tests/e2e/test_refresh.py",
    "tests/test_dockerfile.py",
    "tests/e2e/test_game_identity.py",
    "tests/e2e/test_storage_url.py",
    "tests/pipelines/test_scaleout.py",
    "tests/arena/tournament/test_chess_calibration.py",
    "tests/assets/test_ablations_asset.py",
    "tests/arena/ablations/test_roster_ablations.py",
    "tests/releases/test_integrity.py",
    "tests/assets/test_werewolf_group.py",
    "tests/engines/solve/test_best_response_arrays.py",
    "tests/arena/llm/test_local_llm_chess.py",
)


_WATCH_STOPS: list[str] = []  # the watchdog's line, once it stopped the run


def pytest_configure(config: pytest.Config) -> None:
    # The local LLM server `make test` started: if it dies, stop the run with one line instead of
    # letting its tests retry every move for hours (tests/watchdog.py). Watched from the process
    # that runs the session (xdist's controller, or the only process), not from each worker.
    url = os.environ.get("GENSTRAT_LOCAL_LLM_URL")
    if url and "PYTEST_XDIST_WORKER" not in os.environ:
        log = os.environ.get("GENSTRAT_LOCAL_LLM_LOG")
        interval = float(os.environ.get("GENSTRAT_WATCH_INTERVAL", "2"))
        watch_server(
            url, log=Path(log) if log else None, interval=interval, on_stop=_WATCH_STOPS.append
        )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in _WATCH_STOPS:
        terminalreporter.write_line(line, red=True, bold=True)
    capture_guard.pytest_terminal_summary(terminalreporter)


# A test that closes the standard streams pytest captures fails by name, alone (the module).
pytest_runtest_makereport = capture_guard.pytest_runtest_makereport
pytest_runtest_logreport = capture_guard.pytest_runtest_logreport


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    # Each test, its fixtures' set-up and tear-down included, leaves SIGINT and SIGTERM as it
    # found them (tests.support.signals_kept: Dagster's in-process runs change them).
    with signals_kept():
        yield


def pytest_report_header() -> str:
    return f"engine: {ENGINE}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture
def project_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ProjectEnv:
    """A temporary ``GENSTRAT_DATA``, ``GENSTRAT_RELEASES`` and ``DAGSTER_HOME`` (with the
    project's dagster.yaml),
    exported for this test and the processes it starts; the profile is the default (demo)."""
    data = tmp_path / "data"
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(REPO_ROOT / "instance" / "dagster.yaml", home / "dagster.yaml")
    monkeypatch.setenv("GENSTRAT_DATA", str(data))
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    monkeypatch.setenv("GENSTRAT_RELEASES", str(tmp_path / "releases"))
    monkeypatch.delenv("GENSTRAT_PROFILE", raising=False)
    return ProjectEnv(data=data, dagster_home=home)


# --- Real servers for the deployment tests (tests/servers.py), one of each per session --------


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server on 127.0.0.1 with one database, for the whole session."""
    with servers.postgres_server() as server:
        yield server


@pytest.fixture(scope="session")
def postgres_home(
    postgres_server: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A ``DAGSTER_HOME`` holding the shipped ``deploy/dagster.postgres.yaml``, unchanged (its
    settings come from ``postgres_server.env()``)."""
    home = tmp_path_factory.mktemp("dagster_home_postgres")
    shutil.copy(POSTGRES_INSTANCE_YAML, home / "dagster.yaml")
    return home


@pytest.fixture(scope="session")
def cluster_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data folder every worker of ``dask_cluster`` writes to (``GENSTRAT_DATA``)."""
    return tmp_path_factory.mktemp("cluster_data")


@pytest.fixture(scope="session")
def dask_cluster(
    postgres_server: PostgresServer, postgres_home: Path, cluster_data: Path
) -> Iterator[DaskCluster]:
    """A Dask scheduler and two single-threaded workers (separate processes) for the session.

    The workers open the Postgres instance (``postgres_home`` and the server's settings) and
    write asset files to ``cluster_data``, on the ``tiny`` profile (every stage at the smallest
    sizes: the tests on the cluster check where steps run and that outputs match, not the
    science)."""
    env = {
        **postgres_server.env(),
        "DAGSTER_HOME": str(postgres_home),
        "GENSTRAT_DATA": str(cluster_data),
        "GENSTRAT_PROFILE": CLUSTER_PROFILE,
    }
    with servers.dask_cluster(workers=2, env=env) as cluster:
        yield cluster


@pytest.fixture
def postgres_env(
    project_env: ProjectEnv,
    postgres_server: PostgresServer,
    postgres_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> ProjectEnv:
    """``project_env`` with the session's Postgres instance as ``DAGSTER_HOME`` (its settings
    exported); asset files still go to the test's own data folder."""
    for name, value in postgres_server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("DAGSTER_HOME", str(postgres_home))
    return ProjectEnv(data=project_env.data, dagster_home=postgres_home)
