"""Building a release bundle: tables, texts and images, the integrity card, the manifest, the
reader's README and a reproducible archive, in one folder named after the release id.

Why it exists: DESIGN.md ("Release bundle") and GameBench 2 (Section 3): a release is what a
researcher cites, so it must be exactly reproducible and tamper-evident. Layout::

    <release_id>/
      tables/<name>.parquet     one per table
      <text and image paths>    e.g. rulebooks/kuhn.md, plots/seed_pool.png
      integrity.json            each gate: verdict, figures, message
      README.md                 for readers: the leaderboard first, and a dataset card
      croissant.json            the tables as an MLCommons Croissant 1.0 dataset (JSON-LD)
      CITATION.cff              how to cite this release (Citation File Format 1.2.0)
      manifest.json             every file above: sha256, bytes; rows and content hash of tables;
                                code and engine versions, its commit's date, profile, analysis
                                settings, roster, generation configs, versioned-results figures
      <release_id>.tar.gz       the folder above as a byte-reproducible archive

The release id is ``gs-`` and the first 32 hex digits (128 bits) of a SHA-256 over the whole
manifest and every file of the folder (README, plots and reports included), each file hashed with
the id's own occurrences blanked (:mod:`releases.identity`; releases published with 16 digits
before issue 43 still verify). No clock enters it, so identical inputs give
the identical id and identical bytes; :func:`derive_release_id` recomputes it from a manifest,
and ``verify`` recomputes each file's hashes, so an edit of any file or of the manifest shows.

Steps of :func:`build_bundle`:
1. write the tables (Parquet, no index, with their declared types: ``quality.schema.conform``),
   texts and images into a fresh work folder;
2. scan them, and the context, for credentials (the redaction gate);
3. write ``integrity.json`` from the given gates and the redaction gate;
4. render ``README.md``, ``CITATION.cff`` (and any file naming the id) with a placeholder
   id; derive the id from every file and write it over the placeholder (``bind_release_id``);
   write ``manifest.json``;
5. write ``<release_id>.tar.gz``; rename the work folder to ``<root>/<release_id>``.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from engines.gbg import ENGINE_VERSION
from quality.attestation import canonical_json, file_sha256, table_content_hash
from quality.gates import GateResult
from quality.redaction import redaction_scan
from quality.schema import arrow_table
from releases.archive import write_archive
from releases.dictionary import CROISSANT, croissant_json
from releases.identity import ID_PATTERN, PLACEHOLDER, bind_release_id
from releases.identity import derive_release_id as derive_release_id
from releases.readme import CITATION, render_citation, render_readme
from releases.report import render_report
from releases.werewolf_report import werewolf_pages

FORMAT = "genstrat-release/2"
RELEASE_ID_PATTERN = re.compile(rf"^{ID_PATTERN}$")
"""A release id that verifies and pulls: a new 128-bit one, or an old 64-bit one."""
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")
PATH_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_][A-Za-z0-9._-]*)*$")
RESERVED = ("manifest.json", "integrity.json", "README.md", CITATION, CROISSANT)
PROJECT_ROOT = Path(__file__).resolve().parents[1]


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """``git:<commit>`` (``+dirty`` if tracked files differ from it), else the package version."""
    try:
        head = subprocess.run(
            ["git", "-C", str(PROJECT_ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(PROJECT_ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        try:
            return f"genstrat {importlib.metadata.version('genstrat')}"
        except importlib.metadata.PackageNotFoundError:
            return "genstrat (unknown version)"
    return f"git:{head}" + ("+dirty" if dirty else "")


@functools.lru_cache(maxsize=8)
def code_date(version: str) -> str | None:
    """The date (``YYYY-MM-DD``, UTC) of the commit a ``git:<commit>[+dirty]`` code version
    names, or ``None`` (another kind of version, or no git)."""
    if not version.startswith("git:"):
        return None
    commit = version.removeprefix("git:").removesuffix("+dirty")
    try:
        date = subprocess.run(
            [
                "git",
                "-C",
                str(PROJECT_ROOT),
                "show",
                "-s",
                "--format=%cd",
                "--date=format-local:%Y-%m-%d",
                commit,
            ],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
            env={**os.environ, "TZ": "UTC"},
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return date if re.fullmatch(r"\d{4}-\d{2}-\d{2}", date) else None


@dataclass(frozen=True)
class ReleaseContext:
    """What a release records besides its files (DESIGN.md, "Release bundle").

    ``code_version`` and ``engine_version`` left unset mean the running code's
    (:func:`code_version`, ``engines.gbg.ENGINE_VERSION``); ``date`` left unset means the code
    version's commit date (:func:`code_date`; none for a version that is not a commit).
    ``results`` holds the figures of the versioned results
    (``releases.versioned.VersionedResults.summary``), ``analysis`` the settings of the analysis
    the release recomputed (``releases.analysis.AnalysisSettings.as_json``). ``date`` and
    ``analysis`` appear in the manifest only when set.

    ``benchmark`` names the kind of release when it is not the generated benchmark's (issue 18:
    ``"openspiel"``, the openspiel group's release); it appears in the manifest only when set,
    so the generated benchmark's manifests, and their ids, are as before.
    """

    profile: str
    profile_settings: Mapping[str, Any] = field(default_factory=dict)
    roster: Sequence[Mapping[str, Any]] = ()
    generation_configs: Mapping[str, Any] = field(default_factory=dict)
    results: Mapping[str, Any] = field(default_factory=dict)
    code_version: str | None = None
    engine_version: str | None = None
    title: str = "GENSTRAT release"
    date: str | None = None
    analysis: Mapping[str, Any] = field(default_factory=dict)
    benchmark: str | None = None

    def payload(self) -> dict[str, Any]:
        """The context as it appears in the manifest (JSON values only)."""
        version = self.code_version or code_version()
        payload: dict[str, Any] = {
            "title": self.title,
            "code_version": version,
            "engine_version": self.engine_version or ENGINE_VERSION,
            "profile": {"name": self.profile, **dict(self.profile_settings)},
            "roster": [dict(player) for player in self.roster],
            "generation_configs": dict(self.generation_configs),
            "results": dict(self.results),
        }
        date = self.date or code_date(version)
        if date:
            payload["date"] = date
        if self.analysis:
            payload["analysis"] = dict(self.analysis)
        if self.benchmark:
            payload["benchmark"] = self.benchmark
        # One JSON round trip: what is hashed is exactly what a reader of manifest.json sees.
        loaded: dict[str, Any] = json.loads(canonical_json(payload))
        return loaded


def check_names(
    tables: Mapping[str, pd.DataFrame], texts: Mapping[str, str], images: Mapping[str, bytes]
) -> None:
    """Raise ``ValueError`` for a table name or file path a bundle cannot hold."""
    for name in tables:
        if not NAME_PATTERN.match(name):
            raise ValueError(f"table name {name!r} must be letters, digits, '.', '_' or '-'")
    seen: set[str] = set()
    for path in [*texts, *images]:
        if not PATH_PATTERN.match(path):
            raise ValueError(
                f"bundle path {path!r} must be relative, '/'-separated, of letters, digits, "
                "'.', '_' or '-', with no part starting with '.'"
            )
        if path in RESERVED or path.startswith("tables/") or path.endswith(".tar.gz"):
            raise ValueError(f"bundle path {path!r} is reserved for the release itself")
        if path in seen:
            raise ValueError(f"bundle path {path!r} is given twice")
        seen.add(path)


def write_table(frame: pd.DataFrame, path: Path, name: str | None = None) -> None:
    """Write a table as Parquet without the index, a declared table (``name``) with its declared
    types (``quality.schema.arrow_table``); the bytes depend only on the values and the library
    versions."""
    table = arrow_table(name, frame) if name else pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table, path, compression="snappy")


def _entry(folder: Path, relative: str, role: str) -> dict[str, Any]:
    path = folder / relative
    return {
        "path": relative,
        "role": role,
        "bytes": path.stat().st_size,
        "sha256": file_sha256(path),
    }


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def integrity_card(gates: Mapping[str, GateResult]) -> dict[str, Any]:
    """``integrity.json``: each gate with its verdict, figures and message, in gate order."""
    return {
        "format": "genstrat-integrity/1",
        "passed": all(g.passed for g in gates.values()),
        "gates": {name: gate.as_dict() for name, gate in gates.items()},
    }


def build_bundle(
    tables: Mapping[str, pd.DataFrame],
    texts: Mapping[str, str],
    images: Mapping[str, bytes],
    context: ReleaseContext,
    *,
    gates: Mapping[str, GateResult] | None = None,
    root: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """Build the release folder for these inputs under ``root`` (default: a new temporary
    folder) and return it; its name is the release id.

    ``gates`` are the verdicts of the data gates (``quality.release_gates``), recorded in the
    integrity card with the redaction scan that this function runs on the bundle's files
    (``environ``: the environment whose secret-looking values are searched for; default
    ``os.environ``). Failing gates are recorded, not raised: publishing refuses them.
    """
    check_names(tables, texts, images)
    base = root if root is not None else Path(tempfile.mkdtemp(prefix="genstrat-release-"))
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=base))
    try:
        entries = _write_data(work, tables, texts, images)
        payload = context.payload()
        scan = redaction_scan(
            [work / e["path"] for e in entries],
            environ,
            texts={"manifest.json (context)": canonical_json(payload)},
            root=work,
        )
        card = integrity_card({**dict(gates or {}), "redaction": scan})
        _write_json(work / "integrity.json", card)
        entries.append(_entry(work, "integrity.json", "integrity"))
        release_id = PLACEHOLDER  # until every file is written (releases.identity)
        manifest: dict[str, Any] = {"format": FORMAT, "release_id": release_id, **payload}
        manifest["files"] = entries
        (work / "README.md").write_text(render_readme(manifest, card, tables), encoding="utf-8")
        entries.append(_entry(work, "README.md", "readme"))
        (work / CROISSANT).write_text(croissant_json(manifest, tables), encoding="utf-8")
        entries.append(_entry(work, CROISSANT, "text"))
        report = render_report(tables, texts, images, manifest, integrity=card)
        report.update(werewolf_pages(tables, manifest, card))  # a Werewolf release's pages
        for name, content in report.items():
            (work / "report" / name).parent.mkdir(parents=True, exist_ok=True)
            (work / "report" / name).write_bytes(content)
            entries.append(_entry(work, f"report/{name}", "report"))
        (work / CITATION).write_text(render_citation(manifest), encoding="utf-8")
        entries.append(_entry(work, CITATION, "citation"))
        manifest["files"] = sorted(entries, key=lambda e: e["path"])
        manifest = bind_release_id(work, manifest)
        release_id = str(manifest["release_id"])
        _write_json(work / "manifest.json", manifest)
        members = [e["path"] for e in manifest["files"]] + ["manifest.json"]
        write_archive(work, members, work / f"{release_id}.tar.gz", prefix=release_id)
        os.chmod(work, 0o755)  # mkdtemp makes it private; a release is meant to be served
        target = base / release_id
        if target.exists():
            shutil.rmtree(target)
        os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target


def _write_data(
    work: Path,
    tables: Mapping[str, pd.DataFrame],
    texts: Mapping[str, str],
    images: Mapping[str, bytes],
) -> list[dict[str, Any]]:
    """Write the data files; return their manifest entries (tables with rows, columns and a
    content hash)."""
    entries: list[dict[str, Any]] = []
    (work / "tables").mkdir()
    for name, frame in sorted(tables.items()):
        relative = f"tables/{name}.parquet"
        write_table(frame, work / relative, name)
        entry = _entry(work, relative, "table")
        entry["rows"] = len(frame)
        entry["columns"] = [str(c) for c in frame.columns]
        entry["content_sha256"] = table_content_hash(frame)
        entries.append(entry)
    data = [("text", p, t.encode("utf-8")) for p, t in texts.items()]
    data += [("image", p, bytes(b)) for p, b in images.items()]
    for role, relative, content in sorted(data, key=lambda item: item[1]):
        path = work / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        entries.append(_entry(work, relative, role))
    return entries
