"""``genstrat deploy check`` (pipelines/deployment.py): each requirement of a deployment's
machine in one line, exit 2 when one is not met, run as a deployment runs it (a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each check is a new process that imports the project

GENSTRAT = [sys.executable, "-m", "pipelines.cli", "deploy", "check"]


def check(tmp_path: Path, *extra: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v for k, v in os.environ.items() if k not in ("GENSTRAT_DATA", "GENSTRAT_WORK")
    }
    return subprocess.run(
        [*GENSTRAT, *extra],
        cwd=Path(__file__).resolve().parents[2],
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_usable_machine_passes_every_check_and_leaves_nothing_behind(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = check(tmp_path, GENSTRAT_DATA=str(data))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == [
        f"storage: {data}: ok",
        f"working folder: {data}: ok",
        f"sandbox: {lines[2].split(': ')[1]}: ok",
    ]
    assert list(data.iterdir()) == []  # the probes are gone


def test_storage_at_a_url_needs_a_working_folder(tmp_path: Path) -> None:
    done = check(tmp_path, "--no-sandbox", GENSTRAT_DATA="memory://genstrat-check")
    assert done.returncode == 2
    assert done.stdout.splitlines() == ["storage: memory://genstrat-check: ok"]
    [line] = done.stderr.splitlines()
    assert line.startswith("genstrat: error: working folder: GENSTRAT_WORK: ")
    assert "set GENSTRAT_WORK" in line
    work = tmp_path / "work"
    named = check(
        tmp_path, "--no-sandbox", GENSTRAT_DATA="memory://genstrat-check", GENSTRAT_WORK=str(work)
    )
    assert named.returncode == 0, named.stderr
    assert named.stdout.splitlines()[1] == f"working folder: {work}: ok"


@pytest.mark.parametrize("setting", ["GENSTRAT_DATA", "GENSTRAT_WORK"])
def test_a_folder_that_cannot_be_made_fails_in_one_line(tmp_path: Path, setting: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = {"GENSTRAT_DATA": str(tmp_path / "data"), setting: str(blocker / "below")}
    done = check(tmp_path, "--no-sandbox", **env)
    assert done.returncode == 2
    # unusable storage also leaves no working folder (it is the storage folder here)
    lines = done.stderr.splitlines()
    assert len(lines) == (2 if setting == "GENSTRAT_DATA" else 1)
    line = lines[0]
    name = "storage" if setting == "GENSTRAT_DATA" else "working folder"
    assert line.startswith(f"genstrat: error: {name}: {blocker / 'below'}: ")
    assert "NotADirectoryError" in line or "FileExistsError" in line


def test_a_url_no_file_system_reads_fails_in_one_line(tmp_path: Path) -> None:
    done = check(tmp_path, "--no-sandbox", GENSTRAT_DATA="nosuch://bucket")
    assert done.returncode == 2
    errors = done.stderr.splitlines()
    assert errors[0] == (
        "genstrat: error: storage: GENSTRAT_DATA: GENSTRAT_DATA=nosuch://bucket cannot be used: "
        "Unsupported filesystem: 'nosuch'"
    )


def test_a_host_without_bubblewrap_is_told_what_to_install(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    done = check(tmp_path, GENSTRAT_DATA=str(tmp_path / "data"), PATH=str(empty))
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("genstrat: error: sandbox: bwrap: strategy programs run in a ")
    assert "bwrap is not installed" in line
