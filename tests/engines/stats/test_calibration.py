"""Calibrated Elo against a ladder of engine levels (issue 46, item 2): the measured ladder,
entrants rated against the fixed levels, interpolation onto declared values, where the
calibration holds, and bootstrap intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.stats.calibration import (
    ABOVE,
    BELOW,
    INSIDE,
    Ladder,
    calibration_summary,
    calibration_table,
    interpolate,
    ladder_monotone,
)
from engines.stats.families import ELO_SCALE

LEVELS = ("sf-1", "sf-2", "sf-3", "sf-4")


def planted_pairs(strength: dict[str, float], runs: int, seed: int) -> pd.DataFrame:
    """Every pair plays ``runs`` runs of two deals; a deal is won with the Bradley-Terry
    probability of the planted Elo gap (no draws), drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    names = sorted(strength)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = 1.0 / (1.0 + np.exp(-(strength[a] - strength[b]) / ELO_SCALE))
            for r in range(runs):
                run = f"{a}|{b}|{r}"
                for deal, (alice, bob) in enumerate(((a, b), (b, a))):
                    a_wins = rng.random() < p
                    alice_delta = (1 if a_wins else -1) * (1 if alice == a else -1)
                    rows.append(
                        {"run_id": run, "match_id": f"{run}.{deal}", "game": "openspiel:chess",
                         "alice": alice, "bob": bob, "alice_chip_delta": alice_delta,
                         "bob_chip_delta": -alice_delta}
                    )  # fmt: skip
    return pd.DataFrame(rows)


PLANTED = {"sf-1": 0.0, "sf-2": 250.0, "sf-3": 500.0, "sf-4": 750.0, "inside": 380.0,
           "below": -400.0, "above": 1200.0}  # fmt: skip


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    pairs = planted_pairs(PLANTED, runs=60, seed=7)
    return calibration_table(pairs, Ladder(LEVELS), 200, np.random.default_rng(1))


def test_the_measured_ladder_recovers_the_planted_gaps_and_rises(table: pd.DataFrame) -> None:
    levels = table.loc[table["role"] == "level"].set_index("model")
    assert levels.loc["sf-1", "elo"] == 0.0
    for name in LEVELS[1:]:
        low, elo, high = levels.loc[name, ["ci_low", "elo", "ci_high"]]
        assert low < elo < high
        # within one interval width (about four standard errors) of the planted value
        assert abs(elo - PLANTED[name]) < high - low
    assert ladder_monotone(table)
    assert list(levels.sort_values("level").index) == list(LEVELS)


def test_entrants_are_placed_and_flagged_where_the_calibration_holds(table: pd.DataFrame) -> None:
    rows = table.set_index("model")
    assert rows.loc["inside", "calibration"] == INSIDE
    low, elo, high = rows.loc["inside", ["ci_low", "elo", "ci_high"]]
    assert low < elo < high and abs(elo - 380.0) < high - low
    assert rows.loc["below", "calibration"] == BELOW and not rows.loc["below", "interval_inside"]
    assert rows.loc["above", "calibration"] == ABOVE and not rows.loc["above", "interval_inside"]
    assert rows.loc["below", "elo"] < 0 < 750 < rows.loc["above", "elo"]
    summary = calibration_summary(table)
    assert summary["monotone"] is True and sorted(summary["outside"]) == ["above", "below"]  # type: ignore[call-overload]
    assert str(summary["reference"]).startswith("measured ladder")
    assert list(table["rank"]) == list(range(1, len(table) + 1))


