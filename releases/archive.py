"""The release archive: a byte-for-byte reproducible ``.tar.gz`` of a release folder.

Why it exists: a researcher downloads one file and cites one hash. Identical inputs must give an
identical archive, so nothing about the build machine or the clock may enter it: members are
sorted by path, every member has mtime 0, uid/gid 0, empty owner names and mode 0644, and the
gzip header carries mtime 0 and no file name. Members are regular files only, under one
top-level folder named after the release.

:func:`archive_problems` checks an archive against the manifest it carries (same files, same
hashes, and the same manifest as the folder it was published in).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

GZIP_LEVEL = 9


def _tarinfo(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = 0
    info.mode = 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.type = tarfile.REGTYPE
    return info


def write_archive(folder: Path, members: Sequence[str], target: Path, prefix: str) -> None:
    """Write ``members`` (paths relative to ``folder``) as ``target``, each under ``prefix/``."""
    with (
        target.open("wb") as raw,
        gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=GZIP_LEVEL
        ) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for relative in sorted(members):
            path = folder / relative
            data = path.read_bytes()
            tar.addfile(_tarinfo(f"{prefix}/{relative}", len(data)), io.BytesIO(data))


def read_members(archive: Path) -> dict[str, bytes]:
    """Every member of an archive by name; ``ValueError`` for a broken or unsafe archive."""
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            for info in tar:
                if not info.isreg():
                    raise ValueError(f"{archive.name}: member {info.name} is not a regular file")
                if info.name in members:
                    raise ValueError(f"{archive.name}: member {info.name} appears twice")
                handle = tar.extractfile(info)
                assert handle is not None
                members[info.name] = handle.read()
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ValueError(f"{archive.name} is not a readable .tar.gz: {exc}") from None
    return members


def archive_problems(
    archive: Path, release_id: str, manifest_bytes: bytes | None = None
) -> list[str]:
    """Every way ``archive`` differs from the manifest it carries (and from ``manifest_bytes``,
    the folder's manifest, when given), one line each."""
    try:
        members = read_members(archive)
    except ValueError as exc:
        return [str(exc)]
    prefix = f"{release_id}/"
    stray = sorted(name for name in members if not name.startswith(prefix))
    if stray:
        return [f"{archive.name}: member {stray[0]} is outside {prefix}"]
    inner = {name[len(prefix) :]: data for name, data in members.items()}
    if "manifest.json" not in inner:
        return [f"{archive.name}: no manifest.json inside"]
    if manifest_bytes is not None and inner["manifest.json"] != manifest_bytes:
        return [f"{archive.name}: its manifest.json differs from the release folder's"]
    try:
        manifest: Mapping[str, Any] = json.loads(inner["manifest.json"])
        entries = list(manifest["files"])
    except (ValueError, KeyError, TypeError, RecursionError):
        return [f"{archive.name}: its manifest.json is not a release manifest"]
    problems: list[str] = []
    listed = set()
    for entry in entries:
        relative = str(entry["path"])
        listed.add(relative)
        data = inner.get(relative)
        if data is None:
            problems.append(f"{archive.name}: missing member {relative}")
        elif hashlib.sha256(data).hexdigest() != entry["sha256"]:
            problems.append(f"{archive.name}: member {relative}: SHA-256 mismatch")
    problems.extend(
        f"{archive.name}: extra member {name} (not listed in manifest.json)"
        for name in sorted(inner)
        if name not in listed and name != "manifest.json"
    )
    return problems
