"""The whole graph under a storage URL (issue 42, item 4; docs/DEPLOY.md, section 2): ``make
run``'s refresh of the ``tiny`` profile with ``GENSTRAT_DATA`` a plain folder, and again with it a
``file://`` URL of another folder and ``GENSTRAT_WORK`` a third, each on a fresh instance and
release store, publish the same release; the second's tables are under its URL and none of them
under its working folder. A path written anywhere but through the storage layer would land
under the working folder (or the process's folder) and fail the comparison.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(7200)]  # two refreshes of the graph

RELEASE_LINE = re.compile(r"release (\S+) published at")


def refresh(folder: Path, data: str, work: Path | None) -> str:
    """``python -m pipelines.run_main`` (what ``make run`` runs) from ``folder``; its release."""
    home = folder / "dagster_home"
    home.mkdir(parents=True)
    shutil.copy(REPO_ROOT / "instance" / "dagster.yaml", home / "dagster.yaml")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GENSTRAT_")}
    env.update(
        DAGSTER_HOME=str(home),
        GENSTRAT_DATA=data,
        GENSTRAT_RELEASES=str(folder / "releases"),
        GENSTRAT_PROFILE="tiny",
        PYTHONPATH=str(REPO_ROOT),
    )
    if work is not None:
        env["GENSTRAT_WORK"] = str(work)
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.run_main"],
        cwd=folder,  # not the repository: a relative default would land in the folder of the run
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [release] = RELEASE_LINE.findall(done.stdout)
    return release


def test_the_graph_under_a_storage_url_publishes_the_release_of_a_folder(tmp_path: Path) -> None:
    folder_data = tmp_path / "folder" / "data"
    (tmp_path / "folder").mkdir()
    expected = refresh(tmp_path / "folder", str(folder_data), None)

    storage = tmp_path / "url" / "storage"
    work = tmp_path / "url" / "work"
    (tmp_path / "url").mkdir()
    assert refresh(tmp_path / "url", storage.as_uri(), work) == expected

    def parquet(root: Path) -> set[Path]:
        return {p.relative_to(root) for p in root.rglob("*.parquet")}

    # the folder held both; the URL run split them: asset tables under the storage, the
    # journals' tables under the working folder, the same files in all
    tables, journals = parquet(storage), parquet(work)
    assert Path("tiny/edition-1/release_bundle.parquet") in tables
    assert not tables & journals
    assert tables | journals == parquet(folder_data)
    assert sorted(p.name for p in (tmp_path / "url").iterdir()) == [
        "dagster_home",
        "releases",
        "storage",
        "work",
    ]  # nothing fell back to the process's folder
