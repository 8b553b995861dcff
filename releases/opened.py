"""A published release as data: verify it, then read its tables (DESIGN.md, "every published
number can be recomputed from the bundle alone").

``open_release(ID or folder or .tar.gz)`` verifies the release first (every SHA-256, the id the
manifest derives) and returns an ``OpenedRelease``: its manifest, integrity card, the names of its
tables and a ``table(name)`` reader.  ``compare_releases`` is what ``genstrat release diff``
prints: models added or removed, rank and strength changes with their intervals, games added or
removed, engine and code versions.

A release that verifies is still data someone else wrote (issue 43): its id derives from its
contents, whatever those are. So what a reader takes from it is checked before use, and a
release that is not as genstrat writes it is refused in one line (:class:`Refused`, exit 1):
the manifest's context (profile, versions, analysis settings, row counts), the integrity card,
the leaderboard (``leaderboard()``: models, ranks, strengths and intervals) and every table
read (a file that is no Parquet table).

An archive is not unpacked whole: each file a reader asks for (the manifest and the integrity
card when it opens, then a table when it is read) is copied out of the verified archive into a
private temporary folder, never past the size the manifest declares for it, with its SHA-256
checked, and only while the bytes unpacked stay within ``unpack_limit`` (default
:data:`MAX_UNPACKED_BYTES`): a 2 MB archive of zeros that verifies does not fill the disk.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import tarfile
import tempfile
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from releases.errors import Refused
from releases.identity import CHUNK, MAX_MANIFEST_BYTES
from releases.store import verify
from releases.verification import parse_manifest, read_bounded

# What the leaderboards asset fits with unless the manifest records otherwise (its StatsConfig).
DEFAULT_ANALYSIS = {"bootstrap": 2000, "seed": 0}
MAX_UNPACKED_BYTES = 1 << 30
"""The most a reader unpacks from one release archive into the temporary folder (1 GiB)."""
MANIFEST = "manifest.json"
INTEGRITY = "integrity.json"
BOARD_COLUMNS = ("model", "rank", "alpha", "ci_low", "ci_high")
"""The leaderboard columns ``release show`` and ``release diff`` read."""


@dataclass
class OpenedRelease:
    """A verified release and readers for what it holds: from its folder (``path``), or, for an
    archive (``archive``), from the files unpacked on demand under ``path``."""

    release_id: str
    path: Path
    manifest: dict[str, Any]
    integrity: dict[str, Any]
    archive: Path | None = None
    unpack_limit: int = MAX_UNPACKED_BYTES
    unpacked_bytes: int = 0
    _tables: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    @property
    def table_names(self) -> list[str]:
        return sorted(
            Path(e["path"]).stem
            for e in self.manifest["files"]
            if e["path"].startswith("tables/") and e["path"].endswith(".parquet")
        )

    def table(self, name: str) -> pd.DataFrame:
        """The release's table ``name``; ``ValueError`` naming the tables it has otherwise,
        :class:`Refused` for a file that is no Parquet table."""
        if name not in self.table_names:
            raise ValueError(
                f"release {self.release_id} has no table {name!r}; it has "
                f"{', '.join(self.table_names)}"
            )
        if name not in self._tables:
            relative = f"tables/{name}.parquet"
            path = self.file(relative)
            try:
                self._tables[name] = pd.read_parquet(path)
            except Exception as exc:  # pyarrow raises several kinds for a file that is no table
                reason = " ".join(str(exc).split())[:200] or type(exc).__name__
                raise Refused(
                    f"release {self.release_id}: {relative} is not a Parquet table ({reason})"
                ) from None
        return self._tables[name]

    def file(self, relative: str) -> Path:
        """Where the listed file ``relative`` is on disk: in the release folder, or unpacked
        from the archive on first use (:func:`unpack`); :class:`Refused` if the manifest does
        not list it."""
        entry = self.entry(relative)
        if self.archive is not None and not (self.path / relative).is_file():
            unpack(self, {relative: (int(entry["bytes"]), str(entry["sha256"]))})
        return self.path / relative

    def entry(self, relative: str) -> Mapping[str, Any]:
        for entry in self.manifest["files"]:
            if entry["path"] == relative:
                found: Mapping[str, Any] = entry
                return found
        raise Refused(f"release {self.release_id}: manifest.json lists no {relative}")

    def analysis_settings(self) -> dict[str, int]:
        """The bootstrap B and seed the release's leaderboards were fitted with (checked when
        the release was opened)."""
        recorded = self.manifest.get("analysis") or {}  # {"n_boot": B, "seed": S, ...}
        return {
            "bootstrap": int(recorded.get("n_boot", DEFAULT_ANALYSIS["bootstrap"])),
            "seed": int(recorded.get("seed", DEFAULT_ANALYSIS["seed"])),
        }

    def leaderboard(self) -> pd.DataFrame | None:
        """The release's leaderboard (``None`` if it has none), each row's model a distinct
        name, rank a whole number from 1, strength and interval finite numbers;
        :class:`Refused` naming the first row that is not."""
        if "leaderboards" not in self.table_names:
            return None
        board = self.table("leaderboards")
        where = f"release {self.release_id}: tables/leaderboards.parquet"
        missing = [c for c in BOARD_COLUMNS if c not in board.columns]
        if missing:
            raise Refused(f"{where} has no column {missing[0]!r}; it is not a leaderboard")
        seen: set[str] = set()
        for k, row in enumerate(board[list(BOARD_COLUMNS)].itertuples(index=False)):
            model, rank, *numbers = row
            if not isinstance(model, str) or not model or model in seen:
                raise Refused(f"{where}: row {k} has no model name of its own ({model!r})")
            seen.add(model)
            if not _whole(rank):
                raise Refused(f"{where}: model {model!r} has rank {rank!r}, not a whole number")
            if not all(_finite(v) for v in numbers):
                raise Refused(f"{where}: model {model!r} has a strength or interval not a number")
        return board


def _whole(value: Any) -> bool:
    return _finite(value) and float(value) >= 1 and float(value).is_integer()


def _finite(value: Any) -> bool:
    if isinstance(value, bool | np.bool_ | str | bytes):
        return False
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError, OverflowError):
        return False


def open_release(
    target: str | Path, store: Path | None = None, *, unpack_limit: int = MAX_UNPACKED_BYTES
) -> OpenedRelease:
    """Verify the release ``target`` (an id in ``store``, a folder or a ``.tar.gz``) and open
    it; ``ValueError`` with the first problem when it does not verify, :class:`Refused` when
    its manifest's context or its integrity card is not as genstrat writes it."""
    verified = verify(target, store)
    release_id = verified.release_id
    if verified.path.is_file():  # an archive: files are unpacked as they are asked for
        folder = Path(tempfile.mkdtemp(prefix=f"genstrat-{release_id}-"))
        opened = OpenedRelease(
            release_id, folder / release_id, {"files": []}, {}, verified.path, unpack_limit
        )
        weakref.finalize(opened, shutil.rmtree, folder, ignore_errors=True)
        unpack(opened, {MANIFEST: (MAX_MANIFEST_BYTES, "")})
    else:
        opened = OpenedRelease(release_id, verified.path, {"files": []}, {})
    with (opened.path / MANIFEST).open("rb") as handle:
        data = read_bounded(handle, MAX_MANIFEST_BYTES, f"release {release_id}: {MANIFEST}")
    opened.manifest = parse_manifest(data, str(verified.path))
    if opened.manifest["release_id"] != release_id:
        raise Refused(f"release {release_id}: its manifest changed after it verified")
    check_context(opened.manifest)
    opened.integrity = integrity_card(opened, opened.file(INTEGRITY))
    return opened


