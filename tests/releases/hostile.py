"""An attacker's release store on 127.0.0.1, forged releases, and a measured ``genstrat`` run.

- :func:`hostile` serves a store folder like ``support.serve`` (with ``Range``), except that the
  paths given in ``faults`` are answered by a fault: a file larger than declared (with or
  without ``Content-Length``), an endless body, a byte every few seconds, a redirect, silence
  after the headers. Every GET can also be slowed (``delay_s``) so that pulls overlap.
- :func:`forge_consistently` rewrites a published release the way an attacker with write
  access to the store would: new file bytes with matching manifest entries, a rebuilt archive,
  an index that agrees.
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
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releases.archive import member_header, write_archive
from releases.store import find_entry, read_index, write_index
from tests.releases.support import RangeHandler, RequestLog
from tests.support import REPO_ROOT

Fault = Callable[[http.server.BaseHTTPRequestHandler, Path], None]
"""Answers one request, given the handler and the file the path names in the store."""


def _stream(handler: http.server.BaseHTTPRequestHandler, data: bytes) -> bool:
    try:
        handler.wfile.write(data)
        handler.wfile.flush()
    except OSError:  # the client went away: that is what a refusal looks like from here
        return False
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


@dataclass(frozen=True)
class Measured:
    """A finished ``genstrat`` child: exit status, output, peak RSS (MiB) and wall time (s)."""

    status: int
    out: str
    err: str
    rss_mib: float
    seconds: float


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
with open(report, "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
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
        rss_kib = int(report.read_text())  # KiB on Linux
    return Measured(done.returncode, done.stdout, done.stderr, rss_kib / 1024, seconds)


def leftovers(dest: Path) -> list[str]:
    """What a pull left in ``dest``, hidden files included (``[]`` if ``dest`` is gone)."""
    if not dest.exists():
        return []
    return sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*"))


def manifest_of(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / "manifest.json").read_text())
    return loaded
