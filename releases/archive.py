"""The release archive: a byte-for-byte reproducible ``.tar.gz`` of a release folder, and its
streaming check.

Why it exists: a researcher downloads one file and cites one hash. Identical inputs must give an
identical archive, so nothing about the build machine or the clock may enter it. The layout,
which :func:`write_archive` writes and :func:`check_archive` requires byte for byte once
unzipped:

- gzip: one member, no file name, comment or extra field in its header, mtime 0, level 9;
- tar: ``<id>/manifest.json`` first (a reader checks every later member against it as it
  streams), then every file the manifest lists, sorted by path; each member a regular file
  whose header is the one :func:`member_header` makes (Python's tarfile, pax format: mtime 0,
  uid/gid 0, empty owner names, mode 0644), its data, zero padding to a 512-byte block; then
  two zero blocks and zeros up to a whole 10240-byte record. Nothing else.

:func:`check_archive` never holds a member whole and never reads past a size the manifest
declares: each header is compared with the expected one (path and declared size) before a byte
of its data is read, the data is hashed as it streams (:class:`releases.identity.Digester`), and
anything the layout does not have (an unlisted member, a link, an extra gzip member, trailing
bytes) is refused in one line, naming the first difference.
"""

from __future__ import annotations

import gzip
import re
import tarfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from releases.errors import Refused
from releases.identity import CHUNK, ID_PATTERN, MAX_MANIFEST_BYTES, Digester, entry_problem

GZIP_LEVEL = 9
BLOCK = tarfile.BLOCKSIZE
RECORD = tarfile.RECORDSIZE
MANIFEST = "manifest.json"
GZIP_MAGIC = b"\x1f\x8b\x08\x00"  # gzip, deflate, no flags (no name, comment or extra field)
HEADER_DIFFERS = "its tar header differs from the one genstrat writes (mode, owner, time or format)"
EXTENDED = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
MANIFEST_MEMBER = re.compile(rf"^({ID_PATTERN})/manifest\.json$")

ReadManifest = Callable[[str, bytes], Sequence[Mapping[str, Any]]]
"""``(release_id, manifest bytes) -> the manifest's file entries``; raises to refuse."""


def _tarinfo(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = 0
    info.mode = 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.type = tarfile.REGTYPE
    return info


def member_header(name: str, size: int) -> bytes:
    """The tar header (pax format, as tarfile writes it) of a member ``name`` of ``size`` bytes."""
    return _tarinfo(name, size).tobuf(tarfile.PAX_FORMAT, tarfile.ENCODING, "surrogateescape")


def _padding(size: int) -> int:
    return -size % BLOCK


def _end_length(offset: int) -> int:
    """The end-of-archive zeros after ``offset`` bytes of members: two blocks, then a whole
    record (what tarfile writes when it closes an archive)."""
    return 2 * BLOCK + (-(offset + 2 * BLOCK) % RECORD)


def write_archive(folder: Path, members: Sequence[str], target: Path, prefix: str) -> None:
    """Write ``members`` (paths relative to ``folder``) as ``target``, each under ``prefix/``:
    ``manifest.json`` first, then the rest sorted (see the module docstring)."""
    ordered = [m for m in members if m == MANIFEST] + sorted(m for m in members if m != MANIFEST)
    offset = 0
    with (
        target.open("wb") as raw,
        gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=GZIP_LEVEL
        ) as zipped,
    ):
        for relative in ordered:
            path = folder / relative
            size = path.stat().st_size
            header = member_header(f"{prefix}/{relative}", size)
            zipped.write(header)
            copied = 0
            with path.open("rb") as handle:
                while block := handle.read(CHUNK):
                    zipped.write(block)
                    copied += len(block)
            if copied != size:
                raise ValueError(f"{path} changed while it was archived")
            zipped.write(bytes(_padding(size)))
            offset += len(header) + size + _padding(size)
        zipped.write(bytes(_end_length(offset)))


class _Gunzip:
    """The unzipped bytes of a one-member gzip file, read in bounded pieces."""

    def __init__(self, raw: BinaryIO, name: str) -> None:
        self.raw, self.name = raw, name
        head = raw.read(len(GZIP_MAGIC))
        if head != GZIP_MAGIC:
            raise Refused(f"{name} is not a gzip file with no name, comment or extra field")
        self.inflate = zlib.decompressobj(31)
        self.buffer = self.inflate.decompress(head, CHUNK)
        self.position = 0
        self.offset = 0  # unzipped bytes handed out

    def read(self, n: int) -> bytes:
        """Up to ``n`` bytes (fewer only where the gzip stream ends)."""
        pieces: list[bytes] = []
        while n > 0:
            if self.position < len(self.buffer):
                piece = self.buffer[self.position : self.position + n]
                self.position += len(piece)
                n -= len(piece)
                pieces.append(piece)
                continue
            if self.inflate.eof:
                break
            data = self.inflate.unconsumed_tail or self.raw.read(CHUNK)
            if not data:
                raise Refused(f"{self.name}: the gzip stream ends early (a truncated archive)")
            try:
                self.buffer, self.position = self.inflate.decompress(data, CHUNK), 0
            except zlib.error as exc:
                raise Refused(f"{self.name} is not a readable .tar.gz: {exc}") from None
        got = b"".join(pieces)
        self.offset += len(got)
        return got

    def read_exact(self, n: int, what: str) -> bytes:
        data = self.read(n)
        if len(data) != n:
            raise Refused(f"{self.name}: the archive ends inside {what} (a truncated archive)")
        return data

    def finish(self) -> None:
        """Refuse anything after the tar layout: more unzipped bytes, another gzip member, or
        bytes after the gzip stream."""
        if self.read(1):
            raise Refused(f"{self.name}: data after the end of the archive")
        if self.inflate.unused_data or self.raw.read(1):
            raise Refused(f"{self.name}: bytes after the end of its gzip stream")


