"""An attacker's release store on 127.0.0.1, forged releases, and a measured ``genstrat`` run.

- :func:`hostile` serves a store folder like ``support.serve`` (with ``Range``), except that the
  paths given in ``faults`` are answered by a fault: a file larger than declared (with or
  without ``Content-Length``), an endless body, a byte every few seconds, a redirect, silence
  after the headers. Every GET can also be slowed (``delay_s``) so that pulls overlap.
- :func:`forge_consistently` rewrites a published release the way an attacker with write
  access to the store would: new file bytes with matching manifest entries, a rebuilt archive,
  an index that agrees.
- :func:`reseal` makes a crafted release that verifies: files and manifest keys changed at will,
  a fresh id derived, the archive rebuilt (what a release's author, rather than a tamperer,
  can do: the id covers the contents, whatever they are).
- :func:`run_genstrat` runs the CLI in a child process and reports its exit status, output,
  peak resident memory (``getrusage(RUSAGE_CHILDREN)`` in a small launcher whose only child it
  is, see :data:`LAUNCHER`) and wall time.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import http.server
import json
import os
import struct
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from releases.archive import member_header, write_archive
from releases.identity import PLACEHOLDER, bind_release_id
from releases.store import find_entry, read_index, write_index
from tests.releases.support import RangeHandler, RequestLog
from tests.support import REPO_ROOT

Fault = Callable[[http.server.BaseHTTPRequestHandler, Path], None]
"""Answers one request, given the handler and the file the path names in the store."""


def _stream(handler: http.server.BaseHTTPRequestHandler, data: bytes) -> bool:
    """Write ``data`` to the client, counted in the log's ``sent`` once written; False once the
    client went away (that is what a refusal looks like from here)."""
    try:
        handler.wfile.write(data)
        handler.wfile.flush()
    except OSError:
        return False
    log = cast(RangeHandler, handler).log
    log.sent[handler.path] = log.sent.get(handler.path, 0) + len(data)
    return True


def oversized(extra: int, *, declare: bool) -> Fault:
    """The true file, then ``extra`` zero bytes; ``Content-Length`` of the whole if ``declare``,
    else a body that ends when the connection closes."""

    def answer(handler: http.server.BaseHTTPRequestHandler, path: Path) -> None:
        data = path.read_bytes()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/octet-stream")
        if declare:
            handler.send_header("Content-Length", str(len(data) + extra))
        else:
            handler.close_connection = True
        handler.end_headers()
        if not _stream(handler, data):
            return
        block = bytes(1 << 20)
        left = extra
        while left > 0:
            if not _stream(handler, block[: min(left, len(block))]):
                return
            left -= len(block)

    return answer


def endless(prefix: bytes, total: int) -> Fault:
    """``prefix`` and spaces up to ``total`` bytes, without ``Content-Length``."""

    def answer(handler: http.server.BaseHTTPRequestHandler, path: Path) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.close_connection = True
        handler.end_headers()
        if not _stream(handler, prefix):
            return
        block = b" " * (1 << 20)
        left = total - len(prefix)
        while left > 0:
            if not _stream(handler, block[: min(left, len(block))]):
                return
            left -= len(block)

    return answer


def drip(interval_s: float, stop: threading.Event) -> Fault:
    """The true file's headers, then one byte every ``interval_s`` (until ``stop``)."""

    def answer(handler: http.server.BaseHTTPRequestHandler, path: Path) -> None:
        data = path.read_bytes()
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        for k in range(len(data)):
            if stop.wait(interval_s) or not _stream(handler, data[k : k + 1]):
                return

    return answer


def silent(stop: threading.Event) -> Fault:
    """Headers with the true length, then nothing (until ``stop``)."""

    def answer(handler: http.server.BaseHTTPRequestHandler, path: Path) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(path.stat().st_size))
        handler.end_headers()
        _stream(handler, b"")
        stop.wait(120)

    return answer


def redirect(location: str) -> Fault:
    """``302 Found`` to ``location``."""

    def answer(handler: http.server.BaseHTTPRequestHandler, path: Path) -> None:
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        return None  # a client that hangs up on a hostile answer is the expected outcome


