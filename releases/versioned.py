"""Versioned results: after an engine correction only the newest version's result counts.

Why it exists: GameBench 2 (Section 2) replays matches after a rules or engine correction;
"only the newest version's result for each pairing counts, and older results stay in the
data". Our match store keeps every row it ever played; a release counts, for each match key,
the rows of the newest ``engine_version`` under which that key was played, and says how many
rows were superseded. Until every key has been replayed the counted rows mix versions, as in
GameBench 2.

The match key is what stays the same when a match is replayed. The tournament's ``match_id``
hashes the engine version in, so a replay gets a new id; the default key is therefore the
columns that name the deal itself (:data:`REPLAY_KEY`: game, block, the two seats, run index and
deal) when the table has them, else a ``match_key`` column, else ``match_id``.

Versions compare part by part on ``.``, ``-`` and ``+`` separators, numerically where both
parts are numbers (``1.10.0`` is newer than ``1.9.2``), else as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

REPLAY_KEY: tuple[str, ...] = ("game", "block", "alice", "bob", "run_index", "deal")


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key for an engine version string (numeric parts before text parts)."""
    parts = [p for p in re.split(r"[.\-+]", str(version)) if p != ""]
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


@dataclass(frozen=True)
class VersionedResults:
    """The counted rows, the superseded rows, and the figures a release records."""

    counted: pd.DataFrame
    superseded: pd.DataFrame
    key: tuple[str, ...]
    counted_by_version: dict[str, int] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The manifest's ``results`` section."""
        return {
            "match_key": list(self.key),
            "counted_matches": len(self.counted),
            "superseded_matches": len(self.superseded),
            "counted_by_engine_version": dict(self.counted_by_version),
            "newest_engine_version": max(self.counted_by_version, key=version_key)
            if self.counted_by_version
            else None,
        }


def default_key(matches: pd.DataFrame) -> tuple[str, ...]:
    """The replay key of a match table (see the module docstring)."""
    if all(c in matches.columns for c in REPLAY_KEY):
        return REPLAY_KEY
    return ("match_key",) if "match_key" in matches.columns else ("match_id",)


def newest_results(
    matches: pd.DataFrame, key: str | tuple[str, ...] | None = None
) -> VersionedResults:
    """Split ``matches`` into the rows that count and the rows a newer version superseded.

    ``key`` is the column (or columns) that identify a match across replays (default:
    :func:`default_key`). Steps: rank each row's ``engine_version``; for every key keep the
    rows of its newest version; raise ``ValueError`` if a key has two rows under the same
    version (two results for one match, so neither can count). Row order is preserved.
    """
    chosen = (key,) if isinstance(key, str) else tuple(key or default_key(matches))
    missing = [c for c in (*chosen, "engine_version") if c not in matches.columns]
    if missing:
        raise ValueError(
            f"versioned results need column(s) {', '.join(missing)}; expected the DESIGN "
            "match schema"
        )
    versions = matches["engine_version"].astype(str)
    order = {v: k for k, v in enumerate(sorted(set(versions), key=version_key))}
    rank = versions.map(order)
    keys = matches.loc[:, list(chosen)]
    duplicated = keys.assign(_rank=rank.to_numpy()).duplicated()
    if duplicated.any():
        row = matches.loc[duplicated].iloc[0]
        name = ", ".join(f"{c}={row[c]}" for c in chosen)
        raise ValueError(
            f"match ({name}) has two results under engine version {row['engine_version']}; "
            "a match key has one result per version"
        )
    newest = rank.groupby([matches[c] for c in chosen], sort=False, dropna=False).transform("max")
    counts = rank.eq(newest)
    counted = matches.loc[counts]
    by_version = counted["engine_version"].astype(str).value_counts()
    return VersionedResults(
        counted=counted,
        superseded=matches.loc[~counts],
        key=chosen,
        counted_by_version={
            v: int(by_version[v]) for v in sorted(by_version.index, key=version_key)
        },
    )
