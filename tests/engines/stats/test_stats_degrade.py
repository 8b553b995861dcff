"""The analysis degrades instead of failing on a valid corpus, and refuses an inconsistent one.

A model that wins every decisive deal leaves Bradley-Terry without a finite maximum-likelihood
fit (complete separation); the leaderboard must still come out, that model first, and the
table that cannot be estimated is named with the reason.  A row whose margin contradicts its
chip columns, or whose chips do not sum to zero, could invert the ranking: the corpus is refused
with one line naming the first bad match.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engines.stats.analysis import AnalysisConfig, analyse
from engines.stats.planted import SimulationConfig, simulate_corpus

QUICK = AnalysisConfig(n_boot=60, subset_sizes=(2,), n_subsets=10, n_splits=2, hardest=2)


@pytest.fixture(scope="module")
def corpus() -> tuple[pd.DataFrame, pd.DataFrame]:
    sim = simulate_corpus(
        SimulationConfig(n_models=4, n_games=3, n_late_models=0, runs_per_matchup=4),
        np.random.default_rng(0),
    )
    return sim.matches, sim.axis_scores


def dominated(matches: pd.DataFrame, champion: str) -> pd.DataFrame:
    """``matches`` with ``champion`` winning every deal it plays by at least one chip."""
    out = matches.copy()
    sign = np.where(out["alice"] == champion, 1, np.where(out["bob"] == champion, -1, 0))
    other = np.sign(out["margin_alice"]).replace(0, 1).to_numpy()
    sign = np.where(sign == 0, other, sign)
    delta = sign * np.maximum(np.abs(out["alice_chip_delta"]).astype(np.int64), 1)
    out["alice_chip_delta"] = delta
    out["bob_chip_delta"] = -delta
    out["margin_alice"] = 2 * delta
    return out


def test_a_model_that_wins_every_deal_is_first_and_bradley_terry_says_why(
    corpus: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    matches, axes = corpus
    champion = sorted(set(matches["alice"]))[-1]
    result = analyse(dominated(matches, champion), axes, rng=np.random.default_rng(1), config=QUICK)
    board = result.tables["leaderboard"]
    assert board["model"].iloc[0] == champion and board["rank"].iloc[0] == 1
    assert result.tables["bradley_terry"].empty
    assert "no finite fit" in result.summary["not_estimable"]["bradley_terry"]
    assert np.isnan(result.summary["bradley_terry_spearman"])
    for name in ("pairwise", "leave_one_game_out", "composite_weights", "hardest_leaderboard"):
        assert name in result.tables


def test_a_sound_corpus_has_nothing_it_cannot_estimate(
    corpus: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    matches, _ = corpus
    result = analyse(matches, rng=np.random.default_rng(1), config=QUICK)
    assert result.summary["not_estimable"] == {}
    assert not result.tables["bradley_terry"].empty


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("margin_alice", 99, "margin_alice 99 is not"),
        ("bob_chip_delta", 5, "!= 0"),
    ],
)
def test_a_margin_that_contradicts_the_chips_is_refused_naming_the_match(
    corpus: tuple[pd.DataFrame, pd.DataFrame], column: str, value: int, message: str
) -> None:
    matches = corpus[0].copy()
    bad = matches.index[7]
    matches.loc[bad, column] = value
    if column == "bob_chip_delta":
        matches.loc[bad, "alice_chip_delta"] = 3
        matches.loc[bad, "margin_alice"] = -2
    with pytest.raises(ValueError) as caught:
        analyse(matches, rng=np.random.default_rng(1), config=QUICK)
    line = str(caught.value)
    assert line.startswith("the corpus is refused:") and "\n" not in line
    assert f"match {matches.loc[bad, 'match_id']}" in line and message in line


def test_a_one_game_corpus_has_a_leaderboard_and_says_what_it_cannot_refit(
    corpus: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    matches = corpus[0]
    one = matches[matches["game_seed"] == matches["game_seed"].iloc[0]]
    result = analyse(one, rng=np.random.default_rng(1), config=QUICK)
    assert len(result.tables["leaderboard"]) == 4
    assert result.tables["leave_one_game_out"].empty
    assert "one game" in result.summary["not_estimable"]["leave_one_game_out"]


def test_a_two_model_corpus_has_a_leaderboard_and_says_it_cannot_leave_one_out(
    corpus: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    matches = corpus[0]
    first, second = sorted(set(matches["alice"]))[:2]
    two = matches[matches["alice"].isin([first, second]) & matches["bob"].isin([first, second])]
    result = analyse(two, rng=np.random.default_rng(1), config=QUICK)
    board = result.tables["leaderboard"]
    assert set(board["model"]) == {first, second}
    assert board["alpha"].sum() == pytest.approx(0.0, abs=1e-9)  # sum to zero
    without = result.tables["without_model_leaderboard"]
    assert without.empty and {"subset", "model", "alpha"} <= set(without.columns)
    assert "two models" in result.summary["not_estimable"]["without_model"]
    assert np.isnan(result.summary["without_model_kendall"])
