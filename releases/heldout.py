"""Held-out games in a release: commitments now, the spec later (issue 39, item 4).

Why it exists: an edition can keep some of its games private, so that a model cannot have seen
them until they are revealed. Their seeds are secret (``arena.heldout``: with a public
generator, a seed is its spec). A release of such an edition:

1. computes its gates and the reproduction of the leaderboards on the whole corpus, as any
   release (so the pipeline is checked on every game);
2. *hides* the private games: every row that names one (by token, seed, game seed or spec hash)
   leaves every table, and the moves of their matches leave the transcripts; the leaderboards
   and profiles are recomputed from the public games (so every published number is still
   recomputed from the bundle alone);
3. publishes ``heldout_games``: per private game its label (``private-1``...), the commitment
   ``SHA-256(salt || spec JSON)`` and the aggregate scores only (each model's runs and mean
   chip margin on it), never the spec, rulebook, seed or transcripts;
4. is *sealed*: after the bundle is built, every file (Parquet cells decoded, archive members
   included) is searched for each private game's spec JSON, spec hash and seed; a hit fails the
   release (gate ``heldout_sealed``), and nothing is published;
5. keeps the reveal with the deployment's secrets (``arena.heldout.EditionSecrets``:
   ``<data>/.editions/reveal/<profile>/edition-<n>.json``, label, seed, spec, salt, commitment),
   never in a bundle or the store; a later edition's release of the profile publishes it as
   ``revealed_games``, and ``release verify`` checks each revealed
   spec against the commitment the earlier release published (:func:`reveal_problems`).
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from arena.files import atomic_write_text
from arena.heldout import commitment, salt

HELDOUT = "heldout_games"
REVEALED = "revealed_games"
SEALED_GATE = "heldout_sealed"


@dataclass(frozen=True)
class PrivateGame:
    """One private game of an edition, with what its release commits to."""

    label: str
    token: str
    seed: int
    spec_hash: str
    spec_json: str
    salt: str
    commitment: str

    def record(self, edition: int) -> dict[str, Any]:
        return {
            "edition": edition,
            "label": self.label,
            "seed": self.seed,
            "spec_hash": self.spec_hash,
            "spec_json": self.spec_json,
            "salt": self.salt,
            "commitment": self.commitment,
        }

    @property
    def sealed(self) -> tuple[str, ...]:
        """What no file of the release may contain: the spec, its hash, the seed."""
        return (self.spec_json, self.spec_hash, str(self.seed))


def private_games(
    tables: Mapping[str, pd.DataFrame], profile: Mapping[str, Any], key: bytes
) -> list[PrivateGame]:
    """The private games of the release's benchmark (rows of ``benchmark_games`` marked
    ``private``), labelled in seed order, with their salts and commitments."""
    benchmark = tables.get("benchmark_games")
    if benchmark is None or "private" not in benchmark.columns:
        return []
    rows = benchmark.loc[benchmark["private"].astype(bool)].sort_values("seed")
    name, edition = str(profile.get("name")), int(profile.get("edition", 1))
    found = []
    for k, row in enumerate(rows.itertuples(index=False), start=1):
        spec_json, spec_hash = str(row.spec_json), str(row.spec_hash)
        salted = salt(key, name, edition, spec_hash)
        found.append(
            PrivateGame(
                f"private-{k}",
                str(row.game),
                int(row.seed),
                spec_hash,
                spec_json,
                salted,
                commitment(salted, spec_json),
            )
        )
    return found


def _naming(frame: pd.DataFrame, games: Sequence[PrivateGame]) -> pd.Series:
    """Rows of ``frame`` that name one of ``games``."""
    hit = pd.Series(False, index=frame.index)
    tokens = {g.token for g in games}
    seeds = {g.seed for g in games}
    hashes = {g.spec_hash for g in games}
    if "game" in frame.columns:
        hit |= frame["game"].astype(str).isin(tokens)
    for column in ("seed", "game_seed"):
        if column in frame.columns:
            hit |= pd.to_numeric(frame[column], errors="coerce").isin(seeds)
    if "spec_hash" in frame.columns:
        hit |= frame["spec_hash"].astype(str).isin(hashes)
    return hit


def hide(
    tables: Mapping[str, pd.DataFrame], games: Sequence[PrivateGame]
) -> dict[str, pd.DataFrame]:
    """The tables without a row that names a private game, and without the moves of their
    matches (``match_moves``, by match id)."""
    hidden: set[str] = set()
    public: dict[str, pd.DataFrame] = {}
    for name, frame in tables.items():
        if frame is None or frame.empty:
            public[name] = frame
            continue
        naming = _naming(frame, games)
        if "match_id" in frame.columns and name != "match_moves":
            hidden |= set(frame.loc[naming, "match_id"].astype(str))
        public[name] = frame.loc[~naming].reset_index(drop=True)
    moves = public.get("match_moves")
    if moves is not None and not moves.empty and "match_id" in moves.columns:
        kept = ~moves["match_id"].astype(str).isin(hidden)
        public["match_moves"] = moves.loc[kept].reset_index(drop=True)
    return public


def heldout_table(pairs: pd.DataFrame, games: Sequence[PrivateGame], edition: int) -> pd.DataFrame:
    """Per private game and model: the commitment and the aggregate scores only (runs played,
    mean chip margin per deal; from the complete pairs, both seats)."""
    rows = []
    for game in games:
        mine = pairs.loc[_naming(pairs, [game])]
        for model in sorted(set(mine["alice"]) | set(mine["bob"])):
            margin = pd.concat(
                [
                    mine.loc[mine["alice"] == model, "margin_alice"],
                    -mine.loc[mine["bob"] == model, "margin_alice"],
                ]
            )
            runs = mine.loc[(mine["alice"] == model) | (mine["bob"] == model), "run_id"]
            rows.append(
                {
                    "edition": edition,
                    "label": game.label,
                    "commitment": game.commitment,
                    "model": str(model),
                    "runs": int(runs.nunique()),
                    "mean_margin": float(margin.mean()) if len(margin) else float("nan"),
                }
            )
    columns = ["edition", "label", "commitment", "model", "runs", "mean_margin"]
    return pd.DataFrame(rows, columns=columns).astype({"edition": "int64", "runs": "int64"})


def reveal_path(folder: Path, profile: str, edition: int) -> Path:
    return folder / profile / f"edition-{edition}.json"


def keep_for_reveal(folder: Path, profile: str, edition: int, games: Sequence[PrivateGame]) -> None:
    """Write what a later release reveals under the secrets' ``folder`` (0600, atomically)."""
    if not games:
        return
    path = reveal_path(folder, profile, edition)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.parent.chmod(0o700)
    text = json.dumps([g.record(edition) for g in games], indent=2, sort_keys=True)
    atomic_write_text(path, text + "\n")
    path.chmod(0o600)


