"""Pulling a release from a store (a local folder or an http(s) URL) into a local folder.

Steps of :func:`pull`:

1. read the source's ``index.json`` (at most ``MAX_INDEX_BYTES``) and find the release (an
   unknown id: a one-line error);
2. read ``<id>/manifest.json`` (at most ``MAX_MANIFEST_BYTES``), check its SHA-256 against the
   index and that its contents derive the release id; nothing has been written yet;
3. lock ``DEST`` (``DEST/.pull.lock``, ``fcntl``): pulls into one destination run one at a
   time, a later one waiting (within its deadline) and then finding the release there, verified;
4. download every file the manifest lists, and the archive, into ``.part`` files inside a
   hidden partial folder ``DEST/.<id>.partial/``, resuming an earlier interrupted download with
   an HTTP ``Range`` request; never read past a file's declared size (a byte more is a refusal);
   check each file's size and SHA-256 as it completes;
5. verify the whole partial folder exactly as ``genstrat release verify`` would, then move it
   to ``DEST/<id>`` with one ``os.replace``.

Bounds: the whole pull ends within ``deadline_s`` (``--deadline``, default one hour); a
connection that brings no byte for ``stall_s`` (``--stall-timeout``, default 60 s) fails and is
retried under the harness's one retry policy (``arena.retry``, ``Retry-After`` honoured) while
the deadline allows; a redirect is followed only to the same host and never from https to
http; ``DEST`` itself and everything the pull writes in it are reached without following a
symbolic link (:mod:`releases.safe_folder`).

Outcomes: a refusal (:class:`Refused`: a tampered, missing or oversized file, a bad manifest, a
redirect elsewhere, a symbolic link, the deadline) removes the partial folder and the lock file
(and ``DEST`` if the pull created it), so nothing is left; its one-line message says so. A
transfer broken off after the retries (:class:`Interrupted`) keeps the ``.part`` files, and says
so, so that running the same command again resumes; ``DEST/<id>`` never exists half-written.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar
from urllib.parse import quote

import httpx

from arena.progress import ProgressReporter
from arena.retry import Failed, RetryPolicy, retry, retryable_status
from arena.secrets import REDACTED
from quality.redaction import strip_userinfo
from releases.bundle import RELEASE_ID_PATTERN
from releases.errors import Interrupted, OutOfTime, Refused, ReleaseFailure
from releases.identity import MAX_MANIFEST_BYTES
from releases.pull_lock import Destination, locked
from releases.safe_folder import SafeFolder, UnsafePath
from releases.store import INDEX, MAX_INDEX_BYTES, find_entry, parse_index
from releases.verification import Verified, parse_manifest, read_bounded, verify_folder

__all__ = ["HttpSource", "Interrupted", "LocalSource", "OutOfTime", "Refused", "pull"]

CHUNK = 1 << 16
RETRIES = 4  # attempts per request
BACKOFF_S = 0.5
MAX_RETRY_AFTER_S = 30.0
DEFAULT_DEADLINE_S = 3600
MAX_DEADLINE_S = 7 * 24 * 3600
DEFAULT_STALL_S = 60
MAX_STALL_S = 3600
MAX_REDIRECTS = 5
COUNT_INTERVAL_S = 5.0

T = TypeVar("T")


class Missing(Refused):
    """The source has no such file."""


@dataclass
class Deadline:
    """The time a pull may take, from its start (``time.monotonic``)."""

    seconds: float
    started: float = field(default_factory=time.monotonic)

    def left(self) -> float:
        return self.seconds - (time.monotonic() - self.started)

    def check(self, doing: str) -> None:
        if self.left() <= 0:
            raise OutOfTime(
                f"not finished within its deadline of {self.seconds:g} s (--deadline) while {doing}"
            )


class Progress(Protocol):
    def update(self, n: int) -> object: ...


class Part:
    """A ``.part`` file inside the partial folder."""

    def __init__(self, folder: SafeFolder, relative: str) -> None:
        self.folder, self.relative = folder, relative

    def size(self) -> int:
        return self.folder.size(self.relative) or 0

    def open(self, *, append: bool) -> BinaryIO:
        return self.folder.open_write(self.relative, append=append)


class Source(Protocol):
    """Where a store's files come from."""

    name: str

    def read(self, relative: str, limit: int, deadline: Deadline) -> bytes: ...

    def download(
        self, relative: str, part: Part, size: int, progress: Progress, deadline: Deadline
    ) -> None: ...

    def close(self) -> None: ...


