"""Write-audit-publish and verify: tampering is caught, failures leave the store as it was."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from quality.gates import GateResult
from releases.store import GateFailed, list_releases, publish, read_index, verify
from releases.verification import verify_archive
from tests.releases.support import PASSING, sample_inputs, snapshot
from tests.support import REPO_ROOT


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store holding one published release (the 'previous' one of the fault tests)."""
    tables, texts, images, context = sample_inputs()
    path = tmp_path / "store"
    publish(tables, texts, images, context, path, gates=PASSING, environ={})
    return path


def only_release(store: Path) -> str:
    (entry,) = read_index(store)["releases"]
    return str(entry["release_id"])


def test_publish_lists_verifies_and_is_idempotent(store: Path) -> None:
    release_id = only_release(store)
    assert verify(release_id, store).release_id == release_id
    tables, texts, images, context = sample_inputs()
    again = publish(tables, texts, images, context, store, gates=PASSING, environ={})
    assert again.release_id == release_id and not again.new
    newer, *_ = sample_inputs(extra_rows=2)
    second = publish(newer, texts, images, context, store, gates=PASSING, environ={})
    assert second.new
    listing = list_releases(store)
    assert listing["store"] == str(store)
    assert [r["release_id"] for r in listing["releases"]] == [release_id, second.release_id]
    first = listing["releases"][0]
    assert first["archive"]["path"] == f"{release_id}/{release_id}.tar.gz"
    assert first["gates"] == {"zero_sum": True, "redaction": True}
    assert not (store / ".staging").exists()


@pytest.mark.parametrize("how", ["flip", "missing", "extra", "manifest", "archive"])
def test_verify_reports_the_first_mismatch_in_one_line(store: Path, how: str) -> None:
    release_id = only_release(store)
    folder = store / release_id
    table = folder / "tables" / "scores.parquet"
    if how == "flip":
        data = bytearray(table.read_bytes())
        data[len(data) // 2] ^= 0x01
        table.write_bytes(bytes(data))
        expected = "tables/scores.parquet: SHA-256 mismatch"
    elif how == "missing":
        (folder / "rulebooks" / "kuhn.md").unlink()
        expected = "missing file rulebooks/kuhn.md"
    elif how == "extra":
        (folder / "tables" / "notes.txt").write_text("hello")
        expected = "extra file tables/notes.txt"
    elif how == "manifest":  # a consistent forgery: new table bytes and their hash
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["profile"]["name"] = "paper"
        (folder / "manifest.json").write_text(json.dumps(manifest))
        expected = "the manifest was edited"
    else:
        archive = folder / f"{release_id}.tar.gz"
        archive.write_bytes(archive.read_bytes()[:-20])
        expected = ".tar.gz"
    for target in (release_id, str(folder)):
        with pytest.raises(ValueError) as caught:
            verify(target, store)
        message = str(caught.value)
        assert expected in message and "\n" not in message, message
        assert message.startswith(f"release {release_id}:") or how == "manifest"


def test_verify_accepts_an_archive_on_its_own(store: Path, tmp_path: Path) -> None:
    release_id = only_release(store)
    archive = store / release_id / f"{release_id}.tar.gz"
    copy = tmp_path / "download.tar.gz"
    copy.write_bytes(archive.read_bytes())
    assert verify(copy).release_id == release_id
    assert (
        verify_archive(copy).files
        == len(json.loads((store / release_id / "manifest.json").read_text())["files"]) + 1
    )


def test_unknown_ids_and_paths_are_one_line_errors(store: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown release gs-0000000000000000 in store"):
        verify("gs-0000000000000000", store)
    with pytest.raises(ValueError, match=r"is not a release folder, a \.tar\.gz, or a release id"):
        verify("no-such-thing", store)
    with pytest.raises(ValueError, match="is a release store"):
        verify(str(store), store)


def test_a_failing_gate_leaves_the_store_untouched_and_names_the_gate(store: Path) -> None:
    before = snapshot(store)
    tables, texts, images, context = sample_inputs(extra_rows=5)
    gates = {
        **PASSING,
        "complete_pairs": GateResult(False, {"bad_runs": 1}, "run r-1 has 1 deal(s), not 2"),
    }
    with pytest.raises(GateFailed, match=r"^gate complete_pairs failed: run r-1 has 1 deal"):
        publish(tables, texts, images, context, store, gates=gates, environ={})
    assert snapshot(store) == before


def test_a_leaked_key_fails_the_redaction_gate_and_publishes_nothing(store: Path) -> None:
    before = snapshot(store)
    canary = "canary-" + "q7" * 12
    tables, texts, images, context = sample_inputs(extra_rows=5)
    tables["scores"]["note"] = ["fine"] * (len(tables["scores"]) - 1) + [f"key {canary}"]
    with pytest.raises(GateFailed) as caught:
        publish(
            tables, texts, images, context, store, gates=PASSING, environ={"PROVIDER_KEY": canary}
        )
    message = str(caught.value)
    assert message.startswith("gate redaction failed:")
    assert "tables/scores.parquet" in message and "$PROVIDER_KEY" in message
    assert canary not in message
    assert snapshot(store) == before


KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from releases.store import publish
    from tests.releases.support import PASSING, sample_inputs

    store, at = Path(sys.argv[1]), sys.argv[2]

    def on_phase(phase: str, folder: Path) -> None:
        if phase == at:
            os.kill(os.getpid(), signal.SIGKILL)

    tables, texts, images, context = sample_inputs(extra_rows=7)
    publish(tables, texts, images, context, store, gates=PASSING, environ={}, on_phase=on_phase)
    """
)


@pytest.mark.parametrize("phase", ["staged", "moved"])
def test_a_publish_killed_midway_leaves_the_previous_release_intact(
    store: Path, phase: str
) -> None:
    previous = only_release(store)
    index_before = (store / "index.json").read_bytes()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    completed = subprocess.run(
        [sys.executable, "-c", KILLER, str(store), phase],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == -signal.SIGKILL, completed.stderr

    assert (store / "index.json").read_bytes() == index_before
    assert [r["release_id"] for r in list_releases(store)["releases"]] == [previous]
    assert verify(previous, store).release_id == previous
    # The next publish of the same inputs cleans up (or adopts the orphan) and completes.
    tables, texts, images, context = sample_inputs(extra_rows=7)
    done = publish(tables, texts, images, context, store, gates=PASSING, environ={})
    assert [r["release_id"] for r in list_releases(store)["releases"]] == [
        previous,
        done.release_id,
    ]
    assert verify(done.release_id, store).release_id == done.release_id
    assert not (store / ".staging").exists()