def check_archive(raw: BinaryIO, name: str, read_manifest: ReadManifest) -> tuple[str, int, int]:
    """Check the archive read from ``raw`` (named ``name`` in messages) against the manifest it
    starts with, as :func:`read_manifest` accepts it; ``(release id, members, bytes)``.

    Steps: 1. the gzip header has no flags; 2. the first member is ``<id>/manifest.json`` of at
    most ``MAX_MANIFEST_BYTES``, with the header genstrat writes; ``read_manifest`` checks it and
    returns the file entries; 3. each entry, sorted by path, comes next with the expected header,
    then its data, which must match the entry's size and hashes, then zero padding; 4. the
    end-of-archive zeros, then the end of the gzip stream and of the file. Raises
    :class:`Refused` at the first difference.
    """
    stream = _Gunzip(raw, name)
    head = stream.read_exact(BLOCK, "its first header")
    info = _header(head)
    match = MANIFEST_MEMBER.match(info.name) if info is not None else None
    if info is None or match is None or not info.isreg():
        raise Refused(f"{name}: its first member is not <release_id>/manifest.json")
    if info.size > MAX_MANIFEST_BYTES:
        raise Refused(
            f"{name}: its manifest.json is {info.size:,} bytes, over the "
            f"{MAX_MANIFEST_BYTES:,} bytes a manifest may have"
        )
    if head != member_header(info.name, info.size):
        raise Refused(f"{name}: member {info.name}: {HEADER_DIFFERS}")
    release_id = match.group(1)
    manifest = stream.read_exact(info.size, f"member {info.name}")
    _check_padding(stream, info.size, info.name)
    entries = sorted(read_manifest(release_id, manifest), key=lambda e: str(e["path"]))
    listed = {str(e["path"]) for e in entries}
    total = len(manifest)
    for entry in entries:
        member = f"{release_id}/{entry['path']}"
        size = int(entry["bytes"])
        expected = member_header(member, size)
        got = stream.read_exact(len(expected), f"the header of member {member}")
        if got != expected:
            raise Refused(f"{name}: {_unexpected(got, member, size, release_id, listed)}")
        digester = Digester(release_id)
        left = size
        while left:
            block = stream.read_exact(min(CHUNK, left), f"member {member}")
            digester.update(block)
            left -= len(block)
        problem = entry_problem(entry, digester.result())
        if problem is not None:
            raise Refused(f"{name}: member {problem}")
        _check_padding(stream, size, member)
        total += size
    end = stream.read_exact(_end_length(stream.offset), "its end-of-archive blocks")
    if any(end):
        if any(end[:BLOCK]):
            found = _header(end[:BLOCK])
            extra = found.name if found is not None else "data"
            raise Refused(f"{name}: extra member {extra} (not listed in manifest.json)")
        raise Refused(f"{name}: data after the end of the archive")
    stream.finish()
    return release_id, len(entries) + 1, total


def _check_padding(stream: _Gunzip, size: int, member: str) -> None:
    if any(stream.read_exact(_padding(size), f"the padding of member {member}")):
        raise Refused(f"{stream.name}: member {member}: non-zero bytes in its padding")


def _header(block: bytes) -> tarfile.TarInfo | None:
    try:
        return tarfile.TarInfo.frombuf(block[:BLOCK], tarfile.ENCODING, "surrogateescape")
    except tarfile.HeaderError:
        return None


def _unexpected(got: bytes, member: str, size: int, release_id: str, listed: set[str]) -> str:
    """What stands where ``member`` (``size`` bytes) should, in one line."""
    info = _header(got)
    if info is None:
        return f"no tar header where member {member} should start"
    if info.type in EXTENDED:
        return f"member {member}: an extended (pax or GNU) header that genstrat does not write"
    if info.name != member:
        prefix = f"{release_id}/"
        if not info.name.startswith(prefix):
            return f"member {info.name} is outside {prefix}"
        if info.name[len(prefix) :] not in listed:
            return f"extra member {info.name} (not listed in manifest.json)"
        return f"missing member {member} ({info.name} stands in its place)"
    if not info.isreg():
        return f"member {info.name} is not a regular file"
    if info.size != size:
        return f"member {info.name}: {info.size:,} bytes, the manifest says {size:,}"
    return f"member {info.name}: {HEADER_DIFFERS}"
