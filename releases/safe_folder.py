"""A folder whose files are opened, created and listed without following a symbolic link.

Why it exists: ``verify`` reads a release folder and ``pull`` writes into ``DEST``; a symbolic
link planted in either (``DEST/.<id>.partial`` pointing at a system folder, ``tables`` inside a
release pointing at ``/usr/lib``) would make them read or write somewhere else. A
:class:`SafeFolder` holds an open descriptor of its folder and reaches every path below it one
component at a time with ``O_NOFOLLOW``, so a symbolic link anywhere below is refused in one line
(:class:`UnsafePath`, a :class:`releases.errors.Refused`), and cannot be swapped in between a
check and a use. Files are opened ``O_NONBLOCK`` and must be regular files (opening a FIFO would
block forever).

Only the folder itself may be reached through symbolic links above it (``/tmp`` is one on some
systems), and only when it is opened with ``follow=True``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, cast

from releases.errors import Refused

FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
FILE_MODE = 0o644
FOLDER_MODE = 0o755


class UnsafePath(Refused):
    """A symbolic link, a special file, or a folder where a file should be (or the reverse)."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path} {problem}")
        self.path = path


class SafeFolder:
    """An open folder (see the module docstring); ``where`` is its path, for messages."""

    def __init__(self, fd: int, where: Path) -> None:
        self.fd = fd
        self.where = where

    @classmethod
    def open(cls, path: Path, *, follow: bool = True, create: bool = False) -> SafeFolder:
        """Open ``path`` (created with its parents if ``create``); with ``follow=False`` the
        folder itself must not be a symbolic link."""
        if create and not os.path.lexists(path):
            with contextlib.suppress(FileExistsError):
                path.mkdir(parents=True, mode=FOLDER_MODE)
        flags = FOLDER_FLAGS | (0 if follow else os.O_NOFOLLOW)
        try:
            fd = os.open(path, flags)
        except OSError as exc:
            raise _refusal(path, exc, os.lstat if os.path.lexists(path) else None) from None
        return cls(fd, path)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> SafeFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def path(self, relative: str) -> Path:
        return self.where / relative if relative else self.where

    @contextlib.contextmanager
    def _parent(self, relative: str, create: bool = False) -> Iterator[tuple[int, str]]:
        """The open parent folder of ``relative`` and its last name (created if ``create``)."""
        parts = relative.split("/")
        if any(part in ("", ".", "..") for part in parts):
            raise ValueError(f"unsafe path {relative!r} in {self.where}")
        fd = self.fd
        try:
            for depth, part in enumerate(parts[:-1]):
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, FOLDER_MODE, dir_fd=fd)
                try:
                    child = os.open(part, FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
                except OSError as exc:
                    where = "/".join(parts[: depth + 1])
                    raise self._refusal(where, exc, fd, part) from None
                if fd != self.fd:
                    os.close(fd)
                fd = child
            yield fd, parts[-1]
        finally:
            if fd != self.fd:
                os.close(fd)

    def _refusal(self, relative: str, exc: OSError, fd: int, name: str) -> Exception:
        def lstat(_: Path) -> os.stat_result:
            return os.stat(name, dir_fd=fd, follow_symlinks=False)

        return _refusal(self.path(relative), exc, lstat)

    def kind(self, relative: str) -> str | None:
        """``"file"``, ``"folder"`` or ``None`` (absent); a symbolic link or a special file is
        refused."""
        try:
            with self._parent(relative) as (fd, name):
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        return _kind(self.path(relative), info.st_mode)

    def size(self, relative: str) -> int | None:
        """The size of the regular file ``relative``, ``None`` if absent."""
        try:
            with self._parent(relative) as (fd, name):
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if _kind(self.path(relative), info.st_mode) != "file":
            raise UnsafePath(self.path(relative), "is a folder, not a file")
        return info.st_size

    def open_read(self, relative: str) -> BinaryIO:
        """The regular file ``relative``, open for reading (``FileNotFoundError`` if absent)."""
        return self._open(relative, os.O_RDONLY | os.O_NONBLOCK, "rb")

    def open_write(self, relative: str, *, append: bool = False) -> BinaryIO:
        """``relative`` open for writing (its folders created), truncated unless ``append``."""
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        return self._open(relative, flags, "ab" if append else "wb", create=True)

    def _open(self, relative: str, flags: int, mode: str, create: bool = False) -> BinaryIO:
        with self._parent(relative, create) as (parent, name):
            try:
                fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE, dir_fd=parent)
            except FileNotFoundError:
                raise
            except OSError as exc:
                raise self._refusal(relative, exc, parent, name) from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            _kind(self.path(relative), info.st_mode)
            raise UnsafePath(self.path(relative), "is a folder, not a file")
        handle = cast(BinaryIO, os.fdopen(fd, mode))
        return handle

    def subfolder(self, name: str, *, create: bool = False) -> SafeFolder:
        """The folder ``name`` directly inside, opened without following a link."""
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, FOLDER_MODE, dir_fd=self.fd)
        try:
            fd = os.open(name, FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=self.fd)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise self._refusal(name, exc, self.fd, name) from None
        return SafeFolder(fd, self.path(name))

    def rename(self, source: str, target: str) -> None:
        """Rename ``source`` to ``target`` (both relative to this folder)."""
        with self._parent(source) as (a, old), self._parent(target) as (b, new):
            os.replace(old, new, src_dir_fd=a, dst_dir_fd=b)

    def remove(self, relative: str) -> None:
        """Remove the file or the whole folder ``relative`` (absent: nothing; a symbolic link is
        removed itself, never followed)."""
        try:
            with self._parent(relative) as (fd, name):
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode):
                    shutil.rmtree(name, dir_fd=fd)
                else:
                    os.unlink(name, dir_fd=fd)
        except FileNotFoundError:
            return

    def is_empty(self) -> bool:
        with os.scandir(self.fd) as entries:
            return next(entries, None) is None

    def walk(self) -> tuple[list[str], list[str]]:
        """Every regular file and every folder below, as sorted relative paths; a symbolic link
        or a special file anywhere is refused."""
        files: list[str] = []
        folders: list[str] = []

        def visit(fd: int, prefix: str) -> None:
            with os.scandir(fd) as found:
                entries = sorted(found, key=lambda e: e.name)
            for entry in entries:
                relative = prefix + entry.name
                info = entry.stat(follow_symlinks=False)
                if _kind(self.path(relative), info.st_mode) == "file":
                    files.append(relative)
                    continue
                folders.append(relative)
                try:
                    child = os.open(entry.name, FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
                except OSError as exc:
                    raise self._refusal(relative, exc, fd, entry.name) from None
                try:
                    visit(child, relative + "/")
                finally:
                    os.close(child)

        visit(self.fd, "")
        return files, folders


def _kind(path: Path, mode: int) -> str:
    if stat.S_ISLNK(mode):
        raise UnsafePath(path, "is a symbolic link; refusing to follow it")
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    raise UnsafePath(path, "is not a regular file (a FIFO, socket or device); refusing to open it")


def _refusal(path: Path, exc: OSError, lstat: object) -> Exception:
    """``exc`` from opening ``path``, as a one-line refusal when a link or a special file caused
    it (``lstat(path)`` tells), else unchanged."""
    if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENOTDIR) and callable(lstat):
        try:
            info = lstat(path)
        except OSError:
            return exc
        try:
            _kind(path, info.st_mode)
        except UnsafePath as refused:
            return refused
        if exc.errno == errno.ENOTDIR:
            return ValueError(f"{path} is a file, not a folder")
    return exc
