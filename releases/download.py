"""Pulling a release from a store (a local folder or an http(s) URL) into a local folder.

Steps of :func:`pull`:

1. read the source's ``index.json`` and find the release (unknown id: a one-line error);
2. download ``<id>/manifest.json`` and check its SHA-256 against the index and that its
   contents derive the release id;
3. download every file the manifest lists, and the archive, into ``.part`` files inside a
   hidden partial folder ``DEST/.<id>.partial/``, resuming an earlier interrupted download
   with an HTTP ``Range`` request; check each file's size and SHA-256 as it completes;
4. verify the whole partial folder exactly as ``genstrat release verify`` would, then move it
   to ``DEST/<id>`` with one ``os.replace``.

On any mismatch (a tampered or missing file, a bad manifest) the pull is refused: the partial
folder is removed and nothing is left in ``DEST`` (a ``DEST`` the pull created is removed
too). A transport failure after retries (connection lost, server errors; the harness's retry
policy, ``arena.retry``, with ``Retry-After`` honoured and the index and manifest reads bounded
by ``READ_DEADLINE_S``) keeps the ``.part`` files so that running the same command again
resumes; ``DEST/<id>`` never exists half-written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

import httpx

from arena.progress import ProgressReporter
from arena.retry import Failed, RetryPolicy, retry, retryable_status
from releases.bundle import RELEASE_ID_PATTERN
from releases.store import INDEX, find_entry
from releases.verification import Verified, parse_manifest, verify_folder

CHUNK = 1 << 16
RETRIES = 4  # attempts per request
BACKOFF_S = 0.5
MAX_RETRY_AFTER_S = 30.0
# The index and the manifest are small: a store that cannot serve them within this is down.
# A file download has no deadline (a large archive takes as long as it takes; a break resumes).
READ_DEADLINE_S = 120.0
COUNT_INTERVAL_S = 5.0


class Refused(ValueError):
    """The source does not hold what the index and manifest promise; nothing is kept."""


class Interrupted(ValueError):
    """The transfer broke off; the ``.part`` files are kept for a resume."""


class Progress(Protocol):
    def update(self, n: int) -> object: ...


class Source(Protocol):
    """Where a store's files come from."""

    name: str

    def read(self, relative: str) -> bytes: ...

    def download(self, relative: str, part: Path, offset: int, progress: Progress) -> None: ...


