"""Runs, the clustered bootstrap and the overall leaderboard (Section 6) against planted truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from engines.stats.bootstrap import bootstrap_p_value, resample_cells
from engines.stats.leaderboard import (
    LEADERBOARD_COLUMNS,
    RunSample,
    assign_tiers,
    fit_leaderboard,
    overall_leaderboard,
)
from engines.stats.planted import SimulatedCorpus, SimulationConfig, noise_free, simulate_corpus
from engines.stats.runs import run_table

ROUND_ROBIN = SimulationConfig(n_models=6, n_games=10, n_late_models=0, runs_per_matchup=12)
WITH_LATE = SimulationConfig(
    n_models=6, n_games=10, n_late_models=2, late_opponents=(2, 3), runs_per_matchup=8
)


@pytest.fixture(scope="module")
def corpus() -> SimulatedCorpus:
    return simulate_corpus(ROUND_ROBIN, np.random.default_rng(21))


@pytest.fixture(scope="module")
def late_corpus() -> SimulatedCorpus:
    return simulate_corpus(WITH_LATE, np.random.default_rng(22))


def ols_alpha(matches: pd.DataFrame, models: tuple[str, ...]) -> np.ndarray:
    """statsmodels OLS of margin_alice on e_alice - e_bob (first model as reference), centred."""
    x = np.zeros((len(matches), len(models)))
    index = {m: k for k, m in enumerate(models)}
    rows = np.arange(len(matches))
    x[rows, matches["alice"].map(index).to_numpy()] = 1.0
    x[rows, matches["bob"].map(index).to_numpy()] = -1.0
    fit = sm.OLS(matches["margin_alice"].to_numpy(dtype=float), x[:, 1:]).fit()
    alpha = np.concatenate([[0.0], fit.params])
    return alpha - alpha.mean()


def test_point_estimates_equal_statsmodels_ols(late_corpus: SimulatedCorpus) -> None:
    runs = run_table(late_corpus.matches)
    board = fit_leaderboard(RunSample.draw(runs, 10, np.random.default_rng(0)))
    np.testing.assert_allclose(board.alpha, ols_alpha(late_corpus.matches, runs.models), atol=1e-9)
    assert abs(board.alpha.sum()) < 1e-9


def test_noise_free_corpus_gives_the_planted_strengths_exactly(corpus: SimulatedCorpus) -> None:
    # balanced round robin: the estimand is each model's mean planted strength over games
    runs = run_table(noise_free(corpus.matches, corpus.truth))
    board = fit_leaderboard(RunSample.draw(runs, 5, np.random.default_rng(0)))
    order = [runs.models.index(m) for m in corpus.truth.models]
    np.testing.assert_allclose(board.alpha[order], corpus.truth.alpha, atol=1e-9)


def test_estimates_recover_planted_strengths(corpus: SimulatedCorpus) -> None:
    runs = run_table(corpus.matches)
    board = fit_leaderboard(RunSample.draw(runs, 400, np.random.default_rng(1)))
    order = [runs.models.index(m) for m in corpus.truth.models]
    error = board.alpha[order] - corpus.truth.alpha
    width = (board.table["ci_high"] - board.table["ci_low"]).mean()
    assert np.abs(error).max() < width  # each within about two standard errors
    assert np.abs(error).max() < 0.5
    truth_rank = np.argsort(np.argsort(-corpus.truth.alpha))
    assert (np.argsort(np.argsort(-board.alpha[order])) == truth_rank).mean() >= 0.5


def test_table_has_the_contract_columns_and_sane_intervals(late_corpus: SimulatedCorpus) -> None:
    runs = run_table(late_corpus.matches)
    table = fit_leaderboard(RunSample.draw(runs, 200, np.random.default_rng(2))).table
    assert tuple(table.columns) == LEADERBOARD_COLUMNS
    assert list(table["rank"]) == list(range(1, len(table) + 1))
    assert table["alpha"].is_monotonic_decreasing
    assert ((table["ci_low"] <= table["alpha"]) & (table["alpha"] <= table["ci_high"])).all()
    per_model = pd.concat([late_corpus.matches["alice"], late_corpus.matches["bob"]])
    counts = per_model.value_counts()
    assert dict(zip(table["model"], table["matches"], strict=True)) == counts.to_dict()


def test_same_seed_same_rankings_and_intervals(late_corpus: SimulatedCorpus) -> None:
    a = overall_leaderboard(late_corpus.matches, np.random.default_rng(7), n_boot=300)
    b = overall_leaderboard(late_corpus.matches, np.random.default_rng(7), n_boot=300)
    c = overall_leaderboard(late_corpus.matches, np.random.default_rng(8), n_boot=300)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"], c["ci_low"])


def test_bootstrap_replicates_equal_refits_on_resampled_rows(late_corpus: SimulatedCorpus) -> None:
    """The sufficient-statistic bootstrap is the row-level cluster bootstrap, replicate by
    replicate: redraw the same run indices and refit statsmodels OLS on the drawn runs' rows."""
    runs = run_table(late_corpus.matches)
    sample = RunSample.draw(runs, 3, np.random.default_rng(3))
    board = fit_leaderboard(sample)
    drawn = np.random.default_rng(3).integers(0, runs.n_runs, size=(3, runs.n_runs))
    deals = late_corpus.matches.sort_values(["game_seed", "run_id", "play_seed", "alice"])
    key = (
        deals["game_seed"].astype(str)
        + "|"
        + deals["run_id"]
        + "|"
        + deals["play_seed"].astype(str)
    )
    codes, _ = pd.factorize(key)  # runs in run_table order (sorted by the same key)
    by_run = [np.flatnonzero(codes == r) for r in range(runs.n_runs)]
    for b in range(3):
        rows = np.concatenate([by_run[r] for r in drawn[b]])
        expected = ols_alpha(deals.iloc[rows], runs.models)
        np.testing.assert_allclose(board.replicates[b], expected, atol=1e-8)


