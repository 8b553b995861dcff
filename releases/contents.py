"""What a release holds, assembled from the tables of a run (DESIGN.md, "Release bundle").

Why it exists: choosing and shaping what a release ships is the release's business, not the
asset's. From the run's tables this module derives the released tables (wall-clock columns
left out, the replay rule applied to the matches), the rulebooks as players read them, the
figures, and the context the manifest records (profile, roster with request settings, the
generation configs, the versioned-results figures); it publishes them past every gate
(``quality.release_gates``, ``releases.store.publish``) and describes the published release in
one row. The ``release_bundle`` asset (``assets/release.py``) reads its inputs, calls
:func:`publish_release` and attaches metadata; nothing here imports Dagster.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from engines.gbg import ENGINE_VERSION, GameSpec, rulebook
from engines.gbg.generator import GENERATOR_VERSION, GenerationConfig
from quality.gates import GateResult
from quality.release_gates import MATCH_TABLES, release_gates
from releases.bundle import ReleaseContext
from releases.store import Published, publish
from releases.versioned import newest_results

WALL_CLOCK_COLUMNS: tuple[str, ...] = ("started_at", "finished_at", "duration_s")
"""Columns that record when and how long something ran on this machine, not what happened:
they stay in the assets (operations) and are left out of a release, so replaying a tournament
from its response cache on another day publishes the same release id."""

RULEBOOK_SOURCES: tuple[tuple[str, ...], ...] = (
    ("reference_games",),
    ("benchmark_games", "accepted_games"),
)
"""Where the rulebooks of a release come from: the presets always; the benchmark games when
that table is released, else the accepted games."""

ROSTER_FIELDS = (
    "name",
    "kind",
    "model",
    "endpoint",
    "api_key_env",
    "settings",
    "response_format",
    "rethinks",
    "block",
    "family",
    "variant",
    "input_per_mtok",
    "output_per_mtok",
    "code_sha256",
    "fingerprint",
)
"""The roster columns the manifest records (key *names* only, never keys)."""

SUPERSEDED = "superseded_matches"


def release_tables(
    tables: Mapping[str, pd.DataFrame],
) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """The tables to release (wall-clock columns left out), with the replay rule applied to the
    match table(s) and the superseded matches as a table of their own when there are any; and
    the versioned-results figures for the manifest."""
    released = {
        name: table.drop(columns=list(WALL_CLOCK_COLUMNS), errors="ignore")
        for name, table in tables.items()
    }
    results: dict[str, Any] = {}
    for name in MATCH_TABLES:
        if name in released and not released[name].empty:
            versioned = newest_results(released[name])
            released[name] = versioned.counted.reset_index(drop=True)
            if len(versioned.superseded):
                released[SUPERSEDED] = versioned.superseded.reset_index(drop=True)
            results = versioned.summary()
    return released, results


def rulebook_texts(tables: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """``rulebooks/<preset>.md`` and ``rulebooks/seed-<n>.md`` for the released games."""
    texts: dict[str, str] = {}
    for sources in RULEBOOK_SOURCES:
        name = next((s for s in sources if s in tables), None)
        if name is None or not {"rulebook", "spec_json"} & set(tables[name].columns):
            continue
        frame = tables[name]
        if "rulebook" not in frame.columns:  # rendered from the spec, as players see it
            specs = [GameSpec.from_json(str(s)) for s in frame["spec_json"]]
            frame = frame.assign(rulebook=[rulebook(spec) for spec in specs])
        if "seed" in frame.columns or "game_seed" in frame.columns:
            column = "seed" if "seed" in frame.columns else "game_seed"
            labels = [f"seed-{int(s)}" for s in frame[column]]
        else:
            labels = [str(n) for n in frame["name"]]
        for label, text in zip(labels, frame["rulebook"], strict=True):
            texts[f"rulebooks/{label}.md"] = str(text)
    return texts


def plot_images(tables: Mapping[str, pd.DataFrame]) -> dict[str, bytes]:
    """The release's figures: the picture of the seed pool (more join with their stages)."""
    images: dict[str, bytes] = {}
    if "seed_pool" in tables:
        from engines.gbg.plots import pool_plot
        from engines.gbg.seed_pool import summarise

        rows = tables["seed_pool"].to_dict("records")
        for row in rows:
            row["reasons"] = [r for r in str(row.get("reasons") or "").split(",") if r]
        images["plots/seed_pool.png"] = pool_plot(summarise(rows, 1.0))
    return images


