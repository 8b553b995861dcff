"""Composite complexity (Appendix E) and capability profiles (Section 7, Appendices F-H)."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.multitest import multipletests

from engines.stats.capability import (
    benjamini_hochberg,
    factor_analysis,
    interaction,
    local_jaggedness,
    main_effect,
    profile_slopes,
    variance_decomposition,
    verbosity_check,
)
from engines.stats.composite import (
    AXES,
    axis_slopes,
    composite,
    composite_weights,
    half_split_check,
    tertile_leaderboards,
    tertiles,
    zscore_axes,
)
from engines.stats.leaderboard import RunSample
from engines.stats.pergame import per_game_alpha
from engines.stats.planted import SimulatedCorpus, SimulationConfig, noise_free, simulate_corpus
from engines.stats.runs import run_table

SMOOTH = SimulationConfig(
    n_models=5,
    n_games=30,
    n_late_models=0,
    runs_per_matchup=10,
    jaggedness=(0.0, 0.0),
    slope_sd=0.3,
)
JAGGED = SimulationConfig(
    n_models=5, n_games=40, n_late_models=0, runs_per_matchup=30, jaggedness=(0.0, 0.4)
)


class Grid:
    """A corpus's per-game strengths, their bootstrap replicates, and the z-scored axes."""

    def __init__(self, corpus: SimulatedCorpus, n_boot: int, seed: int) -> None:
        self.corpus = corpus
        self.runs = run_table(corpus.matches)
        self.sample = RunSample.draw(self.runs, n_boot, np.random.default_rng(seed))
        self.alpha = per_game_alpha(self.runs, self.sample.observed)[0]
        self.boot = per_game_alpha(self.runs, self.sample.replicates)
        self.z = zscore_axes(corpus.axis_scores, self.runs.game_seeds)
        order = [corpus.truth.models.index(m) for m in self.runs.models]
        self.truth = corpus.truth.alpha_game[order]
        self.slopes = corpus.truth.slopes[order]
        self.jaggedness = corpus.truth.jaggedness[order]
        scale = corpus.axis_scores.set_index("game_seed").loc[list(self.runs.game_seeds)]
        self.scale = scale["payoff_scale"].to_numpy()
        self.chars = scale["rulebook_chars"].to_numpy(dtype=float)


@pytest.fixture(scope="module")
def smooth() -> Grid:
    return Grid(simulate_corpus(SMOOTH, np.random.default_rng(51)), 300, 52)


@pytest.fixture(scope="module")
def jagged() -> Grid:
    return Grid(simulate_corpus(JAGGED, np.random.default_rng(53)), 200, 54)


