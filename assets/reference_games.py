"""Stage 0: the reference games (the engine's presets) as a table.

The presets (Kuhn, Leduc, heads-up limit hold'em and our rendition of the paper's seed 4643)
anchor the benchmark: their spec hashes and rulebooks are pinned by the game core's golden
tests, and materializing them is the smallest end-to-end exercise of the code location
(engine -> asset -> Parquet IO manager -> instance).
"""

import hashlib

import dagster as dg
import pandas as pd

from assets.metadata import declared_columns
from engines.gbg import ENGINE_VERSION, presets, rulebook

GROUP_NAME = "reference"

COLUMNS: tuple[dg.TableColumn, ...] = declared_columns("reference_games")


def _markdown_table(frame: pd.DataFrame) -> str:
    lines = ["| name | spec hash | rulebook chars |", "|---|---|---|"]
    lines += [
        f"| {row.name} | `{row.spec_hash[:16]}…` | {row.rulebook_chars:,} |"
        for row in frame.itertuples(index=False)
    ]
    return "\n".join(lines)


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    code_version=ENGINE_VERSION,
    description="One row per preset game: canonical spec JSON, spec hash and rulebook.",
    metadata={"dagster/column_schema": dg.TableSchema(columns=list(COLUMNS))},
)
def reference_games() -> dg.Output[pd.DataFrame]:
    rows = []
    for name, make_spec in presets.PRESETS.items():
        spec = make_spec()
        text = rulebook(spec)
        rows.append(
            {
                "name": name,
                "spec_hash": spec.spec_hash,
                "spec_json": spec.canonical_json(),
                "rulebook": text,
                "rulebook_chars": len(text),
                "engine_version": ENGINE_VERSION,
            }
        )
    frame = pd.DataFrame(rows, columns=[column.name for column in COLUMNS])
    frame["rulebook_chars"] = frame["rulebook_chars"].astype("int64")
    return dg.Output(
        frame,
        metadata={
            "dagster/row_count": len(frame),
            "games": dg.MetadataValue.md(_markdown_table(frame)),
            "engine_version": ENGINE_VERSION,
        },
    )


def reference_games_problems(frame: pd.DataFrame) -> list[str]:
    """Every way the table breaks its contract, as readable sentences (empty when sound)."""
    problems: list[str] = []
    if frame.empty:
        problems.append("the table has no rows")
    duplicated_names = sorted(set(frame.loc[frame["name"].duplicated(), "name"]))
    if duplicated_names:
        problems.append(f"duplicate names: {', '.join(duplicated_names)}")
    duplicated_hashes = sorted(set(frame.loc[frame["spec_hash"].duplicated(), "spec_hash"]))
    if duplicated_hashes:
        problems.append(f"duplicate spec hashes: {', '.join(duplicated_hashes)}")
    for row in frame.itertuples(index=False):
        if not str(row.rulebook).strip():
            problems.append(f"{row.name}: empty rulebook")
        elif row.rulebook_chars != len(row.rulebook):
            problems.append(
                f"{row.name}: rulebook_chars is {row.rulebook_chars}, not {len(row.rulebook)}"
            )
        digest = hashlib.sha256(str(row.spec_json).encode("utf-8")).hexdigest()
        if digest != row.spec_hash:
            problems.append(f"{row.name}: spec_hash is not the SHA-256 of spec_json")
    return problems


@dg.asset_check(
    asset=reference_games,
    name="well_formed",
    blocking=True,
    description=(
        "Names and spec hashes are unique, each hash is the SHA-256 of its spec JSON, "
        "and no rulebook is empty."
    ),
)
def reference_games_well_formed(reference_games: pd.DataFrame) -> dg.AssetCheckResult:
    problems = reference_games_problems(reference_games)
    return dg.AssetCheckResult(
        passed=not problems,
        metadata={"rows": len(reference_games), "problems": "; ".join(problems) or "none"},
    )


ASSETS: list[dg.AssetsDefinition] = [reference_games]
CHECKS: list[dg.AssetChecksDefinition] = [reference_games_well_formed]
