"""Verifying a release: recompute every hash and the release id; report the first problem in one
line.

A release verifies when:

1. its ``manifest.json`` (at most ``MAX_MANIFEST_BYTES``) is a release manifest of the current
   format whose contents derive its own release id (:mod:`releases.identity`: the id covers every
   key of the manifest and every file it lists, so an edited manifest derives another id; an
   old 64-bit id is derived as it was published, a new one has 128 bits), and,
   for a release in a store, whose SHA-256 is the one the store's index recorded at publication;
2. the folder holds exactly the files the manifest lists, plus ``manifest.json`` and the archive:
   no other file or folder, no symbolic link, no FIFO or device anywhere in it; each listed file
   has the listed size, SHA-256, and (for a file that names the release id) the listed id
   offsets and SHA-256 without the id;
3. the archive ``<release_id>.tar.gz`` is exactly what genstrat writes for that manifest and
   those files (:func:`releases.archive.check_archive`), and, for a release in a store, has the
   size and SHA-256 the index recorded.

A ``.tar.gz`` on its own verifies by rules 1 and 3. Files are streamed, never held whole, and
never read past their declared size. A check that fails raises :class:`Refused` (exit status 1);
a path that is no release raises a plain ``ValueError`` (exit status 2).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from releases.archive import check_archive
from releases.bundle import FORMAT, PATH_PATTERN, RELEASE_ID_PATTERN
from releases.errors import Refused
from releases.identity import (
    CHUNK,
    MAX_MANIFEST_BYTES,
    Digester,
    derive_release_id,
    entry_problem,
)
from releases.safe_folder import SafeFolder

HEX = frozenset("0123456789abcdef")
MAX_JSON_VALUES = 500_000


@dataclass(frozen=True)
class Verified:
    """A release that verified: its id, where it is, how many files and bytes were checked."""

    release_id: str
    path: Path
    files: int
    bytes: int

    def line(self) -> str:
        return (
            f"release {self.release_id} verified: {self.files} files, {self.bytes:,} bytes, "
            f"every SHA-256 matches, no file unlisted ({self.path})"
        )


def read_bounded(handle: BinaryIO, limit: int, what: str) -> bytes:
    """All of ``handle`` if it holds at most ``limit`` bytes; :class:`Refused` otherwise (having
    read at most ``limit + 1``)."""
    data = handle.read(limit + 1)
    if len(data) > limit:
        raise Refused(f"{what} is over {limit:,} bytes, more than it may have")
    return data


def load_json(data: bytes, what: str) -> Any:
    """``json.loads`` of a manifest or an index (``None`` if it is not JSON, or nested too deep),
    refused (:class:`Refused`) if it holds more than ``MAX_JSON_VALUES`` values: parsing takes
    far more memory than the text (16 MiB of ``{},`` would take 500 MiB), so the number of
    values is bounded before parsing, by counting the ``,`` and ``:`` that separate them
    (strings holding them only make the count larger)."""
    if data.count(b",") + data.count(b":") > MAX_JSON_VALUES:
        raise Refused(f"{what} holds over {MAX_JSON_VALUES:,} JSON values, more than it may have")
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _is_sha256(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= HEX


def _check_entry(entry: Any, id_length: int) -> str:
    """The path of a well-formed file entry (of a release whose id is ``id_length`` characters);
    ``KeyError``/``TypeError``/``ValueError`` if not."""
    path = entry["path"]
    size = entry["bytes"]
    if not isinstance(path, str) or not PATH_PATTERN.match(path):
        raise ValueError(f"an unsafe path {path!r}")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError(f"{path}: bytes is not a size")
    if not _is_sha256(entry["sha256"]):
        raise ValueError(f"{path}: sha256 is not a SHA-256")
    offsets = entry.get("id_offsets")
    if offsets is not None:
        if not (isinstance(offsets, list) and offsets and _is_sha256(entry["sha256_without_id"])):
            raise ValueError(f"{path}: id_offsets without sha256_without_id")
        if any(not isinstance(o, int) or isinstance(o, bool) for o in offsets):
            raise ValueError(f"{path}: id_offsets are not offsets")
        if offsets != sorted(set(offsets)) or offsets[0] < 0 or offsets[-1] > size - id_length:
            raise ValueError(f"{path}: id_offsets are not offsets")
    elif "sha256_without_id" in entry:
        raise ValueError(f"{path}: sha256_without_id without id_offsets")
    return path


def parse_manifest(data: bytes, where: str) -> dict[str, Any]:
    """A manifest's JSON with its format, entries and release id checked; :class:`Refused`
    naming the first problem otherwise."""
    manifest = load_json(data, f"{where}: manifest.json")
    try:
        release_id = manifest["release_id"]
        files = manifest["files"]
        if not isinstance(files, list) or not isinstance(release_id, str):
            raise TypeError
    except (ValueError, KeyError, TypeError, RecursionError):
        raise Refused(f"{where}: manifest.json is not a release manifest") from None
    if not RELEASE_ID_PATTERN.match(release_id):
        raise Refused(f"{where}: manifest.json names an invalid release id {release_id!r}")
    if manifest.get("format") != FORMAT:
        raise Refused(
            f"release {release_id}: manifest.json is format {manifest.get('format')!r}; this "
            f"genstrat verifies {FORMAT} releases, whose id covers every file (publish it again)"
        )
    paths: set[str] = set()
    for entry in files:
        try:
            path = _check_entry(entry, len(release_id))
        except (KeyError, TypeError, ValueError) as exc:
            raise Refused(f"release {release_id}: manifest.json lists {exc}") from None
        if path in paths or path in ("manifest.json", f"{release_id}.tar.gz"):
            raise Refused(f"release {release_id}: manifest.json lists {path} twice or reserved")
        paths.add(path)
    derived = derive_release_id(manifest)
    if derived != release_id:
        raise Refused(
            f"release {release_id}: manifest.json derives release id {derived}, not its own; "
            "the manifest was edited"
        )
    loaded: dict[str, Any] = manifest
    return loaded


def verify_folder(
    folder: Path,
    entry: Mapping[str, Any] | None = None,
    expected_id: str | None = None,
    *,
    follow: bool = True,
) -> Verified:
    """Verify a release folder (``entry``: its record in a store index, if any; ``follow``:
    whether ``folder`` itself may be a symbolic link; nothing below it may)."""
    with SafeFolder.open(folder, follow=follow) as tree:
        return _verify_tree(tree, folder, entry, expected_id)


def _verify_tree(
    tree: SafeFolder, folder: Path, entry: Mapping[str, Any] | None, expected_id: str | None
) -> Verified:
    try:
        with tree.open_read("manifest.json") as handle:
            manifest_bytes = read_bounded(handle, MAX_MANIFEST_BYTES, f"{folder}/manifest.json")
    except FileNotFoundError:
        raise ValueError(f"{folder} holds no manifest.json; it is not a release folder") from None
    manifest = parse_manifest(manifest_bytes, str(folder))
    release_id: str = manifest["release_id"]
    if expected_id is not None and release_id != expected_id:
        raise Refused(f"{folder}: manifest.json is for release {release_id}, not {expected_id}")
    if entry is not None and _sha256(manifest_bytes) != entry.get("manifest_sha256"):
        raise Refused(
            f"release {release_id}: manifest.json differs from the one the store's index "
            "recorded at publication"
        )
    archive_name = f"{release_id}.tar.gz"
    problem = _folder_problem(tree, manifest["files"], archive_name, release_id)
    if problem is not None:
        raise Refused(f"release {release_id}: {problem}")
    recorded = (entry or {}).get("archive") or {}
    if recorded:
        size = tree.size(archive_name)
        if size != recorded.get("bytes"):
            raise Refused(f"release {release_id}: {archive_name}: size differs from the index")
        with tree.open_read(archive_name) as handle:
            if _stream_sha256(handle) != recorded.get("sha256"):
                raise Refused(
                    f"release {release_id}: {archive_name}: SHA-256 differs from the store's index"
                )

    def same_manifest(inner_id: str, inner: bytes) -> Sequence[Mapping[str, Any]]:
        if inner_id != release_id or inner != manifest_bytes:
            raise Refused(f"{archive_name}: its manifest.json differs from the release folder's")
        files: list[Mapping[str, Any]] = manifest["files"]
        return files

    with tree.open_read(archive_name) as handle:
        try:
            check_archive(handle, archive_name, same_manifest)
        except Refused as exc:
            raise Refused(f"release {release_id}: {exc}") from None
    total = sum(int(e["bytes"]) for e in manifest["files"])
    total += len(manifest_bytes) + (tree.size(archive_name) or 0)
    return Verified(release_id, folder, len(manifest["files"]) + 2, total)


def _folder_problem(
    tree: SafeFolder, entries: Sequence[Mapping[str, Any]], archive_name: str, release_id: str
) -> str | None:
    """The first way the folder's files differ from ``entries``, in one line, or ``None``:
    a link or special file, an unlisted file or folder, a missing file, then each listed file's
    size and hashes in manifest order (each read at most to its declared size)."""
    files, folders = tree.walk()
    listed = [str(e["path"]) for e in entries]
    allowed = {*listed, "manifest.json", archive_name}
    for relative in files:
        if relative not in allowed:
            return f"extra file {relative} (not listed in manifest.json)"
    needed = {"/".join(p.split("/")[:k]) for p in listed for k in range(1, p.count("/") + 1)}
    for relative in folders:
        if relative not in needed:
            return f"extra folder {relative}/ (no file listed in manifest.json is in it)"
    present = set(files)
    for relative in [*listed, archive_name]:
        if relative not in present:
            what = "the release archive" if relative == archive_name else "listed in manifest.json"
            return f"missing file {relative} ({what})"
    for entry in entries:
        relative = str(entry["path"])
        size = tree.size(relative)
        if size != int(entry["bytes"]):
            return f"{relative}: size mismatch (manifest {entry['bytes']} bytes, file {size} bytes)"
        digester = Digester(release_id)
        with tree.open_read(relative) as handle:
            left = int(entry["bytes"]) + 1  # one byte more shows a file that grew
            while left and (block := handle.read(min(CHUNK, left))):
                digester.update(block)
                left -= len(block)
        problem = entry_problem(entry, digester.result())
        if problem is not None:
            return problem
    return None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _stream_sha256(handle: BinaryIO) -> str:
    digest = hashlib.sha256()
    while block := handle.read(CHUNK):
        digest.update(block)
    return digest.hexdigest()


def verify_archive(archive: Path) -> Verified:
    """Verify a release archive on its own: its manifest (which comes first) and every member,
    streamed."""

    def own_manifest(release_id: str, data: bytes) -> Sequence[Mapping[str, Any]]:
        manifest = parse_manifest(data, str(archive))
        if manifest["release_id"] != release_id:
            raise Refused(f"its manifest is for release {manifest['release_id']}")
        files: list[Mapping[str, Any]] = manifest["files"]
        return files

    with archive.open("rb") as handle:
        release_id, members, total = check_archive(handle, archive.name, own_manifest)
    return Verified(release_id, archive, members, total)
