"""The reader's ``README.md`` inside every release: what the files are and how to check them.

Why it exists: a release is read by people who never ran the pipeline. The README says what the
release is, lists every table with its rows and meaning, shows the integrity card in one table,
and explains how to verify the hashes with or without GENSTRAT. It is rendered from the manifest
and the integrity card only, so it is as reproducible as they are; it never contains a date.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# One line per known table (asset key), for readers of the release.
TABLE_DESCRIPTIONS: dict[str, str] = {
    "reference_games": "the preset games (Kuhn, Leduc, limit hold'em, ...): spec, hash, rulebook",
    "seed_pool": "every screened generator seed with its acceptance verdict, reasons, figures",
    "accepted_games": "the accepted games: seed, spec JSON, spec hash, rulebook",
    "screening_axes": "the six cheap preliminary axes of every accepted game",
    "benchmark_games": "the benchmark set chosen from the pool (farthest-point selection)",
    "axis_scores": "the five axes and their diagnostics for each benchmark game",
    "roster": "the players: provider, model, request settings, block, family/variant",
    "match_corpus": "every counted match (one deal): players, chip deltas, status, fallbacks",
    "complete_pairs": "counted matches of runs whose two seat-swapped deals both completed",
    "superseded_matches": "matches superseded by a replay under a newer engine version (kept, "
    "not counted)",
    "leaderboards": "the overall leaderboard: strength in chips/game with 95% bootstrap interval",
    "capability_profiles": "per-model slopes on the z-scored axes, bootstrap intervals, BH q",
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


def render_readme(manifest: Mapping[str, Any], integrity: Mapping[str, Any]) -> str:
    """The README of a release from its manifest (without README and manifest entries) and its
    integrity card."""
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
        "| | |",
        "|---|---|",
        f"| release id | `{release_id}` |",
        f"| profile | {_cell(profile.get('name', '–'))} |",
        f"| engine version | {_cell(manifest.get('engine_version', '–'))} |",
        f"| code version | `{_cell(manifest.get('code_version', '–'))}` |",
        f"| gates | {passed} of {len(gates)} passed |",
    ]
    if results:
        lines.append(
            f"| matches | {results.get('counted_matches', 0)} counted, "
            f"{results.get('superseded_matches', 0)} superseded by replays |"
        )
    lines += ["", "## Tables", "", "| file | rows | size | what it holds |", "|---|---|---|---|"]
    files = list(manifest["files"])
    tables = [str(e["path"]) for e in files if e.get("role") == "table"]
    example = tables[0] if tables else "tables/<name>.parquet"
    for entry in files:
        if entry.get("role") != "table":
            continue
        name = str(entry["path"]).removeprefix("tables/").removesuffix(".parquet")
        lines.append(
            f"| `{entry['path']}` | {entry.get('rows', '–')} | {_size(int(entry['bytes']))} | "
            f"{_cell(TABLE_DESCRIPTIONS.get(name, ''))} |"
        )
    others = [e for e in files if e.get("role") in ("text", "image")]
    if others:
        folders = sorted({str(e["path"]).rsplit("/", 1)[0] for e in others if "/" in e["path"]})
        where = ", ".join(f"`{f}/`" for f in folders) or "the top folder"
        lines += [
            "",
            f"Also: {len(others)} text and image file(s) in {where}"
            " (rulebooks as Markdown, plots as PNG).",
        ]
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
        "Read a table with any Parquet reader, e.g. in Python:",
        "",
        "```",
        "import pandas as pd",
        f'table = pd.read_parquet("{example}")',
        "```",
        "",
    ]
    return "\n".join(lines)
