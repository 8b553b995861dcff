"""Editions and the seed ledger: a renewable benchmark never draws a published seed twice.

Why it exists: the paper's reason for a generator is renewal ("a fresh draw is very likely not
one a model will have seen before or memorized"). An edition is a numbered draw of benchmark
games from seeds that no earlier edition of its profile used (``assets.run_profiles``: edition
``e`` samples ``seed_start + (e - 1) * seed_count`` onwards). The store keeps a ledger beside its
index, ``<store>/editions.json``: for every profile and edition published, the seeds it sampled
and its benchmark games, and the releases that carry it (the nightly refreshes of one edition
add players, so an edition has several releases).

Publishing (``releases.store.publish``, under the store's lock) refuses, in one line and with
nothing written:

- an edition number that goes backwards (below the latest edition published for the
  profile: only the current edition takes new releases);
- a new edition whose seeds meet an earlier edition's (a published seed drawn again);
- a known edition whose seed range differs from the one recorded for it.

``genstrat release verify`` checks a release's benchmark games against every earlier edition of
its profile in the ledger (:func:`disjoint_problems`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from arena.files import atomic_write_text
from releases.errors import Refused

LEDGER = "editions.json"
LEDGER_FORMAT = "genstrat-edition-ledger/1"


@dataclass(frozen=True)
class Edition:
    """One edition of a profile: its number, the seeds it sampled ``[start, stop)`` and the
    seeds of its benchmark games."""

    profile: str
    number: int
    seeds: tuple[int, int]
    games: tuple[int, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "edition": self.number,
            "seeds": list(self.seeds),
            "games": list(self.games),
        }


def edition_of(profile: Mapping[str, Any], benchmark: pd.DataFrame | None) -> Edition | None:
    """The edition a release of ``profile`` (the manifest's ``profile`` block: name, seed_start,
    seed_count, edition) with the benchmark table ``benchmark`` belongs to; ``None`` for a
    release that draws no seeds (no seed range in its profile)."""
    if not {"name", "seed_start", "seed_count"} <= set(profile):
        return None
    number = int(profile.get("edition", 1))
    start = int(profile["seed_start"]) + (number - 1) * int(profile["seed_count"])
    games: tuple[int, ...] = ()
    if benchmark is not None and "seed" in benchmark.columns:
        games = tuple(sorted(int(s) for s in benchmark["seed"]))
    return Edition(str(profile["name"]), number, (start, start + int(profile["seed_count"])), games)


def edition_label(profile: Mapping[str, Any]) -> str | None:
    """``edition 2 (seeds 100 to 199)`` for a manifest's profile block; ``None`` without one."""
    edition = edition_of(profile, None)
    if edition is None or "edition" not in profile:
        return None
    return f"edition {edition.number} (seeds {edition.seeds[0]:,} to {edition.seeds[1] - 1:,})"


