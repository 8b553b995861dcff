"""The release id: derived from every file of a release folder, the files that name it included.

Why it exists: DESIGN.md ("Release bundle"): "a release id ... covers every file of the folder".
A reader cites the id and runs the commands its README shows, so a change to any file (README,
a report page, a plot, a table, a file added under any role) must change the id. But the README,
the report and the citation name the id, so they cannot be hashed before the id exists.

The rule is the one content-addressed stores use for self-references ("hash modulo
self-references", e.g. Nix's content-addressed paths): a file is hashed with every occurrence
of its release id replaced by :data:`PLACEHOLDER` (a string of the same length), and the id covers,
for each file, that hash and the byte offsets where the id occurs. Given the id, those two
determine every byte of the file, so no edit of any byte keeps the id.

Length: a release id is ``gs-`` and :data:`ID_DIGITS` hex digits (128 bits, issue 43: a 64-bit id
let a 32-bit prefix collide in 70,595 tries, so a whole collision is within reach). Releases
published before carry ``gs-`` and :data:`LEGACY_ID_DIGITS` digits; they still verify and pull:
the id's length says which derivation it is (:func:`derive_release_id`) and which placeholder
its files were hashed with (:func:`placeholder_for`). A shorter id never equals a longer one,
so an old id cannot stand in for a new release.

A manifest entry of a file that names the id carries ``id_offsets`` (ascending byte offsets) and
``sha256_without_id`` (the SHA-256 of the file with the id blanked) besides its ``sha256``;
:func:`derive_release_id` hashes every key of the manifest but ``release_id``, each file entry
whole except the ``sha256`` of a file that names the id (which depends on the id).
:class:`Digester` computes all three hashes of a file in one streaming pass, for the builder
(:func:`bind_release_id`) and the verifier alike.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quality.attestation import bytes_sha256, canonical_json, file_sha256

ID_DIGITS = 32
"""Hex digits of a release id (128 bits)."""
LEGACY_ID_DIGITS = 16
"""Hex digits of the ids of releases published before issue 43 (64 bits); they still verify."""
ID_PATTERN = rf"gs-(?:[0-9a-f]{{{ID_DIGITS}}}|[0-9a-f]{{{LEGACY_ID_DIGITS}}})"
"""A release id, new or old (a regular expression, unanchored)."""
PLACEHOLDER = "gs-" + "RELEASEIDPENDING" * 2
"""What a file holds where the release id goes, while the id is derived (as long as an id; not
hex, so never an id)."""
LEGACY_PLACEHOLDER = "gs-RELEASEIDPENDING"
"""The placeholder the files of a release with a 64-bit id were hashed with."""
CHUNK = 1 << 20
MAX_MANIFEST_BYTES = 16 << 20
"""A manifest (and a store's index) is read only up to this size; a bigger one is refused."""


@dataclass(frozen=True)
class FileDigest:
    """A file's size, its SHA-256, the SHA-256 with the id blanked, and where the id occurs."""

    bytes: int
    sha256: str
    sha256_without_id: str
    id_offsets: tuple[int, ...]


def placeholder_for(release_id: str) -> str:
    """The placeholder a release id stands for in its files' hashes: :data:`PLACEHOLDER`, or
    :data:`LEGACY_PLACEHOLDER` for an old 64-bit id; ``ValueError`` for another length."""
    for placeholder in (PLACEHOLDER, LEGACY_PLACEHOLDER):
        if len(release_id) == len(placeholder):
            return placeholder
    raise ValueError(f"{release_id!r} is not as long as a release id")


class Digester:
    """SHA-256 of a stream, and of the same stream with every occurrence of ``needle`` (a release
    id, or a placeholder itself) replaced by its placeholder (:func:`placeholder_for`), fed in
    any chunks.

    An id is ``gs-`` and hex digits, so two occurrences never overlap; an occurrence that spans
    two chunks is found because the last ``len(needle) - 1`` bytes wait for the next chunk.
    """

    def __init__(self, needle: str) -> None:
        self.needle = needle.encode("ascii")
        self.blank = placeholder_for(needle).encode("ascii")
        self.whole = hashlib.sha256()
        self.blanked = hashlib.sha256()
        self.offsets: list[int] = []
        self.size = 0
        self.tail = b""

    def update(self, block: bytes) -> None:
        self.whole.update(block)
        buffer = self.tail + block
        base = self.size - len(self.tail)  # offset of buffer[0] in the stream
        self.size += len(block)
        parts: list[bytes] = []
        start = 0
        found = buffer.find(self.needle)
        while found != -1:
            parts += [buffer[start:found], self.blank]
            self.offsets.append(base + found)
            start = found + len(self.needle)
            found = buffer.find(self.needle, start)
        keep = max(start, len(buffer) - (len(self.needle) - 1))
        parts.append(buffer[start:keep])
        self.blanked.update(b"".join(parts))
        self.tail = buffer[keep:]

    def result(self) -> FileDigest:
        """The digests of everything fed so far (call once, at the end)."""
        self.blanked.update(self.tail)
        self.tail = b""
        return FileDigest(
            self.size, self.whole.hexdigest(), self.blanked.hexdigest(), tuple(self.offsets)
        )


def entry_problem(entry: Mapping[str, Any], digest: FileDigest) -> str | None:
    """How a file's digest differs from its manifest entry (one line), or ``None``."""
    relative = entry["path"]
    if digest.bytes != int(entry["bytes"]):
        return (
            f"{relative}: size mismatch (manifest {entry['bytes']} bytes, "
            f"file {digest.bytes} bytes)"
        )
    if digest.sha256 != entry["sha256"]:
        return (
            f"{relative}: SHA-256 mismatch (manifest {str(entry['sha256'])[:16]}…, "
            f"file {digest.sha256[:16]}…)"
        )
    recorded = tuple(entry.get("id_offsets") or ())
    if digest.id_offsets != recorded:
        return (
            f"{relative}: names the release id at {len(digest.id_offsets)} place(s), "
            f"the manifest records {len(recorded)} (id_offsets)"
        )
    if recorded and digest.sha256_without_id != entry.get("sha256_without_id"):
        return f"{relative}: SHA-256 without the release id differs from the manifest's"
    return None


def derive_release_id(manifest: Mapping[str, Any]) -> str:
    """The release id a manifest derives: ``gs-`` + :data:`ID_DIGITS` hex digits of the SHA-256
    of the canonical JSON of every key but ``release_id``, with each file entry whole except the
    ``sha256`` of a file that names the id (its ``sha256_without_id`` and ``id_offsets`` stand
    for it). A manifest whose ``release_id`` is an old 64-bit id derives :data:`LEGACY_ID_DIGITS`
    digits, as it was published."""
    files = []
    for entry in manifest["files"]:
        item = {str(key): value for key, value in entry.items()}
        if item.get("id_offsets"):
            item.pop("sha256", None)
        files.append(item)
    basis: dict[str, Any] = {k: v for k, v in manifest.items() if k not in ("release_id", "files")}
    basis["files"] = sorted(files, key=lambda e: str(e["path"]))
    claimed = manifest.get("release_id")
    legacy = isinstance(claimed, str) and len(claimed) == len(LEGACY_PLACEHOLDER)
    digits = LEGACY_ID_DIGITS if legacy else ID_DIGITS
    return "gs-" + bytes_sha256(canonical_json(basis).encode("utf-8"))[:digits]


def digest_file(path: Path, needle: str) -> FileDigest:
    """:class:`Digester` over a whole file, read in 1 MiB chunks."""
    digester = Digester(needle)
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digester.update(block)
    return digester.result()


def bind_release_id(folder: Path, manifest: Mapping[str, Any]) -> dict[str, Any]:
    """Derive the release id of a folder whose files hold :data:`PLACEHOLDER` where the id goes,
    write the id there, and return the manifest with the id and every file's hashes.

    Steps: 1. every file under ``folder`` has an entry in ``manifest["files"]`` and every entry a
    file (``ValueError`` otherwise: a release lists every file it holds); 2. hash every file as
    it is, noting where the placeholder occurs; 3. derive the id (:func:`derive_release_id`);
    4. write the id over each placeholder (same length, in place) and hash the final bytes.
    """
    entries = [dict(entry) for entry in manifest["files"]]
    listed = {str(entry["path"]) for entry in entries}
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()}
    unlisted, missing = sorted(present - listed), sorted(listed - present)
    if unlisted:
        raise ValueError(f"bundle file {unlisted[0]} has no manifest entry; a release lists all")
    if missing:
        raise ValueError(f"manifest entry {missing[0]} has no file in the bundle")
    for entry in entries:
        digest = digest_file(folder / entry["path"], PLACEHOLDER)
        entry.pop("id_offsets", None)
        entry.pop("sha256_without_id", None)
        entry["bytes"] = digest.bytes
        entry["sha256"] = digest.sha256
        if digest.id_offsets:
            entry["id_offsets"] = list(digest.id_offsets)
            entry["sha256_without_id"] = digest.sha256
    context = {k: v for k, v in manifest.items() if k not in ("release_id", "files")}
    if PLACEHOLDER in canonical_json(context):
        raise ValueError("the manifest's context names the release id; only its files may")
    release_id = derive_release_id({**manifest, "release_id": PLACEHOLDER, "files": entries})
    for entry in entries:
        if entry.get("id_offsets"):
            path = folder / entry["path"]
            with path.open("r+b") as handle:
                for offset in entry["id_offsets"]:
                    handle.seek(offset)
                    handle.write(release_id.encode("ascii"))
            entry["sha256"] = file_sha256(path)
    return {**manifest, "release_id": release_id, "files": entries}
