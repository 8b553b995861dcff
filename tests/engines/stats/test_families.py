"""One metric per game family (issue 46, item 1): Bradley-Terry Elo for win/draw/loss games,
big blinds per 100 hands for chip games, the standardised summary, and the unit check."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from engines.stats.families import (
    ELO_SCALE,
    GameUnit,
    bradley_terry_map,
    family_ratings,
    family_summary,
    unit_problems,
)
from engines.stats.leaderboard import overall_leaderboard

CHESS = GameUnit("chess", "result")
HUNL = GameUnit("universal_poker", "chips", big_blind=2)


def run_rows(
    game: str, seed: int, run: str, a: str, b: str, deltas: tuple[int, int]
) -> list[dict[str, object]]:
    """The two deals of a run: ``a`` sits Alice in deal 0 and Bob in deal 1; ``deltas`` are
    ``a``'s chips in each deal (zero-sum)."""
    rows = []
    for deal, (alice, bob) in enumerate(((a, b), (b, a))):
        mine = deltas[deal]
        alice_delta = mine if alice == a else -mine
        rows.append(
            {
                "match_id": f"{run}.{deal}", "game": game, "game_seed": seed, "block": "b",
                "run_id": run, "deal": deal, "play_seed": 1, "alice": alice, "bob": bob,
                "alice_chip_delta": alice_delta, "bob_chip_delta": -alice_delta,
                "margin_alice": 2 * alice_delta, "status": "complete",
            }
        )  # fmt: skip
    return rows


def test_three_wins_in_four_is_elos_191_points() -> None:
    """Elo's logistic formula: the stronger side expects 3/4 of the points at a gap of
    400 log10(3) = 190.85 Elo. With a vanishing prior the fit gives that gap."""
    theta = bradley_terry_map(
        2, np.array([0]), np.array([1]), np.array([3.0]), np.array([4.0]), precision=1e-12
    )
    assert ELO_SCALE * (theta[0] - theta[1]) == pytest.approx(400 * math.log10(3), abs=1e-6)
    # GameBench 2's prior (precision 0.25 per logit) pulls the two together: the stationary
    # point of 3 - 4 sig(2t) - 0.25 t = 0 (t = theta_0 = -theta_1), found by bisection here.
    lo, hi = 0.0, 2.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 3 - 4 / (1 + math.exp(-2 * mid)) - 0.25 * mid > 0:
            lo = mid
        else:
            hi = mid
    shrunk = bradley_terry_map(2, np.array([0]), np.array([1]), np.array([3.0]), np.array([4.0]))
    assert shrunk[0] == pytest.approx(lo, abs=1e-9) and shrunk[1] == pytest.approx(-lo, abs=1e-9)
    assert 0 < 2 * lo < math.log(3)