def roster_records(tables: Mapping[str, pd.DataFrame]) -> list[dict[str, Any]]:
    """The players with their request settings (key *names* only), for the manifest."""
    if "roster" not in tables:
        return []
    records = []
    for row in tables["roster"].to_dict("records"):
        record = {k: row.get(k) for k in ROSTER_FIELDS if k in row}
        if isinstance(record.get("settings"), str):
            record["settings"] = json.loads(record["settings"])
        records.append(record)
    return records


def generation_configs(tables: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
    """The generation config(s) behind the seed pool, by hash (the default config in full; an
    unknown hash as null)."""
    if "seed_pool" not in tables or "config_hash" not in tables["seed_pool"].columns:
        return {}
    default = GenerationConfig()
    hashes = sorted(set(tables["seed_pool"]["config_hash"].astype(str)))
    return {
        "generator_version": GENERATOR_VERSION,
        "configs": {
            h: default.model_dump(mode="json") if h == default.config_hash else None for h in hashes
        },
    }


def release_context(
    tables: Mapping[str, pd.DataFrame], profile: Mapping[str, Any], results: Mapping[str, Any]
) -> ReleaseContext:
    """The manifest's context: the profile (``name`` and its settings), roster, generation
    configs and versioned-results figures."""
    return ReleaseContext(
        profile=str(profile["name"]),
        profile_settings={k: v for k, v in profile.items() if k != "name"},
        roster=roster_records(tables),
        generation_configs=generation_configs(tables),
        results=results,
    )


def recorded_gates(folder: Path) -> dict[str, GateResult]:
    """The gates as the integrity card of a published release records them."""
    card = json.loads((folder / "integrity.json").read_text(encoding="utf-8"))
    return {
        name: GateResult(g["passed"], g["figures"], g["message"])
        for name, g in card["gates"].items()
    }


def publish_release(
    tables: Mapping[str, pd.DataFrame],
    profile: Mapping[str, Any],
    store: Path,
    *,
    max_fallback_rate: float,
) -> tuple[Published, dict[str, GateResult]]:
    """Publish the run's ``tables`` into ``store`` past every gate (write, audit, publish).

    Steps:
    1. the released tables and the versioned-results figures (:func:`release_tables`);
    2. every release gate over all the tables together (the superseded matches are not gated);
    3. the manifest's context, the rulebooks and the figures;
    4. ``releases.store.publish`` (raises ``GateFailed`` naming a failed gate; the store is then
       left as it was);
    5. the gates as the published release's integrity card records them.
    """
    released, results = release_tables(tables)
    gates = release_gates(
        {k: v for k, v in released.items() if k != SUPERSEDED},
        engine_version=ENGINE_VERSION,
        max_fallback_rate=max_fallback_rate,
    )
    context = release_context(released, profile, results)
    published = publish(
        released, rulebook_texts(released), plot_images(released), context, store, gates=gates
    )
    return published, recorded_gates(published.path)


def published_row(published: Published) -> pd.DataFrame:
    """One row describing a published release: id, folder, archive and its hash, the manifest's
    hash, whether this call published it, files, bytes, profile, versions, matches counted and
    superseded."""
    entry = published.entry
    return pd.DataFrame(
        [
            {
                "release_id": published.release_id,
                "path": str(published.path),
                "archive": str(published.archive),
                "archive_sha256": entry["archive"]["sha256"],
                "manifest_sha256": entry["manifest_sha256"],
                "newly_published": published.new,
                "files": entry["files"],
                "bytes": entry["bytes"],
                "profile": entry["profile"],
                "engine_version": entry["engine_version"],
                "code_version": entry["code_version"],
                "counted_matches": int(entry.get("counted_matches") or 0),
                "superseded_matches": int(entry.get("superseded_matches") or 0),
            }
        ]
    )
