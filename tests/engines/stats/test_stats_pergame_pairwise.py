"""Per-game strengths, head-to-head tables, Bradley-Terry and ranks (Section 6, Appendix E)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats

from engines.stats.leaderboard import RunSample, fit_leaderboard
from engines.stats.pairwise import (
    bradley_terry,
    bradley_terry_frame,
    direction_agreement,
    pairwise_margins,
    pairwise_matrix,
    win_matrix,
)
from engines.stats.pergame import per_game_alpha, per_game_mean_margin
from engines.stats.planted import SimulatedCorpus, SimulationConfig, noise_free, simulate_corpus
from engines.stats.ranks import kendall_tau, kendall_tau_rows, spearman_rho, spearman_rows
from engines.stats.runs import run_table

CONFIG = SimulationConfig(
    n_models=5, n_games=8, n_late_models=1, late_opponents=(2, 3), runs_per_matchup=10
)


@pytest.fixture(scope="module")
def corpus() -> SimulatedCorpus:
    return simulate_corpus(CONFIG, np.random.default_rng(31))


@pytest.fixture(scope="module")
def sample(corpus: SimulatedCorpus) -> RunSample:
    return RunSample.draw(run_table(corpus.matches), 300, np.random.default_rng(32))


def truth_order(corpus: SimulatedCorpus, models: tuple[str, ...]) -> list[int]:
    return [corpus.truth.models.index(m) for m in models]


def test_per_game_fit_is_the_overall_fit_on_one_game(sample: RunSample) -> None:
    runs = sample.runs
    grid = per_game_alpha(runs, sample.observed)[0]
    reps = per_game_alpha(runs, sample.replicates)
    for g in (0, 3):
        board = fit_leaderboard(sample, runs.cell_game == g)
        np.testing.assert_allclose(grid[:, g], board.alpha, atol=1e-9, equal_nan=True)
        np.testing.assert_allclose(reps[:, :, g], board.replicates, atol=1e-9, equal_nan=True)
    played = np.isfinite(grid)
    np.testing.assert_allclose(np.where(played, grid, 0.0).sum(axis=0), 0.0, atol=1e-9)


def test_noise_free_per_game_strengths_are_the_planted_ones(corpus: SimulatedCorpus) -> None:
    runs = run_table(noise_free(corpus.matches, corpus.truth))
    sample = RunSample.draw(runs, 2, np.random.default_rng(0))
    grid = per_game_alpha(runs, sample.observed)[0]
    planted = corpus.truth.alpha_game[truth_order(corpus, runs.models)]
    late = [runs.models.index(m) for m in corpus.truth.late_models]
    early = [k for k in range(runs.n_models) if k not in late]
    # on each game the fit is unique up to the constant removed by sum-to-zero over its players
    for g in range(runs.n_games):
        present = np.isfinite(grid[:, g])
        assert present[early].all()
        truth = planted[present, g] - planted[present, g].mean()
        np.testing.assert_allclose(grid[present, g], truth, atol=1e-9)


def test_per_game_estimates_recover_truth_within_intervals(
    corpus: SimulatedCorpus, sample: RunSample
) -> None:
    runs = sample.runs
    reps = per_game_alpha(runs, sample.replicates)
    low, high = np.nanpercentile(reps, [2.5, 97.5], axis=0)
    clean = run_table(noise_free(corpus.matches, corpus.truth))
    truth = per_game_alpha(clean, RunSample.draw(clean, 1, np.random.default_rng(0)).observed)[0]
    covered = (low <= truth) & (truth <= high)
    assert covered[np.isfinite(truth)].mean() > 0.85


def test_mean_margin_table_matches_pandas(corpus: SimulatedCorpus, sample: RunSample) -> None:
    table = per_game_mean_margin(sample.runs)
    m = corpus.matches
    long = pd.concat(
        [
            pd.DataFrame({"model": m["alice"], "game": m["game_seed"], "y": m["margin_alice"]}),
            pd.DataFrame({"model": m["bob"], "game": m["game_seed"], "y": -m["margin_alice"]}),
        ]
    )
    expected = long.groupby(["game", "model"])["y"].mean().unstack()
    np.testing.assert_allclose(
        table.to_numpy(), expected.loc[table.index, table.columns].to_numpy()
    )


def test_pairwise_means_and_counts_match_pandas(corpus: SimulatedCorpus, sample: RunSample) -> None:
    pairs = pairwise_margins(sample)
    m = corpus.matches
    for row in pairs.itertuples():
        a_first = m.loc[(m["alice"] == row.row) & (m["bob"] == row.column), "margin_alice"]
        b_first = m.loc[(m["alice"] == row.column) & (m["bob"] == row.row), "margin_alice"]
        assert row.mean_margin == pytest.approx(pd.concat([a_first, -b_first]).mean())
        assert row.paired_deals == len(a_first) == len(b_first)
        assert row.ci_low <= row.mean_margin <= row.ci_high
    matrix = pairwise_matrix(pairs, list(sample.runs.models), "mean_margin")
    values = matrix.to_numpy()
    np.testing.assert_allclose(values, -values.T)
    deals = pairwise_matrix(pairs, list(sample.runs.models), "paired_deals")
    assert np.nansum(deals.to_numpy()) / 2 == sample.runs.n_runs


def test_direction_agreement_counts(sample: RunSample) -> None:
    board = fit_leaderboard(sample)
    pairs = pairwise_margins(sample)
    check = direction_agreement(pairs, board.table)
    assert check.pairs == len(pairs)
    assert check.agree + check.exceptions == check.pairs
    flipped = board.table.assign(alpha=-board.table["alpha"])
    assert direction_agreement(pairs, flipped).agree == check.exceptions


def test_bradley_terry_equals_statsmodels_logit(sample: RunSample) -> None:
    runs = sample.runs
    wins = win_matrix(runs)
    m = runs.n_models
    rows, outcome, weight = [], [], []
    for i in range(m):
        for j in range(i + 1, m):
            x = np.zeros(m)
            x[i], x[j] = 1.0, -1.0
            for y, w in ((1.0, wins[i, j]), (0.0, wins[j, i])):
                if w > 0:
                    rows.append(x[1:])
                    outcome.append(y)
                    weight.append(w)
    fit = sm.GLM(
        np.array(outcome),
        np.array(rows),
        family=sm.families.Binomial(),
        freq_weights=np.array(weight),
    ).fit()
    expected = np.concatenate([[0.0], fit.params])
    np.testing.assert_allclose(bradley_terry(wins), expected - expected.mean(), atol=1e-7)
    frame, rho = bradley_terry_frame(runs, fit_leaderboard(sample).alpha)
    assert rho == pytest.approx(stats.spearmanr(frame["theta"], frame["alpha"]).statistic)


def test_ties_are_dropped_from_the_win_indicator(sample: RunSample) -> None:
    runs = sample.runs
    wins = win_matrix(runs)
    decisive = runs.wins_first + runs.wins_second
    assert wins.sum() == decisive.sum() < 2 * runs.n_runs


def test_bradley_terry_refuses_an_unbeaten_model() -> None:
    wins = np.array([[0.0, 3.0, 2.0], [0.0, 0.0, 1.0], [0.0, 2.0, 0.0]])
    with pytest.raises(ValueError, match="won or lost every"):
        bradley_terry(wins)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rank_statistics_equal_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, 12).astype(float)  # with ties
    y = x + rng.normal(0, 2, 12)
    y[:3] = y[3]  # ties in y too
    assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic)
    assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    rows = rng.normal(size=(4, 12))
    np.testing.assert_allclose(
        kendall_tau_rows(rows, y), [stats.kendalltau(r, y).statistic for r in rows]
    )
    np.testing.assert_allclose(
        spearman_rows(rows, y), [stats.spearmanr(r, y).statistic for r in rows]
    )
