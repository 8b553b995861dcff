"""The pull lock of a destination folder: pulls into one ``DEST`` run one at a time.

Why it exists: three pulls into one ``DEST`` used to race on ``DEST/.<id>.partial`` (a false
tamper verdict, a raw ``OSError``, a leftover partial folder). :func:`locked` holds
``DEST/.pull.lock`` with ``fcntl.flock`` (released by the OS if the process dies):

1. open ``DEST`` (created if missing) without following a symbolic link, and the lock file
   with ``O_NOFOLLOW``;
2. wait for the lock, polling, until the pull's deadline (then one line: another pull holds it);
3. check that the file locked is still ``DEST/.pull.lock`` (its holder removes it on leaving;
   a waiter that locked the removed file starts again);
4. on leaving, remove the lock file, release it, and remove ``DEST`` if this pull created it and
   left it empty, so that a refused pull leaves nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from releases.errors import OutOfTime, Refused, ReleaseFailure
from releases.safe_folder import SafeFolder
from releases.verification import Verified, verify_folder

LOCK = ".pull.lock"
POLL_S = 0.25


class Deadline(Protocol):
    """How long a pull may still take (``releases.download.Deadline``)."""

    seconds: float

    def left(self) -> float: ...


class Destination:
    """``DEST`` opened without following a link, and its pull lock held (see :func:`locked`)."""

    def __init__(self, tree: SafeFolder, created: bool) -> None:
        self.tree = tree
        self.created = created

    @property
    def where(self) -> Path:
        return self.tree.where

    def existing(self, release_id: str) -> Verified:
        """The release already in ``DEST``, verified; :class:`Refused` if it does not verify."""
        final = self.where / release_id
        try:
            verified = verify_folder(final, expected_id=release_id, follow=False)
        except ValueError as exc:
            raise Refused(
                f"{final} exists and does not verify ({exc}); remove it and pull again"
            ) from None
        return Verified(release_id, final, verified.files, verified.bytes)


def _lock_file(dest: Path, tree: SafeFolder) -> int | None:
    """An open descriptor of ``DEST/.pull.lock`` (``None`` if ``DEST`` vanished meanwhile)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(LOCK, flags, 0o644, dir_fd=tree.fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if os.path.islink(dest / LOCK):
            raise Refused(
                f"refused to pull into {dest}: {dest / LOCK} is a symbolic link; refusing to "
                "follow it; nothing was written (remove the link and pull again)"
            ) from None
        raise ReleaseFailure(f"cannot write the pull lock {dest / LOCK}: {exc.strerror}") from None


def _acquire(fd: int, deadline: Deadline) -> bool:
    """Wait for the lock on ``fd`` until the deadline; whether it was acquired."""
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        left = deadline.left()
        if left <= 0:
            return False
        time.sleep(min(POLL_S, left))


@contextlib.contextmanager
def locked(dest: Path, deadline: Deadline) -> Iterator[Destination]:
    """Hold ``DEST``'s pull lock, creating ``DEST`` if needed; on leaving, remove the lock file
    (holders check that the file they locked is still the lock file, so removing it is safe)
    and ``DEST`` if this pull created it and left it empty."""
    while True:
        created = not os.path.lexists(dest)
        try:
            tree = SafeFolder.open(dest, follow=False, create=True)
        except Refused as exc:
            raise Refused(
                f"refused to pull into {dest}: {exc}; nothing was written (pull elsewhere)"
            ) from None
        except OSError as exc:
            raise ReleaseFailure(f"cannot write to {dest}: {exc.strerror}") from None
        fd = _lock_file(dest, tree)
        if fd is None:
            tree.close()
            continue
        if not _acquire(fd, deadline):
            os.close(fd)
            tree.close()
            raise OutOfTime(
                f"another pull into {dest} held its lock ({LOCK}) past this pull's deadline of "
                f"{deadline.seconds:g} s (--deadline); nothing was written"
            )
        try:
            now = os.stat(LOCK, dir_fd=tree.fd, follow_symlinks=False)
        except FileNotFoundError:
            now = None
        mine = os.fstat(fd)
        if now is not None and (now.st_ino, now.st_dev) == (mine.st_ino, mine.st_dev):
            break
        os.close(fd)  # the holder removed the file we waited on: lock the one there now
        tree.close()
    try:
        yield Destination(tree, created)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(LOCK, dir_fd=tree.fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        if created and tree.is_empty():
            with contextlib.suppress(OSError):
                os.rmdir(dest)
        tree.close()
