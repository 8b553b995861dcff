"""Stage: ``release_bundle``, the versioned, attested release, published only past every gate.

Thin: ``quality.release_gates`` runs the gates over the released tables and ``releases.store``
builds, audits and publishes the bundle (write-audit-publish). The asset's inputs are the
tables named in :data:`RELEASE_INPUTS`; a stage joins the release by adding its asset key
there (and, for a per-game partitioned table, to :data:`PARTITIONED`). For each input this
module also defines a blocking check, ``release_gates``, which runs that table's gates (schema
and range expectations, rulebook consistency, attestation, parse fallbacks, zero-sum, complete
pairs) as soon as the table is materialized, so a bad table stops the run before the release
(except for inputs already guarded by blocking checks of their own, :data:`GUARDED_UPSTREAM`).

Inside the asset the gates run again over all the tables together (the integrity card needs
their figures, and a release must never rely on a check from another run), then the bundle is
built in the store's staging area, scanned for credentials, verified, and moved into place. A
failing gate raises ``GateFailed`` naming the gate; the store is left as it was.

The value of the asset is one row describing the published release (id, folder, archive hash,
files, bytes, matches counted and superseded); publishing identical inputs again yields the
same id and leaves the store unchanged.
"""

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dagster as dg
import pandas as pd
from pydantic import Field

from assets.metadata import markdown_table
from assets.resources import RunProfile
from engines.gbg import ENGINE_VERSION, GameSpec, rulebook
from engines.gbg.generator import GENERATOR_VERSION, GenerationConfig
from quality.expectations import SUITES
from quality.gates import DEFAULT_MAX_FALLBACK_RATE, GateResult
from quality.release_gates import GAME_TABLES, MATCH_TABLES, release_gates, table_gates
from releases.bundle import ReleaseContext
from releases.store import STORE_ENV_VAR, default_store, publish
from releases.versioned import newest_results

GROUP_NAME = "release"

# The tables a release ships, by asset key, in pipeline order. Next to join as their stages
# land: "benchmark_games", "axis_scores", "leaderboards", "capability_profiles".
RELEASE_INPUTS: list[str] = [
    "reference_games",
    "seed_pool",
    "accepted_games",
    "benchmark_games",
    "roster",
    "complete_pairs",
    "leaderboards",
    "capability_profiles",
]
# Columns that record when and how long something ran on this machine, not what happened: they
# stay in the assets (operations) and are left out of a release, so replaying a tournament from
# its response cache on another day publishes the same release id.
WALL_CLOCK_COLUMNS: tuple[str, ...] = ("started_at", "finished_at", "duration_s")
# Inputs partitioned per game: they arrive as {partition key: table} and are concatenated.
PARTITIONED: frozenset[str] = frozenset({"axis_scores", "match_corpus"})
# Inputs whose own blocking checks already guard their contract before anything downstream runs
# (reference_games: well_formed; accepted_games: conformance_and_rulebooks). They get no
# release_gates check of their own; their release gates run inside release_bundle.
GUARDED_UPSTREAM: frozenset[str] = frozenset({"reference_games", "accepted_games"})
# Where the rulebooks of a release come from: the benchmark games when that stage exists,
# else the accepted games; the presets always.
RULEBOOK_SOURCES: tuple[tuple[str, ...], ...] = (
    ("reference_games",),
    ("benchmark_games", "accepted_games"),
)
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


class ReleaseConfig(dg.Config):
    """Where releases are published and the bound of the parse-fallback gate."""

    store: str | None = Field(
        default=None,
        description=f"release store folder; default ${STORE_ENV_VAR}, "
        "else <project>/releases_store",
    )
    max_fallback_rate: float = Field(
        default=DEFAULT_MAX_FALLBACK_RATE,
        ge=0.0,
        le=1.0,
        description="largest share of a model's moves that may be parse fallbacks",
    )

    def store_path(self) -> Path:
        configured = self.store or dg.EnvVar(STORE_ENV_VAR).get_value()
        return Path(configured).expanduser().resolve() if configured else default_store()


