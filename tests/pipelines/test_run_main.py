"""``make run``'s entry point, run as the Makefile runs it: a fresh process, a real instance.

Its whole refresh (step lines, summary, the release, the same tables as the UI's refresh) is
tested in ``tests/e2e/test_refresh.py``, next to the deployment it is compared with.
"""

import os
import subprocess
import sys

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


def test_run_main_without_dagster_home_fails_in_one_line(project_env: ProjectEnv) -> None:
    env = {key: value for key, value in os.environ.items() if key != "DAGSTER_HOME"}
    completed = run_main(env)

    assert completed.returncode == 2
    assert completed.stderr.strip().count("\n") == 0, completed.stderr
    assert "DAGSTER_HOME is not set" in completed.stderr
