"""The match corpus on disk: a journal that survives being killed, and the two Parquet tables.

Layout of a tournament folder::

    journal.jsonl      one line per finished match: {"match": {...}, "moves": [...]}
    journal.w<k>.jsonl the same, written by worker process k of a multi-process tournament
    matches.parquet    one row per match (DESIGN.md match schema, ``MATCH_SCHEMA``)
    moves.parquet      one row per move (DESIGN.md move schema, ``MOVE_SCHEMA``)
    cache.sqlite       the response cache of the LLM players (arena.llm.cache)
    .lock              held while a tournament writes here

Why a journal: a match is appended as one line and flushed as soon as it ends, so a process
killed at any moment loses only the matches in flight (they are replayed on resume, with the
same seeds and, for LLM players, the same cached answers).  On open, a torn last line (the
kill came mid-write) is cut off.  When a match id appears on several lines (a failed match
replayed with ``retry_failed``), the last line wins, except that a complete match is never
replaced by a failed one (journals are read main journal first, then workers' in order).

The tables are derived from the journal: the matches of the current schedule, in schedule
order, written through a temporary file and ``os.replace``, so a reader never sees half a
table and a resumed tournament ends with exactly the tables an uninterrupted one writes
(wall-clock columns aside: ``started_at``, ``finished_at``, ``duration_s`` and, for built-in
agents, ``latency_s``).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO

import pyarrow as pa
import pyarrow.parquet as pq

from arena.files import atomic_write
from engines.tournament.records import (
    DECIDED_STATUSES,
    MATCH_SCHEMA,
    MOVE_SCHEMA,
    Record,
)

JOURNAL = "journal.jsonl"
MATCHES = "matches.parquet"
MOVES = "moves.parquet"
CACHE = "cache.sqlite"
LOCK = ".lock"


class Corpus:
    """A tournament folder (see the module docstring); use as a context manager."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.records: dict[str, tuple[Record, list[Record]]] = {}
        self._journal: IO[str] | None = None
        self._lock: IO[str] | None = None

    @property
    def journal_path(self) -> Path:
        return self.folder / JOURNAL

    @property
    def cache_path(self) -> Path:
        return self.folder / CACHE

    def __enter__(self) -> Corpus:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        """Take the folder's lock, read the journal (cutting a torn last line), open it."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"cannot create output folder {self.folder}: {exc.strerror}") from None
        lock = open(self.folder / LOCK, "a+")  # noqa: SIM115 (held until close)
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise ValueError(
                f"another tournament is writing to {self.folder}; wait for it or use another --out"
            ) from None
        self._lock = lock
        self.reload(repair=True)
        self._journal = open(self.journal_path, "a", encoding="utf-8")  # noqa: SIM115

    def journal_paths(self) -> list[Path]:
        """The main journal, then the worker journals in order."""
        workers = sorted(self.folder.glob("journal.w*.jsonl"), key=lambda p: p.name)
        return [self.journal_path, *workers]

    def worker_journal(self, worker: int) -> Path:
        return self.folder / f"journal.w{worker}.jsonl"

    def reload(self, repair: bool = False) -> None:
        """Read every journal (after worker processes have written theirs)."""
        merged: dict[str, tuple[Record, list[Record]]] = {}
        for path in self.journal_paths():
            for match_id, record in read_journal(path, repair=repair).items():
                old = merged.get(match_id)
                if old is None or not (
                    old[0]["status"] in DECIDED_STATUSES
                    and record[0]["status"] not in DECIDED_STATUSES
                ):
                    merged[match_id] = record
        self.records = merged

    def close(self) -> None:
        if self._journal is not None:
            self._journal.flush()
            os.fsync(self._journal.fileno())
            self._journal.close()
            self._journal = None
        if self._lock is not None:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None

    def append(self, match: Record, moves: list[Record]) -> None:
        """Journal one finished match (one line, flushed to the operating system)."""
        assert self._journal is not None, "the corpus is not open"
        write_journal_line(self._journal, match, moves)
        self.records[match["match_id"]] = (match, moves)

    def status(self, match_id: str) -> str | None:
        found = self.records.get(match_id)
        return None if found is None else str(found[0]["status"])

    def write_tables(self, order: Sequence[str]) -> tuple[int, int]:
        """Write both tables for the matches ``order`` names that are journaled, in that order."""
        matches: list[Record] = []
        moves: list[Record] = []
        for match_id in order:
            found = self.records.get(match_id)
            if found is not None:
                matches.append(found[0])
                moves.extend(found[1])
        write_table(matches, MATCH_SCHEMA, self.folder / MATCHES)
        write_table(moves, MOVE_SCHEMA, self.folder / MOVES)
        return len(matches), len(moves)


def write_journal_line(journal: IO[str], match: Record, moves: list[Record]) -> None:
    """Append one match as one line and flush it to the operating system."""
    journal.write(json.dumps({"match": match, "moves": moves}, ensure_ascii=False) + "\n")
    journal.flush()


def repair_journal(path: Path) -> None:
    """Cut a torn last line (a process killed mid-write) off a journal."""
    if path.exists():
        data = path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            with open(path, "r+b") as handle:
                handle.truncate(end)


def read_journal(path: Path, repair: bool = False) -> dict[str, tuple[Record, list[Record]]]:
    """Matches in a journal (last line per id wins); a torn last line is skipped (and cut off
    the file when ``repair``)."""
    records: dict[str, tuple[Record, list[Record]]] = {}
    if not path.exists():
        return records
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if repair and end < len(data):
        with open(path, "r+b") as handle:
            handle.truncate(end)
    for line in data[:end].splitlines():
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn line followed by later writes cannot happen, but never crash
        match = entry.get("match") if isinstance(entry, dict) else None
        if isinstance(match, dict) and "match_id" in match:
            records[match["match_id"]] = (match, list(entry.get("moves", [])))
    return records


def write_table(rows: Iterable[Record], schema: pa.Schema, path: Path) -> None:
    """Rows as a Parquet file with ``schema``, atomically and readable by others (0644)."""
    table = pa.Table.from_pylist(list(rows), schema=schema)
    atomic_write(path, lambda handle: pq.write_table(table, handle))


def table_rows(path: Path) -> list[Record]:
    """A Parquet table's rows as dicts (for tests and tools)."""
    return list(pq.read_table(path).to_pylist())
