"""The redaction scan: no credential and no path of the publishing machine may leave in a
release.

Why it exists: a release is public, and the tournament handles API keys (the roster names the
environment variable of each key, never the key). A key can still leak: pasted into a request
setting, echoed by a provider into a raw response, or written into a log line. GameBench 2's
integrity card (Section 3) records that "the redaction scan passed"; so does ours.

The scan looks for four things in every file of a bundle:

1. well-known credential shapes (:data:`PATTERNS`: OpenAI/Anthropic ``sk-…``, Google ``AIza…``,
   bearer tokens, GitHub, AWS, Slack and Hugging Face tokens, PEM private keys);
2. the values of environment variables whose names look secret (``*_KEY``, ``*_TOKEN``,
   ``*_SECRET``, ``*_PASSWORD``), whatever their shape; values shorter than
   :data:`MIN_SECRET_CHARS` are ignored, since they would match ordinary text;
3. URL credentials (:data:`USERINFO`: ``scheme://user:password@host``, or a token as the user),
   e.g. from a roster's ``base_url`` (issue 43);
4. absolute paths of the publishing machine (:class:`HostPaths`: its home folder, the project
   folder, the data folder, the Dagster home, the release store, the working folder and anything
   under the temporary folder), e.g. a strategy program's file or a crash reason that read the
   mount table (issue 43). A path is a hit only as a whole path component (``/root`` does not
   hit ``/rooted``), and a folder that is ``/`` itself is never searched for.

Parquet files are scanned both as bytes and as decoded values (their pages are compressed, so
a key inside a table is invisible in the raw bytes); ``.gz`` files are decompressed first. The
result names the file and the pattern, the variable or the kind of folder, never the secret or
the path itself (the integrity card that records it is published). The same matchers scrub
what a release publishes (``releases.contents``): :meth:`HostPaths.scrub`, :func:`strip_userinfo`
and :func:`scrub_paths`.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import pwd
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.secrets import CREDENTIAL_SHAPES, MIN_SECRET_CHARS, SECRET_NAME, WORD_START
from quality.gates import GateResult

# The credential shapes and secret-looking variable names are the harness's (arena.secrets), so
# that what the tournament redacts and what the release scan searches for are one list.
PATTERNS: dict[str, re.Pattern[bytes]] = {
    name: re.compile((WORD_START + shape).encode("utf-8"))
    for name, shape in CREDENTIAL_SHAPES.items()
}


PROJECT_ROOT = Path(__file__).resolve().parents[1]

USERINFO_TEXT = r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s/?#\"'<>\\]+@"
"""A URL with credentials before its host (``http://user:pass@host``, ``https://token@host``):
the scheme, ``://``, then an ``@`` before the authority ends (the last one: a password may hold
``@``)."""
USERINFO = re.compile(USERINFO_TEXT.encode("ascii"))
_USERINFO_TEXT = re.compile(USERINFO_TEXT)

# A path component's characters. A general absolute path starts at a "/" that follows no letter,
# digit or path character, or follows "://" (a file:///path URL), and is followed by a letter or
# digit (so "http://host/v1" and "1/2" hold none); a folder of this machine may also follow "/"
# (file:////path).
_NAME = r"[\w.~+@-]"
_PATH_START = r"(?:(?<![\w.~+@/\\-])|(?<=://))/\w"
ABSOLUTE_PATH = re.compile(_PATH_START + _NAME + r"*(?:/" + _NAME + r"*)*")
"""Any absolute POSIX path in text (``/proc/self/mountinfo``, ``/dev/vda``)."""
_HOST_BEFORE = r"(?<![\w.~+@\\-])"
REDACTED_PATH = "<path>"

# What the scan calls each folder of the publishing machine, and the label the scrubbed text
# shows in its place.
HOST_FOLDERS: dict[str, tuple[str, str]] = {
    "GENSTRAT_DATA": ("<data>", "the data folder ($GENSTRAT_DATA)"),
    "DAGSTER_HOME": ("<dagster-home>", "the Dagster home ($DAGSTER_HOME)"),
    "GENSTRAT_RELEASES": ("<release-store>", "the release store ($GENSTRAT_RELEASES)"),
    "HOME": ("<home>", "the home folder"),
}


@dataclass(frozen=True)
class HostPath:
    """A folder of the publishing machine: its path, the label scrubbed text shows instead, and
    what the scan calls it; ``inside``: only paths below it count (the temporary folder)."""

    path: str
    label: str
    what: str
    inside: bool = False


class HostPaths:
    """The absolute paths of the publishing machine that no released file may hold, and the
    matchers that find and scrub them (longest first, so that the project folder inside the
    home folder is named as the project folder)."""

    def __init__(self, folders: Iterable[HostPath]) -> None:
        unique: dict[str, HostPath] = {}
        for folder in folders:
            path = folder.path.rstrip("/")
            if path.startswith("/") and path not in unique:  # "/" itself is "" here
                unique[path] = HostPath(path, folder.label, folder.what, folder.inside)
        self.folders = sorted(unique.values(), key=lambda f: (-len(f.path), f.path))
        # One group per folder (``lastindex`` says which matched): a folder as a whole path (not
        # followed by a path character), or, for ``inside``, a path below it.
        parts = [
            f"({re.escape(f.path)})" + (f"(?=/{_NAME})" if f.inside else f"(?!{_NAME})")
            for f in self.folders
        ]
        text = _HOST_BEFORE + "(?:" + "|".join(parts) + ")"
        self._text = re.compile(text) if parts else None
        self._bytes = re.compile(text.encode("utf-8")) if parts else None

    @classmethod
    def of(cls, environ: Mapping[str, str] | None = None) -> HostPaths:
        """This machine's folders: the project folder, the working folder, the temporary folder,
        the user's home (from the password database, and ``$HOME``), and the folders that
        ``$GENSTRAT_DATA``, ``$DAGSTER_HOME`` and ``$GENSTRAT_RELEASES`` name (``environ``,
        default ``os.environ``); each also as its real path, when that differs."""
        env = os.environ if environ is None else environ
        found: list[HostPath] = [
            HostPath(str(PROJECT_ROOT), "<project>", "the project folder"),
            HostPath(os.getcwd(), "<cwd>", "the working folder"),
            HostPath(tempfile.gettempdir(), "<tmp>", "the temporary folder", inside=True),
        ]
        with contextlib.suppress(KeyError):  # a user with no entry in the password database
            found.append(HostPath(pwd.getpwuid(os.getuid()).pw_dir, *HOST_FOLDERS["HOME"]))
        for variable, (label, what) in HOST_FOLDERS.items():
            value = env.get(variable, "").strip()
            if value:
                found.append(HostPath(os.path.abspath(os.path.expanduser(value)), label, what))
        with_real = list(found)
        for folder in found:
            real = os.path.realpath(folder.path)
            if real != folder.path:
                with_real.append(HostPath(real, folder.label, folder.what, folder.inside))
        return cls(with_real)

    def find(self, data: bytes) -> list[str]:
        """What kinds of this machine's folders ``data`` names (``the home folder``, ...)."""
        if self._bytes is None:
            return []
        found = {m.lastindex for m in self._bytes.finditer(data) if m.lastindex}
        return [f"an absolute path of {self.folders[k - 1].what}" for k in sorted(found)]

    def scrub(self, text: str) -> str:
        """``text`` with each of this machine's folders replaced by its label
        (``/home/ann/genstrat/x.py`` -> ``<project>/x.py``)."""
        if self._text is None:
            return text
        return self._text.sub(lambda m: self.folders[(m.lastindex or 1) - 1].label, text)


