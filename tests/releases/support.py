"""Inputs for release tests, and a release store served over HTTP on 127.0.0.1 (with Range)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from engines.gbg import ENGINE_VERSION, presets, rulebook
from quality.gates import GateResult
from releases.bundle import ReleaseContext


def reference_table() -> pd.DataFrame:
    """The preset games as the ``reference_games`` asset stores them."""
    rows = []
    for name, make_spec in presets.PRESETS.items():
        spec = make_spec()
        text = rulebook(spec)
        rows.append(
            {
                "name": name,
                "spec_hash": spec.spec_hash,
                "spec_json": spec.canonical_json(),
                "rulebook": text,
                "rulebook_chars": len(text),
                "engine_version": ENGINE_VERSION,
            }
        )
    return pd.DataFrame(rows)


def sample_inputs(
    extra_rows: int = 0,
) -> tuple[dict[str, pd.DataFrame], dict[str, str], dict[str, bytes], ReleaseContext]:
    """A small release: two tables, rulebooks, one image, a context (fixed code version)."""
    reference = reference_table()
    scores = pd.DataFrame(
        {
            "model": [f"bot-{k}" for k in range(3 + extra_rows)],
            "alpha": [0.5 * k - 0.5 for k in range(3 + extra_rows)],
            "when": pd.to_datetime(["2026-01-01T00:00:00Z"] * (3 + extra_rows)),
        }
    )
    texts = {
        f"rulebooks/{n}.md": t
        for n, t in zip(reference["name"], reference["rulebook"], strict=True)
    }
    images = {"plots/blank.png": b"\x89PNG\r\n\x1a\n" + bytes(range(64))}
    context = ReleaseContext(
        profile="demo",
        profile_settings={"seed_count": 300},
        roster=[{"name": "random", "kind": "builtin", "settings": {"temperature": 0}}],
        generation_configs={"generator_version": 1},
        results={"counted_matches": 0, "superseded_matches": 0},
        code_version="test-code",
    )
    return {"reference_games": reference, "scores": scores}, texts, images, context


PASSING: dict[str, GateResult] = {"zero_sum": GateResult(True, {"matches": 0}, "ok")}


@dataclass
class RequestLog:
    """What the test server was asked (paths and Range headers) and, for the hostile answers
    of ``tests.releases.hostile``, how many bytes of each path's body reached the socket."""

    paths: list[str] = field(default_factory=list)
    ranges: list[str] = field(default_factory=list)
    sent: dict[str, int] = field(default_factory=dict)


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """A static file server that honours ``Range: bytes=N-`` (206) and logs requests."""

    log: RequestLog

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def send_head(self):  # type: ignore[no-untyped-def]
        self.log.paths.append(self.path)
        header = self.headers.get("Range")
        path = Path(self.translate_path(self.path))
        match = re.fullmatch(r"bytes=(\d+)-", header or "")
        if not match or not path.is_file():
            return super().send_head()
        self.log.ranges.append(header or "")
        start = int(match.group(1))
        size = path.stat().st_size
        handle = path.open("rb")
        handle.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.send_header("Content-Length", str(size - start))
        self.end_headers()
        return handle


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[tuple[str, RequestLog]]:
    """Serve ``folder`` on 127.0.0.1 (a free port) in a thread; yield its URL and request log."""
    log = RequestLog()
    handler = type("Handler", (RangeHandler,), {"log": log})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=os.fspath(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", log
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (except the lock) with its bytes, for before/after checks."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }
