"""One call from a corpus to every table and plot (engines.stats.analysis), and the CLI command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engines.stats.analysis import Analysis, AnalysisConfig, analyse
from engines.stats.planted import SimulatedCorpus, SimulationConfig, simulate_corpus
from pipelines import cli

CONFIG = SimulationConfig(
    n_models=6, n_games=12, n_late_models=1, late_opponents=(2, 3), runs_per_matchup=6
)
QUICK = AnalysisConfig(n_boot=200, subset_sizes=(3, 6), n_subsets=100, n_splits=4, hardest=4)
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def corpus() -> SimulatedCorpus:
    return simulate_corpus(CONFIG, np.random.default_rng(61))


@pytest.fixture(scope="module")
def result(corpus: SimulatedCorpus) -> Analysis:
    return analyse(corpus.matches, corpus.axis_scores, rng=np.random.default_rng(62), config=QUICK)


def test_every_table_is_produced(result: Analysis) -> None:
    expected = {
        "leaderboard", "per_game_alpha", "per_game_margin", "pairwise", "pairwise_margin",
        "paired_deals", "bradley_terry", "leave_one_game_out", "game_subsets",
        "block_leaderboard", "without_model_leaderboard", "axis_slopes", "composite_weights",
        "composite_scores", "hardest_leaderboard", "most_temporal_leaderboard", "half_split",
        "temporal_tertiles", "composite_tertiles", "profile", "factor_loadings", "factor_axes",
        "factor_residuals", "jaggedness", "variance_decomposition", "verbosity",
        "verbosity_changes", "composite_alternatives", "late_block", "rethink_fallback",
    }  # fmt: skip
    assert set(result.tables) == expected
    assert all(len(t) > 0 for t in result.tables.values())
    assert result.tables["per_game_alpha"].shape == (12, 6)
    assert len(result.tables["profile"]) == 6 * 6
    assert len(result.tables["factor_residuals"]) == 15
    assert result.summary["matches"] == len(result.runs.margin) * 2
    assert result.summary["without_model"] == result.tables["leaderboard"]["model"].iloc[-1]
    assert result.summary["block"] == "april"


def test_hardest_games_are_the_top_composite_scores(
    corpus: SimulatedCorpus, result: Analysis
) -> None:
    scores = result.tables["composite_scores"].sort_values("score", ascending=False)
    top = set(scores["game_seed"].iloc[:4])
    played = corpus.matches["game_seed"].isin(top)
    hardest = result.tables["hardest_leaderboard"]
    assert hardest["matches"].sum() == 2 * played.sum()
    weights = result.tables["composite_weights"].set_index("axis")["weight"]
    assert weights.abs().sum() == pytest.approx(1.0) and weights["temporal"] > 0


def test_same_seed_identical_tables(corpus: SimulatedCorpus, result: Analysis) -> None:
    again = analyse(corpus.matches, corpus.axis_scores, rng=np.random.default_rng(62), config=QUICK)
    for name, table in result.tables.items():
        pd.testing.assert_frame_equal(table, again.tables[name], obj=name)


def test_without_axis_scores_only_leaderboard_tables(corpus: SimulatedCorpus) -> None:
    light = analyse(corpus.matches, rng=np.random.default_rng(1), config=QUICK)
    assert "profile" not in light.tables and "leaderboard" in light.tables
    assert set(light.plots()) == {"leaderboard", "per_game_heatmap"}


def test_plots_are_png(result: Analysis) -> None:
    figures = result.plots()
    assert set(figures) == {"leaderboard", "per_game_heatmap", "profile_heatmap", "benchmark_axes"}
    assert all(png.startswith(PNG) and len(png) > 5_000 for png in figures.values())


def test_payoff_scale_falls_back_to_the_corpus(corpus: SimulatedCorpus) -> None:
    axes = corpus.axis_scores.drop(columns=["payoff_scale", "rulebook_chars"])
    light = analyse(corpus.matches, axes, rng=np.random.default_rng(2), config=QUICK)
    assert "verbosity" not in light.tables
    assert light.tables["jaggedness"]["jaggedness"].notna().all()


@pytest.fixture
def matches_file(tmp_path: Path, corpus: SimulatedCorpus) -> Path:
    path = tmp_path / "matches.parquet"
    corpus.matches.to_parquet(path)
    return path


@pytest.fixture
def stats_only_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real ``genstrat`` entry point, with only this command group registered."""
    monkeypatch.setattr(cli, "COMMAND_GROUPS", ("stats",))


@pytest.mark.usefixtures("stats_only_cli")
def test_cli_leaderboard_json(matches_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["stats", "leaderboard", "--matches", str(matches_file), "--bootstrap", "100"]
    assert cli.main([*argv, "--seed", "3", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert list(payload) == ["leaderboard", "bootstrap", "seed"]
    assert payload["bootstrap"] == 100 and payload["seed"] == 3
    rows = payload["leaderboard"]
    assert [list(r) for r in rows] == [
        ["model", "alpha", "ci_low", "ci_high", "rank", "matches"]
    ] * 6
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert sum(r["alpha"] for r in rows) == pytest.approx(0.0, abs=1e-9)
    assert cli.main([*argv, "--seed", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == payload
    assert cli.main(argv) == 0
    assert "95% interval" in capsys.readouterr().out


@pytest.mark.usefixtures("stats_only_cli")
def test_cli_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, matches_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.parquet"
    assert cli.main(["stats", "leaderboard", "--matches", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("genstrat: error: no match file") and err.count("\n") == 1
    broken = tmp_path / "broken.parquet"
    pd.read_parquet(matches_file).drop(columns=["margin_alice", "block"]).to_parquet(broken)
    assert cli.main(["stats", "leaderboard", "--matches", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "block, margin_alice" in err and err.count("\n") == 1
    text = tmp_path / "text.parquet"
    text.write_text("not parquet")
    assert cli.main(["stats", "leaderboard", "--matches", str(text)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_too_few_games_for_axes_is_a_clear_error() -> None:
    tiny = simulate_corpus(
        SimulationConfig(n_models=3, n_games=3, n_late_models=0, runs_per_matchup=3),
        np.random.default_rng(5),
    )
    two_games = tiny.matches.loc[tiny.matches["game_seed"] != tiny.matches["game_seed"].iloc[0]]
    with pytest.raises(ValueError, match="at least 3 games"):
        analyse(two_games, tiny.axis_scores, rng=np.random.default_rng(0), config=QUICK)