def unpack(release: OpenedRelease, wanted: Mapping[str, tuple[int, str]]) -> None:
    """Copy the members ``wanted`` (``{relative path: (declared bytes, SHA-256)}``; an empty
    SHA-256 for the manifest, which :func:`open_release` checks itself) out of the release's
    archive into ``release.path``, in one pass over the archive. Each member must be a regular
    file of at most its declared size, with that SHA-256, and the bytes unpacked must stay
    within ``release.unpack_limit``; otherwise :class:`Refused`, before the member is copied
    (a declared size over the limit) or at the first byte past it."""
    assert release.archive is not None
    where = f"release {release.release_id}: {release.archive.name}"
    declared = sum(size for relative, (size, _) in wanted.items() if relative != MANIFEST)
    if release.unpacked_bytes + declared > release.unpack_limit:
        raise Refused(
            f"{where}: reading {', '.join(sorted(wanted))} would unpack "
            f"{release.unpacked_bytes + declared:,} bytes, over the {release.unpack_limit:,} "
            "a reader unpacks from an archive; verify and read the release folder instead"
        )
    left = dict(wanted)
    prefix = f"{release.release_id}/"
    with tarfile.open(release.archive, mode="r|gz") as archive:
        for member in archive:
            relative = member.name.removeprefix(prefix)
            if relative not in left or not member.name.startswith(prefix):
                continue
            size, sha256 = left.pop(relative)
            if not member.isreg() or member.size > size:
                raise Refused(f"{where}: member {relative} is not the file its manifest lists")
            if release.unpacked_bytes + member.size > release.unpack_limit:
                raise Refused(
                    f"{where}: {relative} is {member.size:,} bytes, over the "
                    f"{release.unpack_limit:,} a reader unpacks from an archive"
                )
            source = archive.extractfile(member)
            assert source is not None  # a regular file
            target = release.path / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            digest = hashlib.sha256()
            with target.open("wb") as sink:
                remaining = member.size
                while remaining and (block := source.read(min(CHUNK, remaining))):
                    sink.write(block)
                    digest.update(block)
                    remaining -= len(block)
            release.unpacked_bytes += member.size
            if remaining or (sha256 and digest.hexdigest() != sha256):
                target.unlink()
                raise Refused(f"{where}: member {relative} differs from what verified")
            if not left:
                break
    if left:
        raise Refused(f"{where}: the archive holds no {sorted(left)[0]}")


