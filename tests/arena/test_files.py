"""Files written for others to read: atomic, 0644 (directories 0755), nothing half-written."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pandas as pd
import pytest

from arena.files import atomic_write, atomic_write_text
from arena.tournament.journal import write_table
from engines.tournament.records import MATCH_SCHEMA
from pipelines.io_managers import write_parquet_atomically
from releases.store import write_index


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def strict_umask() -> object:
    """A private umask, as a service account may have: the modes must not depend on it."""
    old = os.umask(0o077)
    yield
    os.umask(old)


def test_every_writer_leaves_files_0644_and_folders_0755(tmp_path: Path) -> None:
    table = tmp_path / "data" / "asset" / "p.parquet"
    write_parquet_atomically(pd.DataFrame({"a": [1]}), table)
    journal_table = tmp_path / "tournament" / "matches.parquet"
    write_table([], MATCH_SCHEMA, journal_table)
    (tmp_path / "store").mkdir()
    write_index(tmp_path / "store", {"releases": []})
    for path in (table, journal_table, tmp_path / "store" / "index.json"):
        assert mode(path) == 0o644, path
    for folder in (tmp_path / "data", tmp_path / "data" / "asset", tmp_path / "tournament"):
        assert mode(folder) == 0o755, folder


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    atomic_write_text(target, "old")

    def fail(handle: object) -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, fail)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.txt"]
