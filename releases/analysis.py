"""The analysis a release ships, recomputed from the release's own tables (Sections 6-7, App. E-H).

Why it exists: DESIGN.md ("Release bundle") promises that every published number can be
recomputed from the bundle alone. The ``leaderboards`` and ``capability_profiles`` assets keep
most of ``engines.stats.analysis.analyse``'s tables as metadata only; a release computes them
again from the corpus and axis scores it publishes, with ONE call of ``analyse`` and the
settings the assets used (:class:`AnalysisSettings`: the bootstrap B, the seed of the generator
and every ``AnalysisConfig`` field, recorded in the manifest's ``analysis``), and writes every
table and figure. Steps of :func:`analyse_release`:

1. key the axis scores by ``game_seed`` (``engines.axes.benchmark.with_game_seed``), as the
   ``capability_profiles`` asset does; no scored seed means the analysis runs without axes;
2. one call of ``analyse(complete_pairs, axis_scores, rng=default_rng(seed), config=...)``;
3. its tables in long form where the analysis holds a grid (:data:`SHIPPED`; the leaderboard
   and the profile are the ``leaderboards`` and ``capability_profiles`` tables themselves, and
   the two head-to-head matrices are pivots of ``pairwise``: :data:`NOT_SHIPPED`), and its
   headline figures as ``analysis_summary``;
4. its figures (``Analysis.plots()``) as PNG and SVG.

:func:`reproduction_pairs` pairs the published ``leaderboards`` and ``capability_profiles``
with their recomputation, for the ``reproduction`` gate (``quality.gates``): a release whose
tables its own data do not reproduce is refused.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from engines import plotting
from engines.axes.benchmark import with_game_seed
from engines.stats.analysis import Analysis, AnalysisConfig, analyse
from engines.stats.capability import PROFILE_COLUMNS

ANALYSE = "engines.stats.analysis.analyse"

# analyse()'s tables that a release writes, by the name of the released table.
SHIPPED: dict[str, str] = {
    name: name
    for name in (
        "per_game_alpha",
        "per_game_margin",
        "pairwise",
        "bradley_terry",
        "leave_one_game_out",
        "game_subsets",
        "block_leaderboard",
        "without_model_leaderboard",
        "axis_slopes",
        "composite_weights",
        "composite_scores",
        "hardest_leaderboard",
        "most_temporal_leaderboard",
        "half_split",
        "temporal_tertiles",
        "composite_tertiles",
        "variance_decomposition",
        "factor_loadings",
        "factor_axes",
        "factor_residuals",
        "jaggedness",
        "verbosity",
        "verbosity_changes",
        "composite_alternatives",
        "late_block",
        "rethink_fallback",
    )
}
# analyse()'s tables that a release holds under another name or as a pivot of a shipped table.
NOT_SHIPPED: dict[str, str] = {
    "leaderboard": "the leaderboards table (asset leaderboards; the reproduction gate holds "
    "them equal)",
    "profile": "the capability_profiles table (asset capability_profiles; held equal)",
    "pairwise_margin": "a pivot of pairwise (mean_margin, row x column)",
    "paired_deals": "a pivot of pairwise (paired_deals, row x column)",
}
# Grids of analyse() (index x columns) and the names of their long form's columns.
LONG_FORM: dict[str, tuple[str, str, str]] = {
    "per_game_alpha": ("game_seed", "model", "alpha"),
    "per_game_margin": ("game_seed", "model", "mean_margin"),
    "axis_slopes": ("model", "axis", "slope"),
}
SUMMARY = "analysis_summary"
# The figures, by the name of analyse()'s plot: plots/<name>.png and .svg.
FIGURE_FORMATS: tuple[plotting.ImageFormat, ...] = ("png", "svg")


@dataclass(frozen=True)
class AnalysisSettings:
    """Everything the analysis depends on besides the data: the seed of the random generator
    behind every draw, and the ``AnalysisConfig`` (bootstrap B, game subsets, splits, ...)."""

    seed: int = 0
    config: AnalysisConfig = field(default_factory=AnalysisConfig)

    def as_json(self) -> dict[str, Any]:
        """The manifest's ``analysis``: the function, the seed and every config field."""
        fields = dataclasses.asdict(self.config)
        fields["subset_sizes"] = list(self.config.subset_sizes)
        return {"function": ANALYSE, "seed": self.seed, **fields}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AnalysisSettings:
        """Settings from :meth:`as_json`'s form (unknown keys refused with ``ValueError``)."""
        known = {f.name for f in dataclasses.fields(AnalysisConfig)}
        unknown = set(data) - known - {"function", "seed"}
        if unknown:
            raise ValueError(f"unknown analysis setting(s): {', '.join(sorted(unknown))}")
        values = {k: v for k, v in data.items() if k in known}
        if "subset_sizes" in values:
            values["subset_sizes"] = tuple(int(s) for s in values["subset_sizes"])
        return cls(seed=int(data.get("seed", 0)), config=AnalysisConfig(**values))