def as_table(value: pd.DataFrame | Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """A table, or the partitions of a per-game table concatenated in key order."""
    if isinstance(value, pd.DataFrame):
        return value
    frames = [frame for _, frame in sorted(value.items())]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


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
    """The generation config(s) behind the seed pool, by hash."""
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


def release_inputs(
    loaded: Mapping[str, pd.DataFrame | Mapping[str, pd.DataFrame]],
) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """The tables to release (wall-clock columns left out), with the replay rule applied to the
    match table(s); and the versioned-results figures for the manifest."""
    tables = {
        name: as_table(value).drop(columns=list(WALL_CLOCK_COLUMNS), errors="ignore")
        for name, value in loaded.items()
    }
    results: dict[str, Any] = {}
    for name in MATCH_TABLES:
        if name in tables and not tables[name].empty:
            versioned = newest_results(tables[name])
            tables[name] = versioned.counted.reset_index(drop=True)
            if len(versioned.superseded):
                tables["superseded_matches"] = versioned.superseded.reset_index(drop=True)
            results = versioned.summary()
    return tables, results


def gates_markdown(gates: Mapping[str, GateResult]) -> str:
    frame = pd.DataFrame(
        [
            {"gate": name, "verdict": "passed" if g.passed else "FAILED", "summary": g.message}
            for name, g in gates.items()
        ]
    )
    return markdown_table(frame)


def build_release(
    loaded: Mapping[str, pd.DataFrame | Mapping[str, pd.DataFrame]],
    profile: Mapping[str, Any],
    config: ReleaseConfig,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The asset's value and metadata, as a plain function (publishes into the store)."""
    tables, results = release_inputs(loaded)
    gates = release_gates(
        {k: v for k, v in tables.items() if k != "superseded_matches"},
        engine_version=ENGINE_VERSION,
        max_fallback_rate=config.max_fallback_rate,
    )
    context = ReleaseContext(
        profile=str(profile["name"]),
        profile_settings={k: v for k, v in profile.items() if k != "name"},
        roster=roster_records(tables),
        generation_configs=generation_configs(tables),
        results=results,
    )
    store = config.store_path()
    published = publish(
        tables, rulebook_texts(tables), plot_images(tables), context, store, gates=gates
    )
    entry = published.entry
    card = json.loads((published.path / "integrity.json").read_text(encoding="utf-8"))
    recorded = {
        name: GateResult(g["passed"], g["figures"], g["message"])
        for name, g in card["gates"].items()
    }
    value = pd.DataFrame(
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
    tables_md = pd.DataFrame(
        [{"table": path, "rows": rows} for path, rows in entry["tables"].items()]
    )
    metadata: dict[str, Any] = {
        "dagster/row_count": 1,
        "release_id": published.release_id,
        "release_path": dg.MetadataValue.path(str(published.path)),
        "store": dg.MetadataValue.path(str(store)),
        "newly_published": published.new,
        "archive_sha256": entry["archive"]["sha256"],
        "files": entry["files"],
        "bytes": entry["bytes"],
        "superseded_matches": int(entry.get("superseded_matches") or 0),
        "gates": dg.MetadataValue.md(gates_markdown(recorded)),
        "tables": dg.MetadataValue.md(markdown_table(tables_md)),
    }
    return value, metadata


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    ins={name: dg.AssetIn(name) for name in RELEASE_INPUTS},
    description=(
        "The versioned, hash-attested release bundle (tables, rulebooks, plots, manifest, "
        "integrity card, README, reproducible .tar.gz), published into the release store only "
        "when every gate passes (write, audit, publish)."
    ),
)
def release_bundle(
    context: dg.AssetExecutionContext,
    config: ReleaseConfig,
    profile: RunProfile,
    **tables: Any,
) -> dg.Output[pd.DataFrame]:
    value, metadata = build_release(tables, profile.get().model_dump(), config)
    verb = "published" if metadata["newly_published"] else "already published"
    context.log.info(f"{verb} release {metadata['release_id']} at {metadata['release_path'].path}")
    return dg.Output(value, metadata=metadata)


def table_gate_check(name: str) -> dg.AssetChecksDefinition:
    """A blocking check on the input ``name``: every gate that guards that table alone."""

    @dg.asset_check(
        asset=name,
        name="release_gates",
        blocking=True,
        description=f"The release gates of {name}: schema and range expectations "
        "(great_expectations) and the table's own gates (rulebooks, attestation, fallbacks, "
        "zero-sum, complete pairs, as they apply).",
    )
    def check(table: pd.DataFrame) -> dg.AssetCheckResult:
        gates = table_gates(name, table, engine_version=ENGINE_VERSION)
        failed = [f"{gate}: {g.message}" for gate, g in gates.items() if not g.passed]
        return dg.AssetCheckResult(
            passed=not failed,
            metadata={
                "gates": dg.MetadataValue.md(gates_markdown(gates)),
                "problems": "; ".join(failed) or "none",
            },
        )

    return check


ASSETS: list[dg.AssetsDefinition] = [release_bundle]
CHECKS: list[dg.AssetChecksDefinition] = [
    table_gate_check(name)
    for name in RELEASE_INPUTS
    if name not in PARTITIONED | GUARDED_UPSTREAM
    and (name in SUITES or name in GAME_TABLES or name in MATCH_TABLES)
]