def strip_userinfo(text: str, replacement: str = "") -> str:
    """``text`` with the credentials of every URL in it replaced (``http://u:p@host`` ->
    ``http://host``, or ``replacement`` + ``@``: ``http://[redacted]@host``)."""

    def keep_scheme(match: re.Match[str]) -> str:
        scheme = match.group(0).split("://", 1)[0]
        return f"{scheme}://{replacement}@" if replacement else f"{scheme}://"

    return _USERINFO_TEXT.sub(keep_scheme, text)


def scrub_paths(text: str, host: HostPaths) -> str:
    """``text`` with every absolute path replaced by :data:`REDACTED_PATH`, then this machine's
    folders where the general pattern does not reach (after a ``:`` or a ``/``), for what a
    program or an error says: a crash reason may quote the mount table or the kernel command
    line."""
    return host.scrub(ABSOLUTE_PATH.sub(REDACTED_PATH, text))


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


def find_secrets(
    data: bytes, secrets: Mapping[str, bytes], host: HostPaths | None = None
) -> list[str]:
    """What in ``data`` looks like a credential or names this machine: pattern names, secret
    variable names, ``URL credentials``, and the kinds of ``host`` folders it names."""
    found = [name for name, pattern in PATTERNS.items() if pattern.search(data)]
    found += [f"the value of ${name}" for name, value in secrets.items() if value in data]
    if USERINFO.search(data):
        found.append("URL credentials (user:password@host)")
    if host is not None:
        found += host.find(data)
    return found


def redaction_scan(
    files: Iterable[Path],
    environ: Mapping[str, str] | None = None,
    texts: Mapping[str, str] | None = None,
    root: Path | None = None,
    host: HostPaths | None = None,
) -> GateResult:
    """Gate: no file in ``files`` (and no text in ``texts``, keyed by a label) holds a
    credential pattern, the value of a secret-looking environment variable, a URL with
    credentials or an absolute path of this machine (``host``, default
    :meth:`HostPaths.of` ``environ``).

    ``environ`` defaults to ``os.environ``; ``root`` shortens the file names in messages.
    """
    secrets = secret_values(os.environ if environ is None else environ)
    host = HostPaths.of(environ) if host is None else host
    hits: list[str] = []
    scanned = 0
    for path in sorted(files):
        scanned += 1
        label = path.relative_to(root).as_posix() if root else str(path)
        found = sorted(
            {hit for view in file_views(path) for hit in find_secrets(view, secrets, host)}
        )
        hits.extend(f"{label}: {hit}" for hit in found)
    for label, text in sorted((texts or {}).items()):
        scanned += 1
        found = sorted(set(find_secrets(text.encode("utf-8"), secrets, host)))
        hits.extend(f"{label}: {hit}" for hit in found)
    # No figure depends on the environment (such as how many secret variables were set): the
    # integrity card is part of the release id, which must not change from machine to machine.
    figures = {"scanned": scanned, "patterns": len(PATTERNS), "findings": len(hits)}
    if hits:
        return GateResult(
            False, figures, f"{len(hits)} possible credential(s) or host path(s); {hits[0]}"
        )
    return GateResult(True, figures, f"no credentials or host paths in {scanned} file(s)")