def read_ledger(store: Path) -> list[dict[str, Any]]:
    """The ledger's editions (oldest first); ``[]`` for a store without one. A ledger that
    cannot be read is refused in one line (publishing past a damaged ledger could reuse seeds)."""
    path = store / LEDGER
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Refused(f"the edition ledger {path} cannot be read: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != LEDGER_FORMAT:
        raise Refused(f"the edition ledger {path} is not a {LEDGER_FORMAT} file")
    editions = data.get("editions")
    if not isinstance(editions, list) or not all(isinstance(e, dict) for e in editions):
        raise Refused(f"the edition ledger {path} has no list of editions")
    return editions


def _same(entry: Mapping[str, Any], edition: Edition) -> bool:
    return entry.get("profile") == edition.profile and entry.get("edition") == edition.number


def _overlap(a: Sequence[int], b: Sequence[int]) -> bool:
    return int(a[0]) < int(b[1]) and int(b[0]) < int(a[1])


def admission_problem(ledger: Sequence[Mapping[str, Any]], edition: Edition) -> str | None:
    """Why ``edition`` may not be published into a store with ``ledger`` (``None``: it may).

    Only the profile's latest edition takes new releases (the nightly refreshes add players
    to the current edition); a new edition must come after it and draw none of its seeds."""
    mine = [e for e in ledger if e.get("profile") == edition.profile]
    latest = max((int(e["edition"]) for e in mine), default=0)
    if edition.number < latest:
        return (
            f"edition {edition.number} of profile {edition.profile!r} goes backwards: edition "
            f"{latest} is already published (choose {latest} or {latest + 1})"
        )
    known = next((e for e in mine if _same(e, edition)), None)
    if known is not None:
        if tuple(known.get("seeds", ())) != edition.seeds:
            return (
                f"edition {edition.number} of profile {edition.profile!r} was published with "
                f"seeds {known['seeds'][0]} to {known['seeds'][1] - 1}, this release draws "
                f"{edition.seeds[0]} to {edition.seeds[1] - 1}"
            )
        return None
    for earlier in mine:
        if _overlap(earlier["seeds"], edition.seeds):
            return (
                f"edition {edition.number} of profile {edition.profile!r} would reuse seeds "
                f"published in edition {earlier['edition']} "
                f"({earlier['seeds'][0]} to {earlier['seeds'][1] - 1})"
            )
    return None


def admit(store: Path, edition: Edition | None) -> None:
    """Refuse (``Refused``, one line) an edition the store's ledger does not admit."""
    if edition is None:
        return
    problem = admission_problem(read_ledger(store), edition)
    if problem is not None:
        raise Refused(problem)


def record(store: Path, edition: Edition | None, release_id: str) -> None:
    """Add ``release_id`` to its edition in the ledger (the edition too, when new); written
    atomically, after the release is in the index. Call under the store's lock."""
    if edition is None:
        return
    ledger = read_ledger(store)
    entry = next((e for e in ledger if _same(e, edition)), None)
    if entry is None:
        entry = {**edition.as_json(), "releases": []}
        ledger.append(entry)
    games = sorted(set(entry.get("games", [])) | set(edition.games))
    entry["games"] = games
    if release_id not in entry["releases"]:
        entry["releases"].append(release_id)
    text = json.dumps({"format": LEDGER_FORMAT, "editions": ledger}, indent=2, sort_keys=True)
    atomic_write_text(store / LEDGER, text + "\n")


def disjoint_problems(ledger: Sequence[Mapping[str, Any]], edition: Edition) -> list[str]:
    """Each earlier edition of the profile whose seeds the release's games meet (``[]``: the
    release's games are disjoint from every earlier edition's)."""
    problems: list[str] = []
    for earlier in ledger:
        if earlier.get("profile") != edition.profile or int(earlier["edition"]) >= edition.number:
            continue
        low, high = int(earlier["seeds"][0]), int(earlier["seeds"][1])
        drawn = {int(s) for s in earlier.get("games", ())}
        shared = sorted(s for s in edition.games if low <= s < high or s in drawn)
        if shared:
            listed = ", ".join(str(s) for s in shared[:5]) + (" ..." if len(shared) > 5 else "")
            problems.append(
                f"games {listed} of edition {edition.number} were drawn by edition "
                f"{earlier['edition']} (seeds {low} to {high - 1})"
            )
    return problems


EDITION_SCORES = "edition_scores"
EDITION_SATURATION = "edition_saturation"
TREND_FIGURE = "plots/edition_trend.png"


def _latest_release(entry: Mapping[str, Any]) -> str | None:
    releases = entry.get("releases") or []
    return str(releases[-1]) if releases else None


def edition_tables(
    store: Path, profile: Mapping[str, Any], released: Mapping[str, pd.DataFrame]
) -> tuple[dict[str, pd.DataFrame], dict[str, bytes]]:
    """The release's tables across editions (issue 39, items 5 and 6), with the trend figure.

    - ``edition_scores``: every player's anchored scores in each edition of the profile, this
      one's from ``released`` and each earlier edition's from its latest release in ``store``
      (the reference field carries from edition to edition, so they share one scale:
      ``engines.stats.editions``);
    - ``edition_saturation``: for each of those editions, how well it still separates the field
      (spread, tiers, share of games the top entrant sweeps) and the verdict for the next one.

    Nothing (``{}``) for a release that draws no seeds or has no anchored scales.
    """
    from engines.gbg.generator import named_config
    from engines.stats.editions import edition_saturation, trend_figure

    edition = edition_of(profile, released.get("benchmark_games"))
    anchored, pairs = released.get("anchored_scales"), released.get("complete_pairs")
    if edition is None or anchored is None or anchored.empty or pairs is None:
        return {}, {}
    scores = {edition.number: anchored}
    corpora = {edition.number: pairs}
    for entry in read_ledger(store) if store.exists() else []:
        number = int(entry["edition"])
        release = _latest_release(entry)
        if entry.get("profile") != edition.profile or number >= edition.number or not release:
            continue
        tables = store / release / "tables"
        if (tables / "anchored_scales.parquet").is_file():
            scores[number] = pd.read_parquet(tables / "anchored_scales.parquet")
            corpora[number] = pd.read_parquet(tables / "complete_pairs.parquet")
    stacked = pd.concat(
        [table.assign(edition=number) for number, table in sorted(scores.items())],
        ignore_index=True,
    )
    stacked = stacked.loc[:, ["edition", *[c for c in anchored.columns if c != "edition"]]]
    stacked["edition"] = stacked["edition"].astype("int64")
    dial = profile.get("complexity")
    complexity = (
        float(dial)
        if dial is not None
        else named_config(str(profile.get("generation", "default"))).complexity
    )
    saturation = edition_saturation(corpora, stacked, complexity)
    saturation["top"] = saturation["top"].astype("string")
    figure = trend_figure(stacked, title="Anchored scores by edition (95% intervals)")
    return {EDITION_SCORES: stacked, EDITION_SATURATION: saturation}, {TREND_FIGURE: figure}
