"""The ``reference_games`` asset: as a plain function, then materialized to Parquet."""

from pathlib import Path

import dagster as dg
import pandas as pd

from assets.reference_games import (
    COLUMNS,
    reference_games,
    reference_games_problems,
    reference_games_well_formed,
)
from assets.resources import ProjectPaths
from engines.gbg import ENGINE_VERSION, presets, rulebook
from pipelines.io_managers import ParquetIOManager


def test_one_row_per_preset_with_hash_json_and_rulebook() -> None:
    output = reference_games()
    frame = output.value

    assert list(frame.columns) == [column.name for column in COLUMNS]
    assert list(frame["name"]) == list(presets.PRESETS)
    for row in frame.itertuples(index=False):
        spec = presets.PRESETS[row.name]()
        assert row.spec_hash == spec.spec_hash
        assert row.spec_json == spec.canonical_json()
        assert row.rulebook == rulebook(spec)
        assert row.rulebook_chars == len(row.rulebook) > 0
        assert row.engine_version == ENGINE_VERSION
    assert output.metadata["dagster/row_count"].value == len(presets.PRESETS)
    assert "| kuhn |" in output.metadata["games"].value
    assert reference_games_problems(frame) == []


def test_problems_are_named() -> None:
    frame = reference_games().value
    broken = pd.concat([frame, frame.iloc[[0]]], ignore_index=True)
    broken.loc[1, "rulebook"] = "   "
    broken.loc[2, "spec_json"] = broken.loc[2, "spec_json"] + " "

    problems = reference_games_problems(broken)

    assert any(p.startswith("duplicate names: kuhn") for p in problems)
    assert any(p.startswith("duplicate spec hashes:") for p in problems)
    assert f"{frame.loc[1, 'name']}: empty rulebook" in problems
    assert f"{frame.loc[2, 'name']}: spec_hash is not the SHA-256 of spec_json" in problems


def test_materialized_to_parquet_and_checked(tmp_path: Path) -> None:
    paths = ProjectPaths(data_dir=str(tmp_path), profile="demo", edition=1)
    io_manager = ParquetIOManager(paths=paths)

    result = dg.materialize(
        [reference_games, reference_games_well_formed], resources={"io_manager": io_manager}
    )

    assert result.success
    [evaluation] = result.get_asset_check_evaluations()
    assert evaluation.passed
    stored = pd.read_parquet(tmp_path / "demo" / "edition-1" / "reference_games.parquet")
    pd.testing.assert_frame_equal(stored, reference_games().value)