@dataclass(frozen=True)
class ReleasedAnalysis:
    """The analysis of a release: its tables (by released name), figures (by bundle path), the
    settings it ran with, and ``analyse``'s result itself."""

    tables: dict[str, pd.DataFrame]
    figures: dict[str, bytes]
    settings: AnalysisSettings
    result: Analysis


def scored_axes(axis_scores: pd.DataFrame | None) -> pd.DataFrame | None:
    """The axis scores keyed by ``game_seed``, or ``None`` when no row names a seed."""
    if axis_scores is None or axis_scores.empty:
        return None
    frame = with_game_seed(axis_scores)
    return frame if not frame.empty else None


def long_form(name: str, wide: pd.DataFrame) -> pd.DataFrame:
    """A grid of ``analyse`` (index x columns) as one row per cell, columns in order."""
    index, column, value = LONG_FORM[name]
    frame = wide.rename_axis(index=index, columns=column).reset_index()
    long = frame.melt(id_vars=index, var_name=column, value_name=value)
    long[column] = long[column].astype(str)
    return long.reset_index(drop=True)


def summary_table(summary: Mapping[str, Any]) -> pd.DataFrame:
    """``analyse``'s headline figures, one row each: numbers in ``value``, text in ``text``; a
    list gives ``name.1``, ``name.2``, ...; a mapping of text gives ``name.key``."""
    rows: list[dict[str, Any]] = []

    def add(figure: str, item: Any) -> None:
        if isinstance(item, bool | int | float | np.integer | np.floating):
            rows.append({"figure": figure, "value": float(item), "text": None})
        elif item is not None:
            rows.append({"figure": figure, "value": math.nan, "text": str(item)})

    for key, item in summary.items():
        if isinstance(item, list | tuple):
            for k, element in enumerate(item, start=1):
                add(f"{key}.{k}", element)
        elif isinstance(item, Mapping):
            for k, element in item.items():
                add(f"{key}.{k}", element)
        else:
            add(key, item)
    return pd.DataFrame(rows, columns=["figure", "value", "text"]).astype(
        {"figure": "str", "value": "float64"}
    )


def shipped_tables(result: Analysis) -> dict[str, pd.DataFrame]:
    """The tables a release writes from an analysis (:data:`SHIPPED`), and its summary."""
    unknown = set(result.tables) - set(SHIPPED) - set(NOT_SHIPPED)
    if unknown:  # a new table of the analysis must be shipped or said not to be
        raise ValueError(
            f"analysis table(s) {', '.join(sorted(unknown))} are neither shipped "
            "nor listed in releases.analysis.NOT_SHIPPED"
        )
    out: dict[str, pd.DataFrame] = {}
    for name, released in SHIPPED.items():
        if name not in result.tables:
            continue
        table = result.tables[name]
        out[released] = (
            long_form(name, table) if name in LONG_FORM else table.reset_index(drop=True)
        )
    out[SUMMARY] = summary_table(result.summary)
    return out


def figures(result: Analysis) -> dict[str, bytes]:
    """``plots/<name>.png`` and ``.svg`` for every figure of the analysis."""
    out: dict[str, bytes] = {}
    for kind in FIGURE_FORMATS:
        with plotting.image_format(kind):
            out.update({f"plots/{name}.{kind}": image for name, image in result.plots().items()})
    return out


def analyse_release(
    complete_pairs: pd.DataFrame,
    axis_scores: pd.DataFrame | None,
    settings: AnalysisSettings,
) -> ReleasedAnalysis:
    """The analysis of a release's corpus and axis scores (see the module docstring)."""
    result = analyse(
        complete_pairs,
        scored_axes(axis_scores),
        rng=np.random.default_rng(settings.seed),
        config=settings.config,
    )
    return ReleasedAnalysis(shipped_tables(result), figures(result), settings, result)


def reproduction_pairs(
    analysis: ReleasedAnalysis, published: Mapping[str, pd.DataFrame]
) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """``{name: (published, recomputed)}`` for the published tables the analysis recomputes:
    ``leaderboards`` (the leaderboard) and ``capability_profiles`` (the profile; an empty
    profile when the corpus has too few games, as the asset publishes it)."""
    empty = pd.DataFrame({c: pd.Series(dtype=object) for c in PROFILE_COLUMNS})
    recomputed = {
        "leaderboards": analysis.result.tables["leaderboard"],
        "capability_profiles": analysis.result.tables.get("profile", empty),
    }
    return {
        name: (published[name], table) for name, table in recomputed.items() if name in published
    }
