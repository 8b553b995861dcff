"""A published release as data: verify it, then read its tables (DESIGN.md, "every published
number can be recomputed from the bundle alone").

``open_release(ID or folder or .tar.gz)`` verifies the release first (every SHA-256, the id the
manifest derives) and returns an ``OpenedRelease``: its manifest, integrity card, the names of its
tables and a ``table(name)`` reader.  An archive is unpacked into a temporary folder after it
verifies.  ``compare_releases`` is what ``genstrat release diff`` prints: models added or removed,
rank and strength changes with their intervals, games added or removed, engine and code versions.
"""

from __future__ import annotations

import json
import shutil
import tarfile
import tempfile
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from releases.store import verify

# What the leaderboards asset fits with unless the manifest records otherwise (its StatsConfig).
DEFAULT_ANALYSIS = {"bootstrap": 2000, "seed": 0}


@dataclass
class OpenedRelease:
    """A verified release folder and readers for what it holds."""

    release_id: str
    path: Path
    manifest: dict[str, Any]
    integrity: dict[str, Any]
    _tables: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    @property
    def table_names(self) -> list[str]:
        return sorted(
            Path(e["path"]).stem
            for e in self.manifest["files"]
            if e["path"].startswith("tables/") and e["path"].endswith(".parquet")
        )

    def table(self, name: str) -> pd.DataFrame:
        """The release's table ``name``; ``ValueError`` naming the tables it has otherwise."""
        if name not in self.table_names:
            raise ValueError(
                f"release {self.release_id} has no table {name!r}; it has "
                f"{', '.join(self.table_names)}"
            )
        if name not in self._tables:
            self._tables[name] = pd.read_parquet(self.path / "tables" / f"{name}.parquet")
        return self._tables[name]

    def analysis_settings(self) -> dict[str, int]:
        """The bootstrap B and seed the release's leaderboards were fitted with."""
        recorded = self.manifest.get("analysis") or {}  # {"n_boot": B, "seed": S, ...}
        return {
            "bootstrap": int(recorded.get("n_boot", DEFAULT_ANALYSIS["bootstrap"])),
            "seed": int(recorded.get("seed", DEFAULT_ANALYSIS["seed"])),
        }


def open_release(target: str | Path, store: Path | None = None) -> OpenedRelease:
    """Verify the release ``target`` (an id in ``store``, a folder or a ``.tar.gz``) and open
    it; ``ValueError`` with the first problem when it does not verify."""
    verified = verify(target, store)
    folder, unpacked = verified.path, None
    if folder.is_file():  # an archive: unpack the verified members next to nothing else
        unpacked = Path(tempfile.mkdtemp(prefix=f"genstrat-{verified.release_id}-"))
        with tarfile.open(folder, "r:gz") as archive:
            archive.extractall(unpacked, filter="data")
        folder = unpacked / verified.release_id
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    integrity = json.loads((folder / "integrity.json").read_text(encoding="utf-8"))
    opened = OpenedRelease(verified.release_id, folder, manifest, integrity)
    if unpacked is not None:  # unpacked here: removed with the object
        weakref.finalize(opened, shutil.rmtree, unpacked, ignore_errors=True)
    return opened


def _board(release: OpenedRelease) -> pd.DataFrame:
    return release.table("leaderboards").set_index("model")


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
        return {str(g) for g in release.table("benchmark_games")["game"]}

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
    return (0, f"{int(game):012d}") if game.isdigit() else (1, game)
