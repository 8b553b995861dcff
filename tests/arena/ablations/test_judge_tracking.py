"""How far the judge's rubric scores track their matched axis (paper, Section 8): Spearman's rho
over traces with an interval over games, its rows in the ablations' table and their check."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

from arena.ablations.judge import (
    RUBRIC_AXES,
    RUBRICS,
    association,
    tracking,
    tracking_problems,
    weighted_spearman,
)
from arena.ablations.runner import AblationResult

AXES = {
    "g1": {"opponent": 0.1, "information": 0.9, "temporal": 0.5},
    "g2": {"opponent": 0.2, "information": 0.8, "temporal": 0.5},
    "g3": {"opponent": 0.3, "information": 0.7, "temporal": 0.5},
}


def judged(scores: dict[str, list[tuple[float, float, float]]]) -> pd.DataFrame:
    rows = []
    for game, traces in scores.items():
        for i, (om, pi, pd_) in enumerate(traces):
            rows.append(
                {"match_id": f"{game}-{i}", "game": game, "verdict": "ok", "deal": f"{game}-{i}",
                 "opponent_modelling": om, "private_information": pi, "planning_depth": pd_,
                 "margin": 0.0}
            )  # fmt: skip
    return pd.DataFrame(rows)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(0, 3)), min_size=2, max_size=30
    )
)
def test_weighted_spearman_is_spearman_of_the_expanded_sample(
    rows: list[tuple[int, int, int]],
) -> None:
    x = np.array([r[0] for r in rows], dtype=np.float64)
    y = np.array([r[1] for r in rows], dtype=np.float64)
    w = np.array([r[2] for r in rows], dtype=np.float64)
    ours = weighted_spearman(x, y, w)
    ex, ey = np.repeat(x, w.astype(int)), np.repeat(y, w.astype(int))
    if len(ex) < 2 or len(set(ex)) < 2 or len(set(ey)) < 2:
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(spearmanr(ex, ey).statistic, abs=1e-9)


def test_tracking_by_hand_and_an_interval_over_games() -> None:
    # Opponent modelling rises with the opponent axis: scores 0,1 | 1,2 | 2,3 on axes .1 .2 .3.
    # Ranks of the scores 1, 2.5, 2.5, 4.5, 4.5, 6 and of the axis 1.5, 1.5, 3.5, 3.5, 5.5, 5.5:
    # rho = 14 / sqrt(16.5 * 16) = 0.8616.  Private information falls as its axis falls
    # (information .9 .8 .7 with scores 0 | 1 | 2): rho = -1 exactly.  Planning depth's axis is
    # the same on every game: undefined.
    frame = judged(
        {
            "g1": [(0, 0, 1), (1, 0, 2)],
            "g2": [(1, 1, 1), (2, 1, 3)],
            "g3": [(2, 2, 0), (3, 2, 2)],
        }
    )
    table = tracking(frame, AXES, 200, np.random.default_rng(0)).set_index("rubric")
    assert list(table.index) == list(RUBRICS)
    assert table.loc["opponent_modelling", "spearman"] == pytest.approx(14 / math.sqrt(16.5 * 16))
    assert table.loc["private_information", "spearman"] == pytest.approx(-1.0)
    assert math.isnan(table.loc["planning_depth", "spearman"])
    assert (table["games"] == 3).all() and (table["traces"] == 6).all()
    assert dict(table["axis"]) == RUBRIC_AXES
    # resampling games: every replicate with two or three distinct games keeps the sign
    low, high = table.loc["opponent_modelling", ["ci_low", "ci_high"]]
    assert 0 < low <= high <= 1
    assert table.loc["private_information", "ci_high"] == pytest.approx(-1.0)
    # an unjudged or unparsable trace is left out; a game without its axis is named
    frame.loc[0, "verdict"] = "unparsable"
    assert tracking(frame, AXES, 10, np.random.default_rng(0))["traces"].tolist() == [5, 5, 5]
    with pytest.raises(ValueError, match="no opponent axis score for game"):
        tracking(frame, {"g1": AXES["g1"]}, 10, np.random.default_rng(0))
    assert tracking(frame.iloc[0:0], AXES, 10, np.random.default_rng(0)).empty


def _summary() -> pd.DataFrame:
    frame = judged({"g1": [(0, 1, 2)], "g2": [(1, 2, 3)], "g3": [(3, 0, 1)]})
    rng = np.random.default_rng(0)
    empty = pd.DataFrame()
    result = AblationResult(
        matches=empty, moves=empty, runs=empty, authoring=empty, programs=empty, lambdas={},
        disclosure={}, efficiency=empty, solving=empty, thinking=empty, judgements=frame,
        association=association(frame, AXES, 20, rng), tracking=tracking(frame, AXES, 20, rng),
    )  # fmt: skip
    return result.summary()


def test_the_tracking_rows_are_in_the_table_and_their_check_holds_them() -> None:
    summary = _summary()
    rows = summary[summary["quantity"].str.startswith("tracking_")]
    assert list(rows["quantity"]) == [f"tracking_{r}" for r in RUBRICS]
    assert rows["subject"].iloc[0] == "opponent axis, Spearman over traces (3 games)"
    assert (rows["ablation"] == "judge").all() and (rows["n"] == 3).all()
    assert tracking_problems(summary) == []
    # each way the rows can be wrong is named
    missing = summary.drop(index=rows.index[0])
    assert tracking_problems(missing) == ["opponent_modelling: 0 tracking rows, expected 1"]
    wrong = summary.copy()
    wrong.loc[rows.index[1], "subject"] = "temporal axis, Spearman over traces (3 games)"
    wrong.loc[rows.index[2], "estimate"] = 1.5
    wrong.loc[rows.index[2], "n"] = 0
    assert tracking_problems(wrong) == [
        "private_information: tracked against 'temporal axis, Spearman over traces (3 games)'",
        "planning_depth: no traces",
        "planning_depth: estimate 1.5 is not a correlation",
    ]
    # without judged traces there is nothing to track, and rows then are wrong
    unjudged = summary[summary["ablation"] != "judge"]
    assert tracking_problems(unjudged) == []
    assert tracking_problems(pd.concat([unjudged, rows])) == [
        "3 tracking row(s) without judged traces"
    ]


def test_the_assets_blocking_check_reads_the_released_table() -> None:
    from assets.ablations import CHECKS, judge_tracking

    assert judge_tracking in CHECKS
    summary = _summary()
    passed = judge_tracking(summary)
    assert passed.passed and passed.metadata["tracking_rows"].value == 3
    rows = summary.index[summary["quantity"] == "tracking_planning_depth"]
    failed = judge_tracking(summary.drop(index=rows))
    assert not failed.passed
    assert failed.metadata["problems"].value == "planning_depth: 0 tracking rows, expected 1"