def revealed_table(folder: Path, profile: str, edition: int) -> pd.DataFrame | None:
    """Every private game of the profile's earlier editions kept under ``folder``, as the
    ``revealed_games`` table (``None`` when there are none)."""
    mine = folder / profile
    if not mine.is_dir():
        return None
    records: list[dict[str, Any]] = []
    for path in sorted(mine.glob("edition-*.json")):
        number = int(path.stem.removeprefix("edition-"))
        if number < edition:
            records += json.loads(path.read_text(encoding="utf-8"))
    if not records:
        return None
    frame = pd.DataFrame(records)
    columns = ["edition", "label", "seed", "spec_hash", "spec_json", "salt", "commitment"]
    return frame.loc[:, columns].astype({"edition": "int64", "seed": "int64"})


def _cells_hit(frame: pd.DataFrame, texts: Sequence[str], numbers: set[int]) -> str | None:
    for column in frame.columns:
        values = frame[column]
        if values.dtype.kind in "iu":
            if values.isin(numbers).any():
                return f"column {column}"
            continue
        if values.dtype.kind in "fbM":
            continue
        as_text = values.astype(str)
        for text in texts:
            if as_text.str.contains(text, regex=False).any():
                return f"column {column}"
    return None


def _content_hit(name: str, data: bytes, texts: Sequence[str], numbers: set[int]) -> str | None:
    if name.endswith(".parquet"):
        frame = pq.read_table(io.BytesIO(data)).to_pandas()
        return _cells_hit(frame, texts, numbers)
    if name.endswith(".tar.gz"):
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive.getmembers():
                if not member.isfile():
                    continue
                handle = archive.extractfile(member)
                if handle is None:
                    continue
                where = _content_hit(member.name, handle.read(), texts, numbers)
                if where is None and any(t in member.name for t in texts):
                    where = "its name"
                if where is not None:
                    return f"archive member {member.name}, {where}"
        return None
    return next((f"text {t[:16]!r}" for t in texts if t.encode("utf-8") in data), None)


def sealed_problems(files: Iterable[Path], root: Path, games: Sequence[PrivateGame]) -> list[str]:
    """Each file under ``root`` that names a private game (its spec JSON, spec hash or seed, in
    a file's name, bytes, decoded Parquet cells or archive members)."""
    texts = [t for g in games for t in g.sealed]
    numbers = {g.seed for g in games}
    problems = []
    for path in sorted(files):
        relative = str(path.relative_to(root))
        where = "its name" if any(t in relative for t in texts) else None
        where = where or _content_hit(path.name, path.read_bytes(), texts, numbers)
        if where is not None:
            problems.append(f"{relative} ({where}) names a private game")
    return problems


def reveal_problems(folder: Path, store: Path, ledger: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each revealed game of the release in ``folder`` whose spec does not match the commitment
    its edition's release published (or whose hash does not match its spec)."""
    table = folder / "tables" / f"{REVEALED}.parquet"
    if not table.is_file():
        return []
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    profile = str((manifest.get("profile") or {}).get("name"))
    committed: dict[tuple[int, str], set[str]] = {}
    for entry in ledger:
        if entry.get("profile") != profile:
            continue
        for release in entry.get("releases") or []:
            earlier = store / str(release) / "tables" / f"{HELDOUT}.parquet"
            if earlier.is_file():
                held = pd.read_parquet(earlier, columns=["edition", "label", "commitment"])
                for row in held.itertuples(index=False):
                    committed.setdefault((int(row.edition), str(row.label)), set()).add(
                        str(row.commitment)
                    )
    problems = []
    for row in pd.read_parquet(table).itertuples(index=False):
        where = f"revealed game {row.label} of edition {row.edition}"
        if hashlib.sha256(str(row.spec_json).encode("utf-8")).hexdigest() != row.spec_hash:
            problems.append(f"{where}: its spec does not hash to its spec_hash")
            continue
        published = committed.get((int(row.edition), str(row.label)))
        if not published:
            problems.append(f"{where}: no release of that edition published its commitment")
        elif commitment(str(row.salt), str(row.spec_json)) not in published:
            problems.append(f"{where}: the spec and salt do not match the published commitment")
    return problems