def planted_pairs(elo: dict[str, float], runs_per_pair: int, seed: int) -> pd.DataFrame:
    """A round robin whose deals are won with Bradley-Terry probabilities of the planted Elo
    (no draws)."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    names = sorted(elo)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = 1 / (1 + 10 ** ((elo[b] - elo[a]) / 400))
            for r in range(runs_per_pair):
                wins = rng.random(2) < p
                deltas = (1 if wins[0] else -1, 1 if wins[1] else -1)
                rows += run_rows("openspiel:chess", 1, f"{a}-{b}-{r}", a, b, deltas)
    return pd.DataFrame(rows)


def test_planted_elo_is_recovered_within_its_intervals() -> None:
    planted = {"a-random": 0.0, "b-weak": 150.0, "c-mid": 300.0, "d-strong": 500.0}
    pairs = planted_pairs(planted, 300, seed=3)
    table = family_ratings(pairs, {"openspiel:chess": CHESS}, 200, 0)
    assert set(table["metric"]) == {"elo"} and set(table["anchor"]) == {"a-random"}
    got = dict(zip(table["model"], table["value"], strict=True))
    assert got["a-random"] == 0.0  # anchored: the lowest of the point estimate
    for _, row in table.iterrows():
        assert row["ci_low"] <= planted[row["model"]] <= row["ci_high"], row.to_dict()
        assert abs(row["value"] - planted[row["model"]]) < 60
    assert list(table.sort_values("rank")["model"]) == ["d-strong", "c-mid", "b-weak", "a-random"]
    assert (table["deals"] == 3 * 300 * 2).all()


def test_big_blinds_per_100_hands() -> None:
    """A wins 10 and 6 chips in a run against B at blinds 1-2: 16 chips in 2 hands is 8 chips,
    4 big blinds a hand, 400 BB/100; B loses as much."""
    pairs = pd.DataFrame(run_rows("openspiel:hunl", 2, "r1", "A", "B", (10, 6)))
    table = family_ratings(pairs, {"openspiel:hunl": HUNL}, 20, 0)
    got = dict(zip(table["model"], table["value"], strict=True))
    assert got == {"A": 400.0, "B": -400.0}
    assert set(table["metric"]) == {"bb_per_100"} and table["anchor"].isna().all()
    # one run: every replicate draws it, so the interval is the point
    assert (table["ci_low"] == table["value"]).all() and (table["ci_high"] == table["value"]).all()


def issue_corpus() -> pd.DataFrame:
    """The issue's corpus: Stockfish wins every chess deal; MCTS beats random at chess and wins
    38 chips a hand from random at hold'em (Stockfish plays no hold'em)."""
    rows: list[dict[str, object]] = []
    for r in range(20):
        rows += run_rows("openspiel:chess", 1, f"sm{r}", "mcts", "stockfish", (-1, -1))
        rows += run_rows("openspiel:chess", 1, f"sr{r}", "random", "stockfish", (-1, -1))
        rows += run_rows("openspiel:chess", 1, f"mr{r}", "mcts", "random", (1, 1 if r % 2 else 0))
        rows += run_rows("openspiel:hunl", 2, f"hp{r}", "mcts", "random", (38, 38))
    return pd.DataFrame(rows)


def test_per_family_metrics_rank_stockfish_first_where_the_pooled_fit_did_not() -> None:
    pairs = issue_corpus()
    # the symptom: one least-squares fit of chip margins over both games puts MCTS first
    pooled = overall_leaderboard(pairs, np.random.default_rng(0), n_boot=20)
    assert pooled.sort_values("rank")["model"].iloc[0] == "mcts"
    units = {"openspiel:chess": CHESS, "openspiel:hunl": HUNL}
    ratings = family_ratings(pairs, units, 100, 0)
    chess = ratings.loc[ratings["family"] == "chess"].set_index("model")
    assert list(chess.sort_values("rank").index) == ["stockfish", "mcts", "random"]
    poker = ratings.loc[ratings["family"] == "universal_poker"].set_index("model")
    assert poker.loc["mcts", "value"] == 1900.0 and poker.loc["random", "value"] == -1900.0
    summary = family_summary(ratings)
    assert list(summary["model"]) == ["stockfish", "mcts", "random"]
    # the summary is the mean z over the families played: Stockfish's one, MCTS's two
    z = ratings.set_index(["family", "model"])["z"]
    row = summary.set_index("model")
    assert row.loc["mcts", "summary"] == pytest.approx(
        (z["chess", "mcts"] + z["universal_poker", "mcts"]) / 2
    )
    assert row.loc["stockfish", "families"] == 1 and row.loc["mcts", "families"] == 2
    assert row.loc["mcts", "family_list"] == "chess, universal_poker"
    # each family's z: mean 0, population sd 1
    for _, group in ratings.groupby("family"):
        assert group["z"].mean() == pytest.approx(0, abs=1e-12)
        assert group["z"].std(ddof=0) == pytest.approx(1)


def test_three_values_standardise_to_known_z() -> None:
    ratings = pd.DataFrame(
        {"family": "f", "model": ["x", "y", "w"], "z": [-math.sqrt(1.5), 0.0, math.sqrt(1.5)]}
    )
    summary = family_summary(ratings)
    assert list(summary["model"]) == ["w", "y", "x"] and list(summary["rank"]) == [1, 2, 3]


def test_a_fit_across_units_is_named() -> None:
    problems = unit_problems(
        {
            "leaderboards": {"openspiel:chess": "result", "openspiel:hunl": "chips"},
            "family chess": {"openspiel:chess": "result"},
        }
    )
    assert problems == [
        "leaderboards pools games counted in 2 units "
        "(chips: openspiel:hunl; result: openspiel:chess)"
    ]
    pairs = issue_corpus()
    mixed = {"openspiel:chess": CHESS, "openspiel:hunl": GameUnit("chess", "chips", 2)}
    with pytest.raises(ValueError, match="family chess pools games counted in 2 units"):
        family_ratings(pairs, mixed, 10, 0)
    with pytest.raises(ValueError, match="no unit for game"):
        family_ratings(pairs, {"openspiel:chess": CHESS}, 10, 0)


def test_a_familys_ratings_do_not_depend_on_the_other_families_fitted() -> None:
    pairs = issue_corpus()
    both = family_ratings(pairs, {"openspiel:chess": CHESS, "openspiel:hunl": HUNL}, 50, 7)
    alone = family_ratings(
        pairs.loc[pairs["game"] == "openspiel:chess"], {"openspiel:chess": CHESS}, 50, 7
    )
    pd.testing.assert_frame_equal(both.loc[both["family"] == "chess"].reset_index(drop=True), alone)
