"""Releases published with a 64-bit id (before issue 43) still verify, pull and open.

``legacy/`` holds a release that the genstrat of commit 71dde90 published (id
``gs-5d8f7d989108f0c8``, 16 hex digits): its archive and the index of its store. The store is
rebuilt from them (the folder is the archive unpacked), so these tests read bytes that the old
code wrote, not bytes made by today's code to look old.
"""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import pytest

from pipelines.cli import main
from releases.download import pull
from releases.opened import open_release
from releases.store import verify
from tests.releases.support import serve

LEGACY = Path(__file__).resolve().parent / "legacy"
LEGACY_ID = "gs-5d8f7d989108f0c8"


@pytest.fixture
def legacy_store(tmp_path: Path) -> Path:
    """The old release's store: ``index.json`` and the release folder with its archive."""
    store = tmp_path / "store"
    store.mkdir()
    shutil.copy(LEGACY / "index.json", store / "index.json")
    archive = LEGACY / f"{LEGACY_ID}.tar.gz"
    with tarfile.open(archive, "r:gz") as unpacked:
        unpacked.extractall(store, filter="data")
    shutil.copy(archive, store / LEGACY_ID / archive.name)
    return store


def test_the_fixture_is_an_old_64_bit_release() -> None:
    assert len(LEGACY_ID) == len("gs-") + 16
    assert (LEGACY / f"{LEGACY_ID}.tar.gz").is_file()


def test_an_old_release_verifies_by_id_folder_and_archive(legacy_store: Path) -> None:
    assert verify(LEGACY_ID, legacy_store).release_id == LEGACY_ID
    assert verify(legacy_store / LEGACY_ID).files == 20  # 18 listed, the manifest, the archive
    assert verify(legacy_store / LEGACY_ID / f"{LEGACY_ID}.tar.gz").release_id == LEGACY_ID


def test_an_old_release_pulls_from_a_folder_and_over_http(
    legacy_store: Path, tmp_path: Path
) -> None:
    assert pull(LEGACY_ID, legacy_store, tmp_path / "a").path == tmp_path / "a" / LEGACY_ID
    with serve(legacy_store) as (url, _):
        assert pull(LEGACY_ID, url, tmp_path / "b").release_id == LEGACY_ID
    assert verify(tmp_path / "b" / LEGACY_ID).release_id == LEGACY_ID


def test_an_old_release_opens_and_shows(
    legacy_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    opened = open_release(legacy_store / LEGACY_ID / f"{LEGACY_ID}.tar.gz")
    assert len(opened.table("scores")) == 3
    assert main(["release", "show", LEGACY_ID, "--store", str(legacy_store)]) == 0
    assert f"release {LEGACY_ID}" in capsys.readouterr().out
    assert main(["release", "verify", LEGACY_ID, "--store", str(legacy_store)]) == 0


def test_an_edited_old_manifest_is_still_refused(legacy_store: Path) -> None:
    manifest = legacy_store / LEGACY_ID / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"demo"', '"other"', 1))
    with pytest.raises(ValueError, match=r"derives release id gs-[0-9a-f]{16}, not its own"):
        verify(legacy_store / LEGACY_ID)
