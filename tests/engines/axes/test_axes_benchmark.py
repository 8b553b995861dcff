"""The benchmark's tables (``engines.axes.benchmark``): screening table, selection, one game's
row, the z-scored benchmark table, its diagnostics, the soundness rules and the figures."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from engines.axes.benchmark import (
    AXIS_SCORE_COLUMNS,
    axis_row,
    axis_score_problems,
    axis_summary,
    benchmark_figure,
    benchmark_table,
    diagnostics_tables,
    screening_table,
    select_benchmark,
    selection_figure,
)
from engines.axes.budgets import screening_budget
from engines.axes.names import AXES, SEAT_AXES
from engines.axes.screening import SCREENING_AXES
from engines.gbg import presets
from tests.engines.axes.accepted_pool import POOL_SEEDS, accepted_frame

PNG = b"\x89PNG"


def screening_frame(accepted: pd.DataFrame) -> pd.DataFrame:
    """Made-up screening axes for the accepted games (the selection only needs numbers)."""
    return pd.DataFrame(
        [
            {
                "seed": s,
                "spec_hash": h,
                **{a: float((s * (i + 3)) % 7) for i, a in enumerate(SCREENING_AXES)},
            }
            for s, h in zip(accepted["seed"], accepted["spec_hash"], strict=True)
        ]
    )


def report(rerun: bool = True) -> dict[str, Any]:
    """An ``AxisReport.to_dict()`` of made-up numbers."""
    data: dict[str, Any] = {
        "axes": {a: 0.1 * (i + 1) for i, a in enumerate(AXES)},
        "sampling_error": {a: (None if a == "state_space" else 0.01) for a in AXES},
        "seats": {a: [0.2, 0.3] for a in SEAT_AXES},
        "diagnostics": {
            "std_g": 2.5,
            "decisions": [11, 12],
            "replays": 300,
            "world_fallback_share": 0.0,
            "search_world_fallback_share": 0.01,
            "budget": "quick",
            "seed": 0,
            "seconds": 1.5,
            "rerun_seconds": 1.0,
        },
    }
    if rerun:
        data["rerun"] = {a: 0.1 * (i + 1) + 0.01 for i, a in enumerate(AXES)}
    return data


def benchmark_rows() -> pd.DataFrame:
    rows = []
    for i, game in enumerate(("a", "b", "c", "d", "e", "f", "g", "h")):
        row: dict[str, Any] = {"game": game}
        for j, a in enumerate(AXES):
            value = float((i + 1) * (j + 2) % 5 + i * 0.1 * j)
            row.update({a: value, f"se_{a}": 0.1, f"rerun_{a}": value + 0.01 * (i % 3)})
            if a != "state_space":
                row.update({f"alice_{a}": value, f"bob_{a}": value + 0.05 * i})
        rows.append(row)
    return pd.DataFrame(rows)


def test_the_screening_table_keeps_the_pool_order_and_names_its_budget() -> None:
    accepted = accepted_frame((5, 0))
    frame = screening_table(accepted, screening_budget("quick"), seed=0)
    assert list(frame.columns) == ["seed", "spec_hash", *SCREENING_AXES, "budget"]
    assert list(frame["seed"]) == [5, 0]
    assert list(frame["spec_hash"]) == list(accepted["spec_hash"])
    assert set(frame["budget"]) == {"quick"}
    assert frame[list(SCREENING_AXES)].notna().all().all()


def test_the_selection_is_deterministic_and_spread() -> None:
    accepted = accepted_frame()
    screening = screening_frame(accepted)
    first = select_benchmark(screening, accepted, 4)
    again = select_benchmark(screening.sample(frac=1.0, random_state=1), accepted, 4)
    pd.testing.assert_frame_equal(first, again)  # independent of the table's row order
    assert list(first["order"]) == [0, 1, 2, 3]
    assert first["game"].is_unique and first["spec_json"].notna().all()
    assert list(first["distance"][1:]) == sorted(first["distance"][1:], reverse=True)
    whole = select_benchmark(screening, accepted, 50)  # more than the pool: all of it
    assert sorted(whole["seed"]) == sorted(POOL_SEEDS)
    assert selection_figure(screening, first).startswith(PNG)


def test_one_games_row_has_the_declared_columns() -> None:
    spec = presets.kuhn()
    row = axis_row("kuhn", spec, False, report())
    assert tuple(row) == AXIS_SCORE_COLUMNS
    assert row["spec_hash"] == spec.spec_hash and row["selected"] is False
    assert (row["alice_temporal"], row["bob_temporal"]) == (0.2, 0.3)
    assert row["decisions_alice"] == 11 and row["rerun_precision"] == pytest.approx(0.51)
    without = axis_row("kuhn", spec, True, report(rerun=False))
    assert all(without[f"rerun_{a}"] is None for a in AXES)
    summary = axis_summary(report())
    assert list(summary["axis"]) == list(AXES)
    assert pd.isna(summary["alice"].iloc[0]) and summary["bob"].iloc[1] == 0.3


def test_benchmark_table_z_scores_with_the_sample_sd() -> None:
    rows = benchmark_rows()
    frame = benchmark_table(rows)
    assert list(frame.columns) == [*rows.columns, *(f"z_{a}" for a in AXES)]
    assert "z_temporal" not in rows.columns  # the input is left as it was
    for a in AXES:
        assert frame[f"z_{a}"].mean() == pytest.approx(0.0, abs=1e-12)
        assert frame[f"z_{a}"].std(ddof=1) == pytest.approx(1.0)
    single = benchmark_table(rows.iloc[:1])
    assert (single[[f"z_{a}" for a in AXES]] == 0.0).all().all()


def test_the_diagnostics_tables() -> None:
    frame = benchmark_table(benchmark_rows())
    tables = diagnostics_tables(frame)
    per_axis = tables["per_axis"].set_index("axis")
    assert math.isnan(per_axis.loc["state_space", "seat agreement (rho)"])
    assert per_axis.loc["temporal", "rerun correlation (rho)"] > 0.5
    assert len(tables["pairs"]) == 10
    assert per_axis["median sampling error"].tolist() == [0.1] * 5
    assert benchmark_figure(frame).startswith(PNG)


def test_the_soundness_rules_name_what_is_wrong() -> None:
    row = {a: 0.5 for a in AXES} | {"game": "7", "std_g": 2.0, "world_fallback_share": 0.0}
    assert axis_score_problems(pd.DataFrame([row])) == []
    broken = row | {"temporal": 1.5, "precision": math.nan, "std_g": 0.0}
    broken["world_fallback_share"] = 0.5
    problems = axis_score_problems(pd.DataFrame([broken]))
    assert problems == [
        "7: non-finite precision",
        "7: temporal 1.5 outside [0, 1]",
        "7: STD_g is 0 (every population deal ties)",
        "7: 50% of worlds fell back to the true cards",
    ]
