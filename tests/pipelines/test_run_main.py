"""``make run``'s entry point, run as the Makefile runs it: a fresh process, a real instance."""

import os
import subprocess
import sys

import pandas as pd
import pytest

from tests.support import REPO_ROOT, ProjectEnv


def run_main(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipelines.run_main"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )


@pytest.mark.timeout(1900)
@pytest.mark.slow
def test_run_main_materializes_the_demo_graph_and_publishes_a_release(
    project_env: ProjectEnv,
) -> None:
    completed = run_main(dict(os.environ))

    assert completed.returncode == 0, completed.stdout + completed.stderr
    table = pd.read_parquet(project_env.data / "reference_games.parquet")
    assert {"kuhn", "leduc", "holdem-limit", "example4643"} <= set(table["name"])
    for name, spec_hash in zip(table["name"], table["spec_hash"], strict=True):
        assert name in completed.stdout and spec_hash in completed.stdout
    assert "succeeded" in completed.stdout
    # The whole demo graph ran: the selection, the tournament on it, the leaderboard, a release.
    chosen = pd.read_parquet(project_env.data / "benchmark_games.parquet")
    pairs = pd.read_parquet(project_env.data / "complete_pairs.parquet")
    assert set(pairs["game"].astype(str)) == set(chosen["game"].astype(str))
    board = pd.read_parquet(project_env.data / "leaderboards.parquet")
    assert len(board) == 4 and "chips/game" in completed.stdout
    # eight games, enough for the capability profiles (slopes of 4 models on the axes)
    profiles = pd.read_parquet(project_env.data / "capability_profiles.parquet")
    assert len(chosen) == 8 and set(profiles["model"]) == set(board["model"])
    release = pd.read_parquet(project_env.data / "release_bundle.parquet")
    release_id = release["release_id"].iloc[0]
    assert f"release {release_id} published" in completed.stdout
    assert (project_env.data.parent / "releases" / release_id / "manifest.json").exists()
    # The run is recorded in the instance, so the UI shows it.
    assert (project_env.dagster_home / "history" / "runs.db").exists()


def test_run_main_without_dagster_home_fails_in_one_line(project_env: ProjectEnv) -> None:
    env = {key: value for key, value in os.environ.items() if key != "DAGSTER_HOME"}
    completed = run_main(env)

    assert completed.returncode == 2
    assert completed.stderr.strip().count("\n") == 0, completed.stderr
    assert "DAGSTER_HOME is not set" in completed.stderr
