"""Attestation hashing: SHA-256 of files and of table contents, and the manifest check.

Why it exists: a release is cited by its id and trusted through its hashes (GameBench 2,
Section 3: "hashes bind the results cut to the frozen copy of the store it was built from").
Two hashes per table serve two readers:

- the file hash (SHA-256 of the Parquet bytes), which ``sha256sum`` reproduces and which every
  download is checked against;
- the content hash (SHA-256 of a canonical JSON-lines rendering of the values), which survives a
  re-encoding of the table (another Parquet writer, a CSV export) and which anyone can recompute
  from the rows alone.

:func:`file_problems` recomputes the hashes of a folder's files against a list of manifest
entries and reports every difference as one line, in a fixed order; the release verifier and
the ``manifest_hashes`` gate both use it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from quality.gates import GateResult

CHUNK = 1 << 20


def bytes_sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: the one rendering every hash of a JSON value is taken of."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _plain(value: Any) -> Any:
    """A table cell as a JSON value: null for missing, ISO text for times, hex for bytes."""
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, pd.Timestamp | dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, pd.Timedelta | dt.timedelta):
        return pd.Timedelta(value).isoformat()
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray | list | tuple):
        return [_plain(v) for v in value]
    if value is pd.NA:
        return None
    return str(value)


def table_content_hash(frame: pd.DataFrame) -> str:
    """SHA-256 of a table's values, independent of how the table is encoded on disk.

    Steps: render the column names as a JSON array on the first line, then each row as a JSON
    array of its cells (missing values as null, floats in shortest round-trip form, times as
    ISO 8601, bytes as hex, nested lists and mappings recursively), one row per line; hash the
    UTF-8 text. The index is not part of the content.
    """
    digest = hashlib.sha256()
    columns = [str(c) for c in frame.columns]
    digest.update((canonical_json(columns) + "\n").encode("utf-8"))
    values = [frame.iloc[:, k].tolist() for k in range(frame.shape[1])]
    for row in zip(*values, strict=True):
        line = canonical_json([_plain(v) for v in row])
        digest.update((line + "\n").encode("utf-8"))
    return digest.hexdigest()


def file_problems(
    folder: Path, entries: Sequence[Mapping[str, Any]], allowed_extra: Iterable[str] = ()
) -> list[str]:
    """Every way the files under ``folder`` differ from ``entries``, one line each.

    Each entry has ``path`` (relative, ``/``-separated), ``bytes`` and ``sha256``. The order is
    fixed: the listed files in the order given (missing, size, then hash), then files present but
    not listed (sorted), except ``allowed_extra``.
    """
    problems: list[str] = []
    listed = set()
    for entry in entries:
        relative = str(entry["path"])
        listed.add(relative)
        path = folder / relative
        if not path.is_file():
            problems.append(f"missing file {relative} (listed in manifest.json)")
            continue
        size = path.stat().st_size
        if size != int(entry["bytes"]):
            problems.append(
                f"{relative}: size mismatch (manifest {entry['bytes']} bytes, file {size} bytes)"
            )
            continue
        digest = file_sha256(path)
        if digest != entry["sha256"]:
            problems.append(
                f"{relative}: SHA-256 mismatch (manifest {str(entry['sha256'])[:16]}…, "
                f"file {digest[:16]}…)"
            )
    allowed = listed | set(allowed_extra)
    present = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir())
    problems.extend(
        f"extra file {relative} (not listed in manifest.json)"
        for relative in present
        if relative not in allowed
    )
    return problems


def manifest_hashes(folder: Path, allowed_extra: Iterable[str] = ()) -> GateResult:
    """Gate: the hashes of ``folder/manifest.json`` recomputed from the files all match."""
    manifest_path = folder / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        entries = list(manifest["files"])
    except FileNotFoundError:
        return GateResult(False, {"files": 0}, f"no manifest.json in {folder}")
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        return GateResult(False, {"files": 0}, f"manifest.json is not a release manifest: {exc}")
    problems = file_problems(folder, entries, {"manifest.json", *allowed_extra})
    figures = {
        "files": len(entries),
        "bytes": sum(int(e["bytes"]) for e in entries),
        "problems": len(problems),
    }
    if problems:
        return GateResult(False, figures, problems[0])
    return GateResult(True, figures, f"all {len(entries)} file hashes match manifest.json")
