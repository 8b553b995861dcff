"""The reader's documents inside every release: ``README.md`` (a dataset card) and ``CITATION.cff``.

Why it exists: a release is read by people who never ran the pipeline. The README is a dataset
card, written through ``huggingface_hub``'s ``DatasetCard`` (which dumps its YAML header): the
header declares one ``configs`` entry per table (``data_files`` pointing at
``tables/<name>.parquet``), so ``datasets.load_dataset(<release folder>, "<table>")`` loads a
table with no network, and its text starts with the leaderboard (the top models with their
intervals), then lists every table (rows, size, meaning from ``quality.schema``), the figures
and the documents, shows the integrity card in one table, and explains how to verify the hashes
with or without GENSTRAT. ``CITATION.cff`` (Citation File Format 1.2.0) cites the release by its
id, with a reference to the GENSTRAT paper. Both are rendered from the manifest, the integrity
card and the tables only, so they are as reproducible as those; the only date is the
manifest's (the code version's commit date), never the clock.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd
from huggingface_hub import DatasetCard, DatasetCardData

from quality.schema import TABLES
from releases.editions import edition_label

CITATION = "CITATION.cff"
DATA_LICENSE_ID = "CC-BY-4.0"  # SPDX; the card's `license` is the Hub's lower-case form
PAPER_TITLE = "GENSTRAT: Toward a Science of Strategic Reasoning in Large Language Models"
AUTHORS = "GENSTRAT maintainers"
PAPER_AUTHORS = "GENSTRAT authors"
LEADERBOARD = "leaderboards"
LEADERBOARD_ROWS = 10  # the README shows the top models; the table has them all
DEFAULT_CONFIG = LEADERBOARD

FIGURE_DESCRIPTIONS: dict[str, str] = {
    "leaderboard": "the overall leaderboard: alpha with its 95% interval, best first (Table 1)",
    "per_game_heatmap": "strength of each model on each game (Table 12), games x models",
    "profile_heatmap": "capability profiles: slopes on the five axes, * where BH-significant "
    "(Figures 2 and 7)",
    "benchmark_axes": "the benchmark games on temporal x state space (z-scores), coloured by "
    "composite complexity",
    "benchmark_map": "the benchmark games on state space x temporal contingency, labelled "
    "(Figure 1)",
    "seed_pool": "the seed pool: rejection reasons and the features of the accepted games",
}
DOCUMENTS: dict[str, str] = {
    "SCHEMA.md": "the data dictionary: every table and column, its type, unit and meaning",
    "schema.json": "the same, machine-readable",
    "croissant.json": "the tables and their columns as MLCommons Croissant 1.0 metadata (JSON-LD)",
    "LICENSE": f"the data licence ({DATA_LICENSE_ID})",
    CITATION: "how to cite this release",
    "integrity.json": "each gate's verdict and figures",
    "manifest.json": "every file's SHA-256 and size; versions, profile, analysis settings, roster",
}


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table_entries(manifest: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """``(table name, manifest entry)`` of every table, in manifest order."""
    return [
        (str(e["path"]).removeprefix("tables/").removesuffix(".parquet"), e)
        for e in manifest["files"]
        if e.get("role") == "table"
    ]


BENCHMARK_NOTES = {
    "openspiel": "This release is of the `openspiel` benchmark group: OpenSpiel's classic games "
    "(the `openspiel_games` table names each, its spec hash, engine version, protocol and move "
    "cap), played through the same tournament, gates and statistics as the generated games.",
}
"""A paragraph for a release whose manifest names another ``benchmark`` than the generated one."""


def benchmark_note(manifest: Mapping[str, Any]) -> list[str]:
    """The paragraph of :data:`BENCHMARK_NOTES` for the manifest's ``benchmark`` (none when it
    names none: the generated benchmark's README is as before)."""
    kind = manifest.get("benchmark")
    if not kind:
        return []
    return [BENCHMARK_NOTES.get(str(kind), f"This release is of the `{kind}` benchmark."), ""]


