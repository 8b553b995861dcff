"""The response cache: every provider reply, keyed by the hash of the request that produced it.

A resumed or repeated tournament reuses answers, and a release can be rebuilt from the cache
without calling any provider (``offline``: a miss is an error instead of a call).

The key is the SHA-256 of the canonical JSON of: the provider kind, the endpoint URL, the
request body (model, system prompt, conversation, settings, response format) and the *call id*
(match id, move index and attempt).  The call id makes every call of a tournament its own
entry, so at a temperature above zero two matches that reach the same prompt do not share one
sampled answer, while a replay of the same match reads back exactly the answers it got.  The
API key is not part of the request body and is never stored; the stored reply is the
provider's JSON body (redacted by the caller), the latency of the original call and the
requests it took (``calls``: retries included), so that a reply read back (a resumed or
rebuilt tournament) is counted as the requests that obtained it and a resumed corpus records the
usage of an uninterrupted one.  An entry written before ``calls`` was kept reads as one request.

Storage is one SQLite file in WAL mode, shared by worker processes (a writer waits up to 30 s
for another): each entry is committed on its own, so a process killed at any moment loses at
most the reply it was writing, never the file.

An entry is read back within the bounds a live reply is held to (issue 43, items 4 and 5: a
cache written by an older version may hold anything): a body of at most
``arena.llm.providers.MAX_REPLY_BYTES`` that is JSON nested at most ``MAX_JSON_DEPTH`` deep, a
finite non-negative latency and a request count from 0 to ``MAX_CALLS``; any other entry raises
``UnusableEntry`` (one line naming the entry's call), which the player treats as a miss (a live
run asks again and overwrites it; an offline one stops the player with that line).  A file that
is not a response cache is refused in one line (``ValueError``).
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.llm.providers import MAX_REPLY_BYTES, MalformedReply, decode_reply

# The most requests one reply can have taken (a request's retries: ``max_retries`` is at most
# 50) and the longest it can have taken, for an entry to be read back.
MAX_CALLS = 1_000
MAX_LATENCY_S = 7 * 24 * 3600.0


def request_key(kind: str, url: str, body: dict[str, Any], call_id: str) -> str:
    """The cache key of a request (see the module docstring)."""
    text = json.dumps(
        {"kind": kind, "url": url, "body": body, "call": call_id},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedReply:
    body: Any
    latency_s: float
    calls: int = 1


class CacheMiss(Exception):
    """An offline cache has no reply for a request."""


class UnusableEntry(Exception):
    """A stored entry outside the bounds a reply is held to (see the module docstring)."""


class ResponseCache:
    """A persistent (SQLite file) or in-memory (``path=None``) map from request key to reply."""

    def __init__(self, path: Path | None, offline: bool = False) -> None:
        self.path = path
        self.offline = offline
        self.hits = 0
        self.misses = 0
        self._memory: dict[str, CachedReply] = {}
        self._db: sqlite3.Connection | None = None
        if path is not None:
            if offline and not path.exists():
                raise ValueError(f"offline replay needs the response cache {path}; it is missing")
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = self._open(path)
            except sqlite3.DatabaseError as exc:
                raise ValueError(
                    f"the response cache {path} cannot be read ({exc}); move it away to start "
                    "a new one"
                ) from None

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS replies ("
                " key TEXT PRIMARY KEY, kind TEXT NOT NULL, model TEXT NOT NULL,"
                " body TEXT NOT NULL, latency_s REAL NOT NULL, calls INTEGER)"
            )
            columns = {row[1] for row in db.execute("PRAGMA table_info(replies)")}
            if "calls" not in columns:  # a cache written before calls were kept
                try:
                    db.execute("ALTER TABLE replies ADD COLUMN calls INTEGER")
                except sqlite3.OperationalError as exc:  # another process added it first
                    if "duplicate column" not in str(exc):
                        raise
        except BaseException:
            db.close()
            raise
        return db

    def get(self, key: str, call: str = "") -> CachedReply | None:
        """The entry of ``key`` (None when there is none); ``UnusableEntry`` naming ``call``
        for an entry outside the bounds (see the module docstring)."""
        found = self._memory.get(key)
        if found is None and self._db is not None:
            # the body is loaded only when it is within the bound
            row = self._db.execute(
                "SELECT CASE WHEN length(CAST(body AS BLOB)) <= ? THEN body END,"
                " length(CAST(body AS BLOB)), latency_s, calls FROM replies WHERE key = ?",
                (MAX_REPLY_BYTES, key),
            ).fetchone()
            if row is not None:
                try:
                    found = self._entry(row, call or key)
                except UnusableEntry:
                    self.misses += 1
                    raise
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    @staticmethod
    def _entry(row: tuple[Any, ...], call: str) -> CachedReply:
        text, size, latency, calls = row
        problem = ""
        if text is None:
            problem = f"a body of {size:,} bytes, past the limit of {MAX_REPLY_BYTES:,}"
        elif not (isinstance(latency, int | float) and math.isfinite(latency)) or not (
            0 <= latency <= MAX_LATENCY_S
        ):
            problem = f"latency {latency!r} is not a duration in seconds"
        elif calls is not None and not (isinstance(calls, int) and 0 <= calls <= MAX_CALLS):
            problem = f"calls {calls!r} is not a request count from 0 to {MAX_CALLS:,}"
        else:
            try:
                body = decode_reply(text.encode("utf-8") if isinstance(text, str) else text)
            except MalformedReply as exc:
                problem = str(exc)
            else:
                return CachedReply(body, float(latency), 1 if calls is None else calls)
        raise UnusableEntry(f"the cached reply of call {call} is unusable: {problem}")

    def put(
        self, key: str, kind: str, model: str, body: Any, latency_s: float, calls: int = 1
    ) -> None:
        reply = CachedReply(body, latency_s, calls)
        if self._db is None:
            self._memory[key] = reply
            return
        self._db.execute(
            "INSERT OR REPLACE INTO replies (key, kind, model, body, latency_s, calls) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (key, kind, model, json.dumps(body, ensure_ascii=False), latency_s, calls),
        )

    def __len__(self) -> int:
        if self._db is None:
            return len(self._memory)
        return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
