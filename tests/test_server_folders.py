"""A killed test session's server folders are removed by the next session's servers: a folder
goes when the process stamped as its owner no longer runs, and only then (``tests.servers``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.servers import OWNER_STAMP, process_identity, server_folder, sweep_orphans


def _folder(where: Path, name: str, stamp: str | None) -> Path:
    folder = where / name
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "file").write_text("x")
    if stamp is not None:
        (folder / OWNER_STAMP).write_text(stamp)
    return folder


def _dead_identity() -> str:
    """The identity of a process that ran and is gone."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        identity = process_identity(child.pid)
    finally:
        child.kill()
        child.wait()
    assert identity is not None and process_identity(child.pid) is None
    return identity


def test_only_the_folders_of_owners_that_no_longer_run_are_removed(tmp_path: Path) -> None:
    dead, mine = _dead_identity(), process_identity(os.getpid())
    assert mine is not None
    pid, started = mine.split()
    folders = {
        "dead owner": _folder(tmp_path, "genstrat-pg-a", dead),
        # this process's id with another start time: the id reused by another process
        "reused id": _folder(tmp_path, "genstrat-pg-b", f"{pid} {int(started) + 1}"),
        "live owner": _folder(tmp_path, "genstrat-pg-c", mine),
        "no stamp": _folder(tmp_path, "genstrat-pg-d", None),
        "unreadable stamp": _folder(tmp_path, "genstrat-pg-e", "not a process"),
        "other kind": _folder(tmp_path, "genstrat-dask-f", dead),
    }
    removed = sweep_orphans("genstrat-pg-", tmp_path)
    assert removed == [folders["dead owner"], folders["reused id"]]
    assert {name for name, folder in folders.items() if folder.exists()} == {
        "live owner",
        "no stamp",
        "unreadable stamp",
        "other kind",
    }


def test_a_server_folder_is_stamped_with_its_owner_after_the_orphans_go() -> None:
    dead = _dead_identity()
    orphan = Path(tempfile.mkdtemp(prefix="genstrat-test-folder-"))
    (orphan / OWNER_STAMP).write_text(dead)
    root = server_folder("genstrat-test-folder-")
    try:
        assert not orphan.exists()
        assert (root / OWNER_STAMP).read_text().strip() == process_identity(os.getpid())
        assert [p.name for p in root.iterdir()] == [OWNER_STAMP]  # no half-written stamp
        assert sweep_orphans("genstrat-test-folder-") == []  # its owner runs: kept
        assert root.exists()
    finally:
        shutil.rmtree(root)
        shutil.rmtree(orphan, ignore_errors=True)