def card_data(manifest: Mapping[str, Any]) -> DatasetCardData:
    """The dataset card's metadata: licence, name, tags and one ``configs`` entry per table with
    rows (``datasets`` cannot load a Parquet file without rows), the leaderboard the default.
    ``huggingface_hub`` writes it as the card's YAML header."""
    configs: list[dict[str, Any]] = []
    for name, entry in _table_entries(manifest):
        if not entry.get("rows"):
            continue
        config: dict[str, Any] = {"config_name": name}
        if name == DEFAULT_CONFIG:
            config["default"] = True
        config["data_files"] = [{"split": "train", "path": str(entry["path"])}]
        configs.append(config)
    return DatasetCardData(
        license=DATA_LICENSE_ID.lower(),
        pretty_name=f"GENSTRAT release {manifest['release_id']}",
        tags=["benchmark", "games", "strategic-reasoning"],
        configs=configs,
    )


def _figure(summary: pd.DataFrame | None, name: str) -> float | None:
    if summary is None or "figure" not in summary.columns:
        return None
    found = summary.loc[summary["figure"] == name, "value"]
    return float(found.iloc[0]) if len(found) and pd.notna(found.iloc[0]) else None


def leaderboard_section(
    manifest: Mapping[str, Any], tables: Mapping[str, pd.DataFrame]
) -> list[str]:
    """The top of the leaderboard with intervals, and how it was fit (empty without one)."""
    board = tables.get(LEADERBOARD)
    if board is None or board.empty or not {"model", "alpha", "rank"} <= set(board.columns):
        return []
    analysis = manifest.get("analysis") or {}
    summary = tables.get("analysis_summary")
    games, deals = _figure(summary, "games"), _figure(summary, "paired_deals")
    fit = "Strength alpha in chips per game (least squares on chip margins, summing to zero over"
    fit += " the models) with its 95% clustered-bootstrap interval"
    if analysis.get("n_boot"):
        fit += f" (B = {int(analysis['n_boot']):,} resamples of runs)"
    if games is not None and deals is not None:
        fit += f", from {int(deals):,} paired deals on {int(games)} games"
    top = board.sort_values("rank").head(LEADERBOARD_ROWS)
    lines = ["## Leaderboard", "", fit + ".", "", "| rank | model | alpha | 95% interval | tier |"]
    lines.append("|---|---|---|---|---|")
    for row in top.to_dict("records"):
        interval = (
            f"[{row.get('ci_low', float('nan')):+.2f}, {row.get('ci_high', float('nan')):+.2f}]"
        )
        tier = row.get("tier", "–")
        lines.append(
            f"| {int(row['rank'])} | {_cell(row['model'])} | {float(row['alpha']):+.2f} | "
            f"{interval} | {tier} |"
        )
    more = len(board) - len(top)
    where = "`tables/leaderboards.parquet`" + (f" ({more} more models)" if more > 0 else "")
    figure = "plots/leaderboard.png"
    lines += ["", f"All of it: {where}; the figure: `{figure}`.", ""]
    return lines


def editions_section(tables: Mapping[str, pd.DataFrame]) -> list[str]:
    """Each entrant's anchored score (0-100 against the reference field) by edition, and the
    saturation watch's verdict for the next edition (empty without ``edition_scores``)."""
    scores, watch = tables.get("edition_scores"), tables.get("edition_saturation")
    if scores is None or scores.empty:
        return []
    from engines.stats.editions import trend_table

    trend = trend_table(scores, "score")
    editions = [int(e) for e in trend.columns]
    lines = [
        "## Across editions",
        "",
        "Each entrant's score against the reference field (0-100) in every edition of this "
        "profile; the field is the same in each, so the scores share one scale "
        "(`tables/edition_scores.parquet`, figure `plots/edition_trend.png`).",
        "",
        "| model | " + " | ".join(f"edition {e}" for e in editions) + " |",
        "|---|" + "---|" * len(editions),
    ]
    for model, row in trend.iterrows():
        cells = [f"{v:.1f}" if pd.notna(v) else "–" for v in row.tolist()]
        lines.append(f"| {_cell(model)} | " + " | ".join(cells) + " |")
    if watch is not None and not watch.empty:
        last = watch.sort_values("edition").iloc[-1]
        verdict = str(last["action"])
        reasons = str(last["reasons"]) or "the edition still separates the field"
        lines += [
            "",
            f"Saturation watch (edition {int(last['edition'])}): {int(last['tiers'])} tier(s) "
            f"among {int(last['players'])} entrants, rating spread {float(last['spread']):.2f} "
            f"chips/game; next edition: **{verdict}** ({_cell(reasons)}).",
        ]
    return [*lines, ""]


