"""The data dictionary (``quality.schema``): one declaration of every table and column, held
together with the engines' column lists and the great_expectations suites, and the ``schema``
gate that refuses an undeclared or mistyped column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from assets.release import RELEASE_INPUTS
from engines.axes.benchmark import AXIS_SCORE_COLUMNS
from engines.stats.capability import PROFILE_COLUMNS
from engines.stats.leaderboard import LEADERBOARD_COLUMNS
from engines.tournament.records import MATCH_SCHEMA, MOVE_SCHEMA
from quality.expectations import SUITES
from quality.schema import (
    COLUMN_TYPES,
    TABLES,
    arrow_table,
    conform,
    declared,
    schema_gate,
    schema_problems,
    type_matches,
)
from releases.analysis import SHIPPED, SUMMARY
from releases.contents import AXIS_CORRELATIONS, AXIS_DIAGNOSTICS, SUPERSEDED

NUMERIC = ("int64", "uint64", "float64")


def test_every_table_and_column_is_described_once() -> None:
    for name, table in TABLES.items():
        assert table.name == name and table.description and table.source
        assert len(set(table.names)) == len(table.names), name
        for column in table.columns:
            assert column.type in COLUMN_TYPES and column.description, (name, column.name)
    released = {*RELEASE_INPUTS, *SHIPPED.values(), SUMMARY, SUPERSEDED}
    assert released | {AXIS_DIAGNOSTICS, AXIS_CORRELATIONS} <= set(TABLES)
    with pytest.raises(ValueError, match="declare it and its columns"):
        declared("no_such_table")


def test_the_engines_column_lists_are_the_declared_columns() -> None:
    for name in ("match_corpus", "complete_pairs", "superseded_matches"):
        assert TABLES[name].names == tuple(MATCH_SCHEMA.names)
    assert TABLES["match_moves"].names == tuple(MOVE_SCHEMA.names)
    assert TABLES["axis_scores"].names == AXIS_SCORE_COLUMNS
    assert TABLES["benchmark_axes"].names[: len(AXIS_SCORE_COLUMNS)] == AXIS_SCORE_COLUMNS
    assert TABLES["leaderboards"].names == LEADERBOARD_COLUMNS
    assert TABLES["capability_profiles"].names == PROFILE_COLUMNS
    for field in (*MATCH_SCHEMA, *MOVE_SCHEMA):  # the engines' Arrow types are the declared ones
        kind = TABLES["match_moves" if field in MOVE_SCHEMA else "complete_pairs"]
        assert type_matches(kind.column(field.name).type, field.type), field.name


def _suite_columns(kwargs: dict[str, object]) -> list[str]:
    names = [kwargs[k] for k in ("column", "column_A", "column_B") if k in kwargs]
    names += list(kwargs.get("column_list", []))  # type: ignore[call-overload]
    return [str(n) for n in names]


@pytest.mark.parametrize("table", sorted(SUITES))
def test_the_expectation_suites_name_declared_columns_of_fitting_types(table: str) -> None:
    spec = TABLES[table]
    for kind, kwargs in SUITES[table]:
        for name in _suite_columns(kwargs):
            column = spec.column(name)  # KeyError: the suite names an undeclared column
            if kind == "ExpectColumnValuesToMatchRegex":
                assert column.type == "string", (kind, name)
            if kind in ("ExpectColumnValuesToBeBetween", "ExpectColumnPairValuesAToBeGreaterThanB"):
                assert column.type in NUMERIC, (kind, name)
            if kind == "ExpectColumnValuesToBeInSet":
                values = kwargs["value_set"]
                assert isinstance(values, list)
                wanted = "bool" if all(isinstance(v, bool) for v in values) else "string"
                assert column.type == wanted, (kind, name)


def leaderboard() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["a", "b"],
            "alpha": [0.5, -0.5],
            "ci_low": [0.0, -1.0],
            "ci_high": [1.0, 0.0],
            "rank": [1, 2],
            "matches": [10, 10],
            "tier": [1, 1],
        }
    )


def test_the_gate_refuses_an_undeclared_column_a_wrong_type_and_an_undeclared_table() -> None:
    assert schema_gate("leaderboards", leaderboard()).passed
    grown = schema_gate("leaderboards", leaderboard().assign(extra=1))
    assert not grown.passed
    assert grown.message == "1 schema problem(s); leaderboards: undeclared column(s) extra"
    typed = schema_problems("leaderboards", leaderboard().assign(rank=["1", "2"]))
    assert typed == ["leaderboards.rank: Arrow large_string, declared int64"]
    fractional = schema_problems("leaderboards", leaderboard().assign(rank=[1.5, 2.0]))
    assert fractional == ["leaderboards.rank: Arrow double, declared int64"]
    assert schema_problems("scores", pd.DataFrame({"x": [1]})) == [
        "scores: not declared in quality/schema.py"
    ]


def test_untyped_columns_are_written_with_their_declared_type_and_nothing_else_changes() -> None:
    roster = pd.DataFrame(
        {
            "name": ["a", "b"],
            "api_key_env": [None, None],  # every value missing: Arrow null
            "rethinks": [1.0, np.nan],  # an integer column pandas made float by a missing value
            "input_per_mtok": [0.0, 1.5],
        }
    )
    assert pa.types.is_null(pa.Schema.from_pandas(roster).field("api_key_env").type)
    table = arrow_table("roster", roster)
    assert table.schema.field("api_key_env").type == pa.large_string()
    assert table.schema.field("rethinks").type == pa.int64()
    assert table.column("rethinks").to_pylist() == [1, None]
    assert table.schema.field("input_per_mtok").type == pa.float64()
    assert schema_problems("roster", roster) == []
    moves = pd.DataFrame({"match_id": ["m"], "earlier_responses": [[]]})  # list<null>
    listed = arrow_table("match_moves", moves).schema.field("earlier_responses").type
    assert pa.types.is_list(listed) and pa.types.is_string(listed.value_type)
    # a declared table whose types are right is left exactly as pandas makes it
    plain = pa.Table.from_pandas(leaderboard(), preserve_index=False)
    assert conform("leaderboards", plain).equals(plain)
    assert conform("leaderboards", plain).schema.metadata == plain.schema.metadata
    # a play seed stored as int64 elsewhere is written as the declared uint64
    seeds = arrow_table("complete_pairs", pd.DataFrame({"play_seed": [1, 2]}))
    assert seeds.schema.field("play_seed").type == pa.uint64()
    negative = schema_problems("complete_pairs", pd.DataFrame({"play_seed": [-1]}))
    assert negative == ["complete_pairs.play_seed: Arrow int64, declared uint64"]
