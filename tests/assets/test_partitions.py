"""``concat_partitions``: the one way a consumer turns a per-game asset into one table."""

from __future__ import annotations

import pandas as pd

from assets.partitions import concat_partitions


def test_a_table_passes_through() -> None:
    table = pd.DataFrame({"a": [1, 2]}, index=[5, 7])
    assert concat_partitions(table, ["a"]) is table


def test_partitions_are_joined_in_key_order_with_a_fresh_index() -> None:
    parts = {"b": pd.DataFrame({"a": [3]}), "a": pd.DataFrame({"a": [1, 2]}, index=[8, 9])}
    joined = concat_partitions(parts)
    pd.testing.assert_frame_equal(joined, pd.DataFrame({"a": [1, 2, 3]}))


def test_empty_partitions_do_not_change_the_types_of_the_rows() -> None:
    parts = {
        "0": pd.DataFrame({"a": pd.Series([], dtype=object)}),
        "1": pd.DataFrame({"a": [1]}),
    }
    joined = concat_partitions(parts)
    assert joined["a"].dtype == "int64" and list(joined["a"]) == [1]


def test_no_rows_at_all_is_an_empty_table_with_the_declared_columns() -> None:
    for parts in ({}, {"0": pd.DataFrame({"a": pd.Series([], dtype=float)})}):
        empty = concat_partitions(parts, ("game", "a"))
        assert empty.empty and list(empty.columns) == ["game", "a"]
    assert list(concat_partitions({}).columns) == []