def render_readme(
    manifest: Mapping[str, Any],
    integrity: Mapping[str, Any],
    tables: Mapping[str, pd.DataFrame] | None = None,
) -> str:
    """The README of a release from its manifest (without README, citation and manifest
    entries), its integrity card and its tables (for the leaderboard)."""
    tables = tables or {}
    release_id = manifest["release_id"]
    profile = manifest.get("profile", {})
    results = manifest.get("results") or {}
    gates: Mapping[str, Mapping[str, Any]] = integrity.get("gates", {})
    passed = sum(bool(g["passed"]) for g in gates.values())
    lines = [
        f"# GENSTRAT release {release_id}",
        "",
        "GENSTRAT is a renewable benchmark of strategic reasoning: procedurally generated",
        "two-player zero-sum card games with hidden information, played by models and bots in",
        "paired deals. This folder is one versioned, hash-attested release of its tables. Its id",
        "is derived from its contents: the same inputs always give the same id and the same bytes.",
        "",
        *benchmark_note(manifest),
        *leaderboard_section(manifest, tables),
        *editions_section(tables),
        "## This release",
        "",
        "| | |",
        "|---|---|",
        f"| release id | `{release_id}` |",
        f"| profile | {_cell(profile.get('name', '–'))} |",
        *([f"| edition | {label} |"] if (label := edition_label(profile)) else []),
        *([f"| benchmark | {_cell(manifest['benchmark'])} |"] if manifest.get("benchmark") else []),
        f"| engine version | {_cell(manifest.get('engine_version', '–'))} |",
        f"| code version | `{_cell(manifest.get('code_version', '–'))}` |",
    ]
    if manifest.get("date"):
        lines.append(f"| date (of the code version) | {manifest['date']} |")
    lines.append(f"| gates | {passed} of {len(gates)} passed |")
    if results:
        lines.append(
            f"| matches | {results.get('counted_matches', 0)} counted, "
            f"{results.get('superseded_matches', 0)} superseded by replays |"
        )
    lines += [
        f"| licence | data {DATA_LICENSE_ID} (`LICENSE`); cite it with `{CITATION}` |",
        "",
        "## Tables",
        "",
        "Every column of every table, with its type and unit, is described in `SCHEMA.md`.",
        "",
        "| file | rows | size | what it holds |",
        "|---|---|---|---|",
    ]
    entries = _table_entries(manifest)
    paths = [str(entry["path"]) for _, entry in entries]
    preferred = f"tables/{LEADERBOARD}.parquet"
    example = preferred if preferred in paths else (paths[0] if paths else "tables/<name>.parquet")
    for name, entry in entries:
        what = TABLES[name].description if name in TABLES else ""
        lines.append(
            f"| `{entry['path']}` | {entry.get('rows', '–')} | {_size(int(entry['bytes']))} | "
            f"{_cell(what)} |"
        )
    files = list(manifest["files"])
    images = sorted({str(e["path"]).rsplit(".", 1)[0] for e in files if e.get("role") == "image"})
    if images:
        lines += ["", "## Figures (PNG, and SVG beside each)", "", "| figure | what it shows |"]
        lines.append("|---|---|")
        for stem in images:
            name = stem.rsplit("/", 1)[-1]
            lines.append(f"| `{stem}.png` | {_cell(FIGURE_DESCRIPTIONS.get(name, ''))} |")
    texts = [str(e["path"]) for e in files if e.get("role") == "text"]
    rulebooks = [t for t in texts if t.startswith("rulebooks/")]
    lines += ["", "## Documents", "", "| file | what it holds |", "|---|---|"]
    present = {str(e["path"]) for e in files} | {"manifest.json", CITATION, "croissant.json"}
    lines += [f"| `{p}` | {what} |" for p, what in DOCUMENTS.items() if p in present]
    if rulebooks:
        lines.append(
            f"| `rulebooks/` | the rulebook of each of the {len(rulebooks)} games, as the "
            "players read it |"
        )
    lines += ["", "## Integrity card (`integrity.json`)", "", "| gate | verdict | summary |"]
    lines.append("|---|---|---|")
    for name, gate in gates.items():
        verdict = "passed" if gate["passed"] else "FAILED"
        lines.append(f"| {name} | {verdict} | {_cell(gate['message'])} |")
    lines += [
        "",
        "## Versioned results",
        "",
        "When the engine is corrected, matches are replayed under the new engine version. Older",
        "results stay in the data but only the newest version's result for each match key counts",
        "(the replay rule of GameBench 2). `manifest.json` (`results`) says how many rows a replay",
        "superseded.",
        "",
        "## Checking this release",
        "",
        "`manifest.json` lists every file with its SHA-256, its size in bytes and, for tables, its",
        "row count and a content hash of its values. With GENSTRAT installed:",
        "",
        "```",
        f"genstrat release verify {release_id}/",
        "```",
        "",
        "recomputes every hash, checks that no file is missing or added, and checks the archive.",
        "Without it, compare `sha256sum tables/*.parquet` with the manifest's `sha256` fields.",
        f"`{release_id}.tar.gz` holds this whole folder; it is reproducible byte for byte.",
        "",
        "## Loading the tables",
        "",
        "Read a table with any Parquet reader, e.g. in Python:",
        "",
        "```",
        "import pandas as pd",
        f'table = pd.read_parquet("{example}")',
        "```",
        "",
        "or, as a Hugging Face dataset: this README is its dataset card, with one configuration",
        "per table that has rows (the leaderboard by default); no network is needed. From the",
        "folder that holds this one:",
        "",
        "```",
        "import datasets",
        f'board = datasets.load_dataset("{release_id}", "{DEFAULT_CONFIG}", split="train")',
        "```",
        "",
    ]
    header = card_data(manifest).to_yaml()
    return str(DatasetCard(f"---\n{header}\n---\n\n" + "\n".join(lines)))


