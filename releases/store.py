"""The release store and write-audit-publish.

A store is a folder::

    <store>/index.json              the published releases, oldest first
    <store>/editions.json           the seed ledger: each profile's editions (releases.editions)
    <store>/<release_id>/           one folder per release (see ``releases.bundle``)
    <store>/.staging/               work in progress of a publish (removed when it ends)
    <store>/.lock                   held while a publish runs

:func:`publish` never lets a reader see a half-made release, and never touches a published one:

1. *gate*: refuse at once if a data gate failed (nothing is written);
2. *write*: build the bundle in ``.staging/`` on the store's filesystem;
3. *audit*: refuse if the redaction scan or any recorded gate failed, or if the staged folder
   does not verify (every hash recomputed, the archive checked);
4. *publish*: move the folder into place with one ``os.replace`` (atomic on POSIX), then
   replace ``index.json`` by a fully written, fsynced copy (atomic too), then record the
   release in its edition of the seed ledger.

Before anything is written, the release's edition must be admitted by the seed ledger
(``releases.editions``): an edition that would reuse a published seed, or whose number goes
backwards, is refused in one line.

A failing gate or a crash at any point (a killed process) leaves the previously published
releases and the index as they were; at worst a release folder sits in the store without an
index entry (the process died between the two renames), which the next publish of the same
inputs adopts after verifying it. Leftovers in ``.staging/`` are removed by the next publish.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from arena.files import atomic_write_text
from quality.attestation import file_sha256
from quality.gates import GateResult
from quality.redaction import redaction_scan
from releases.bundle import PROJECT_ROOT, RELEASE_ID_PATTERN, ReleaseContext, build_bundle
from releases.editions import admit, disjoint_problems, edition_of, read_ledger
from releases.editions import record as record_edition
from releases.errors import Refused
from releases.heldout import SEALED_GATE, PrivateGame, reveal_problems, sealed_problems
from releases.identity import MAX_MANIFEST_BYTES
from releases.verification import (
    Verified,
    load_json,
    read_bounded,
    verify_archive,
    verify_folder,
)

STORE_ENV_VAR = "GENSTRAT_RELEASES"
DEFAULT_STORE_NAME = "releases_store"
INDEX = "index.json"
STAGING = ".staging"
LOCK = ".lock"
INDEX_FORMAT = "genstrat-release-store/1"
MAX_INDEX_BYTES = MAX_MANIFEST_BYTES

PhaseHook = Callable[[str, Path], None]


class GateFailed(ValueError):
    """A gate refused a release; the message names the gate and why."""


def default_store() -> Path:
    """``$GENSTRAT_RELEASES``, else ``<project>/releases_store``."""
    configured = os.environ.get(STORE_ENV_VAR)
    if configured:
        return Path(configured).expanduser().resolve()
    return PROJECT_ROOT / DEFAULT_STORE_NAME


def _fsync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def parse_index(data: bytes, where: str) -> dict[str, Any]:
    """A store index's JSON; ``ValueError`` if it is not one."""
    index = load_json(data, where)
    try:
        if not isinstance(index.get("releases"), list):
            raise ValueError
    except (ValueError, AttributeError, RecursionError):  # RecursionError: nested too deep
        raise ValueError(f"{where} is not a release index (corrupt JSON?)") from None
    loaded: dict[str, Any] = index
    return loaded


def read_index(store: Path) -> dict[str, Any]:
    """The store's index (an empty one when the store has none yet); an index over
    ``MAX_INDEX_BYTES`` is refused unread."""
    path = store / INDEX
    if not path.is_file():
        return {"format": INDEX_FORMAT, "releases": []}
    with path.open("rb") as handle:
        data = read_bounded(handle, MAX_INDEX_BYTES, str(path))
    return parse_index(data, str(path))


def write_index(store: Path, index: Mapping[str, Any]) -> None:
    """Replace ``index.json`` atomically by a fully written, fsynced copy, readable by all (it is
    meant to be served)."""
    atomic_write_text(store / INDEX, json.dumps(index, indent=2, sort_keys=False) + "\n")


def find_entry(index: Mapping[str, Any], release_id: str) -> dict[str, Any] | None:
    """The index record of ``release_id``, or ``None``."""
    for entry in index["releases"]:
        if entry.get("release_id") == release_id:
            found: dict[str, Any] = entry
            return found
    return None


