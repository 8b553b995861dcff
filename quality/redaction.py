"""The redaction scan: no credential may leave in a release.

Why it exists: a release is public, and the tournament handles API keys (the roster names the
environment variable of each key, never the key). A key can still leak: pasted into a request
setting, echoed by a provider into a raw response, or written into a log line. GameBench 2's
integrity card (Section 3) records that "the redaction scan passed"; so does ours.

The scan looks for two things in every file of a bundle:

1. well-known credential shapes (:data:`PATTERNS`: OpenAI/Anthropic ``sk-…``, Google ``AIza…``,
   bearer tokens, GitHub, AWS, Slack and Hugging Face tokens, PEM private keys);
2. the values of environment variables whose names look secret (``*_KEY``, ``*_TOKEN``,
   ``*_SECRET``, ``*_PASSWORD``), whatever their shape; values shorter than
   :data:`MIN_SECRET_CHARS` are ignored, since they would match ordinary text.

Parquet files are scanned both as bytes and as decoded values (their pages are compressed, so
a key inside a table is invisible in the raw bytes); ``.gz`` files are decompressed first. The
result names the file and the pattern or the variable, never the secret itself.
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from arena.secrets import CREDENTIAL_SHAPES, MIN_SECRET_CHARS, SECRET_NAME, WORD_START
from quality.gates import GateResult

# The credential shapes and secret-looking variable names are the harness's (arena.secrets), so
# that what the tournament redacts and what the release scan searches for are one list.
PATTERNS: dict[str, re.Pattern[bytes]] = {
    name: re.compile((WORD_START + shape).encode("utf-8"))
    for name, shape in CREDENTIAL_SHAPES.items()
}


def secret_values(environ: Mapping[str, str]) -> dict[str, bytes]:
    """``{variable name: value}`` for the environment variables whose names look secret."""
    return {
        name: value.encode("utf-8")
        for name, value in sorted(environ.items())
        if SECRET_NAME.search(name) and len(value.strip()) >= MIN_SECRET_CHARS
    }


def _parquet_text(path: Path) -> bytes:
    """Every non-numeric value of a Parquet table, as text, one per line."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    parts: list[str] = []
    for column in table.columns:
        kind = column.type
        if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
            continue
        parts.extend(str(v) for v in column.to_pylist() if v is not None)
    return "\n".join(parts).encode("utf-8", errors="replace")


def file_views(path: Path) -> list[bytes]:
    """The byte views of a file that the scan searches."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        try:
            return [raw, gzip.decompress(raw)]
        except (OSError, EOFError):
            return [raw]
    if path.suffix == ".parquet":
        try:
            return [raw, _parquet_text(path)]
        except Exception:  # not readable as Parquet: the raw bytes are still scanned
            return [raw]
    return [raw]


def find_secrets(data: bytes, secrets: Mapping[str, bytes]) -> list[str]:
    """What in ``data`` looks like a credential: pattern names and secret variable names."""
    found = [name for name, pattern in PATTERNS.items() if pattern.search(data)]
    found += [f"the value of ${name}" for name, value in secrets.items() if value in data]
    return found


def redaction_scan(
    files: Iterable[Path],
    environ: Mapping[str, str] | None = None,
    texts: Mapping[str, str] | None = None,
    root: Path | None = None,
) -> GateResult:
    """Gate: no file in ``files`` (and no text in ``texts``, keyed by a label) holds a
    credential pattern or the value of a secret-looking environment variable.

    ``environ`` defaults to ``os.environ``; ``root`` shortens the file names in messages.
    """
    secrets = secret_values(os.environ if environ is None else environ)
    hits: list[str] = []
    scanned = 0
    for path in sorted(files):
        scanned += 1
        label = path.relative_to(root).as_posix() if root else str(path)
        found = sorted({hit for view in file_views(path) for hit in find_secrets(view, secrets)})
        hits.extend(f"{label}: {hit}" for hit in found)
    for label, text in sorted((texts or {}).items()):
        scanned += 1
        hits.extend(f"{label}: {hit}" for hit in find_secrets(text.encode("utf-8"), secrets))
    # No figure depends on the environment (such as how many secret variables were set): the
    # integrity card is part of the release id, which must not change from machine to machine.
    figures = {"scanned": scanned, "patterns": len(PATTERNS), "findings": len(hits)}
    if hits:
        return GateResult(False, figures, f"{len(hits)} possible credential(s); {hits[0]}")
    return GateResult(True, figures, f"no credentials in {scanned} file(s)")