def render_citation(manifest: Mapping[str, Any]) -> str:
    """``CITATION.cff`` (Citation File Format 1.2.0): the release as a dataset, its id as the
    version, the code version's date, the data licence and the commit when the code was clean;
    the GENSTRAT paper as a reference."""
    release_id = str(manifest["release_id"])
    q = json.dumps  # a JSON string is a YAML double-quoted scalar
    lines = [
        "cff-version: 1.2.0",
        f"message: {q('If you use this release, please cite it as below.')}",
        "type: dataset",
        f"title: {q('GENSTRAT release ' + release_id)}",
        f"version: {q(release_id)}",
    ]
    if manifest.get("date"):
        lines.append(f"date-released: {q(str(manifest['date']))}")
    code = str(manifest.get("code_version", ""))
    if code.startswith("git:") and not code.endswith("+dirty"):
        lines.append(f"commit: {q(code.removeprefix('git:'))}")
    lines += [
        "authors:",
        f"  - name: {q(AUTHORS)}",
        f"license: {DATA_LICENSE_ID}",
        "abstract: "
        + q(
            "A versioned, hash-attested release of the GENSTRAT benchmark of strategic "
            "reasoning: procedurally generated two-player zero-sum card games, their complexity "
            "axes, the tournament's matches and moves, and the leaderboards and capability "
            "profiles computed from them."
        ),
        "keywords:",
        "  - benchmark",
        "  - strategic reasoning",
        "  - imperfect-information games",
        "references:",
        "  - type: article",
        f"    title: {q(PAPER_TITLE)}",
        "    authors:",
        f"      - name: {q(PAPER_AUTHORS)}",
        "",
    ]
    return "\n".join(lines)