class LocalSource:
    """A store folder on this machine (nothing below it is reached through a symbolic link)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.name = str(root)
        if not (root / INDEX).is_file():
            raise ValueError(f"no release store at {root} (no {INDEX})")

    def close(self) -> None:
        return None

    def _open(self, relative: str) -> BinaryIO:
        with SafeFolder.open(self.root) as tree:
            try:
                return tree.open_read(relative)
            except FileNotFoundError:
                raise Missing(f"store {self.name} has no file {relative}") from None

    def read(self, relative: str, limit: int, deadline: Deadline) -> bytes:
        with self._open(relative) as handle:
            data = read_bounded(handle, limit, f"{self.name}/{relative}")
        deadline.check(f"reading {relative}")
        return data

    def download(
        self, relative: str, part: Part, size: int, progress: Progress, deadline: Deadline
    ) -> None:
        with self._open(relative) as source:
            actual = os.fstat(source.fileno()).st_size
            if actual != size:
                raise Refused(
                    f"{relative}: the store's copy is {actual:,} bytes, "
                    f"the manifest says {size:,} bytes"
                )
            offset = part.size()
            source.seek(offset)
            with part.open(append=True) as sink:
                left = size - offset
                while left > 0 and (block := source.read(min(CHUNK, left))):
                    sink.write(block)
                    left -= len(block)
                    progress.update(len(block))
                    deadline.check(f"copying {relative}")
            if source.read(1):
                raise Refused(
                    f"{relative}: the store's copy grew past the manifest's {size:,} bytes"
                )


def _port(url: httpx.URL) -> int | None:
    return url.port or {"http": 80, "https": 443}.get(url.scheme)


def redirect_problem(source: httpx.URL, target: httpx.URL) -> str | None:
    """Why a store may not redirect from ``source`` to ``target`` (``None``: it may): only to the
    same host, on the same port unless upgrading http to https, never from https to http."""
    if target.scheme not in ("http", "https"):
        return f"a {target.scheme or 'relative'} URL"
    if target.host.lower() != source.host.lower():
        return "another host"
    if source.scheme == "https" and target.scheme == "http":
        return "from https down to http"
    if source.scheme == target.scheme and _port(source) != _port(target):
        return "another port"
    return None


_CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+|\*)$")


class HttpSource:
    """A store served over http(s): ``<url>/index.json``, ``<url>/<id>/...``.

    ``stall_s`` is the longest wait for a byte; ``rng`` draws the jitter of the retry waits
    (``arena.retry``). Redirects are followed only as :func:`redirect_problem` allows, bodies
    are taken as sent (``Accept-Encoding: identity``; a content-encoded answer is refused).
    """

    def __init__(
        self, url: str, stall_s: float = DEFAULT_STALL_S, rng: random.Random | None = None
    ) -> None:
        self.base = url.rstrip("/")
        self.name = strip_userinfo(url, REDACTED)  # what messages call it
        self.stall_s = stall_s
        self.client = httpx.Client(
            timeout=httpx.Timeout(stall_s, connect=min(stall_s, 10.0)),
            follow_redirects=False,
            headers={"Accept-Encoding": "identity"},
        )
        self.rng = rng or random.Random(0)
        self.retry = RetryPolicy(
            max_retries=RETRIES - 1, backoff_base_s=BACKOFF_S, max_retry_after_s=MAX_RETRY_AFTER_S
        )

    def close(self) -> None:
        self.client.close()

    def url(self, relative: str) -> str:
        return f"{self.base}/{quote(relative)}"

    def _timeout(self, deadline: Deadline) -> httpx.Timeout:
        wait = max(0.001, min(self.stall_s, deadline.left()))
        return httpx.Timeout(wait, connect=min(wait, 10.0))

    def _send(self, relative: str, headers: dict[str, str], deadline: Deadline) -> httpx.Response:
        """The streamed answer for ``relative``, after allowed redirects."""
        url = httpx.URL(self.url(relative))
        for _ in range(MAX_REDIRECTS + 1):
            request = self.client.build_request(
                "GET", url, headers=headers, timeout=self._timeout(deadline)
            )
            response = self.client.send(request, stream=True)
            if response.next_request is None:
                return response
            response.close()
            target = response.next_request.url
            problem = redirect_problem(url, target)
            if problem is not None:
                raise Refused(
                    f"{relative}: the store redirects to {target} ({problem}); a store must "
                    "serve its files from its own host"
                )
            url = target
        raise Refused(f"{relative}: more than {MAX_REDIRECTS} redirects")

    def _failed(self, response: httpx.Response, relative: str) -> Failed | None:
        """A retryable reply as a failure (with its ``Retry-After``); raises for a refusal."""
        code = response.status_code
        if retryable_status(code):
            retry_after = self.retry.retry_after(response.headers.get("Retry-After"))
            return Failed(f"HTTP {code}", retry_after=retry_after)
        if code == 404:
            raise Missing(f"store {self.name} has no file {relative} (HTTP 404)")
        if code not in (200, 206):
            raise Refused(f"store {self.name} refused {relative} (HTTP {code})")
        encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise Refused(
                f"{relative}: the store sent it {encoding}-encoded; a pull takes the bytes as "
                "they are (Accept-Encoding: identity)"
            )
        return None

    def _transport(self, exc: httpx.TransportError) -> Failed:
        if isinstance(exc, httpx.ReadTimeout):
            return Failed(
                f"{type(exc).__name__}: no data for {self.stall_s:g} s (--stall-timeout)",
                timed_out=True,
            )
        return Failed(f"{type(exc).__name__}: {exc}")

    def _retry(self, attempt: Callable[[int], T | Failed], deadline: Deadline) -> T | Failed:
        policy = replace(self.retry, deadline_s=max(0.0, deadline.left()))
        outcome, _ = retry(attempt, policy, self.rng)
        return outcome

    def read(self, relative: str, limit: int, deadline: Deadline) -> bytes:
        def attempt(_: int) -> bytes | Failed:
            deadline.check(f"reading {relative}")
            try:
                with contextlib.closing(self._send(relative, {}, deadline)) as response:
                    failed = self._failed(response, relative)
                    if failed is not None:
                        return failed
                    declared = _content_length(response)
                    if declared is not None and declared > limit:
                        raise Refused(
                            f"{relative} is {declared:,} bytes (Content-Length), over the "
                            f"{limit:,} bytes it may have"
                        )
                    data = bytearray()
                    for block in response.iter_raw():
                        data += block
                        if len(data) > limit:
                            raise Refused(
                                f"{relative} is over {limit:,} bytes, more than it may have"
                            )
                        deadline.check(f"reading {relative}")
                    return bytes(data)
            except httpx.TransportError as exc:
                return self._transport(exc)

        outcome = self._retry(attempt, deadline)
        if isinstance(outcome, Failed):
            deadline.check(f"reading {relative}")
            raise Interrupted(
                f"cannot reach release store {self.name} ({relative}: {outcome.reason})"
            )
        return outcome

    def download(
        self, relative: str, part: Part, size: int, progress: Progress, deadline: Deadline
    ) -> None:
        def attempt(_: int) -> Failed | None:
            deadline.check(f"downloading {relative}")
            offset = part.size()
            headers = {"Range": f"bytes={offset}-"} if offset else {}
            try:
                with contextlib.closing(self._send(relative, headers, deadline)) as response:
                    failed = self._failed(response, relative)
                    if failed is not None:
                        return failed
                    if response.status_code == 206:
                        _check_range(response, relative, offset, size)
                    elif offset:
                        progress.update(-offset)  # the server ignored the range: start over
                        offset = 0
                    declared = _content_length(response)
                    if declared is not None and offset + declared != size:
                        raise Refused(
                            f"{relative}: the store serves {offset + declared:,} bytes "
                            f"(Content-Length), the manifest says {size:,} bytes"
                        )
                    written = offset
                    with part.open(append=response.status_code == 206) as sink:
                        for block in response.iter_raw():
                            if written + len(block) > size:
                                raise Refused(
                                    f"{relative}: the store sends more than the manifest's "
                                    f"{size:,} bytes"
                                )
                            sink.write(block)
                            written += len(block)
                            progress.update(len(block))
                            deadline.check(f"downloading {relative}")
                return None
            except httpx.TransportError as exc:
                return self._transport(exc)

        outcome = self._retry(attempt, deadline)
        if isinstance(outcome, Failed):
            deadline.check(f"downloading {relative}")
            raise Interrupted(
                f"download of {relative} from {self.name} broke off ({outcome.reason})"
            )


def _content_length(response: httpx.Response) -> int | None:
    try:
        return int(response.headers["Content-Length"])
    except (KeyError, ValueError):
        return None


def _check_range(response: httpx.Response, relative: str, offset: int, size: int) -> None:
    match = _CONTENT_RANGE.match(response.headers.get("Content-Range", ""))
    if match is None or int(match.group(1)) != offset:
        raise Refused(f"{relative}: the store answered a resume from byte {offset:,} wrongly")
    if match.group(3) != "*" and int(match.group(3)) != size:
        raise Refused(
            f"{relative}: the store holds {int(match.group(3)):,} bytes, "
            f"the manifest says {size:,} bytes"
        )


def open_source(source: str | Path, stall_s: float = DEFAULT_STALL_S) -> LocalSource | HttpSource:
    """A source for a store path or an http(s) URL (``ValueError`` in one line for a URL that
    does not parse or names no host, e.g. ``http://[::1``)."""
    text = str(source)
    if text.startswith(("http://", "https://")):
        shown = strip_userinfo(text, REDACTED)
        try:
            url = httpx.URL(text)
        except httpx.InvalidURL as exc:
            raise ValueError(f"{shown!r} is not a store URL httpx can read ({exc})") from None
        if not url.host:
            raise ValueError(f"{shown!r} is not a store URL: it names no host")
        return HttpSource(text, stall_s)
    if "://" in text:
        raise ValueError(f"unsupported store URL {text}; use a folder or an http(s) URL")
    return LocalSource(Path(text).expanduser())


def _fetch(
    store: Source,
    relative: str,
    partial: SafeFolder,
    size: int,
    sha256: str,
    bar: ProgressReporter,
    deadline: Deadline,
) -> None:
    """Bring one file into ``partial`` (resuming its ``.part``) and check size and hash."""
    target = relative.split("/", 1)[1]
    done = partial.kind(target) == "file"  # completed by an earlier, interrupted pull
    path = target if done else target + ".part"
    if not done:
        part = Part(partial, path)
        offset = part.size()
        if offset > size:
            partial.remove(path)
            offset = 0
        bar.update(offset)
        if offset < size or partial.kind(path) is None:
            store.download(relative, part, size, bar, deadline)
    else:
        bar.update(size)
    got = partial.size(path) or 0
    if got != size:
        raise Refused(f"{relative}: {got:,} bytes, the manifest says {size:,} bytes")
    digest = hashlib.sha256()
    with partial.open_read(path) as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    if digest.hexdigest() != sha256:
        raise Refused(f"{relative}: SHA-256 mismatch (expected {sha256[:16]}…)")
    if path != target:
        partial.rename(path, target)


@dataclass(frozen=True)
class Promise:
    """What the source promises for a release: its index entry, manifest, and files to fetch."""

    entry: dict[str, Any]
    manifest_bytes: bytes
    files: list[tuple[str, int, str]]


def _promise(store: Source, release_id: str, deadline: Deadline) -> Promise:
    """Read and check the index entry and the manifest (nothing is written)."""
    try:
        data = store.read(INDEX, MAX_INDEX_BYTES, deadline)
    except Missing:
        raise ValueError(f"no release store at {store.name} (no {INDEX})") from None
    except Interrupted as exc:
        raise ValueError(str(exc)) from None
    index = parse_index(data, f"{store.name}/{INDEX}")
    try:
        entry = find_entry(index, release_id)
    except AttributeError:
        raise ValueError(f"{store.name}/{INDEX} is not a release index") from None
    if entry is None:
        raise ValueError(
            f"unknown release {release_id} in store {store.name}; "
            f"`genstrat release list --store {store.name}` shows its releases"
        )
    manifest_bytes = store.read(f"{release_id}/manifest.json", MAX_MANIFEST_BYTES, deadline)
    if hashlib.sha256(manifest_bytes).hexdigest() != entry.get("manifest_sha256"):
        raise Refused("manifest.json differs from the one the store's index recorded")
    manifest = parse_manifest(manifest_bytes, f"{store.name}/{release_id}")
    if manifest["release_id"] != release_id:
        raise Refused(f"manifest.json is for release {manifest['release_id']}")
    files = [(str(e["path"]), int(e["bytes"]), str(e["sha256"])) for e in manifest["files"]]
    archive = entry.get("archive") or {}
    if archive:
        size, digest = archive.get("bytes"), archive.get("sha256")
        if not isinstance(size, int) or size < 0 or not isinstance(digest, str):
            raise Refused(f"the index's record of {release_id}.tar.gz is not a size and a hash")
        files.append((f"{release_id}.tar.gz", size, digest))
    return Promise(entry, manifest_bytes, files)


def pull(
    release_id: str,
    source: str | Path,
    dest: Path,
    *,
    progress: bool = False,
    deadline_s: float = DEFAULT_DEADLINE_S,
    stall_s: float = DEFAULT_STALL_S,
) -> Verified:
    """Pull ``release_id`` from ``source`` into ``dest/<release_id>`` and verify it.

    ``deadline_s`` (1 s to a week) bounds the whole pull, ``stall_s`` (1 s to an hour) the wait
    for any byte. Raises a plain ``ValueError`` (one line) for a bad id or setting, an unknown
    id or an unreachable store; :class:`Refused` for a refused release (nothing kept) or the
    deadline; :class:`Interrupted` for a transfer that broke off (run again to resume).
    """
    if not RELEASE_ID_PATTERN.match(release_id):
        raise ValueError(f"{release_id!r} is not a release id (gs-<32 hex digits>)")
    if not 1 <= deadline_s <= MAX_DEADLINE_S:
        raise ValueError(f"deadline_s must be 1 to {MAX_DEADLINE_S:,} seconds, got {deadline_s}")
    if not 1 <= stall_s <= MAX_STALL_S:
        raise ValueError(f"stall_s must be 1 to {MAX_STALL_S:,} seconds, got {stall_s}")
    deadline = Deadline(deadline_s)
    dest = Path(dest).expanduser()
    if os.path.lexists(dest / release_id):
        with locked(dest, deadline) as place:
            return place.existing(release_id)
    store = open_source(source, stall_s)
    try:
        try:
            promise = _promise(store, release_id, deadline)
        except (Refused, Interrupted) as exc:
            raise type(exc)(
                f"{_verb(exc)} release {release_id} from {store.name}: {exc}; nothing was "
                f"written to {dest}"
            ) from None
        with locked(dest, deadline) as place:
            if place.tree.kind(release_id) is not None:
                return place.existing(release_id)
            return _pull_into(place, store, release_id, promise, progress, deadline)
    finally:
        store.close()


def _pull_into(
    place: Destination,
    store: Source,
    release_id: str,
    promise: Promise,
    progress: bool,
    deadline: Deadline,
) -> Verified:
    """Steps 4 and 5 of :func:`pull`, with ``DEST`` locked."""
    name = f".{release_id}.partial"
    partial_path = place.where / name
    try:
        partial = place.tree.subfolder(name, create=True)
    except Refused as exc:
        raise Refused(
            f"refused to pull release {release_id} into {place.where}: {exc}; nothing was kept "
            f"in {place.where} (remove it and pull again)"
        ) from None
    try:
        with partial:
            _download_all(store, release_id, promise, partial, progress, deadline)
            verified = verify_folder(partial_path, promise.entry, release_id, follow=False)
        place.tree.rename(name, release_id)
    except Interrupted as exc:
        kept = sum(place.tree.size(f"{name}/{f}") or 0 for f in _files(place.tree, name))
        raise Interrupted(
            f"{exc}; the {kept:,} bytes downloaded so far are kept in {partial_path}: run the "
            "same command again to resume"
        ) from None
    except (ValueError, OSError) as exc:
        place.tree.remove(name)
        outcome = (
            f"nothing was kept in {place.where}"
            if place.tree.kind(name) is None
            else f"could not remove {partial_path}"
        )
        if isinstance(exc, OSError):
            raise ReleaseFailure(
                f"could not write release {release_id} into {place.where}: {exc}; {outcome}"
            ) from None
        if isinstance(exc, UnsafePath) and exc.path.is_relative_to(place.where):
            hint = " (remove it and pull again)" if os.path.lexists(exc.path) else ""
            raise Refused(
                f"refused to pull release {release_id} into {place.where}: {exc}; {outcome}{hint}"
            ) from None
        raise Refused(
            f"{_verb(exc)} release {release_id} from {store.name}: {exc}; {outcome}"
        ) from None
    final = place.where / release_id
    return Verified(release_id, final, verified.files, verified.bytes)


def _verb(exc: Exception) -> str:
    if isinstance(exc, OutOfTime):
        return "gave up on"
    return "could not pull" if isinstance(exc, Interrupted) else "refused"


def _files(tree: SafeFolder, name: str) -> list[str]:
    with contextlib.suppress(ValueError, OSError), tree.subfolder(name) as partial:
        return partial.walk()[0]
    return []


def _download_all(
    store: Source,
    release_id: str,
    promise: Promise,
    partial: SafeFolder,
    progress: bool,
    deadline: Deadline,
) -> None:
    files = promise.files
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
            _fetch(store, f"{release_id}/{relative}", partial, size, sha256, bar, deadline)
    finally:
        bar.close()
    with partial.open_write("manifest.json") as handle:
        handle.write(promise.manifest_bytes)