@contextlib.contextmanager
def hostile(
    folder: Path, faults: Mapping[str, Fault] | None = None, *, delay_s: float = 0.0
) -> Iterator[tuple[str, RequestLog]]:
    """Serve ``folder`` on 127.0.0.1 with ``faults`` by URL path (``/index.json``, ...)."""
    log = RequestLog()
    chosen = dict(faults or {})

    class Handler(RangeHandler):
        def do_GET(self) -> None:
            if delay_s:
                time.sleep(delay_s)
            fault = chosen.get(self.path)
            if fault is None:
                super().do_GET()
                return
            self.log.paths.append(self.path)
            fault(self, Path(self.translate_path(self.path)))

    Handler.log = log
    server = _Server(("127.0.0.1", 0), functools.partial(Handler, directory=os.fspath(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", log
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def forge_consistently(
    store: Path,
    release_id: str,
    files: Mapping[str, bytes],
    *,
    role: str = "readme",
    archive_extra: Mapping[str, bytes] | None = None,
) -> None:
    """Write ``files`` into the release (new or replaced) and make the manifest's entries, the
    archive and the index agree with them, keeping the release id (what an attacker with write
    access to the store does). ``archive_extra`` adds members to the archive only."""
    folder = store / release_id
    manifest = json.loads((folder / "manifest.json").read_text())
    entries = {e["path"]: e for e in manifest["files"]}
    for relative, data in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        entry = entries.setdefault(relative, {"path": relative, "role": role})
        entry.pop("id_offsets", None)
        entry.pop("sha256_without_id", None)
        entry.update(bytes=len(data), sha256=_sha256(path))
    manifest["files"] = sorted(entries.values(), key=lambda e: e["path"])
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    members = [*entries, "manifest.json"]
    with tempfile.TemporaryDirectory() as scratch:
        for relative, data in (archive_extra or {}).items():
            (Path(scratch) / relative).parent.mkdir(parents=True, exist_ok=True)
            (Path(scratch) / relative).write_bytes(data)
        for relative in members:
            (Path(scratch) / relative).parent.mkdir(parents=True, exist_ok=True)
            (Path(scratch) / relative).write_bytes((folder / relative).read_bytes())
        write_archive(
            Path(scratch),
            [*members, *(archive_extra or {})],
            folder / f"{release_id}.tar.gz",
            prefix=release_id,
        )
    index = read_index(store)
    entry = find_entry(index, release_id)
    assert entry is not None
    archive = folder / f"{release_id}.tar.gz"
    entry["manifest_sha256"] = _sha256(folder / "manifest.json")
    entry["archive"] = {
        "path": f"{release_id}/{archive.name}",
        "sha256": _sha256(archive),
        "bytes": archive.stat().st_size,
    }
    write_index(store, index)


def archive_with_a_huge_member(folder: Path, target: Path, size: int) -> None:
    """A small ``.tar.gz`` whose first listed member declares ``size`` bytes of zeros (the
    zeros as many 1 MiB gzip members, so that it stays small and is quick to make)."""
    release_id = folder.name
    manifest = (folder / "manifest.json").read_bytes()
    first = sorted(json.loads(manifest)["files"], key=lambda e: e["path"])[0]
    head = member_header(f"{release_id}/manifest.json", len(manifest)) + manifest
    head += bytes(-len(manifest) % 512)
    head += member_header(f"{release_id}/{first['path']}", size)
    zeros = gzip.compress(bytes(1 << 20), compresslevel=9, mtime=0)
    with target.open("wb") as raw:
        raw.write(gzip.compress(head, compresslevel=9, mtime=0))
        for _ in range(size >> 20):
            raw.write(zeros)


def reseal(
    folder: Path,
    root: Path,
    files: Mapping[str, bytes | None] | None = None,
    context: Mapping[str, Any] | None = None,
    *,
    entries: Mapping[str, Mapping[str, Any]] | None = None,
    zeros: Mapping[str, int] | None = None,
) -> Path:
    """A release like the one in ``folder``, sealed afresh under ``root/<its new id>`` with a
    manifest, an id and an archive that verify: ``files`` written (``None``: left out), the
    manifest's ``context`` keys set, the keys of ``entries`` set in the file entries they name,
    and each file of ``zeros`` that many zero bytes (a whole number of MiB; sparse on disk, and
    in the archive as repeated compressed blocks: a 2 GiB file makes a 2 MB archive in
    seconds). Files that named the old id name the new one."""
    manifest = json.loads((folder / "manifest.json").read_text())
    old_id = manifest["release_id"]
    changes = dict(files or {})
    big = dict(zeros or {})
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".reseal-", dir=root))
    listed = []
    for entry in manifest["files"]:
        relative = entry["path"]
        if relative in changes or relative in big:
            continue
        data = (folder / relative).read_bytes().replace(old_id.encode(), PLACEHOLDER.encode())
        (work / relative).parent.mkdir(parents=True, exist_ok=True)
        (work / relative).write_bytes(data)
        kept = {k: v for k, v in entry.items() if k not in ("id_offsets", "sha256_without_id")}
        listed.append(kept)
    for relative, data in [*changes.items(), *((r, b"") for r in big)]:
        if data is None:
            continue
        (work / relative).parent.mkdir(parents=True, exist_ok=True)
        (work / relative).write_bytes(data)
        listed.append(
            {"path": relative, "role": "table" if relative.startswith("tables/") else "text"}
        )
    for relative, size in big.items():
        assert size % (1 << 20) == 0, "zeros come in whole MiB"
        with (work / relative).open("r+b") as handle:
            handle.truncate(size)
    for entry in listed:
        entry.update((entries or {}).get(entry["path"], {}))
    draft = {k: v for k, v in manifest.items() if k not in ("release_id", "files")}
    draft.update(context or {})
    draft["release_id"] = PLACEHOLDER
    draft["files"] = sorted(listed, key=lambda e: e["path"])
    sealed = bind_release_id(work, draft)
    release_id = str(sealed["release_id"])
    (work / "manifest.json").write_text(json.dumps(sealed, indent=2, sort_keys=True) + "\n")
    members = [e["path"] for e in sealed["files"]] + ["manifest.json"]
    archive = work / f"{release_id}.tar.gz"
    if big:
        _archive_with_zeros(work, members, archive, release_id, big)
    else:
        write_archive(work, members, archive, prefix=release_id)
    target = root / release_id
    work.rename(target)
    return target


def _archive_with_zeros(
    folder: Path, members: list[str], target: Path, prefix: str, zeros: Mapping[str, int]
) -> None:
    """What ``write_archive`` writes, once unzipped, but with each file of ``zeros`` written as
    one compressed MiB of zeros repeated (full-flushed deflate blocks stand alone), so that
    gigabytes of zeros take seconds; the gzip trailer's CRC-32 and size are the whole stream's."""
    mib = bytes(1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed_mib = packer.compress(mib) + packer.flush(zlib.Z_FULL_FLUSH)
    ordered = ["manifest.json", *sorted(m for m in members if m != "manifest.json")]
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    crc, total, offset = 0, 0, 0
    with target.open("wb") as out:
        out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff")  # no name, mtime 0

        def feed(data: bytes) -> None:
            nonlocal crc, total
            crc = zlib.crc32(data, crc)
            total += len(data)
            out.write(compressor.compress(data))

        for relative in ordered:
            size = (folder / relative).stat().st_size
            header = member_header(f"{prefix}/{relative}", size)
            feed(header)
            if relative in zeros:
                out.write(compressor.flush(zlib.Z_FULL_FLUSH))
                for _ in range(size >> 20):
                    crc = zlib.crc32(mib, crc)
                    out.write(packed_mib)
                total += size
            else:
                feed((folder / relative).read_bytes())
            padding = -size % 512
            feed(bytes(padding))
            offset += len(header) + size + padding
        feed(bytes(2 * 512 + (-(offset + 2 * 512) % tarfile.RECORDSIZE)))
        out.write(compressor.flush())
        out.write(struct.pack("<II", crc & 0xFFFFFFFF, total & 0xFFFFFFFF))


@dataclass(frozen=True)
class Measured:
    """A finished ``genstrat`` child: exit status, output, peak RSS (MiB), wall time (s, shown,
    never asserted) and CPU time (s, user and system)."""

    status: int
    out: str
    err: str
    rss_mib: float
    seconds: float
    cpu_s: float


# Linux carries a process's peak RSS across fork and exec, so a child of the test process
# reports at least the test process's own RSS. A small launcher starts ``genstrat`` and reads
# its only child's peak with getrusage(RUSAGE_CHILDREN): the launcher is small, so the figure is
# the child's own.
LAUNCHER = """
import resource, subprocess, sys, threading
report, timeout, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
child = subprocess.Popen(argv)
timer = threading.Timer(timeout, child.kill)
timer.start()
status = child.wait()
timer.cancel()
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(report, "w") as out:
    out.write(f"{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}")
sys.exit(status)
"""


def run_genstrat(args: list[str], timeout_s: float = 120.0) -> Measured:
    """Run ``genstrat ARGS`` in a child process (killed after ``timeout_s``) and measure it."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "rss"
        argv = [sys.executable, "-m", "pipelines.cli", *args]
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", LAUNCHER, str(report), str(timeout_s), *argv],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s + 30,
            check=False,
        )
        seconds = time.monotonic() - started
        rss_kib, cpu_s = report.read_text().split()  # KiB on Linux
    return Measured(
        done.returncode, done.stdout, done.stderr, int(rss_kib) / 1024, seconds, float(cpu_s)
    )


def leftovers(dest: Path) -> list[str]:
    """What a pull left in ``dest``, hidden files included (``[]`` if ``dest`` is gone)."""
    if not dest.exists():
        return []
    return sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*"))


def manifest_of(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / "manifest.json").read_text())
    return loaded
