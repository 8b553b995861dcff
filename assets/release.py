"""Stage: ``release_bundle``, the versioned, attested release, published only past every gate.

Thin: ``releases.contents.publish_release`` shapes what the release holds (tables without
wall-clock columns, the replay rule, the redacted transcripts, the analysis recomputed from the
released corpus, rulebooks, figures, data dictionary, the manifest's context), runs the gates
of ``quality.release_gates`` over the released tables and has ``releases.store`` build, audit
and publish the bundle (write-audit-publish); this module reads the inputs, finds the settings
the ``leaderboards`` asset was fit with (:func:`analysis_settings`: its latest materialization
records them; the defaults when it has none) and attaches metadata. The asset's inputs are the
tables named in :data:`RELEASE_INPUTS`; a stage joins the release by adding its asset key
there (and, for a per-game partitioned table, to :data:`PARTITIONED`), and its columns to
``quality.schema``. For each input this
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

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dagster as dg
import pandas as pd
from pydantic import Field

from arena.heldout import EditionSecrets
from assets.leaderboards import ANALYSIS_SETTINGS, StatsConfig
from assets.metadata import RELEASE_KINDS, markdown_table
from assets.partitions import concat_partitions
from assets.resources import ProjectPaths, RunProfile
from engines.axes.benchmark import AXIS_SCORE_COLUMNS
from engines.gbg import ENGINE_VERSION
from engines.tournament.records import MATCH_SCHEMA, MOVE_SCHEMA
from quality.expectations import SUITES
from quality.gates import DEFAULT_MAX_FALLBACK_RATE, GateResult
from quality.release_gates import GAME_TABLES, MATCH_TABLES, table_gates
from releases.analysis import AnalysisSettings
from releases.contents import publish_release, published_row
from releases.store import STORE_ENV_VAR, Published, default_store

GROUP_NAME = "release"

# The tables a release ships, by asset key, in pipeline order. The release adds the tables it
# derives from them (axis diagnostics, the analysis, superseded matches: releases.contents).
RELEASE_INPUTS: list[str] = [
    "reference_games",
    "seed_pool",
    "accepted_games",
    "benchmark_games",
    "axis_scores",
    "benchmark_axes",
    "roster",
    "complete_pairs",
    "match_moves",
    "leaderboards",
    "capability_profiles",
    "validity_checks",
    "ablations",
    # issue 19: scores against the reference field, episodes, the program track
    "anchored_scales",
    "episode_adaptation",
    "program_track",
]
# Inputs partitioned per game, with their declared columns: they arrive as {partition key:
# table} and are concatenated (assets.partitions.concat_partitions).
PARTITIONED: dict[str, tuple[str, ...]] = {
    "axis_scores": AXIS_SCORE_COLUMNS,
    "match_corpus": tuple(MATCH_SCHEMA.names),
    "match_moves": tuple(MOVE_SCHEMA.names),
}
# The asset whose latest materialization records the analysis settings (StatsConfig) it used.
FITTED_BY = "leaderboards"
# Inputs whose own blocking checks already guard their contract before anything downstream runs
# (reference_games: well_formed; accepted_games: conformance_and_rulebooks). They get no
# release_gates check of their own; their release gates run inside release_bundle.
GUARDED_UPSTREAM: frozenset[str] = frozenset({"reference_games", "accepted_games"})


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


def gates_markdown(gates: Mapping[str, GateResult]) -> str:
    frame = pd.DataFrame(
        [
            {"gate": name, "verdict": "passed" if g.passed else "FAILED", "summary": g.message}
            for name, g in gates.items()
        ]
    )
    return markdown_table(frame)


def analysis_settings(
    instance: dg.DagsterInstance | None, fitted_by: str = FITTED_BY
) -> AnalysisSettings:
    """The settings the latest materialization of ``fitted_by`` (default ``leaderboards``)
    recorded (its ``analysis_settings`` metadata), else those of the default ``StatsConfig``."""
    event = instance.get_latest_materialization_event(dg.AssetKey(fitted_by)) if instance else None
    materialization = event.asset_materialization if event is not None else None
    recorded = materialization.metadata.get(ANALYSIS_SETTINGS) if materialization else None
    if isinstance(recorded, dg.JsonMetadataValue) and isinstance(recorded.value, dict):
        return AnalysisSettings.from_json(recorded.value)
    return StatsConfig().analysis_settings()


def build_release(
    loaded: Mapping[str, pd.DataFrame | Mapping[str, pd.DataFrame]],
    profile: Mapping[str, Any],
    config: ReleaseConfig,
    settings: AnalysisSettings | None = None,
    secrets: EditionSecrets | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The asset's value and metadata, as a plain function (publishes into the store);
    ``settings``: those of the analysis (default: :func:`analysis_settings` without an
    instance, the default ``StatsConfig``'s); ``secrets``: the deployment's edition key and
    reveal folder, for an edition's private games (``arena.heldout``)."""
    tables = {
        name: concat_partitions(value, PARTITIONED.get(name, ())) for name, value in loaded.items()
    }
    store = config.store_path()
    settings = settings or analysis_settings(None)
    published, recorded = publish_release(
        tables,
        profile,
        store,
        max_fallback_rate=config.max_fallback_rate,
        analysis=settings,
        secrets=secrets,
    )
    return published_row(published), release_metadata(published, recorded, store, settings)