def test_resample_counts_add_up(late_corpus: SimulatedCorpus) -> None:
    runs = run_table(late_corpus.matches)
    cells = resample_cells(runs, 50, np.random.default_rng(4))
    np.testing.assert_array_equal(cells.counts.sum(axis=1), runs.n_runs)
    with pytest.raises(ValueError, match="positive"):
        resample_cells(runs, 0, np.random.default_rng(4))


def test_tiers_break_where_intervals_stop_overlapping() -> None:
    alpha = np.array([2.0, 1.8, 0.5, 0.4, -3.0, np.nan])
    low = np.array([1.7, 1.5, 0.2, 0.1, -3.5, np.nan])
    high = np.array([2.3, 2.1, 0.8, 1.8, -2.5, np.nan])
    np.testing.assert_array_equal(assign_tiers(alpha, low, high), [1, 1, 2, 2, 3, 0])


def test_bootstrap_p_value() -> None:
    reps = np.array([[1.0, -1.0, 0.5], [2.0, 1.0, -0.5], [3.0, 2.0, 0.1], [4.0, 3.0, 0.2]])
    # column 0: never <= 0 -> 2 * 1/5; column 1: one of four <= 0 -> 2 * 2/5
    np.testing.assert_allclose(bootstrap_p_value(reps), [0.4, 0.8, 0.8])


def test_incomplete_and_malformed_runs(late_corpus: SimulatedCorpus) -> None:
    matches = late_corpus.matches.copy()
    runs = run_table(matches)
    broken = matches.copy()
    broken.loc[broken.index[0], "status"] = "timeout"
    assert run_table(broken).n_runs == runs.n_runs - 1
    single = matches.drop(index=matches.index[2])
    assert run_table(single).n_runs == runs.n_runs - 1
    unswapped = matches.copy()
    unswapped.loc[unswapped.index[1], "bob"] = unswapped.loc[unswapped.index[1], "alice"]
    unswapped.loc[unswapped.index[1], "alice"] = matches.loc[matches.index[0], "alice"]
    with pytest.raises(ValueError, match="swap the seats"):
        run_table(unswapped)
    with pytest.raises(ValueError, match="margin_alice"):
        run_table(matches.drop(columns=["margin_alice"]))
    nothing = matches.assign(status="error")
    with pytest.raises(ValueError, match="no complete paired deals"):
        run_table(nothing)