def check_context(manifest: Mapping[str, Any]) -> None:
    """Refuse (:class:`Refused`, naming the key) a verified manifest whose context a reader
    cannot use: a profile that is not a mapping with a name, versions or a benchmark that are
    not text, analysis settings that are not whole numbers, row counts that are not counts."""
    where = f"release {manifest['release_id']}: manifest.json"
    profile = manifest.get("profile")
    if not isinstance(profile, dict) or not isinstance(profile.get("name"), str):
        raise Refused(f"{where}: its profile is not a mapping with a name")
    for key in ("engine_version", "code_version", "benchmark"):
        if manifest.get(key) is not None and not isinstance(manifest.get(key), str):
            raise Refused(f"{where}: its {key} is not text")
    analysis = manifest.get("analysis")
    if analysis is not None and not isinstance(analysis, dict):
        raise Refused(f"{where}: its analysis settings are not a mapping")
    for key in ("n_boot", "seed"):
        value = (analysis or {}).get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise Refused(f"{where}: its analysis setting {key} is not a whole number")
        if isinstance(value, int) and value < 0:
            raise Refused(f"{where}: its analysis setting {key} is negative")
    for entry in manifest["files"]:
        rows = entry.get("rows")
        if rows is not None and (not isinstance(rows, int) or isinstance(rows, bool) or rows < 0):
            raise Refused(f"{where}: {entry['path']} has rows {rows!r}, not a count")


def integrity_card(release: OpenedRelease, path: Path) -> dict[str, Any]:
    """The release's integrity card: a mapping whose ``gates`` map names to a verdict
    (``passed``: true or false) and a message; :class:`Refused` otherwise."""
    where = f"release {release.release_id}: {INTEGRITY}"
    with path.open("rb") as handle:
        data = read_bounded(handle, MAX_MANIFEST_BYTES, where)
    try:
        card = json.loads(data)
    except (ValueError, RecursionError):
        raise Refused(f"{where} is not JSON") from None
    gates = card.get("gates") if isinstance(card, dict) else None
    if not isinstance(gates, dict):
        raise Refused(f"{where} is not an integrity card (no gates)")
    for name, gate in gates.items():
        if not (
            isinstance(gate, dict)
            and isinstance(gate.get("passed"), bool)
            and isinstance(gate.get("message"), str)
        ):
            raise Refused(f"{where}: gate {name!r} has no verdict and message")
    loaded: dict[str, Any] = card
    return loaded


def _board(release: OpenedRelease) -> pd.DataFrame:
    board = release.leaderboard()
    if board is None:
        raise Refused(f"release {release.release_id} has no leaderboard to compare")
    return board.set_index("model")


def compare_releases(old: OpenedRelease, new: OpenedRelease) -> dict[str, Any]:
    """What changed from ``old`` to ``new``: models, their ranks and strengths (with intervals),
    games, versions and sizes."""
    a, b = _board(old), _board(new)
    changes = []
    for model in sorted(set(a.index) & set(b.index)):
        before, after = a.loc[model], b.loc[model]
        changes.append(
            {
                "model": model,
                "rank": [int(before["rank"]), int(after["rank"])],
                "alpha": [float(before["alpha"]), float(after["alpha"])],
                "interval": [
                    [float(before["ci_low"]), float(before["ci_high"])],
                    [float(after["ci_low"]), float(after["ci_high"])],
                ],
                "alpha_change": float(after["alpha"]) - float(before["alpha"]),
            }
        )

    def games(release: OpenedRelease) -> set[str]:
        if "benchmark_games" not in release.table_names:
            return set()
        table = release.table("benchmark_games")
        if "game" not in table.columns:
            raise Refused(
                f"release {release.release_id}: tables/benchmark_games.parquet has no game column"
            )
        return {str(g) for g in table["game"]}

    old_games, new_games = games(old), games(new)
    return {
        "old": old.release_id,
        "new": new.release_id,
        "models_added": sorted(set(b.index) - set(a.index)),
        "models_removed": sorted(set(a.index) - set(b.index)),
        "models": changes,
        "games_added": sorted(new_games - old_games, key=_game_order),
        "games_removed": sorted(old_games - new_games, key=_game_order),
        "engine_version": [old.manifest.get("engine_version"), new.manifest.get("engine_version")],
        "code_version": [old.manifest.get("code_version"), new.manifest.get("code_version")],
        "files": [len(old.manifest["files"]), len(new.manifest["files"])],
    }


def _game_order(game: str) -> tuple[int, str]:
    return (0, f"{int(game):012d}") if game.isascii() and game.isdigit() else (1, game)
