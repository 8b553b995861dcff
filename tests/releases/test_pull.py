"""Pulling a release from a local store and over HTTP (127.0.0.1): verified, resumable, and
refused without leftovers when anything was tampered with."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

import releases.download as pull_module
from releases.download import Deadline, HttpSource, pull
from releases.store import publish, verify
from tests.doubles.scripted_server import Answer, Request, ScriptedServer
from tests.releases.support import PASSING, sample_inputs, serve, snapshot


@pytest.fixture
def published(tmp_path: Path) -> tuple[Path, str]:
    tables, texts, images, context = sample_inputs()
    store = tmp_path / "store"
    release = publish(tables, texts, images, context, store, gates=PASSING, environ={})
    return store, release.release_id


def test_pull_from_a_local_store(published: tuple[Path, str], tmp_path: Path) -> None:
    store, release_id = published
    got = pull(release_id, store, tmp_path / "dest")
    assert got.path == tmp_path / "dest" / release_id
    assert snapshot(got.path) == snapshot(store / release_id)
    assert verify(got.path).release_id == release_id
    assert [p.name for p in (tmp_path / "dest").iterdir()] == [release_id]
    # Pulling again finds it there and verified.
    assert pull(release_id, store, tmp_path / "dest").release_id == release_id


def test_pull_over_http_verifies_and_resumes_a_partial_download(
    published: tuple[Path, str], tmp_path: Path
) -> None:
    store, release_id = published
    dest = tmp_path / "dest"
    # An earlier pull broke off half-way through the archive.
    archive = (store / release_id / f"{release_id}.tar.gz").read_bytes()
    partial = dest / f".{release_id}.partial"
    partial.mkdir(parents=True)
    (partial / f"{release_id}.tar.gz.part").write_bytes(archive[: len(archive) // 2])
    with serve(store) as (url, log):
        got = pull(release_id, url, dest)
    assert verify(got.path).release_id == release_id
    assert snapshot(got.path) == snapshot(store / release_id)
    assert log.ranges == [f"bytes={len(archive) // 2}-"]
    assert f"/{release_id}/tables/scores.parquet" in log.paths
    assert sorted(p.name for p in dest.iterdir()) == [release_id]


@pytest.mark.parametrize("where", ["table", "manifest", "missing"])
def test_a_tampered_copy_is_refused_and_nothing_is_left(
    published: tuple[Path, str], tmp_path: Path, where: str
) -> None:
    store, release_id = published
    mirror = tmp_path / "mirror"
    shutil.copytree(store, mirror)
    folder = mirror / release_id
    if where == "table":
        table = folder / "tables" / "scores.parquet"
        data = bytearray(table.read_bytes())
        data[100] ^= 0xFF
        table.write_bytes(bytes(data))
    elif where == "manifest":
        manifest = folder / "manifest.json"
        manifest.write_text(manifest.read_text().replace('"demo"', '"paper"'))
    else:
        (folder / "plots" / "blank.png").unlink()
    dest = tmp_path / "dest"
    with serve(mirror) as (url, _), pytest.raises(ValueError) as caught:
        pull(release_id, url, dest)
    message = str(caught.value)
    assert message.startswith(f"refused release {release_id} from {url}:"), message
    # A manifest that fails is refused before anything is written; a file, after download.
    outcome = "nothing was written" if where == "manifest" else "nothing was kept"
    assert "\n" not in message and outcome in message
    assert not dest.exists()  # the pull created it, and removed it again


def test_a_refusal_keeps_what_was_already_in_dest(
    published: tuple[Path, str], tmp_path: Path
) -> None:
    store, release_id = published
    (store / release_id / "rulebooks" / "kuhn.md").write_text("tampered")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "mine.txt").write_text("keep me")
    with pytest.raises(ValueError, match="refused release"):
        pull(release_id, store, dest)
    assert sorted(p.name for p in dest.iterdir()) == ["mine.txt"]


def test_unknown_ids_and_unreachable_stores_are_one_line_errors(
    published: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, _ = published
    with pytest.raises(ValueError, match=r"unknown release gs-0123456789abcdef in store"):
        pull("gs-0123456789abcdef", store, tmp_path / "dest")
    with pytest.raises(ValueError, match="is not a release id"):
        pull("../../etc", store, tmp_path / "dest")
    with pytest.raises(ValueError, match="no release store at"):
        pull("gs-0123456789abcdef", tmp_path, tmp_path / "dest")
    monkeypatch.setattr(pull_module, "BACKOFF_S", 0.01)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ValueError, match=r"cannot reach release store http://127\.0\.0\.1"):
        pull("gs-0123456789abcdef", f"http://127.0.0.1:{port}", tmp_path / "dest")
    assert not (tmp_path / "dest").exists()


def test_busy_stores_are_retried_under_the_harness_retry_policy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pull_module, "BACKOFF_S", 0.01)
    answers = [Answer(503, b"", {"Retry-After": "0"}), Answer(408, b""), Answer(200, b"{}")]

    def script(request: Request) -> Answer:
        return answers[min(request.number, len(answers)) - 1]

    with ScriptedServer(script) as server:
        source = HttpSource(server.url)
        try:
            assert source.read("index.json", 100, Deadline(60)) == b"{}"
        finally:
            source.close()
        assert len(server.requests) == 3
    with ScriptedServer(lambda r: Answer(403, b"")) as server:
        source = HttpSource(server.url)
        with pytest.raises(pull_module.Refused, match="HTTP 403"):
            source.read("index.json", 100, Deadline(60))
        source.close()
        assert len(server.requests) == 1  # a refusal is not retried
