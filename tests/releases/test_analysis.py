"""The analysis a release ships (``releases.analysis``): one call of ``analyse`` with the
statistics assets' settings, every table in a declared long form, the figures in PNG and SVG,
and numbers equal to the assets'."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from assets.capability_profiles import build_capability_profiles
from assets.leaderboards import StatsConfig, build_leaderboards
from engines.stats.planted import SimulatedCorpus, SimulationConfig, simulate_corpus
from quality.gates import reproduction
from quality.schema import TABLES, schema_problems
from releases.analysis import (
    NOT_SHIPPED,
    SHIPPED,
    SUMMARY,
    AnalysisSettings,
    ReleasedAnalysis,
    analyse_release,
    long_form,
    reproduction_pairs,
    scored_axes,
    summary_table,
)

QUICK = StatsConfig(bootstrap=120, seed=3, subsets=40)
CORPUS = SimulationConfig(
    n_models=4, n_games=9, n_late_models=1, late_opponents=(2, 3), runs_per_matchup=3
)


@pytest.fixture(scope="module")
def corpus() -> SimulatedCorpus:
    return simulate_corpus(CORPUS, np.random.default_rng(5))


@pytest.fixture(scope="module")
def axes(corpus: SimulatedCorpus) -> pd.DataFrame:
    """The simulated axis scores, with rulebook lengths (so the verbosity check runs)."""
    return corpus.axis_scores.assign(rulebook_chars=[900 + 40 * k for k in range(9)])


@pytest.fixture(scope="module")
def analysis(corpus: SimulatedCorpus, axes: pd.DataFrame) -> ReleasedAnalysis:
    return analyse_release(corpus.matches, axes, QUICK.analysis_settings())


def test_settings_round_trip_and_unknown_settings_are_refused() -> None:
    settings = QUICK.analysis_settings()
    data = settings.as_json()
    assert data["function"] == "engines.stats.analysis.analyse"
    assert data["n_boot"] == 120 and data["seed"] == 3 and data["n_subsets"] == 40
    assert isinstance(data["subset_sizes"], list)
    assert AnalysisSettings.from_json(data) == settings
    with pytest.raises(ValueError, match="unknown analysis setting"):
        AnalysisSettings.from_json({**data, "bootstraps": 5})


def test_every_table_is_shipped_declared_and_equal_to_the_assets(
    corpus: SimulatedCorpus, axes: pd.DataFrame, analysis: ReleasedAnalysis
) -> None:
    # every table of analyse() is shipped, or held elsewhere, and nothing is lost silently
    assert set(analysis.result.tables) <= set(SHIPPED) | set(NOT_SHIPPED)
    assert set(analysis.tables) == {*SHIPPED.values(), SUMMARY}  # 9 games: all of them
    for name, table in analysis.tables.items():
        assert name in TABLES and schema_problems(name, table) == [], name
        assert list(table.columns) == list(TABLES[name].names), name

    # the numbers are the assets' (one call, the same settings)
    board, _ = build_leaderboards(corpus.matches, QUICK)
    profiles, _ = build_capability_profiles(corpus.matches, axes, QUICK)
    published = {"leaderboards": board, "capability_profiles": profiles}
    gate = reproduction(reproduction_pairs(analysis, published))
    assert gate.passed, gate.message
    assert gate.figures["capability_profiles"]["max_abs_difference"] == 0.0
    moved = {**published, "leaderboards": board.assign(ci_low=board["ci_low"] - 0.01)}
    gate = reproduction(reproduction_pairs(analysis, moved))
    assert not gate.passed and "ci_low differs by up to 0.01" in gate.message


def test_grids_are_released_in_long_form(analysis: ReleasedAnalysis) -> None:
    wide = analysis.result.tables["per_game_alpha"]
    long = analysis.tables["per_game_alpha"]
    assert len(long) == wide.size
    back = long.pivot(index="game_seed", columns="model", values="alpha")
    pd.testing.assert_frame_equal(
        back.loc[wide.index, list(wide.columns)], wide, check_names=False, check_dtype=False
    )
    slopes = long_form("axis_slopes", analysis.result.tables["axis_slopes"])
    assert list(slopes.columns) == ["model", "axis", "slope"] and len(slopes) == 4 * 5


def test_the_summary_flattens_lists_and_mappings() -> None:
    table = summary_table(
        {"games": 9, "block": "b1", "spreads": [1.5, 2.5], "not_estimable": {"bt": "separated"}}
    )
    assert table["figure"].tolist() == [
        "games",
        "block",
        "spreads.1",
        "spreads.2",
        "not_estimable.bt",
    ]
    assert table["value"].tolist()[::2] == [9.0, 1.5, pytest.approx(float("nan"), nan_ok=True)]
    assert table.set_index("figure").loc["not_estimable.bt", "text"] == "separated"
    assert schema_problems(SUMMARY, table) == []


def test_figures_in_png_and_svg(analysis: ReleasedAnalysis) -> None:
    names = ("leaderboard", "per_game_heatmap", "profile_heatmap", "benchmark_axes")
    assert set(analysis.figures) == {f"plots/{n}.{k}" for n in names for k in ("png", "svg")}
    assert analysis.figures["plots/profile_heatmap.png"].startswith(b"\x89PNG")
    assert b"<svg" in analysis.figures["plots/profile_heatmap.svg"][:500]


def test_without_scored_games_the_leaderboard_part_is_shipped(corpus: SimulatedCorpus) -> None:
    presets_only = pd.DataFrame({"game": ["kuhn"], "state_space": [1.0]})
    assert scored_axes(None) is None and scored_axes(presets_only) is None
    analysis = analyse_release(corpus.matches, presets_only, QUICK.analysis_settings())
    assert "per_game_alpha" in analysis.tables and "composite_weights" not in analysis.tables
    gate = reproduction(reproduction_pairs(analysis, {}))
    assert gate.passed and gate.message.startswith("not applicable")
