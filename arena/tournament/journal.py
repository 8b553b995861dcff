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

A record is read only if what a provider's reply put in it is within bounds
(``record_problem``: usage counts are integers from 0 to ``MAX_COUNT``, costs and latencies
finite and non-negative, texts at most ``MAX_CELL_CHARS`` characters); a journal written by a
version that did not hold replies to bounds may hold others (issue 43, items 4, 5, 14).  On
open such a record is set aside: its line moves to ``<journal>.rejected`` beside the journal,
its match is played again, and one line on the ``arena.tournament.journal`` logger (stderr,
from the command line) says how many, where they went and the first one's problem.  A record
that still cannot enter a table is refused in one line (``ValueError`` naming its match).
"""

from __future__ import annotations

import fcntl
import json
import logging
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

from arena.files import atomic_write
from engines.tournament.records import (
    DECIDED_STATUSES,
    MATCH_SCHEMA,
    MOVE_SCHEMA,
    SEAT_COLUMNS,
    Record,
)

JOURNAL = "journal.jsonl"
MATCHES = "matches.parquet"
MOVES = "moves.parquet"
CACHE = "cache.sqlite"
LOCK = ".lock"
REJECTED_SUFFIX = ".rejected"  # journal.jsonl.rejected: records set aside (see the docstring)

# The bounds of a record's usage and texts: a match's tokens are at most its moves times the
# answers of a move times ``arena.llm.providers.MAX_TOKEN_COUNT``, far under 10**15 (and int64);
# a move's text is at most ``MAX_REASONING_CHARS`` per answer of a move (eleven at most).
MAX_COUNT = 10**15
MAX_CELL_CHARS = 4 * 1024 * 1024
_SEATS = ("alice", "bob")
MATCH_COUNTS = (
    "n_moves",
    *(f"{name}_{seat}" for name, kind in SEAT_COLUMNS if kind == pa.int64() for seat in _SEATS),
)
MATCH_AMOUNTS = ("duration_s", *(f"cost_usd_{seat}" for seat in _SEATS))
MOVE_COUNTS = ("rethinks", "input_tokens", "output_tokens", "reasoning_tokens", "calls",
               "cached_input_tokens")  # fmt: skip
MOVE_AMOUNTS = ("latency_s", "cost_usd")
MOVE_TEXTS = ("raw_response", "reasoning")

log = logging.getLogger(__name__)


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
        for rows, schema, name in ((matches, MATCH_SCHEMA, MATCHES), (moves, MOVE_SCHEMA, MOVES)):
            try:
                write_table(rows, schema, self.folder / name)
            except (OverflowError, TypeError, ValueError, pa.ArrowException) as exc:
                raise ValueError(_unwritable(rows, schema, name, self.folder, exc)) from None
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
    the file when ``repair``); a record outside the bounds is skipped (and with ``repair``
    set aside, see the module docstring)."""
    records: dict[str, tuple[Record, list[Record]]] = {}
    if not path.exists():
        return records
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if repair and end < len(data):
        with open(path, "r+b") as handle:
            handle.truncate(end)
    kept: list[bytes] = []
    rejected: list[bytes] = []
    first = ""
    for number, line in enumerate(data[:end].splitlines(keepends=True), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):  # never written whole: cannot happen, never crash
            kept.append(line)
            continue
        match = entry.get("match") if isinstance(entry, dict) else None
        if not (isinstance(match, dict) and isinstance(match.get("match_id"), str)):
            kept.append(line)
            continue
        moves = entry.get("moves", [])
        moves = [m for m in moves if isinstance(m, dict)] if isinstance(moves, list) else []
        problem = record_problem(match, moves)
        if problem is not None:
            rejected.append(line)
            first = first or f"line {number}, match {match['match_id']}: {problem}"
            continue
        kept.append(line)
        records[match["match_id"]] = (match, moves)
    if repair and rejected:
        set_aside(path, kept, rejected, first)
    return records


def set_aside(path: Path, kept: list[bytes], rejected: list[bytes], first: str) -> None:
    """Move the ``rejected`` lines of a journal to ``<journal>.rejected`` (appended) and keep
    the others, each file written whole; one line on the log."""
    aside = path.with_name(path.name + REJECTED_SUFFIX)
    with open(aside, "ab") as handle:
        handle.writelines(rejected)
        handle.flush()
        os.fsync(handle.fileno())
    atomic_write(path, lambda handle: handle.writelines(kept))
    log.warning(
        "genstrat: %s: %d match record(s) outside the bounds of a reply (written by an older "
        "version) moved to %s, their matches to be played again; the first: %s",
        path,
        len(rejected),
        aside.name,
        first,
    )


def record_problem(match: Record, moves: Sequence[Record]) -> str | None:
    """What is wrong with a journaled match's usage or texts, or None (module docstring)."""
    found = _problem(match, MATCH_COUNTS, MATCH_AMOUNTS, ("error",))
    if found is not None:
        return found
    for move in moves:
        found = _problem(move, MOVE_COUNTS, MOVE_AMOUNTS, MOVE_TEXTS)
        if found is None:
            earlier = move.get("earlier_responses")
            if earlier is not None and not (
                isinstance(earlier, list)
                and all(isinstance(t, str) and len(t) <= MAX_CELL_CHARS for t in earlier)
            ):
                found = "earlier_responses is not a list of texts within the bound"
        if found is not None:
            return f"move {move.get('index', '?')}: {found}"
    return None


def _problem(
    row: Record, counts: Sequence[str], amounts: Sequence[str], texts: Sequence[str]
) -> str | None:
    for name in counts:
        value = row.get(name)
        if value is not None and not (
            isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT
        ):
            return f"{name} is {_shown(value)}, not a count from 0 to 10^15"
    for name in amounts:
        value = row.get(name)
        if value is not None and not (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and value >= 0
        ):
            return f"{name} is {_shown(value)}, not a finite non-negative number"
    for name in texts:
        value = row.get(name)
        if value is not None and not (isinstance(value, str) and len(value) <= MAX_CELL_CHARS):
            size = f"{len(value):,} characters" if isinstance(value, str) else _shown(value)
            return f"{name} is {size}, past the bound of {MAX_CELL_CHARS:,} characters"
    return None


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        return f"{'-' if value < 0 else ''}about 10^{int(abs(value).bit_length() * 0.30103)}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _unwritable(
    rows: Sequence[Record], schema: pa.Schema, name: str, folder: Path, exc: Exception
) -> str:
    """One line naming the first journaled record that cannot enter the table ``name``."""
    for row in rows:
        try:
            pa.Table.from_pylist([row], schema=schema)
        except (OverflowError, TypeError, ValueError, pa.ArrowException) as bad:
            problem = " ".join(str(bad).split())[:200]
            return (
                f"the journal in {folder} holds a record of match {row.get('match_id')!r} that "
                f"cannot enter {name} ({type(bad).__name__}: {problem}); move its line out of "
                "the journal and run again to play the match again"
            )
    return f"cannot write {name} in {folder}: {' '.join(str(exc).split())[:200]}"


def write_table(rows: Iterable[Record], schema: pa.Schema, path: Path) -> None:
    """Rows as a Parquet file with ``schema``, atomically and readable by others (0644)."""
    table = pa.Table.from_pylist(list(rows), schema=schema)
    atomic_write(path, lambda handle: pq.write_table(table, handle))


def table_rows(path: Path) -> list[Record]:
    """A Parquet table's rows as dicts (for tests and tools)."""
    return list(pq.read_table(path).to_pylist())
