"""Stage: ``capability_profiles``, how each model's strength moves along the axes (Section 7).

Thin: ``engines.stats.analysis.analyse`` fits everything from the complete pairs and the axis
scores; the asset's value is the profile table (one row per model x term: OLS slope on the
z-scored axes, clustered-bootstrap interval, bootstrap p, BH q, significance), and the metadata
carries the composite complexity, the hardest-8 and tertile leaderboards, the factor analysis,
local jaggedness, the variance decomposition and the verbosity check as Markdown, with the
profile heatmap and the benchmark-on-two-axes figure as images.
"""

from collections.abc import Mapping
from typing import Any

import dagster as dg
import numpy as np
import pandas as pd

from assets.leaderboards import ANALYSIS_SETTINGS, GROUP_NAME, StatsConfig, numbers
from assets.metadata import column_schema, image_metadata, markdown_table
from assets.partitions import concat_partitions
from engines.axes.benchmark import AXIS_SCORE_COLUMNS, with_game_seed
from engines.axes.names import AXES
from engines.stats.analysis import Analysis, analyse
from engines.stats.capability import PROFILE_COLUMNS
from engines.stats.validity import alternatives_beside_paper


def as_frame(axis_scores: pd.DataFrame | Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Axis scores as one table keyed by ``game_seed``: a per-game partitioned upstream arrives
    as a dict of tables, and the axes stage names a game by its token (``game``)."""
    frame = concat_partitions(axis_scores, AXIS_SCORE_COLUMNS)
    if frame.empty:
        raise ValueError("axis_scores has no rows in any partition")
    return with_game_seed(frame)


def profile_wide(profile: pd.DataFrame) -> pd.DataFrame:
    """Models x axes slopes as text, a star on cells significant after BH (Figure 2)."""
    slopes = profile.loc[profile["term"].isin(AXES)]
    text = slopes.assign(
        cell=[
            f"{c:+.2f}{'*' if s else ''}"
            for c, s in zip(slopes["coef"], slopes["significant"], strict=True)
        ]
    )
    return text.pivot(index="model", columns="term", values="cell").loc[:, list(AXES)]


def profile_table(result: Analysis) -> pd.DataFrame:
    """The profile table; empty (same columns) when the corpus has too few games to fit it."""
    empty = pd.DataFrame({c: pd.Series(dtype=object) for c in PROFILE_COLUMNS})
    table: pd.DataFrame = result.tables.get("profile", empty)
    return table


def profile_metadata(result: Analysis) -> dict[str, Any]:
    """Markdown tables, figures and headline numbers of the profile stage."""
    t = result.tables
    figures = result.plots()
    digits = {"factor_residuals": 3, "jaggedness": 3, "rethink_fallback": 4}
    names = (
        "composite_weights",
        "hardest_leaderboard",
        "most_temporal_leaderboard",
        "temporal_tertiles",
        "composite_tertiles",
        "half_split",
        "variance_decomposition",
        "factor_axes",
        "factor_residuals",
        "jaggedness",
        "verbosity",
        "composite_alternatives",
        "late_block",
        "rethink_fallback",
    )
    markdown = {n: markdown_table(t[n], digits=digits.get(n, 2)) for n in names if n in t}
    if "composite_alternatives" in t:
        beside = alternatives_beside_paper(t["composite_alternatives"])
        markdown["composite_alternatives_vs_paper"] = markdown_table(beside)
    if "profile" in t:
        markdown["profile"] = markdown_table(profile_wide(t["profile"]), index=True)
    metadata: dict[str, Any] = {
        "dagster/row_count": len(profile_table(result)),
        **{k: dg.MetadataValue.md(v) for k, v in markdown.items()},
        "plot_axes": image_metadata(figures["benchmark_axes"], "benchmark on two axes"),
    }
    if "profile_heatmap" in figures:
        metadata["plot_profile"] = image_metadata(figures["profile_heatmap"], "profiles")
    metadata.update(numbers(result.summary))
    return metadata


def build_capability_profiles(
    complete_pairs: pd.DataFrame,
    axis_scores: pd.DataFrame | Mapping[str, pd.DataFrame],
    config: StatsConfig,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The asset's value and metadata, as a plain function."""
    result = analyse(
        complete_pairs,
        as_frame(axis_scores),
        rng=np.random.default_rng(config.seed),
        config=config.analysis_config(),
    )
    metadata = profile_metadata(result)
    metadata[ANALYSIS_SETTINGS] = dg.MetadataValue.json(config.analysis_settings().as_json())
    return profile_table(result), metadata


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    metadata={"dagster/column_schema": column_schema("capability_profiles")},
    description=(
        "Capability profiles: per-model OLS of per-game strengths on the z-scored axes with "
        "clustered-bootstrap intervals and BH; composite complexity, factor analysis, local "
        "jaggedness, variance decomposition and verbosity check as metadata."
    ),
)
def capability_profiles(
    config: StatsConfig, complete_pairs: pd.DataFrame, axis_scores: Any
) -> dg.Output[pd.DataFrame]:
    table, metadata = build_capability_profiles(complete_pairs, axis_scores, config)
    return dg.Output(table, metadata=metadata)


ASSETS = [capability_profiles]
CHECKS: list[dg.AssetChecksDefinition] = []
