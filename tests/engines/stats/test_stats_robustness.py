"""Robustness refits of Appendix E.1: leave-one-game-out, game subsets, one block, one model out."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from engines.stats.leaderboard import RunSample, fit_leaderboard
from engines.stats.planted import SimulationConfig, simulate_corpus
from engines.stats.robustness import (
    block_refit,
    leave_one_game_out,
    random_game_subsets,
    refit_on_games,
    tiers_intact,
    without_model,
)
from engines.stats.runs import run_table

CONFIG = SimulationConfig(
    n_models=6, n_games=10, n_late_models=1, late_opponents=(3, 4), runs_per_matchup=8
)


@pytest.fixture(scope="module")
def sample() -> RunSample:
    corpus = simulate_corpus(CONFIG, np.random.default_rng(41))
    return RunSample.draw(run_table(corpus.matches), 200, np.random.default_rng(42))


def test_refit_on_games_equals_a_fit_on_those_games(sample: RunSample) -> None:
    games = np.array([0, 2, 5, 7])
    selection = np.zeros((1, sample.runs.n_games))
    selection[0, games] = 1.0
    board = fit_leaderboard(sample, np.isin(sample.runs.cell_game, games))
    np.testing.assert_allclose(refit_on_games(sample, selection)[0], board.alpha, atol=1e-9)


def test_leave_one_game_out_taus_equal_scipy(sample: RunSample) -> None:
    full = fit_leaderboard(sample)
    logo = leave_one_game_out(sample, full)
    assert list(logo["dropped_game"]) == list(sample.runs.game_seeds)
    for g in (0, 4, 9):
        refit = fit_leaderboard(sample, sample.runs.cell_game != g).alpha
        expected = stats.kendalltau(refit, full.alpha).statistic
        assert logo.loc[g, "kendall_tau"] == pytest.approx(expected)
        assert logo.loc[g, "spearman"] == pytest.approx(
            stats.spearmanr(refit, full.alpha).statistic
        )
    assert logo["kendall_tau"].between(-1, 1).all()
    assert (logo["max_rank_shift"] >= 0).all()


def test_random_subsets_are_seeded_and_agree_more_with_more_games(sample: RunSample) -> None:
    full = fit_leaderboard(sample)
    a = random_game_subsets(sample, full, np.random.default_rng(1), sizes=(2, 9), n_subsets=200)
    b = random_game_subsets(sample, full, np.random.default_rng(1), sizes=(2, 9), n_subsets=200)
    assert a.equals(b)
    assert list(a["games"]) == [2, 9]
    assert a.loc[1, "median_spearman"] >= a.loc[0, "median_spearman"]
    assert (a["p5_spearman"] <= a["median_spearman"]).all()
    with pytest.raises(ValueError, match="outside"):
        random_game_subsets(sample, full, np.random.default_rng(1), sizes=(11,), n_subsets=2)


def test_block_refit_keeps_only_that_blocks_models(sample: RunSample) -> None:
    full = fit_leaderboard(sample)
    refit = block_refit(sample, "april", full)
    late = "model-06"
    assert late not in set(refit.leaderboard.table["model"])
    assert len(refit.leaderboard.table) == 5
    keep = np.array([m != late for m in sample.runs.models])
    expected = stats.kendalltau(refit.leaderboard.alpha[keep], full.alpha[keep]).statistic
    assert refit.kendall_tau == pytest.approx(expected)
    with pytest.raises(ValueError, match="unknown block"):
        block_refit(sample, "winter", full)


def test_without_model_drops_its_runs(sample: RunSample) -> None:
    full = fit_leaderboard(sample)
    top = str(full.table["model"].iloc[0])
    refit = without_model(sample, top, full)
    table = refit.leaderboard.table
    assert top not in set(table["model"])
    assert abs(table["alpha"].sum()) < 1e-9
    assert (table["ci_low"] <= table["ci_high"]).all()
    with pytest.raises(ValueError, match="unknown model"):
        without_model(sample, "nobody", full)


def test_tiers_intact_means_no_swap_across_tiers() -> None:
    full = np.array([3.0, 2.0, 1.0, 0.0])
    tiers = np.array([1, 1, 2, 2])
    assert tiers_intact(np.array([2.0, 3.0, 0.0, 1.0]), full, tiers)
    assert not tiers_intact(np.array([3.0, 0.5, 1.0, 0.0]), full, tiers)
