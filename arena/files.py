"""Writing a file that others read: atomically, durably, and readable by them.

Every table, journal index and release index the project writes goes through ``atomic_write``:
the content is written to a temporary file beside the target, flushed and fsynced, given mode
0644 (``mkstemp`` creates files 0600, which locks out readers running as another user on a
shared filesystem, see docs/DEPLOY.md), moved over the target with one ``os.replace`` (a reader
sees the old file or the new one, never half of one), and the directory entry is fsynced.  A
failure at any point removes the temporary file and leaves the target as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

FILE_MODE = 0o644
DIRECTORY_MODE = 0o755


def make_directory(path: Path) -> None:
    """``path`` and its parents, created 0755 where missing (whatever the process umask)."""
    missing = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir()
            os.chmod(folder, DIRECTORY_MODE)


def fsync_directory(folder: Path) -> None:
    """Make a rename inside ``folder`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, write: Callable[[IO[bytes]], object]) -> int:
    """Write ``path`` through ``write(handle)`` (see the module docstring); return its size."""
    make_directory(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_directory(path.parent)
    return path.stat().st_size


def atomic_write_text(path: Path, text: str) -> int:
    """``atomic_write`` of UTF-8 text."""
    return atomic_write(path, lambda handle: handle.write(text.encode("utf-8")))
