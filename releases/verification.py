"""Verifying a release: recompute every hash and report the first mismatch in one line.

A release verifies when:

1. its ``manifest.json`` is a release manifest whose contents derive its own release id (an
   edited manifest derives another id), and, for a release in a store, whose SHA-256 is the one
   the store's index recorded at publication;
2. every file the manifest lists is present with the listed size and SHA-256, and no other file
   is present besides ``manifest.json`` and the archive;
3. the archive ``<release_id>.tar.gz`` holds exactly the same files with the same hashes and the
   same manifest (and, for a release in a store, has the SHA-256 the index recorded).

A ``.tar.gz`` on its own verifies by rules 1 and 3.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quality.attestation import bytes_sha256, file_problems, file_sha256
from releases.archive import archive_problems, read_members
from releases.bundle import PATH_PATTERN, RELEASE_ID_PATTERN, derive_release_id


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
            f"every SHA-256 matches ({self.path})"
        )


def parse_manifest(data: bytes, where: str) -> dict[str, Any]:
    """A manifest's JSON with its id and file paths checked; ``ValueError`` otherwise."""
    try:
        manifest = json.loads(data)
        release_id = str(manifest["release_id"])
        files = list(manifest["files"])
        for entry in files:
            _ = (str(entry["path"]), int(entry["bytes"]), str(entry["sha256"]))
    except (ValueError, KeyError, TypeError, RecursionError):
        raise ValueError(f"{where}: manifest.json is not a release manifest") from None
    if not RELEASE_ID_PATTERN.match(release_id):
        raise ValueError(f"{where}: manifest.json names an invalid release id {release_id!r}")
    for entry in files:
        if not PATH_PATTERN.match(str(entry["path"])):
            raise ValueError(f"{where}: manifest.json lists an unsafe path {entry['path']!r}")
    derived = derive_release_id(manifest)
    if derived != release_id:
        raise ValueError(
            f"release {release_id}: manifest.json derives release id {derived}, not its own; "
            "the manifest was edited"
        )
    loaded: dict[str, Any] = manifest
    return loaded


def verify_folder(
    folder: Path, entry: Mapping[str, Any] | None = None, expected_id: str | None = None
) -> Verified:
    """Verify a release folder (``entry``: its record in a store index, if any)."""
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise ValueError(f"{folder} holds no manifest.json; it is not a release folder")
    manifest_bytes = manifest_path.read_bytes()
    manifest = parse_manifest(manifest_bytes, str(folder))
    release_id = manifest["release_id"]
    if expected_id is not None and release_id != expected_id:
        raise ValueError(f"{folder}: manifest.json is for release {release_id}, not {expected_id}")
    if entry is not None and bytes_sha256(manifest_bytes) != entry.get("manifest_sha256"):
        raise ValueError(
            f"release {release_id}: manifest.json differs from the one the store's index "
            "recorded at publication"
        )
    archive_name = f"{release_id}.tar.gz"
    problems = file_problems(folder, manifest["files"], {"manifest.json", archive_name})
    archive = folder / archive_name
    if not problems and not archive.is_file():
        problems.append(f"missing file {archive_name} (the release archive)")
    if not problems and entry is not None:
        recorded = (entry.get("archive") or {}).get("sha256")
        if recorded and file_sha256(archive) != recorded:
            problems.append(f"{archive_name}: SHA-256 differs from the store's index")
    if not problems:
        problems = archive_problems(archive, release_id, manifest_bytes)
    if problems:
        raise ValueError(f"release {release_id}: {problems[0]}")
    total = sum(int(e["bytes"]) for e in manifest["files"])
    total += len(manifest_bytes) + archive.stat().st_size
    return Verified(release_id, folder, len(manifest["files"]) + 2, total)


def verify_archive(archive: Path) -> Verified:
    """Verify a release archive on its own (its manifest and every member)."""
    members = read_members(archive)
    manifests = [name for name in members if name.endswith("/manifest.json")]
    if len(manifests) != 1:
        raise ValueError(f"{archive} holds no single <release_id>/manifest.json")
    manifest = parse_manifest(members[manifests[0]], str(archive))
    release_id = manifest["release_id"]
    if manifests[0] != f"{release_id}/manifest.json":
        raise ValueError(f"{archive}: its manifest is for release {release_id}")
    problems = archive_problems(archive, release_id)
    if problems:
        raise ValueError(f"release {release_id}: {problems[0]}")
    total = sum(len(data) for data in members.values())
    return Verified(release_id, archive, len(members), total)