def test_z_scores_are_centred_unit_and_aligned(smooth: Grid) -> None:
    z = smooth.z
    np.testing.assert_allclose(z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(z.std(axis=0), 1.0)
    shuffled = smooth.corpus.axis_scores.sample(frac=1.0, random_state=0)
    np.testing.assert_allclose(zscore_axes(shuffled, smooth.runs.game_seeds), z)
    with pytest.raises(ValueError, match="no axis scores"):
        zscore_axes(smooth.corpus.axis_scores.iloc[1:], smooth.runs.game_seeds)
    with pytest.raises(ValueError, match="lack column"):
        zscore_axes(smooth.corpus.axis_scores.drop(columns=["temporal"]), smooth.runs.game_seeds)


def test_profile_ols_equals_statsmodels(smooth: Grid) -> None:
    table = profile_slopes(smooth.alpha, smooth.boot, smooth.z, smooth.runs.models)
    for i, model in enumerate(smooth.runs.models):
        fit = sm.OLS(smooth.alpha[i], sm.add_constant(smooth.z)).fit()
        coef = table.loc[table["model"] == model, "coef"].to_numpy()
        np.testing.assert_allclose(coef, fit.params, atol=1e-10)
        assert coef[0] == pytest.approx(smooth.alpha[i].mean())


def test_noise_free_profiles_are_the_planted_slopes(smooth: Grid) -> None:
    clean = run_table(noise_free(smooth.corpus.matches, smooth.corpus.truth))
    grid = per_game_alpha(clean, RunSample.draw(clean, 1, np.random.default_rng(0)).observed)[0]
    table = profile_slopes(grid, grid[None], smooth.z, clean.models)
    slopes = table.loc[table["term"] != "intercept", "coef"].to_numpy().reshape(-1, len(AXES))
    np.testing.assert_allclose(slopes, smooth.slopes, atol=1e-9)


def test_profile_intervals_cover_planted_slopes_and_bh_is_statsmodels(smooth: Grid) -> None:
    table = profile_slopes(smooth.alpha, smooth.boot, smooth.z, smooth.runs.models)
    slopes = table.loc[table["term"] != "intercept"].reset_index(drop=True)
    planted = smooth.slopes.ravel()
    covered = (slopes["ci_low"] <= planted) & (planted <= slopes["ci_high"])
    assert covered.mean() >= 0.8
    reject, adjusted, _, _ = multipletests(slopes["p_value"], alpha=0.05, method="fdr_bh")
    np.testing.assert_allclose(slopes["q_value"], adjusted)
    np.testing.assert_array_equal(slopes["significant"], reject)
    big = np.abs(planted) > 0.4
    assert big.any() and slopes.loc[big, "significant"].all()


def test_benjamini_hochberg_equals_statsmodels() -> None:
    rng = np.random.default_rng(0)
    p = np.concatenate([rng.uniform(0, 0.01, 8), rng.uniform(0, 1, 40), [0.02, 0.02, 1.0]])
    reject, adjusted = benjamini_hochberg(p, 0.1)
    expected_reject, expected_adjusted, _, _ = multipletests(p, alpha=0.1, method="fdr_bh")
    np.testing.assert_allclose(adjusted, expected_adjusted)
    np.testing.assert_array_equal(reject, expected_reject)
    with pytest.raises(ValueError, match="p-values"):
        benjamini_hochberg(np.array([0.5, 1.5]))


def test_axis_slopes_are_simple_regressions(smooth: Grid) -> None:
    slopes = axis_slopes(smooth.alpha, smooth.z)
    for i in (0, 3):
        for a in range(len(AXES)):
            fit = stats.linregress(smooth.z[:, a], smooth.alpha[i])
            assert slopes[i, a] == pytest.approx(fit.slope)


def test_composite_weights_are_the_first_principal_component(smooth: Grid) -> None:
    slopes = axis_slopes(smooth.alpha, smooth.z)
    weights, explained = composite_weights(slopes)
    assert np.abs(weights).sum() == pytest.approx(1.0)
    assert weights[AXES.index("temporal")] > 0
    values, vectors = np.linalg.eigh(np.cov(slopes, rowvar=False))
    top = vectors[:, -1] / np.abs(vectors[:, -1]).sum()
    assert np.allclose(weights, top) or np.allclose(weights, -top)
    assert explained == pytest.approx(values[-1] / values.sum())
    result = composite(smooth.alpha, smooth.z)
    np.testing.assert_allclose(result.scores, smooth.z @ result.weights)


def test_hard_games_spread_the_leaderboard(smooth: Grid) -> None:
    split = half_split_check(smooth.sample, smooth.alpha, smooth.z, np.random.default_rng(3), 4, 8)
    assert len(split) == 4 and (split["spread"] > 0).all()
    labels = tertiles(np.arange(30.0)[::-1])
    assert np.bincount(labels).tolist() == [10, 10, 10] and labels[0] == 2
    boards = tertile_leaderboards(smooth.sample, smooth.z[:, AXES.index("temporal")])
    assert len(boards) == 3
    assert sum(int(b.table["matches"].sum()) for b in boards) == 2 * 2 * smooth.runs.n_runs


def test_factor_analysis_matches_its_definition(smooth: Grid) -> None:
    overall = smooth.alpha.mean(axis=1)
    fa = factor_analysis(
        smooth.alpha, smooth.z, smooth.runs.models, smooth.runs.game_seeds, overall
    )
    std = (smooth.alpha - smooth.alpha.mean(1, keepdims=True)) / smooth.alpha.std(1, keepdims=True)
    u, s, vt = np.linalg.svd(std)
    assert fa.share == pytest.approx(s[0] ** 2 / (s**2).sum())
    assert np.corrcoef(fa.loadings.to_numpy(), overall)[0, 1] > 0
    residual = std - s[0] * np.outer(u[:, 0], vt[0])
    first = fa.residual_correlation.iloc[0]
    i, j = smooth.runs.models.index(first["model_a"]), smooth.runs.models.index(first["model_b"])
    expected = stats.pearsonr(residual[i], residual[j])
    assert first["r"] == pytest.approx(expected.statistic)
    assert first["p_value"] == pytest.approx(expected.pvalue)
    _, adjusted, _, _ = multipletests(fa.residual_correlation["p_value"], method="fdr_bh")
    np.testing.assert_allclose(fa.residual_correlation["q_value"], adjusted)
    temporal = fa.axis_correlation.set_index("axis").loc["temporal", "spearman"]
    assert temporal == pytest.approx(stats.spearmanr(fa.scores, smooth.z[:, 1]).statistic)


def test_jaggedness_recovers_planted_values(jagged: Grid) -> None:
    table = local_jaggedness(jagged.alpha, jagged.boot, jagged.z, jagged.scale, jagged.runs.models)
    m = len(jagged.runs.models)
    # centring over models on each game shrinks the planted spread a little
    planted = jagged.jaggedness * np.sqrt(1.0 - 2.0 / m)
    estimate = table["jaggedness"].to_numpy()
    assert np.abs(estimate - planted).max() < 0.08
    assert stats.spearmanr(estimate, planted).statistic >= 0.8
    assert (table["noise_rms"] > 0).all() and (table["raw_rms"] >= estimate).all()


def test_a_smooth_model_has_no_jaggedness_without_noise(smooth: Grid) -> None:
    grid = smooth.truth
    table = local_jaggedness(grid, grid[None], smooth.z, smooth.scale, smooth.runs.models)
    np.testing.assert_allclose(table["jaggedness"], 0.0, atol=1e-7)
    np.testing.assert_allclose(table["r2"], 1.0)


def test_variance_decomposition_removes_the_noise(smooth: Grid) -> None:
    exact = variance_decomposition(smooth.truth, smooth.truth[None]).set_index("quantity")
    assert exact.loc["sigma2_M", "noise"] == pytest.approx(0.0)
    assert exact.loc["sigma2_MG", "corrected"] == pytest.approx(interaction(smooth.truth))
    assert exact.loc["sigma2_M", "observed"] == pytest.approx(
        np.var(smooth.truth.mean(axis=1), ddof=1)
    )
    assert main_effect(smooth.truth[None])[0] == pytest.approx(exact.loc["sigma2_M", "observed"])
    # with few runs per cell, noise is a large part of the raw interaction
    noisy = variance_decomposition(smooth.alpha, smooth.boot).set_index("quantity")
    truth_mg = interaction(smooth.truth)
    noise = noisy.loc["sigma2_MG", "noise"]
    assert noise > 0.2 * truth_mg
    assert abs(noisy.loc["sigma2_MG", "corrected"] - truth_mg) < abs(
        noisy.loc["sigma2_MG", "observed"] - truth_mg
    )
    assert noisy.loc["ratio_MG_M", "corrected"] == pytest.approx(
        noisy.loc["sigma2_MG", "corrected"] / noisy.loc["sigma2_M", "corrected"]
    )
    row = noisy.loc["sigma2_MG"]
    assert row["ci_low"] <= row["corrected"] <= row["ci_high"]


def test_verbosity_is_an_extra_regressor(smooth: Grid) -> None:
    base = profile_slopes(smooth.alpha, smooth.boot, smooth.z, smooth.runs.models)
    coefficients, changes = verbosity_check(
        smooth.alpha, smooth.boot, smooth.z, smooth.chars, smooth.runs.models, base
    )
    assert list(coefficients["model"]) == list(smooth.runs.models)
    _, adjusted, _, _ = multipletests(coefficients["p_value"], method="fdr_bh")
    np.testing.assert_allclose(coefficients["q_value"], adjusted)
    log_len = np.log10(smooth.chars)
    x = sm.add_constant(np.column_stack([smooth.z, (log_len - log_len.mean()) / log_len.std()]))
    fit = sm.OLS(smooth.alpha[0], x).fit()
    assert coefficients.loc[0, "coef"] == pytest.approx(fit.params[-1])
    assert len(changes) == len(smooth.runs.models) * len(AXES)
    with pytest.raises(ValueError, match="positive"):
        verbosity_check(
            smooth.alpha, smooth.boot, smooth.z, -smooth.chars, smooth.runs.models, base
        )