class LocalSource:
    """A store folder on this machine."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.name = str(root)
        if not (root / INDEX).is_file():
            raise ValueError(f"no release store at {root} (no {INDEX})")

    def _path(self, relative: str) -> Path:
        path = self.root / relative
        if not path.is_file():
            raise Refused(f"store {self.name} has no file {relative}")
        return path

    def read(self, relative: str) -> bytes:
        return self._path(relative).read_bytes()

    def download(self, relative: str, part: Path, offset: int, progress: Progress) -> None:
        with self._path(relative).open("rb") as source, part.open("ab") as sink:
            source.seek(offset)
            while block := source.read(CHUNK):
                sink.write(block)
                progress.update(len(block))


class HttpSource:
    """A store served over http(s): ``<url>/index.json``, ``<url>/<id>/...``.

    ``rng`` draws the jitter of the retry waits (``arena.retry``).
    """

    def __init__(self, url: str, timeout: float = 30.0, rng: random.Random | None = None) -> None:
        self.base = url.rstrip("/")
        self.name = url
        self.client = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)), follow_redirects=True
        )
        self.rng = rng or random.Random(0)
        self.retry = RetryPolicy(
            max_retries=RETRIES - 1, backoff_base_s=BACKOFF_S, max_retry_after_s=MAX_RETRY_AFTER_S
        )

    def close(self) -> None:
        self.client.close()

    def url(self, relative: str) -> str:
        return f"{self.base}/{quote(relative)}"

    def _failed(self, response: httpx.Response, relative: str) -> Failed | None:
        """A retryable reply as a failure (with its ``Retry-After``); raises for a refusal."""
        code = response.status_code
        if retryable_status(code):
            retry_after = self.retry.retry_after(response.headers.get("Retry-After"))
            return Failed(f"HTTP {code}", retry_after=retry_after)
        if code == 404:
            raise Refused(f"store {self.name} has no file {relative} (HTTP 404)")
        if code >= 400:
            raise Refused(f"store {self.name} refused {relative} (HTTP {code})")
        return None

    def read(self, relative: str) -> bytes:
        def attempt(_: int) -> bytes | Failed:
            try:
                response = self.client.get(self.url(relative))
            except httpx.TransportError as exc:
                return Failed(f"{type(exc).__name__}: {exc}")
            failed = self._failed(response, relative)
            return failed if failed is not None else response.content

        policy = replace(self.retry, deadline_s=READ_DEADLINE_S)
        outcome, _ = retry(attempt, policy, self.rng)
        if isinstance(outcome, Failed):
            raise Interrupted(
                f"cannot reach release store {self.name} ({relative}: {outcome.reason})"
            )
        return outcome

    def download(self, relative: str, part: Path, offset: int, progress: Progress) -> None:
        def attempt(_: int) -> Failed | None:
            offset = part.stat().st_size if part.exists() else 0
            headers = {"Range": f"bytes={offset}-"} if offset else {}
            try:
                with self.client.stream("GET", self.url(relative), headers=headers) as response:
                    failed = self._failed(response, relative)
                    if failed is not None:
                        return failed
                    mode = "ab" if response.status_code == 206 else "wb"
                    if mode == "wb" and offset:
                        progress.update(-offset)  # the server ignored the range: start over
                    with part.open(mode) as sink:
                        for block in response.iter_bytes(CHUNK):
                            sink.write(block)
                            progress.update(len(block))
                return None
            except httpx.TransportError as exc:
                return Failed(f"{type(exc).__name__}: {exc}")

        outcome, _ = retry(attempt, self.retry, self.rng)
        if isinstance(outcome, Failed):
            raise Interrupted(
                f"download of {relative} from {self.name} broke off ({outcome.reason})"
            )


def open_source(source: str | Path) -> LocalSource | HttpSource:
    """A source for a store path or an http(s) URL."""
    text = str(source)
    if text.startswith(("http://", "https://")):
        return HttpSource(text)
    if "://" in text:
        raise ValueError(f"unsupported store URL {text}; use a folder or an http(s) URL")
    return LocalSource(Path(text).expanduser())


def _fetch(
    source: LocalSource | HttpSource,
    relative: str,
    partial: Path,
    size: int,
    sha256: str,
    bar: ProgressReporter,
) -> None:
    """Bring one file into ``partial`` (resuming its ``.part``) and check size and hash."""
    target = partial / relative.split("/", 1)[1]
    target.parent.mkdir(parents=True, exist_ok=True)
    path = target  # completed by an earlier, interrupted pull
    if not target.is_file():
        path = target.with_name(target.name + ".part")
        offset = path.stat().st_size if path.exists() else 0
        if offset > size:
            path.unlink()
            offset = 0
        bar.update(offset)
        if offset < size or not path.exists():
            source.download(relative, path, offset, bar)
    else:
        bar.update(size)
    got = path.stat().st_size if path.exists() else 0
    if got != size:
        raise Refused(f"{relative}: {got} bytes, the manifest says {size}")
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    if digest.hexdigest() != sha256:
        raise Refused(f"{relative}: SHA-256 mismatch (expected {sha256[:16]}…)")
    if path != target:
        os.replace(path, target)


def _find(store: LocalSource | HttpSource, release_id: str) -> dict[str, Any]:
    """The index record of ``release_id`` at the source; one-line errors otherwise."""
    try:
        index = json.loads(store.read(INDEX))
        entry = find_entry(index, release_id)
    except Refused:
        raise ValueError(f"no release store at {store.name} (no {INDEX})") from None
    except Interrupted as exc:
        raise ValueError(str(exc)) from None
    except (ValueError, AttributeError, KeyError, TypeError, RecursionError):
        raise ValueError(f"{store.name}/{INDEX} is not a release index") from None
    if entry is None:
        raise ValueError(
            f"unknown release {release_id} in store {store.name}; "
            f"`genstrat release list --store {store.name}` shows its releases"
        )
    return entry


def pull(release_id: str, source: str | Path, dest: Path, *, progress: bool = False) -> Verified:
    """Pull ``release_id`` from ``source`` into ``dest/<release_id>`` and verify it.

    Raises ``ValueError`` (one line) for an unknown id, an unreachable store, a refused
    (tampered, incomplete) release, or a broken-off transfer (run again to resume).
    """
    if not RELEASE_ID_PATTERN.match(release_id):
        raise ValueError(f"{release_id!r} is not a release id (gs-<16 hex digits>)")
    dest = Path(dest).expanduser()
    final = dest / release_id
    if final.exists():
        try:
            return verify_folder(final, expected_id=release_id)
        except ValueError as exc:
            raise ValueError(
                f"{final} exists and does not verify ({exc}); remove it and pull again"
            ) from None
    store = open_source(source)
    try:
        entry = _find(store, release_id)
        created_dest = not dest.exists()
        partial = dest / f".{release_id}.partial"
        partial.mkdir(parents=True, exist_ok=True)
        try:
            _pull_into(store, release_id, entry, partial, progress)
            verified = verify_folder(partial, entry, expected_id=release_id)
            os.replace(partial, final)
        except Interrupted as exc:
            raise ValueError(f"{exc}; run the same command again to resume") from None
        except ValueError as exc:
            shutil.rmtree(partial, ignore_errors=True)
            if created_dest:
                with contextlib.suppress(OSError):
                    dest.rmdir()  # only if empty
            raise ValueError(
                f"refused release {release_id} from {store.name}: {exc}; nothing was kept in {dest}"
            ) from None
        return Verified(release_id, final, verified.files, verified.bytes)
    finally:
        if isinstance(store, HttpSource):
            store.close()


def _pull_into(
    store: LocalSource | HttpSource,
    release_id: str,
    entry: dict[str, Any],
    partial: Path,
    progress: bool,
) -> None:
    manifest_bytes = store.read(f"{release_id}/manifest.json")
    if hashlib.sha256(manifest_bytes).hexdigest() != entry.get("manifest_sha256"):
        raise Refused("manifest.json differs from the one the store's index recorded")
    manifest = parse_manifest(manifest_bytes, f"{store.name}/{release_id}")
    if manifest["release_id"] != release_id:
        raise Refused(f"manifest.json is for release {manifest['release_id']}")
    archive = entry.get("archive") or {}
    files = [(str(e["path"]), int(e["bytes"]), str(e["sha256"])) for e in manifest["files"]]
    if archive:
        files.append((f"{release_id}.tar.gz", int(archive["bytes"]), str(archive["sha256"])))
    bar = ProgressReporter(
        release_id,
        total=sum(size for _, size, _ in files),
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        every_s=COUNT_INTERVAL_S,
        enabled=progress,
    )
    try:
        for relative, size, sha256 in files:
            _fetch(store, f"{release_id}/{relative}", partial, size, sha256, bar)
    finally:
        bar.close()
    (partial / "manifest.json").write_bytes(manifest_bytes)
