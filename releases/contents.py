"""What a release holds, assembled from the tables of a run (DESIGN.md, "Release bundle").

Why it exists: choosing and shaping what a release ships is the release's business, not the
asset's. From the run's tables this module derives the released tables (wall-clock columns
left out, the replay rule applied to the matches, the transcripts of the released matches with
credentials redacted, no folder of the publishing machine and no URL credentials in the roster,
the match errors or the transcripts, the axis diagnostics of Table 3 and Appendix D), the
analysis recomputed from them (``releases.analysis``: every table of Sections 6-7 and its
figures), the rulebooks as players read them, the data dictionary (``SCHEMA.md``,
``schema.json``) and the data licence, the figures, and the context the manifest records
(profile, analysis settings, roster with request settings, the generation configs, the
versioned-results figures); it publishes them past
every gate (``quality.release_gates``, the ``reproduction`` gate, ``releases.store.publish``)
and describes the published release in one row. The ``release_bundle`` asset
(``assets/release.py``) reads its inputs, calls :func:`publish_release` and attaches metadata;
nothing here imports Dagster.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arena.heldout import EditionSecrets
from arena.roster import public_url, released_program_path, released_roster_json
from arena.secrets import (
    MATCH_TEXT_FIELDS,
    MOVE_TEXT_FIELDS,
    REDACTED,
    environment_secrets,
    redact_all,
)
from engines.axes.benchmark import diagnostics_tables
from engines.gbg import ENGINE_VERSION, GameSpec, rulebook
from engines.gbg.generator import CONFIGS, GENERATOR_VERSION
from engines.tournament.records import WALL_CLOCK_COLUMNS as MATCH_WALL_CLOCK_COLUMNS
from quality.gates import GateResult, reproduction
from quality.redaction import HostPaths, scrub_paths, strip_userinfo
from quality.release_gates import MATCH_TABLES, release_gates
from releases.analysis import (
    AnalysisSettings,
    ReleasedAnalysis,
    analyse_release,
    reproduction_pairs,
)
from releases.bundle import ReleaseContext
from releases.dictionary import LICENSE_TEXT, schema_json, schema_markdown
from releases.editions import edition_tables
from releases.heldout import (
    HELDOUT,
    REVEALED,
    heldout_table,
    hide,
    keep_for_reveal,
    private_games,
    revealed_table,
)
from releases.store import Published, publish
from releases.strength_cost import strength_cost_frame
from releases.versioned import newest_results

WALL_CLOCK_COLUMNS: tuple[str, ...] = (
    *MATCH_WALL_CLOCK_COLUMNS,  # a match's times (engines.tournament.records)
    "latency_s",  # a move's
    "seconds",  # the axes' computing time
    "rerun_seconds",
)
"""Columns that record when and how long something ran on this machine, not what happened (a
match's times, a move's latency, the axes' computing time): they stay in the assets
(operations) and are left out of a release, so replaying a tournament from its response cache
on another day, or the same run on another machine, publishes the same release id."""

TRANSCRIPTS = "match_moves"
TRANSCRIPT_TEXT: tuple[str, ...] = MOVE_TEXT_FIELDS
"""The free-text columns of the transcripts (what a model wrote), redacted again before release
(the tournament redacts them as it records them; a release redacts with the secrets of the
machine that publishes it, and scrubs its folders and URL credentials)."""
MATCH_TEXT: tuple[str, ...] = MATCH_TEXT_FIELDS
"""The free-text columns of the match tables (a crash reason, a provider's error): every
absolute path and URL credential scrubbed before release (:func:`released_error`)."""
ROSTER = "roster"

AXIS_DIAGNOSTICS = "axis_diagnostics"
AXIS_CORRELATIONS = "axis_correlations"
DIAGNOSTIC_NAMES = {
    "median sampling error": "median_sampling_error",
    "seat agreement (rho)": "seat_agreement",
    "rerun correlation (rho)": "rerun_correlation",
    "VIF": "vif",
}
"""``engines.axes.benchmark.diagnostics_tables``' display names and the released column names."""

LICENSE_PATH = "LICENSE"
SCHEMA_MARKDOWN = "SCHEMA.md"
SCHEMA_JSON = "schema.json"

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
"""The roster columns the manifest records (key *names* only, never keys; endpoints without URL
credentials)."""

SUPERSEDED = "superseded_matches"


def redacted(value: Any, secrets: tuple[str, ...], host: HostPaths | None = None) -> Any:
    """A transcript cell with credentials redacted (``arena.secrets.redact_all`` without the
    ``NAME_KEY=value`` rule: a model's reply keeps its words, ``{"monkey": 3}`` is no secret),
    URL credentials redacted, and this machine's folders (``host``) named by their labels:
    text, or every text of a list; anything else (a missing value) as it is."""
    if isinstance(value, str):
        text = strip_userinfo(redact_all(value, secrets, assignments=False), REDACTED)
        return host.scrub(text) if host is not None else text
    if isinstance(value, list | tuple | np.ndarray):
        return [redacted(v, secrets, host) if isinstance(v, str) else v for v in value]
    return value


def released_error(value: Any, secrets: tuple[str, ...], host: HostPaths) -> Any:
    """A match table's free text (an ``error``) as released: credentials redacted (the
    ``NAME_KEY=value`` rule too: an error is no model's reply), URL credentials redacted, and
    every absolute path replaced by ``<path>`` (``quality.redaction.scrub_paths``): a program's
    crash reason may quote the mount table or the kernel command line (issue 43). A missing
    value stays missing."""
    if not isinstance(value, str):
        return value
    text = strip_userinfo(redact_all(value, secrets), REDACTED)
    return scrub_paths(text, host)


def released_roster(roster: pd.DataFrame) -> pd.DataFrame:
    """The roster table as released (issue 43): a program's ``path`` its file name (its
    ``code_sha256`` stays: the content hash plus a relative name), each ``endpoint`` without
    URL credentials, ``roster_json`` likewise (``arena.roster.released_roster_json``); the
    asset keeps the absolute paths the tournament needs."""
    frame = roster.copy()
    rewrites = {
        "path": released_program_path,
        "endpoint": public_url,
        "roster_json": released_roster_json,
    }
    for column, rewrite in rewrites.items():
        if column in frame.columns:
            values = [rewrite(v) if isinstance(v, str) and v else v for v in frame[column]]
            frame[column] = pd.Series(values, index=frame.index, dtype=frame[column].dtype)
    return frame


def transcripts(
    moves: pd.DataFrame,
    released: Mapping[str, pd.DataFrame],
    secrets: tuple[str, ...] | None = None,
    host: HostPaths | None = None,
) -> pd.DataFrame:
    """The moves a release ships: those of its released matches (every released match table's
    ``match_id``; all moves when it releases no match table), in their order, with the free
    text (:data:`TRANSCRIPT_TEXT`) redacted of ``secrets`` (default: the values of the
    environment's secret-looking variables, the values the redaction gate searches for), of
    anything shaped like a credential, of URL credentials and of this machine's folders
    (``host``, default ``quality.redaction.HostPaths.of()``: :func:`redacted`)."""
    secrets = environment_secrets() if secrets is None else secrets
    host = HostPaths.of() if host is None else host
    matches = [released[n] for n in (*MATCH_TABLES, SUPERSEDED) if n in released]
    kept = moves
    if matches and "match_id" in moves.columns:
        ids = set().union(*(set(m["match_id"]) for m in matches if "match_id" in m.columns))
        kept = moves.loc[moves["match_id"].isin(ids)]
    kept = kept.reset_index(drop=True)
    for column in TRANSCRIPT_TEXT:
        if column in kept.columns:  # the column's dtype kept: missing text stays missing text
            values = [redacted(v, secrets, host) for v in kept[column]]
            kept[column] = pd.Series(values, index=kept.index, dtype=kept[column].dtype)
    return kept


def axis_diagnostics(benchmark: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Table 3 (per axis) and Appendix D (pairs of axes) of the benchmark, as released."""
    found = diagnostics_tables(benchmark)
    per_axis = found["per_axis"].rename(columns=DIAGNOSTIC_NAMES)
    per_axis = per_axis.astype({c: "float64" for c in DIAGNOSTIC_NAMES.values()})
    pairs = found["pairs"]
    split = pairs["pair"].astype(str).str.split("~", n=1, expand=True)
    correlations = pd.DataFrame(
        {
            "axis_a": split[0].astype(str),
            "axis_b": split[1].astype(str),
            "rho": pairs["rho"].astype("float64"),
        }
    )
    return {AXIS_DIAGNOSTICS: per_axis, AXIS_CORRELATIONS: correlations}


def release_tables(
    tables: Mapping[str, pd.DataFrame],
    secrets: tuple[str, ...] | None = None,
) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """The tables to release and the versioned-results figures for the manifest.

    Steps: leave out the wall-clock columns; scrub the match tables' free text of paths and
    credentials (:func:`released_error`) and the roster of folders and URL credentials
    (:func:`released_roster`); apply the replay rule to the match table(s), the superseded
    matches becoming a table of their own when there are any; keep the transcripts of the
    released matches, redacted (:func:`transcripts`); add the axis diagnostics when the
    benchmark's axes are released (:func:`axis_diagnostics`).
    """
    secrets = environment_secrets() if secrets is None else secrets
    host = HostPaths.of()
    released = {
        name: table.drop(columns=list(WALL_CLOCK_COLUMNS), errors="ignore")
        for name, table in tables.items()
    }
    if ROSTER in released:
        released[ROSTER] = released_roster(released[ROSTER])
    results: dict[str, Any] = {}
    for name in MATCH_TABLES:
        for column in MATCH_TEXT:
            if name in released and column in released[name].columns:
                frame = released[name].copy()
                values = [released_error(v, secrets, host) for v in frame[column]]
                frame[column] = pd.Series(values, index=frame.index, dtype=frame[column].dtype)
                released[name] = frame
        if name in released and not released[name].empty:
            versioned = newest_results(released[name])
            released[name] = versioned.counted.reset_index(drop=True)
            if len(versioned.superseded):
                released[SUPERSEDED] = versioned.superseded.reset_index(drop=True)
            results = versioned.summary()
    if TRANSCRIPTS in released:
        released[TRANSCRIPTS] = transcripts(released[TRANSCRIPTS], released, secrets, host)
    if "benchmark_axes" in released and not released["benchmark_axes"].empty:
        released.update(axis_diagnostics(tables["benchmark_axes"]))
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


PGN_TABLE = "chess_pgn"
"""The openspiel group's chess games in PGN (``assets.openspiel.chess_pgn_table``)."""


def pgn_texts(tables: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """``pgn/<match_id>.pgn`` for each chess game of the ``chess_pgn`` table whose match is
    released (every released match table's ``match_id``), and ``pgn/games.pgn`` with them all
    in the table's order (one file a chess program opens whole); none without the table."""
    frame = tables.get(PGN_TABLE)
    if frame is None or frame.empty:
        return {}
    matches = [tables[n] for n in MATCH_TABLES if n in tables and "match_id" in tables[n]]
    released = set().union(*(set(m["match_id"].astype(str)) for m in matches))
    kept = frame.loc[frame["match_id"].astype(str).isin(released)]
    texts = {str(p): str(t) for p, t in zip(kept["path"], kept["pgn"], strict=True)}
    if texts:
        texts["pgn/games.pgn"] = "\n".join(texts.values())
    return texts


def plot_images(tables: Mapping[str, pd.DataFrame]) -> dict[str, bytes]:
    """The release's figures of its tables, as PNG and SVG: the picture of the seed pool
    (``plots/seed_pool``) and the benchmark games on state space x temporal contingency, each
    labelled (``plots/benchmark_map``, the paper's Figure 1). The analysis draws the others
    (``releases.analysis.figures``)."""
    from engines import plotting

    drawings: dict[str, Any] = {}
    if "seed_pool" in tables:
        from engines.gbg.plots import pool_plot
        from engines.gbg.seed_pool import summarise

        rows = tables["seed_pool"].to_dict("records")
        for row in rows:
            row["reasons"] = [r for r in str(row.get("reasons") or "").split(",") if r]
        summary = summarise(rows, 1.0)
        drawings["seed_pool"] = lambda: pool_plot(summary)
    if "benchmark_axes" in tables and not tables["benchmark_axes"].empty:
        from engines.axes.benchmark import benchmark_figure

        benchmark = tables["benchmark_axes"]
        drawings["benchmark_map"] = lambda: benchmark_figure(benchmark)
    cost_side = strength_cost_frame(tables)
    if cost_side is not None:
        from engines.stats.usage import strength_cost_plot

        drawings["strength_cost"] = lambda: strength_cost_plot(cost_side)
    images: dict[str, bytes] = {}
    for kind in ("png", "svg"):
        with plotting.image_format(kind):
            images.update({f"plots/{name}.{kind}": draw() for name, draw in drawings.items()})
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
        if isinstance(record.get("endpoint"), str):
            record["endpoint"] = public_url(record["endpoint"])
        records.append(record)
    return records


def generation_configs(tables: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
    """The generation config(s) behind the seed pool, by hash (a known config, ``default`` or
    ``paper``, in full; an unknown hash as null)."""
    if "seed_pool" not in tables or "config_hash" not in tables["seed_pool"].columns:
        return {}
    known = {c.config_hash: c for c in CONFIGS.values()}
    hashes = sorted(set(tables["seed_pool"]["config_hash"].astype(str)))
    # The canonical JSON of a known configuration: for the default, exactly its fields before
    # the paper's configuration added any.
    return {
        "generator_version": GENERATOR_VERSION,
        "configs": {
            h: json.loads(known[h].canonical_json()) if h in known else None for h in hashes
        },
    }


def release_context(
    tables: Mapping[str, pd.DataFrame],
    profile: Mapping[str, Any],
    results: Mapping[str, Any],
    analysis: Mapping[str, Any] | None = None,
    *,
    benchmark: str | None = None,
    engine_version: str | None = None,
) -> ReleaseContext:
    """The manifest's context: the profile (``name`` and its settings), the settings of the
    analysis (``releases.analysis.AnalysisSettings.as_json``, when the release has one), roster,
    generation configs and versioned-results figures; ``benchmark`` and ``engine_version`` as
    :class:`releases.bundle.ReleaseContext` takes them (unset: the generated benchmark's)."""
    return ReleaseContext(
        benchmark=benchmark,
        engine_version=engine_version,
        profile=str(profile["name"]),
        profile_settings={k: v for k, v in profile.items() if k != "name"},
        roster=roster_records(tables),
        generation_configs=generation_configs(tables),
        results=results,
        analysis=dict(analysis or {}),
    )


def documents(tables: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """The reader's documents that depend on the tables only: the data dictionary of the
    released tables (``SCHEMA.md``, ``schema.json``) and the data licence (``LICENSE``)."""
    return {
        SCHEMA_MARKDOWN: schema_markdown(tables),
        SCHEMA_JSON: schema_json(tables),
        LICENSE_PATH: LICENSE_TEXT,
    }


def release_analysis(
    released: Mapping[str, pd.DataFrame], settings: AnalysisSettings
) -> tuple[ReleasedAnalysis | None, GateResult]:
    """The analysis of the released corpus and axis scores (``releases.analysis``) and the
    ``reproduction`` gate: the released ``leaderboards`` and ``capability_profiles`` equal their
    recomputation. No corpus: no analysis, the gate not applicable; a corpus the analysis
    refuses: no analysis, the gate failed with the reason."""
    pairs = released.get("complete_pairs")
    if pairs is None or pairs.empty:
        return None, reproduction({})
    try:
        analysis = analyse_release(pairs, released.get("axis_scores"), settings)
    except ValueError as exc:
        reason = str(exc).splitlines()[0]
        return None, GateResult(
            False, {"error": reason}, f"the analysis refused the corpus: {reason}"
        )
    return analysis, reproduction(reproduction_pairs(analysis, released))


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
    analysis: AnalysisSettings | None = None,
    benchmark: str | None = None,
    engine_version: str = ENGINE_VERSION,
    secrets: EditionSecrets | None = None,
) -> tuple[Published, dict[str, GateResult]]:
    """Publish the run's ``tables`` into ``store`` past every gate (write, audit, publish).

    ``analysis``: the settings the ``leaderboards`` and ``capability_profiles`` assets were fit
    with (default: the paper's, as the assets' defaults). ``benchmark``: the kind of release
    the manifest records when it is not the generated benchmark's (``"openspiel"``: the
    ``openspiel_release`` asset); ``engine_version``: the version the matches are attested to
    and the manifest records (default: the GBG engine's).

    Steps:
    1. the released tables and the versioned-results figures (:func:`release_tables`);
    2. the analysis of the released corpus with ``analysis`` (:func:`release_analysis`): its
       tables join the release, its figures the plots. An edition's private games (with
       ``secrets``, the deployment's ``arena.heldout.EditionSecrets``) are then hidden,
       published as commitments with aggregate scores, and the analysis redone on the public
       games (``releases.heldout``); earlier editions' private games are revealed; then the
       tables across editions (each player's anchored scores by edition, the saturation
       watch: ``releases.editions``);
    3. every release gate over all the tables together (the superseded matches get the schema
       gate only), and the ``reproduction`` gate;
    4. the manifest's context, the rulebooks, the data dictionary, the licence and the figures;
    5. ``releases.store.publish`` (raises ``GateFailed`` naming a failed gate; the store is then
       left as it was);
    6. the gates as the published release's integrity card records them.
    """
    settings = analysis or AnalysisSettings()
    released, results = release_tables(tables)
    analysed, reproduced = release_analysis(released, settings)
    edition = int(profile.get("edition", 1))
    hidden = private_games(released, profile, secrets.key) if secrets and not benchmark else []
    if hidden:  # the edition's private games: commitments and aggregates only
        held = heldout_table(released["complete_pairs"], hidden, edition)
        released = hide(released, hidden)
        analysed, _ = release_analysis(released, settings)  # on the public games
        if analysed is not None:
            for name, (_, recomputed) in reproduction_pairs(analysed, released).items():
                released[name] = recomputed
        released[HELDOUT] = held
    if analysed is not None:
        released.update(analysed.tables)
    revealed = (
        revealed_table(secrets.folder, str(profile["name"]), edition)
        if secrets and not benchmark
        else None
    )
    if revealed is not None:
        released[REVEALED] = revealed
    across, trend = edition_tables(store, profile, released) if not benchmark else ({}, {})
    released.update(across)
    gates = release_gates(
        {k: v for k, v in released.items() if k != SUPERSEDED},
        engine_version=engine_version,
        max_fallback_rate=max_fallback_rate,
        schema_only={k: v for k, v in released.items() if k == SUPERSEDED},
    )
    gates["reproduction"] = reproduced
    context = release_context(
        released,
        profile,
        results,
        settings.as_json() if analysed is not None else None,
        benchmark=benchmark,
        engine_version=None if engine_version == ENGINE_VERSION else engine_version,
    )
    texts = {**rulebook_texts(released), **pgn_texts(released), **documents(released)}
    images = {
        **plot_images(released),
        **(analysed.figures if analysed is not None else {}),
        **trend,
    }
    published = publish(released, texts, images, context, store, gates=gates, sealed=hidden)
    if secrets is not None:
        keep_for_reveal(secrets.folder, str(profile["name"]), edition, hidden)
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
