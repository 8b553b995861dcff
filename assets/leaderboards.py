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

from assets.metadata import column_schema, image_metadata, markdown_table
from engines.stats.analysis import Analysis, AnalysisConfig, analyse
from engines.stats.validity import mark_late
from releases.analysis import AnalysisSettings

GROUP_NAME = "statistics"

ANALYSIS_SETTINGS = "analysis_settings"
"""Metadata key of the settings an analysis ran with (``AnalysisSettings.as_json``): the
release reads the latest ``leaderboards`` materialization's to recompute the same numbers."""


class StatsConfig(dg.Config):
    """Resampling settings of the statistics stages (the paper's by default)."""

    bootstrap: int = Field(default=2000, description="clustered bootstrap replicates (B)")
    seed: int = Field(default=0, description="seed of the generator behind every random draw")
    subsets: int = Field(default=1000, description="random game subsets per size (App. E.1)")

    def analysis_config(self) -> AnalysisConfig:
        return AnalysisConfig(n_boot=self.bootstrap, n_subsets=self.subsets)

    def analysis_settings(self) -> AnalysisSettings:
        """Everything the analysis depends on besides the data (recorded as metadata)."""
        return AnalysisSettings(seed=self.seed, config=self.analysis_config())


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
        # Table 1's dagger: a model that joined in a later tournament block is marked.
        "leaderboard": dg.MetadataValue.md(
            markdown_table(mark_late(t["leaderboard"], t["late_block"]))
        ),
        "late_block_models": ", ".join(
            t["late_block"].loc[t["late_block"]["late"].astype(bool), "model"]
        )
        or "none",
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
    metadata = leaderboard_metadata(result)
    metadata[ANALYSIS_SETTINGS] = dg.MetadataValue.json(config.analysis_settings().as_json())
    # the cost side: tokens, cost, calls and fallback/rethink rates per model beside alpha
    from engines.stats.usage import has_usage, model_usage, strength_cost, strength_cost_plot

    if {"alice", "bob"} <= set(complete_pairs.columns) and not complete_pairs.empty:
        usage = strength_cost(model_usage(complete_pairs), result.tables["leaderboard"])
        metadata["model_usage"] = dg.MetadataValue.md(markdown_table(usage))
        if has_usage(usage):
            metadata["plot_strength_cost"] = image_metadata(
                strength_cost_plot(usage), "strength against cost"
            )
    return result.tables["leaderboard"], metadata


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    metadata={"dagster/column_schema": column_schema("leaderboards")},
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
