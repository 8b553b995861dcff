"""The statistics stages ``leaderboards`` and ``capability_profiles`` on a simulated corpus:
first as plain functions, then materialized through Dagster."""

from __future__ import annotations

import dagster as dg
import numpy as np
import pandas as pd
import pytest

from assets import capability_profiles as profiles_stage
from assets import leaderboards as leaderboards_stage
from assets.capability_profiles import as_frame, build_capability_profiles, capability_profiles
from assets.leaderboards import StatsConfig, build_leaderboards, leaderboards, markdown_table
from engines.axes.names import AXES
from engines.stats.planted import SimulatedCorpus, SimulationConfig, simulate_corpus

CORPUS = SimulationConfig(
    n_models=5, n_games=9, n_late_models=1, late_opponents=(2, 3), runs_per_matchup=5
)
QUICK = StatsConfig(bootstrap=100, seed=4, subsets=50)
AXIS_COLUMNS = ["game_seed", *AXES]


@pytest.fixture(scope="module")
def corpus() -> SimulatedCorpus:
    return simulate_corpus(CORPUS, np.random.default_rng(71))


def test_modules_export_their_assets() -> None:
    assert [leaderboards] == leaderboards_stage.ASSETS
    assert [capability_profiles] == profiles_stage.ASSETS
    assert leaderboards_stage.CHECKS == [] and profiles_stage.CHECKS == []
    assert {k.to_user_string() for k in capability_profiles.dependency_keys} == {
        "complete_pairs",
        "axis_scores",
    }


def test_leaderboards_as_a_plain_function(corpus: SimulatedCorpus) -> None:
    table, metadata = build_leaderboards(corpus.matches, QUICK)
    assert list(table.columns) == ["model", "alpha", "ci_low", "ci_high", "rank", "matches", "tier"]
    assert len(table) == 5 and metadata["dagster/row_count"] == 5
    assert metadata["leaderboard"].value.startswith("| model | alpha |")
    assert metadata["plot_leaderboard"].value.startswith("![leaderboard](data:image/png;base64,")
    assert "pairwise_margin" in metadata and "plot_per_game" in metadata
    # Table 1's dagger on the simulated corpus's one late-block model.
    late = metadata["late_block_models"]
    assert late != "none" and f"{late} \u2020" in metadata["leaderboard"].value
    # the cost side: a row per model beside its strength; no plot when nothing was spent
    assert metadata["model_usage"].value.startswith("| model | matches |")
    assert metadata["model_usage"].value.count("\n") == 5 + 1
    assert "plot_strength_cost" not in metadata


def test_capability_profiles_as_a_plain_function(corpus: SimulatedCorpus) -> None:
    # The contract's columns: the axes and, since issue 17, the rulebook length, so the
    # verbosity check of Appendix E runs on every axis_scores table (it was skipped before).
    axes = corpus.axis_scores.loc[:, [*AXIS_COLUMNS, "rulebook_chars"]]
    table, metadata = build_capability_profiles(corpus.matches, axes, QUICK)
    assert len(table) == 5 * 6
    assert set(table["term"]) == {"intercept", *AXIS_COLUMNS[1:]}
    for key in ("profile", "composite_weights", "hardest_leaderboard", "jaggedness"):
        assert metadata[key].value.startswith("|")
    assert metadata["verbosity"].value.startswith("|")
    beside = metadata["composite_alternatives_vs_paper"].value
    assert "| unweighted mean: tertile 1 spread |" in beside and "| 1.91 |" in beside
    for key in ("composite_alternatives", "late_block", "rethink_fallback"):
        assert metadata[key].value.startswith("|"), key
    without = corpus.axis_scores.loc[:, AXIS_COLUMNS]  # no rulebook lengths: check skipped
    assert "verbosity" not in build_capability_profiles(corpus.matches, without, QUICK)[1]
    assert metadata["plot_axes"].value.startswith("![benchmark on two axes](data:image/png")


def test_partitioned_axis_scores_are_joined(corpus: SimulatedCorpus) -> None:
    parts = {str(s): g for s, g in corpus.axis_scores.groupby("game_seed")}
    joined = as_frame(parts).sort_values("game_seed").reset_index(drop=True)
    pd.testing.assert_frame_equal(joined, corpus.axis_scores.reset_index(drop=True))
    with pytest.raises(ValueError, match="axis_scores"):
        as_frame({})


def test_bad_corpus_is_a_clear_error(corpus: SimulatedCorpus) -> None:
    with pytest.raises(ValueError, match="margin_alice"):
        build_leaderboards(corpus.matches.drop(columns=["margin_alice"]), QUICK)


def test_markdown_table_formats_numbers() -> None:
    text = markdown_table(pd.DataFrame({"a": ["x"], "b": [1.234], "c": [float("nan")]}))
    assert text.splitlines() == ["| a | b | c |", "|---|---|---|", "| x | 1.23 | – |"]


def test_materialize_both_stages(corpus: SimulatedCorpus) -> None:
    @dg.asset(name="complete_pairs")
    def complete_pairs() -> pd.DataFrame:
        return corpus.matches

    @dg.asset(name="axis_scores")
    def axis_scores() -> pd.DataFrame:
        return corpus.axis_scores

    result = dg.materialize(
        [complete_pairs, axis_scores, leaderboards, capability_profiles],
        run_config=dg.RunConfig(ops={"leaderboards": QUICK, "capability_profiles": QUICK}),
    )
    assert result.success
    board = result.output_for_node("leaderboards")
    assert list(board["rank"]) == [1, 2, 3, 4, 5]
    profile = result.output_for_node("capability_profiles")
    assert "significant" in profile.columns
    events = {
        e.asset_key.to_user_string(): e.metadata
        for e in result.get_asset_materialization_events()
        for e in [e.event_specific_data.materialization]
    }
    assert "plot_profile" in events["capability_profiles"]
    assert "verbosity" in events["capability_profiles"]  # the simulator gives rulebook lengths
    assert events["leaderboards"]["dagster/row_count"].value == 5


def test_a_demo_sized_corpus_skips_only_the_regressions() -> None:
    small = simulate_corpus(
        SimulationConfig(n_models=4, n_games=5, n_late_models=0, runs_per_matchup=4),
        np.random.default_rng(72),
    )
    table, metadata = build_capability_profiles(small.matches, small.axis_scores, QUICK)
    assert table.empty and "significant" in table.columns
    assert "profiles need at least 8" in metadata["profiles_skipped"]
    assert "hardest_leaderboard" in metadata and "plot_profile" not in metadata
    board, _ = build_leaderboards(small.matches, QUICK)
    assert len(board) == 4