def release_metadata(
    published: Published,
    recorded: Mapping[str, GateResult],
    store: Path,
    settings: AnalysisSettings,
) -> dict[str, Any]:
    """The metadata of a release asset: the published release (id, folder, archive hash, files,
    bytes, matches superseded), the analysis settings, the gates and the tables."""
    entry = published.entry
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
        "analysis_settings": dg.MetadataValue.json(settings.as_json()),
        "gates": dg.MetadataValue.md(gates_markdown(recorded)),
        "tables": dg.MetadataValue.md(markdown_table(tables_md)),
    }
    return metadata


@dg.asset(
    group_name=GROUP_NAME,
    kinds=set(RELEASE_KINDS),
    ins={name: dg.AssetIn(name) for name in RELEASE_INPUTS},
    description=(
        "The versioned, hash-attested release bundle (every table of the pipeline and of the "
        "analysis, redacted transcripts, rulebooks, plots, data dictionary, manifest, integrity "
        "card, dataset-card README, LICENSE, CITATION.cff, reproducible .tar.gz), published "
        "into the release store only when every gate passes (write, audit, publish)."
    ),
)
def release_bundle(
    context: dg.AssetExecutionContext,
    config: ReleaseConfig,
    profile: RunProfile,
    paths: ProjectPaths,
    **tables: Any,
) -> dg.Output[pd.DataFrame]:
    settings = analysis_settings(context.instance)
    chosen = profile.get()
    # an edition with private games needs the key; a later one reveals them with it
    kept = chosen.private_games or EditionSecrets.exists(paths.root_path())
    secrets = EditionSecrets.of(paths.root_path()) if kept else None
    value, metadata = build_release(
        tables, chosen.model_dump(mode="json"), config, settings, secrets
    )
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


@dg.asset_check(
    asset=release_bundle,
    name="published_release_verifies",
    blocking=True,
    description="The published release, read back from the store, verifies: every file's "
    "SHA-256 and size match the manifest, the manifest derives the release id, and the archive "
    "matches the folder and the store's index (what `genstrat release verify` checks).",
)
def published_release_verifies(release_bundle: pd.DataFrame) -> dg.AssetCheckResult:
    return verify_published(release_bundle)


def verify_published(published: pd.DataFrame) -> dg.AssetCheckResult:
    """The check result of a release asset's value (:func:`releases.contents.published_row`):
    each published release, read back from the store, verifies."""
    from releases.store import verify

    problems: list[str] = []
    verified = []
    for row in published.to_dict("records"):
        try:
            verified.append(verify(Path(str(row["path"]))))
        except ValueError as exc:
            problems.append(str(exc))
    return dg.AssetCheckResult(
        passed=bool(verified) and not problems,
        metadata={
            "releases": len(published),
            "files_verified": sum(v.files for v in verified),
            "bytes_verified": sum(v.bytes for v in verified),
            "problems": "; ".join(problems) or "none",
        },
    )


ASSETS: list[dg.AssetsDefinition] = [release_bundle]
CHECKS: list[dg.AssetChecksDefinition] = [published_release_verifies] + [
    table_gate_check(name)
    for name in RELEASE_INPUTS
    if name not in PARTITIONED.keys() | GUARDED_UPSTREAM
    and (name in SUITES or name in GAME_TABLES or name in MATCH_TABLES)
]
