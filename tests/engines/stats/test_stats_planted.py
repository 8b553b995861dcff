"""The planted-strength simulator (engines.stats.planted) keeps the DESIGN match contract."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engines.stats.planted import (
    SimulatedCorpus,
    SimulationConfig,
    expected_margins,
    noise_free,
    simulate_corpus,
)

SMALL = SimulationConfig(
    n_models=5, n_games=6, n_late_models=1, late_opponents=(2, 3), runs_per_matchup=4
)
DESIGN_COLUMNS = [
    "match_id",
    "game_seed",
    "spec_hash",
    "engine_version",
    "block",
    "run_id",
    "play_seed",
    "alice",
    "bob",
    "alice_chip_delta",
    "bob_chip_delta",
    "margin_alice",
    "status",
    "n_moves",
    "fallbacks_alice",
    "fallbacks_bob",
    "rethinks_alice",
    "rethinks_bob",
]


@pytest.fixture(scope="module")
def corpus() -> SimulatedCorpus:
    return simulate_corpus(SMALL, np.random.default_rng(11))


def test_matches_follow_the_design_schema(corpus: SimulatedCorpus) -> None:
    m = corpus.matches
    assert [c for c in DESIGN_COLUMNS if c not in m.columns] == []
    assert m["match_id"].is_unique
    assert (m["alice_chip_delta"] + m["bob_chip_delta"] == 0).all()
    assert (m["margin_alice"] == m["alice_chip_delta"] - m["bob_chip_delta"]).all()
    assert set(m["status"]) == {"complete"}
    assert (m["alice"] != m["bob"]).all()


def test_a_run_is_two_deals_with_the_seats_swapped(corpus: SimulatedCorpus) -> None:
    for _, run in corpus.matches.groupby(["run_id", "play_seed"]):
        assert len(run) == 2
        first, second = run.iloc[0], run.iloc[1]
        assert (first["alice"], first["bob"]) == (second["bob"], second["alice"])
        assert first["game_seed"] == second["game_seed"]


def test_planted_per_game_strengths_sum_to_zero(corpus: SimulatedCorpus) -> None:
    truth = corpus.truth
    assert truth.alpha_game.shape == (SMALL.n_models, SMALL.n_games)
    np.testing.assert_allclose(truth.alpha_game.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(truth.alpha, truth.alpha_game.mean(axis=1))


def test_the_late_block_meets_few_opponents(corpus: SimulatedCorpus) -> None:
    m = corpus.matches
    late = corpus.truth.late_models[0]
    plays = m.loc[(m["alice"] == late) | (m["bob"] == late)]
    assert set(plays["block"]) == {"september"}
    opponents = plays.groupby("game_seed").apply(
        lambda g: len(set(g["alice"]) | set(g["bob"])) - 1, include_groups=False
    )
    assert opponents.between(2, 3).all()
    early = m.loc[(m["alice"] != late) & (m["bob"] != late)]
    assert set(early["block"]) == {"april"}


def test_same_seed_same_corpus_and_other_seed_differs() -> None:
    a = simulate_corpus(SMALL, np.random.default_rng(5)).matches
    b = simulate_corpus(SMALL, np.random.default_rng(5)).matches
    c = simulate_corpus(SMALL, np.random.default_rng(6)).matches
    pd.testing.assert_frame_equal(a, b)
    assert not a["margin_alice"].equals(c["margin_alice"])


def test_margins_scatter_around_their_expectation(corpus: SimulatedCorpus) -> None:
    expected = expected_margins(corpus.matches, corpus.truth)
    residual = corpus.matches["margin_alice"].to_numpy() - expected
    # mean zero within 4 standard errors; luck makes the spread several chips
    assert abs(residual.mean()) < 4 * residual.std() / np.sqrt(len(residual))
    assert residual.std() > 1.0


def test_noise_free_replaces_margins_by_expectations(corpus: SimulatedCorpus) -> None:
    clean = noise_free(corpus.matches, corpus.truth)
    np.testing.assert_allclose(
        clean["margin_alice"], expected_margins(corpus.matches, corpus.truth)
    )
    np.testing.assert_allclose(clean["alice_chip_delta"] + clean["bob_chip_delta"], 0.0)


def test_incomplete_deals_are_marked() -> None:
    config = SimulationConfig(
        n_models=4, n_games=3, n_late_models=0, runs_per_matchup=20, incomplete_rate=0.1
    )
    m = simulate_corpus(config, np.random.default_rng(0)).matches
    assert {"timeout", "error"} <= set(m["status"])
    assert (m.loc[m["status"] != "complete", "alice_chip_delta"] == 0).all()


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="n_late_models"):
        SimulationConfig(n_models=4, n_late_models=3)
