"""The validity checks of Sections 6-7 and Appendices C and E, each on a planted case whose
answer is known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engines.axes.names import AXES
from engines.stats.analysis import AnalysisConfig, analyse
from engines.stats.composite import composite, zscore_axes
from engines.stats.leaderboard import RunSample
from engines.stats.planted import SimulatedCorpus, SimulationConfig, simulate_corpus
from engines.stats.ranks import spearman_rho
from engines.stats.runs import run_table
from engines.stats.validity import (
    alternatives_beside_paper,
    composite_alternatives,
    interaction_share,
    late_block_models,
    mark_late,
    multivariate_weights,
    rethink_fallback_summary,
    screening_agreement,
    whole_strategy_rows,
)

QUICK = AnalysisConfig(n_boot=60, n_subsets=20, n_splits=4)


@pytest.fixture(scope="module")
def corpus() -> SimulatedCorpus:
    return simulate_corpus(
        SimulationConfig(n_models=6, n_games=12, n_late_models=2, runs_per_matchup=4),
        np.random.default_rng(5),
    )


# --- the whole-strategy opponent check ------------------------------------------------------


def planted_outcomes(k: float, noise: float, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """Row + column + k * u_a * v_b + noise, and the interaction share it plants."""
    a, b, d = 24, 24, 400
    rows, cols = rng.normal(0, 1, a), rng.normal(0, 1, b)
    u, v = rng.normal(0, 1, a), rng.normal(0, 1, b)
    inter = k * np.outer(u, v)
    inter = inter - inter.mean(1, keepdims=True) - inter.mean(0, keepdims=True) + inter.mean()
    mean = rows[:, None] + cols[None, :] + inter
    outcomes = mean[:, :, None] + rng.normal(0, noise, (a, b, d))
    planted = float((inter**2).mean()) / float(mean.var() + noise**2)
    return outcomes, planted


@pytest.mark.parametrize("k", [0.0, 0.5, 1.5])
def test_interaction_share_recovers_the_planted_share(k: float) -> None:
    outcomes, planted = planted_outcomes(k, noise=3.0, rng=np.random.default_rng(int(10 * k)))
    share = interaction_share(outcomes)
    assert share == pytest.approx(planted, abs=0.004)


def test_cross_fitting_removes_the_noise_bias() -> None:
    # Pure noise: the naive interaction variance of cell means is noise^2 / deals > 0; the
    # cross-fitted one is centred on zero.
    rng = np.random.default_rng(3)
    shares = [interaction_share(rng.normal(0, 1, (10, 10, 20))) for _ in range(40)]
    assert abs(float(np.mean(shares))) < 0.004
    assert interaction_share(np.zeros((3, 3, 4))) == 0.0
    with pytest.raises(ValueError, match="at least 2"):
        interaction_share(np.zeros((1, 3, 4)))


def test_whole_strategy_rows_correlate_with_the_axis() -> None:
    shares = {"1": 0.001, "2": 0.002, "3": 0.003, "4": 0.004}
    axis = {"1": 0.1, "2": 0.3, "3": 0.2, "4": 0.9}
    frame, summary = whole_strategy_rows(shares, axis)
    assert list(frame["game"]) == ["1", "2", "3", "4"]
    assert summary["median_share"] == pytest.approx(0.0025)
    assert summary["rho_with_axis"] == pytest.approx(0.8)  # ranks 1,2,3,4 vs 1,3,2,4


# --- composites -------------------------------------------------------------------------------


def _alpha_and_z(corpus: SimulatedCorpus) -> tuple[RunSample, np.ndarray, np.ndarray]:
    runs = run_table(corpus.matches)
    sample = RunSample.draw(runs, 40, np.random.default_rng(1))
    from engines.stats.pergame import per_game_alpha

    alpha = per_game_alpha(runs, sample.observed)[0]
    return sample, alpha, zscore_axes(corpus.axis_scores, runs.game_seeds)


def test_screening_axes_identical_to_the_five_agree_fully(corpus: SimulatedCorpus) -> None:
    _, alpha, z = _alpha_and_z(corpus)
    same = screening_agreement(alpha, z, z.copy(), AXES.index("temporal"), k=8)
    assert same["rho"] == pytest.approx(1.0) and same["shared_hardest"] == 8
    # Reversed screening axes with the sign fixed by the temporal column: the same composite.
    flipped = screening_agreement(alpha, z, z[:, ::-1], len(AXES) - 1 - AXES.index("temporal"))
    assert flipped["rho"] == pytest.approx(1.0)


def test_composite_alternatives_against_their_definitions(corpus: SimulatedCorpus) -> None:
    sample, alpha, z = _alpha_and_z(corpus)
    table, extra = composite_alternatives(sample, alpha, z, k=4)
    rows = table.set_index("score")
    slopes = composite(alpha, z).scores
    assert rows.loc["slopes", "rho_with_slopes"] == pytest.approx(1.0)
    assert rows.loc["unweighted_mean", "rho_with_slopes"] == pytest.approx(
        spearman_rho(z.mean(axis=1), slopes)
    )
    weights = multivariate_weights(alpha, z)
    assert np.abs(weights).sum() == pytest.approx(1.0)
    assert weights[AXES.index("temporal")] > 0
    assert (rows["hardest_spread"] > 0).all()
    assert rows.loc["slopes", "spread_ratio"] == pytest.approx(
        rows.loc["slopes", "hardest_spread"] / extra["overall_spread"]
    )


def test_alternatives_beside_the_paper(corpus: SimulatedCorpus) -> None:
    sample, alpha, z = _alpha_and_z(corpus)
    table, _ = composite_alternatives(sample, alpha, z, k=4)
    beside = alternatives_beside_paper(table).set_index("figure")
    assert beside.loc["unweighted mean: tertile 2 spread", "paper"] == 3.69
    assert beside.loc["multivariate: rho with the slopes' score", "paper"] == 0.95
    assert beside.loc["unweighted mean: hardest-games spread", "ours"] == pytest.approx(
        table.set_index("score").loc["unweighted_mean", "hardest_spread"]
    )


def test_multivariate_weights_equal_the_slopes_on_orthogonal_axes() -> None:
    # With uncorrelated z-scored axes the multivariate coefficients are the simple slopes.
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.normal(size=(30, 5)))
    z = (q - q.mean(0)) / (q - q.mean(0)).std(0)
    q2, _ = np.linalg.qr(np.column_stack([np.ones(30), z]))
    z = q2[:, 1:] / q2[:, 1:].std(0)
    alpha = rng.normal(size=(6, 5)) @ z.T
    assert np.allclose(multivariate_weights(alpha, z), composite(alpha, z).weights)


# --- the corpus ---------------------------------------------------------------------------------


def test_late_block_models_are_marked() -> None:
    matches = pd.DataFrame(
        {
            "alice": ["a", "b", "c", "a"],
            "bob": ["b", "a", "a", "c"],
            "block": ["2026-04", "2026-04", "2026-09", "2026-09"],
        }
    )
    late = late_block_models(matches)
    assert dict(zip(late["model"], late["late"], strict=True)) == {
        "a": False,
        "b": False,
        "c": True,
    }
    board = pd.DataFrame({"model": ["c", "a", "b"], "alpha": [1.0, 0.0, -1.0]})
    assert list(mark_late(board, late)["model"]) == ["c \u2020", "a", "b"]


def test_late_block_from_the_analysis(corpus: SimulatedCorpus) -> None:
    result = analyse(corpus.matches, rng=np.random.default_rng(2), config=QUICK)
    late = result.tables["late_block"].set_index("model")["late"]
    assert int(late.sum()) == 2  # the planted corpus's two late models


def test_rethink_fallback_summary_sums_both_seats() -> None:
    matches = pd.DataFrame(
        {
            "alice": ["x", "y"],
            "bob": ["y", "x"],
            "moves_alice": [4, 2],
            "moves_bob": [3, 5],
            "fallbacks_alice": [1, 0],
            "fallbacks_bob": [0, 2],
            "rethinks_alice": [2, 1],
            "rethinks_bob": [0, 3],
        }
    )
    table = rethink_fallback_summary(matches).set_index("model")
    assert table.loc["x", ["matches", "moves", "fallbacks", "rethinks"]].tolist() == [2, 9, 3, 5]
    assert table.loc["y", ["matches", "moves", "fallbacks", "rethinks"]].tolist() == [2, 5, 0, 1]
    assert table.loc["x", "fallback_share"] == pytest.approx(3 / 9)
    assert table.loc["y", "rethinks_per_move"] == pytest.approx(1 / 5)
    with pytest.raises(ValueError, match="seat columns"):
        rethink_fallback_summary(matches.drop(columns=["moves_bob"]))


def test_jaggedness_uses_std_g_when_the_axes_give_it(corpus: SimulatedCorpus) -> None:
    # The axes' random-play scale (std_g) is the scale: the same numbers as the planted
    # payoff_scale under that name, and different from the corpus-margin fallback.
    planted = corpus.axis_scores
    as_std_g = planted.rename(columns={"payoff_scale": "std_g"}).drop(columns=["rulebook_chars"])
    fallback = planted.drop(columns=["payoff_scale", "rulebook_chars"])
    with_std = analyse(corpus.matches, as_std_g, rng=np.random.default_rng(4), config=QUICK)
    with_scale = analyse(
        corpus.matches,
        planted.drop(columns=["rulebook_chars"]),
        rng=np.random.default_rng(4),
        config=QUICK,
    )
    corpus_scale = analyse(corpus.matches, fallback, rng=np.random.default_rng(4), config=QUICK)
    a = with_std.tables["jaggedness"]["jaggedness"].to_numpy()
    assert np.allclose(a, with_scale.tables["jaggedness"]["jaggedness"].to_numpy())
    assert not np.allclose(a, corpus_scale.tables["jaggedness"]["jaggedness"].to_numpy())
