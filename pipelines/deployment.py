"""What a machine of a deployment needs, checked at start-up (``genstrat deploy check``).

A code server, a run worker, an executor step or a Dask worker reads and writes the project's
storage (``$GENSTRAT_DATA``, a folder or an fsspec URL), keeps the tournament journals and the
response cache in a POSIX working folder (``$GENSTRAT_WORK``, else the storage folder when it is
local), and, when a roster has program players, starts bubblewrap sandboxes, which need user
namespaces from the host (``assets.resources.ProjectPaths``, ``arena.programs.sandbox``). Each
check here does what the graph will do (writes, reads back and deletes a probe; takes a file
lock and opens SQLite in the working folder; starts a sandbox) and says in one line what it
found, so that a machine that cannot serve fails when it starts, with the reason, instead of
in the middle of a refresh.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sqlite3
import uuid
from dataclasses import dataclass

from assets.resources import ProjectPaths


@dataclass(frozen=True)
class Check:
    """One requirement: what was checked, and ``problem`` (one line) when it is not met."""

    name: str
    where: str
    problem: str | None = None

    def line(self) -> str:
        verdict = "ok" if self.problem is None else self.problem
        return f"{self.name}: {self.where}: {verdict}"


def _probe_name() -> str:
    return f"genstrat-check-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def check_storage(paths: ProjectPaths) -> Check:
    """Write, read back and delete a probe object at the storage root."""
    try:
        root = paths.storage_root()
    except ValueError as exc:
        return Check("storage", "GENSTRAT_DATA", str(exc))
    probe = root / f".{_probe_name()}"
    payload = b"genstrat storage probe\n"
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(payload)
        read = probe.read_bytes()
        probe.unlink()
    except Exception as exc:
        return Check(
            "storage", str(root), f"cannot write and read it ({type(exc).__name__}: {exc})"
        )
    if read != payload:
        return Check("storage", str(root), "a probe written there read back different")
    return Check("storage", str(root))


def check_working_folder(paths: ProjectPaths) -> Check:
    """Create the working folder, take an ``fcntl`` lock and write a SQLite database in it (what
    the journals and the response cache do), and remove the probes."""
    try:
        folder = paths.root_path()
    except ValueError as exc:
        return Check("working folder", "GENSTRAT_WORK", str(exc))
    probe = folder / f".{_probe_name()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(probe.with_suffix(".lock"), "a+") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            db = sqlite3.connect(probe.with_suffix(".sqlite"))
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("CREATE TABLE probe (x)")
                db.execute("INSERT INTO probe VALUES (1)")
                db.commit()
            finally:
                db.close()
    except (OSError, sqlite3.Error) as exc:
        return Check(
            "working folder",
            str(folder),
            f"not a usable POSIX folder ({type(exc).__name__}: {exc}); journals and the "
            "response cache need file locks and SQLite",
        )
    finally:
        for leftover in folder.glob(f"{probe.name}*"):
            leftover.unlink(missing_ok=True)
    return Check("working folder", str(folder))


def check_sandbox() -> Check:
    """Start the strategy-program sandbox once (bubblewrap with user namespaces)."""
    from arena.programs.sandbox import SandboxUnavailable, bubblewrap

    try:
        path = bubblewrap()
    except SandboxUnavailable as exc:
        return Check("sandbox", "bwrap", str(exc))
    return Check("sandbox", path)


def check_all(paths: ProjectPaths | None = None, *, sandbox: bool = True) -> list[Check]:
    """Every check, in the order a run meets them."""
    chosen = paths or ProjectPaths()
    checks = [check_storage(chosen), check_working_folder(chosen)]
    if sandbox:
        checks.append(check_sandbox())
    return checks