@contextlib.contextmanager
def store_lock(store: Path) -> Iterator[None]:
    """Hold the store's publish lock (released by the OS if the process dies)."""
    with (store / LOCK).open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def index_entry(folder: Path) -> dict[str, Any]:
    """The index record of a verified release folder."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    integrity = json.loads((folder / "integrity.json").read_text(encoding="utf-8"))
    release_id = manifest["release_id"]
    archive = folder / f"{release_id}.tar.gz"
    results = manifest.get("results") or {}
    entry: dict[str, Any] = {
        "release_id": release_id,
        "published_at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "profile": manifest["profile"].get("name"),
        "engine_version": manifest["engine_version"],
        "code_version": manifest["code_version"],
        "files": len(manifest["files"]),
        "bytes": sum(int(e["bytes"]) for e in manifest["files"]),
        "tables": {
            str(e["path"]): e.get("rows") for e in manifest["files"] if e.get("role") == "table"
        },
        "counted_matches": results.get("counted_matches", 0),
        "superseded_matches": results.get("superseded_matches", 0),
        "gates": {name: g["passed"] for name, g in integrity["gates"].items()},
        "manifest_sha256": file_sha256(folder / "manifest.json"),
        "archive": {
            "path": f"{release_id}/{archive.name}",
            "sha256": file_sha256(archive),
            "bytes": archive.stat().st_size,
        },
    }
    if manifest.get("benchmark"):  # a release other than the generated benchmark's (issue 18)
        entry["benchmark"] = manifest["benchmark"]
    return entry


@dataclass(frozen=True)
class Published:
    """The outcome of :func:`publish`: the release, and whether this call published it."""

    release_id: str
    path: Path
    archive: Path
    new: bool
    entry: dict[str, Any]


def _failing_gate(folder: Path) -> str | None:
    integrity = json.loads((folder / "integrity.json").read_text(encoding="utf-8"))
    for name, gate in integrity["gates"].items():
        if not gate["passed"]:
            return f"gate {name} failed: {gate['message']}"
    return None


def publish(
    tables: Mapping[str, pd.DataFrame],
    texts: Mapping[str, str],
    images: Mapping[str, bytes],
    context: ReleaseContext,
    store: Path,
    *,
    gates: Mapping[str, GateResult] | None = None,
    environ: Mapping[str, str] | None = None,
    on_phase: PhaseHook | None = None,
    sealed: Sequence[PrivateGame] = (),
) -> Published:
    """Write, audit and publish a release into ``store`` (see the module docstring).

    Raises :class:`GateFailed` (a ``ValueError``) naming the first failing gate; the store is
    then exactly as before. Publishing identical inputs again returns the published release
    (``new`` is false). ``on_phase(phase, folder)`` is called after ``staged``, ``audited``,
    ``moved`` and ``indexed`` (for progress, and for tests that kill the process mid-way).
    ``sealed``: an edition's private games, which no file of the bundle may name (the audit's
    ``heldout_sealed`` gate, ``releases.heldout``); a revealed game must match the commitment
    its edition published (the audit's ``reveal`` gate).
    """
    for name, gate in (gates or {}).items():
        if not gate.passed:
            raise GateFailed(f"gate {name} failed: {gate.message}")
    store.mkdir(parents=True, exist_ok=True)

    def phase(name: str, folder: Path) -> None:
        if on_phase is not None:
            on_phase(name, folder)

    edition = None
    if not context.benchmark:  # the generated benchmark's releases draw seeds
        settings = {"name": context.profile, **dict(context.profile_settings)}
        edition = edition_of(settings, tables.get("benchmark_games"))
    with store_lock(store):
        admit(store, edition)
        staging = store / STAGING
        shutil.rmtree(staging, ignore_errors=True)  # leftovers of a killed publish
        staging.mkdir()
        try:
            folder = build_bundle(
                tables, texts, images, context, gates=gates, root=staging, environ=environ
            )
            phase("staged", folder)
            failure = _failing_gate(folder)
            if failure:
                raise GateFailed(failure)
            final_scan = redaction_scan(
                [p for p in folder.rglob("*") if p.is_file()], environ, root=folder
            )
            if not final_scan.passed:
                raise GateFailed(f"gate redaction failed: {final_scan.message}")
            files = [p for p in folder.rglob("*") if p.is_file()]
            leaks = sealed_problems(files, folder, sealed) if sealed else []
            if leaks:
                more = f" (and {len(leaks) - 1} more)" if len(leaks) > 1 else ""
                raise GateFailed(f"gate {SEALED_GATE} failed: {leaks[0]}{more}")
            mismatches = reveal_problems(folder, store, read_ledger(store))
            if mismatches:
                raise GateFailed(f"gate reveal failed: {mismatches[0]}")
            try:
                verify_folder(folder)
            except ValueError as exc:
                raise GateFailed(f"gate manifest_hashes failed: {exc}") from None
            phase("audited", folder)
            published = _move_into_place(store, folder, phase)
            record_edition(store, edition, published.release_id)
            return published
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def _move_into_place(store: Path, folder: Path, phase: Callable[[str, Path], None]) -> Published:
    release_id = folder.name
    target = store / release_id
    index = read_index(store)
    entry = find_entry(index, release_id)
    if target.exists():
        try:
            verify_folder(target, entry)
        except ValueError:
            # A damaged copy of this very release (or the remains of a crash): set it aside in
            # the staging area, which is removed when the publish ends, and publish afresh.
            os.replace(target, folder.parent / f"damaged-{release_id}")
            entry = None
            if find_entry(index, release_id) is not None:
                index["releases"] = [
                    e for e in index["releases"] if e.get("release_id") != release_id
                ]
        else:
            if entry is None:  # published by a process that died before the index update
                entry = index_entry(target)
                index["releases"].append(entry)
                write_index(store, index)
            return Published(release_id, target, target / f"{release_id}.tar.gz", False, entry)
    os.replace(folder, target)
    _fsync_directory(store)
    phase("moved", target)
    entry = index_entry(target)
    index["releases"].append(entry)
    write_index(store, index)
    phase("indexed", target)
    return Published(release_id, target, target / f"{release_id}.tar.gz", True, entry)


def list_releases(store: Path) -> dict[str, Any]:
    """``{"store": PATH, "releases": [index records, oldest first]}``."""
    index = read_index(store)
    return {"store": str(store), "releases": list(index["releases"])}


def verify(path_or_id: str | Path, store: Path | None = None) -> Verified:
    """Verify a release given by folder, by ``.tar.gz`` archive, or by id in ``store``
    (default :func:`default_store`). Raises ``ValueError`` with the first mismatch."""
    candidate = Path(path_or_id).expanduser()
    if candidate.is_dir():
        if (candidate / INDEX).is_file() and not (candidate / "manifest.json").exists():
            raise ValueError(f"{candidate} is a release store; give a release id or its folder")
        parent_index = candidate.resolve().parent / INDEX
        entry = None
        if parent_index.is_file():
            with contextlib.suppress(ValueError):
                entry = find_entry(read_index(parent_index.parent), candidate.resolve().name)
        verified = verify_folder(candidate, entry)
        if entry is not None:
            check_edition(candidate, parent_index.parent)
        return verified
    if candidate.is_file():
        if not candidate.name.endswith(".tar.gz"):
            raise ValueError(f"{candidate} is neither a release folder nor a release .tar.gz")
        return verify_archive(candidate)
    release_id = str(path_or_id)
    if not RELEASE_ID_PATTERN.match(release_id):
        raise ValueError(
            f"{release_id!r} is not a release folder, a .tar.gz, or a release id (gs-<32 hex>)"
        )
    store = store if store is not None else default_store()
    entry = find_entry(read_index(store), release_id)
    if entry is None:
        raise ValueError(
            f"unknown release {release_id} in store {store}; "
            f"`genstrat release list --store {store}` shows its releases"
        )
    folder = store / release_id
    if not os.path.lexists(folder):
        raise Refused(f"release {release_id} is in the index of {store} but has no folder")
    verified = verify_folder(folder, entry, expected_id=release_id, follow=False)
    check_edition(folder, store)
    return verified


def check_edition(folder: Path, store: Path) -> None:
    """A verified release's benchmark games are disjoint from every earlier edition of its
    profile in the store's seed ledger (``Refused`` in one line naming the games otherwise)."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("benchmark"):
        return
    table = folder / "tables" / "benchmark_games.parquet"
    games = pd.read_parquet(table, columns=["seed"]) if table.is_file() else None
    edition = edition_of(manifest.get("profile") or {}, games)
    if edition is None:
        return
    ledger = read_ledger(store)
    problems = disjoint_problems(ledger, edition) + reveal_problems(folder, store, ledger)
    if problems:
        raise Refused(f"release {manifest['release_id']}: {problems[0]}")