def test_an_entrant_is_rated_against_the_levels_alone() -> None:
    """Adding a second entrant (and its deals with the first) changes neither the levels nor the
    first entrant's point estimate."""
    alone = planted_pairs({**{k: PLANTED[k] for k in LEVELS}, "x": 300.0}, 20, seed=3)
    extra = planted_pairs({**{k: PLANTED[k] for k in LEVELS}, "x": 300.0, "y": 900.0}, 20, seed=3)
    # the same deals for the pairs both corpora have: take them from ``alone``
    extra = pd.concat([alone, extra.loc[extra["alice"].isin(["y"]) | extra["bob"].isin(["y"])]])
    a = calibration_table(alone, Ladder(LEVELS), 20, np.random.default_rng(0)).set_index("model")
    b = calibration_table(extra, Ladder(LEVELS), 20, np.random.default_rng(0)).set_index("model")
    for name in (*LEVELS, "x"):
        assert b.loc[name, "elo"] == pytest.approx(a.loc[name, "elo"], abs=1e-6)


def test_declared_reference_values_are_interpolated() -> None:
    pairs = planted_pairs(PLANTED, runs=40, seed=5)
    declared = Ladder(LEVELS, tuple(zip(LEVELS, (1000.0, 1400.0, 1800.0, 2200.0), strict=True)),
                      source="a published list")  # fmt: skip
    rows = calibration_table(pairs, declared, 50, np.random.default_rng(2)).set_index("model")
    for name, value in zip(LEVELS, (1000.0, 1400.0, 1800.0, 2200.0), strict=True):
        assert rows.loc[name, "elo"] == pytest.approx(value)
    assert 1400.0 < rows.loc["inside", "elo"] < 1800.0
    assert rows.loc["inside", "reference"].startswith("declared Elo of the levels (a published")


def test_a_ladder_out_of_order_is_not_monotone() -> None:
    pairs = planted_pairs({"sf-1": 0.0, "sf-2": 600.0, "sf-3": 300.0, "sf-4": 900.0}, 60, seed=9)
    table = calibration_table(pairs, Ladder(LEVELS), 20, np.random.default_rng(0))
    assert not ladder_monotone(table)


@pytest.mark.parametrize(
    ("ladder", "message"),
    [
        (("a",), "two or more distinct levels"),
        (("a", "a"), "two or more distinct levels"),
    ],
)
def test_a_bad_ladder_is_refused(ladder: tuple[str, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Ladder(ladder)


def test_declared_values_must_rise_and_name_a_source() -> None:
    with pytest.raises(ValueError, match="must name its source"):
        Ladder(("a", "b"), (("a", 1.0), ("b", 2.0)))
    with pytest.raises(ValueError, match="must rise"):
        Ladder(("a", "b"), (("a", 2.0), ("b", 1.0)), source="s")


def test_a_level_that_did_not_play_is_one_line() -> None:
    pairs = planted_pairs({"sf-1": 0.0, "sf-2": 100.0, "x": 50.0}, 2, seed=0)
    with pytest.raises(ValueError, match="sf-3 played no complete run"):
        calibration_table(pairs, Ladder(("sf-1", "sf-2", "sf-3")), 5, np.random.default_rng(0))
    apart = pairs.loc[~((pairs["alice"] == "sf-2") & (pairs["bob"] == "sf-1"))]
    apart = apart.loc[~((apart["alice"] == "sf-1") & (apart["bob"] == "sf-2"))]
    with pytest.raises(ValueError, match="sf-2 played no deal linking them to sf-1"):
        calibration_table(apart, Ladder(("sf-1", "sf-2")), 5, np.random.default_rng(0))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-2000, 2000), min_size=2, max_size=6, unique=True),
    st.floats(-5000, 5000),
)
def test_interpolation_passes_through_the_levels_and_keeps_order(
    xs: list[float], probe: float
) -> None:
    measured = np.sort(np.array(xs))
    if np.min(np.diff(measured)) < 1e-3:
        return
    reference = 1000.0 + 2.0 * measured + np.arange(len(measured)) * 10.0  # rising
    assert np.allclose(interpolate(measured, reference, measured), reference)
    a, b = interpolate(measured, reference, np.array([probe, probe + 1.0]))
    assert b > a
