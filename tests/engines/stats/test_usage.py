"""The cost side of the leaderboard: per-model usage from the match table's seat columns, the
join with strength, the strength-vs-cost plot, and the report's block (absent for bots)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.stats.usage import (
    USAGE_COLUMNS,
    has_usage,
    model_usage,
    strength_cost,
    strength_cost_plot,
)

SEAT_KEYS = ("moves", "calls", "fallbacks", "rethinks", "input_tokens", "output_tokens",
             "cost_usd")  # fmt: skip


def match(alice: str, bob: str, a: dict[str, float], b: dict[str, float]) -> dict[str, object]:
    row: dict[str, object] = {"alice": alice, "bob": bob}
    for key in SEAT_KEYS:
        row[f"{key}_alice"] = a.get(key, 0)
        row[f"{key}_bob"] = b.get(key, 0)
    return row


def test_usage_sums_each_models_seats() -> None:
    matches = pd.DataFrame(
        [
            match("llm", "bot", {"moves": 4, "calls": 5, "fallbacks": 1, "rethinks": 1,
                                 "input_tokens": 400, "output_tokens": 40, "cost_usd": 0.01},
                  {"moves": 3}),
            match("bot", "llm", {"moves": 2}, {"moves": 6, "calls": 6, "input_tokens": 600,
                                               "output_tokens": 60, "cost_usd": 0.02}),
        ]
    )  # fmt: skip
    moves = pd.DataFrame({"player": ["llm", "llm", "bot"], "cached_input_tokens": [100, 50, 0],
                          "latency_s": [1.0, 3.0, 0.001]})  # fmt: skip
    usage = model_usage(matches, moves).set_index("model")
    assert list(usage.reset_index().columns) == list(USAGE_COLUMNS)
    llm = usage.loc["llm"]
    assert (llm.matches, llm.moves, llm.calls) == (2, 10, 11)
    assert (llm.input_tokens, llm.output_tokens, llm.cached_input_tokens) == (1000, 100, 150)
    assert llm.cost_usd == pytest.approx(0.03) and llm.usd_per_match == pytest.approx(0.015)
    assert llm.fallback_rate == pytest.approx(0.1) and llm.rethink_rate == pytest.approx(0.1)
    assert llm.latency_s_per_move == pytest.approx(2.0)
    assert usage.loc["bot"].cost_usd == 0 and usage.loc["bot"].moves == 5
    assert has_usage(usage.reset_index())
    assert not has_usage(model_usage(pd.DataFrame([match("a", "b", {"moves": 3}, {"moves": 2})])))


ROW = st.tuples(
    st.sampled_from("abcd"), st.sampled_from("abcd"), st.integers(0, 50), st.floats(0, 10)
)


@settings(max_examples=60, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=40))
def test_usage_totals_equal_the_tables_totals(rows: list[tuple[str, str, int, float]]) -> None:
    matches = pd.DataFrame(
        [match(a, b, {"moves": n, "calls": n, "cost_usd": c}, {"moves": n + 1, "cost_usd": c / 2})
         for a, b, n, c in rows]
    )  # fmt: skip
    usage = model_usage(matches)
    assert usage["matches"].sum() == 2 * len(rows)
    assert usage["moves"].sum() == matches["moves_alice"].sum() + matches["moves_bob"].sum()
    total = matches["cost_usd_alice"].sum() + matches["cost_usd_bob"].sum()
    assert usage["cost_usd"].sum() == pytest.approx(total)
    assert usage["model"].is_unique and usage["model"].is_monotonic_increasing


def test_strength_cost_joins_and_plots() -> None:
    usage = pd.DataFrame({"model": ["x", "y", "bot"], "usd_per_match": [0.5, 0.01, 0.0],
                          "cost_usd": [5.0, 0.1, 0.0]})  # fmt: skip
    board = pd.DataFrame({"model": ["y", "x", "bot", "absent"], "alpha": [1.0, 2.0, -3.0, 0.0]})
    frame = strength_cost(usage, board)
    assert list(frame["model"]) == ["x", "y", "bot"]
    image = strength_cost_plot(frame)
    assert image.startswith(b"\x89PNG") and image == strength_cost_plot(frame)
    assert np.isfinite(frame["alpha"]).all()
