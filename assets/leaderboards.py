"""Stage: ``leaderboards``, the overall leaderboard and its companion tables (Section 6, App. E).

Thin: ``engines.stats.analysis.analyse`` does the work on the complete pairs; this module turns
its tables into the asset's value (Table 1) and metadata (the other tables as Markdown, the
figures as embedded PNG images).
"""

from collections.abc import Mapping
from typing import Any

import dagster as dg
import numpy as np
import pandas as pd
from pydantic import Field

from assets.metadata import image_metadata, markdown_table
from engines.stats.analysis import Analysis, AnalysisConfig, analyse

GROUP_NAME = "statistics"

COLUMNS: tuple[dg.TableColumn, ...] = (
    dg.TableColumn("model", "string", description="model (roster name)"),
    dg.TableColumn("alpha", "float", description="strength, chips/game, sum-to-zero"),
    dg.TableColumn("ci_low", "float", description="2.5% clustered-bootstrap percentile"),
    dg.TableColumn("ci_high", "float", description="97.5% clustered-bootstrap percentile"),
    dg.TableColumn("rank", "int", description="1 = strongest"),
    dg.TableColumn("matches", "int", description="single-deal matches in complete runs"),
    dg.TableColumn("tier", "int", description="tier: a new one starts past a non-overlap"),
)


class StatsConfig(dg.Config):
    """Resampling settings of the statistics stages (the paper's by default)."""

    bootstrap: int = Field(default=2000, description="clustered bootstrap replicates (B)")
    seed: int = Field(default=0, description="seed of the generator behind every random draw")
    subsets: int = Field(default=1000, description="random game subsets per size (App. E.1)")

    def analysis_config(self) -> AnalysisConfig:
        return AnalysisConfig(n_boot=self.bootstrap, n_subsets=self.subsets)


def numbers(summary: Mapping[str, Any]) -> dict[str, Any]:
    """Scalar headline figures of an analysis summary as plain metadata values."""
    out: dict[str, Any] = {}
    for key, value in summary.items():
        if isinstance(value, bool | int | np.integer):
            out[key] = int(value)
        elif isinstance(value, float | np.floating):
            out[key] = float(value)
        elif isinstance(value, str):
            out[key] = value
        elif isinstance(value, list):
            out[key] = ", ".join(f"{v:.2f}" for v in value)
        elif isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
            out[key] = "; ".join(f"{k}: {v}" for k, v in value.items()) or "none"
    return out


def leaderboard_metadata(result: Analysis) -> dict[str, Any]:
    """Markdown tables, figures and headline numbers of the leaderboard stage."""
    t = result.tables
    figures = result.plots()
    metadata: dict[str, Any] = {
        "dagster/row_count": len(t["leaderboard"]),
        "dagster/column_schema": dg.TableSchema(columns=list(COLUMNS)),
        "leaderboard": dg.MetadataValue.md(markdown_table(t["leaderboard"])),
        "per_game_alpha": dg.MetadataValue.md(markdown_table(t["per_game_alpha"], index=True)),
        "pairwise_margin": dg.MetadataValue.md(markdown_table(t["pairwise_margin"], index=True)),
        "paired_deals": dg.MetadataValue.md(
            markdown_table(t["paired_deals"], index=True, digits=0)
        ),
        "bradley_terry": dg.MetadataValue.md(markdown_table(t["bradley_terry"])),
        "game_subsets": dg.MetadataValue.md(markdown_table(t["game_subsets"])),
        "block_leaderboard": dg.MetadataValue.md(markdown_table(t["block_leaderboard"])),
        "without_model_leaderboard": dg.MetadataValue.md(
            markdown_table(t["without_model_leaderboard"])
        ),
        "plot_leaderboard": image_metadata(figures["leaderboard"], "leaderboard"),
        "plot_per_game": image_metadata(figures["per_game_heatmap"], "per-game strengths"),
    }
    metadata.update(numbers(result.summary))
    return metadata


def build_leaderboards(
    complete_pairs: pd.DataFrame, config: StatsConfig
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The asset's value and metadata, as a plain function."""
    result = analyse(
        complete_pairs, rng=np.random.default_rng(config.seed), config=config.analysis_config()
    )
    return result.tables["leaderboard"], leaderboard_metadata(result)


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    description=(
        "Overall leaderboard (sum-to-zero least squares on chip margins, clustered bootstrap "
        "over runs), with per-game strengths, head-to-head tables, Bradley-Terry and robustness "
        "refits as metadata."
    ),
)
def leaderboards(config: StatsConfig, complete_pairs: pd.DataFrame) -> dg.Output[pd.DataFrame]:
    table, metadata = build_leaderboards(complete_pairs, config)
    return dg.Output(table, metadata=metadata)


ASSETS = [leaderboards]
CHECKS: list[dg.AssetChecksDefinition] = []
