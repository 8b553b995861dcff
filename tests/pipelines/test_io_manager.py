"""The Parquet IO manager: file layout, round trips, partitions, atomic writes, clear errors."""

import json
from pathlib import Path

import dagster as dg
import pandas as pd
import pytest

from assets.resources import ProjectPaths
from pipelines.io_managers import ParquetIOManager, partition_file_stem, write_parquet_atomically


def manager_in(folder: Path) -> ParquetIOManager:
    return ParquetIOManager(paths=ProjectPaths(data_dir=str(folder), profile="demo", edition=1))


def tables(folder: Path) -> Path:
    """Where ``manager_in(folder)`` keeps its files: the demo profile's first edition."""
    return folder / "demo" / "edition-1"


FRAME = pd.DataFrame({"seed": [1, 2, 3], "name": ["a", "b", "c"], "score": [0.5, -1.0, 2.25]})


def test_unpartitioned_asset_round_trips_through_parquet(tmp_path: Path) -> None:
    @dg.asset(key_prefix=["pool"])
    def table() -> pd.DataFrame:
        return FRAME

    @dg.asset(ins={"table": dg.AssetIn(key=["pool", "table"])})
    def doubled(table: pd.DataFrame) -> pd.DataFrame:
        return table.assign(score=table["score"] * 2)

    result = dg.materialize([table, doubled], resources={"io_manager": manager_in(tmp_path)})

    assert result.success
    stored = tables(tmp_path) / "pool" / "table.parquet"
    pd.testing.assert_frame_equal(pd.read_parquet(stored), FRAME)
    pd.testing.assert_frame_equal(
        pd.read_parquet(tables(tmp_path) / "doubled.parquet"),
        FRAME.assign(score=FRAME["score"] * 2),
    )
    [event] = [e for e in result.get_asset_materialization_events() if e.asset_key == table.key]
    assert event.materialization.metadata["path"].value == str(stored)


PARTS = dg.StaticPartitionsDefinition(["kuhn", "seed/7"])


@dg.asset(partitions_def=PARTS)
def per_game(context: dg.AssetExecutionContext) -> pd.DataFrame:
    return pd.DataFrame({"game": [context.partition_key], "value": [len(context.partition_key)]})


@dg.asset(partitions_def=PARTS)
def per_game_copy(per_game: pd.DataFrame) -> pd.DataFrame:
    return per_game


@dg.asset
def all_games(per_game: dict[str, pd.DataFrame]) -> pd.DataFrame:
    return pd.concat([per_game[key] for key in sorted(per_game)], ignore_index=True)


def test_partitions_are_one_file_each_and_load_as_frame_or_dict(tmp_path: Path) -> None:
    resources = {"io_manager": manager_in(tmp_path)}
    for key in PARTS.get_partition_keys():
        result = dg.materialize([per_game, per_game_copy], partition_key=key, resources=resources)
        assert result.success
    result = dg.materialize([per_game, all_games], selection=[all_games], resources=resources)
    assert result.success

    assert sorted(p.name for p in (tables(tmp_path) / "per_game").iterdir()) == [
        "kuhn.parquet",
        "seed%2F7.parquet",  # a key never names another folder
    ]
    copied = pd.read_parquet(tables(tmp_path) / "per_game_copy" / "seed%2F7.parquet")
    assert copied["game"].tolist() == ["seed/7"]
    combined = pd.read_parquet(tables(tmp_path) / "all_games.parquet")
    assert combined["game"].tolist() == ["kuhn", "seed/7"]


def test_a_failed_write_keeps_the_previous_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    write_parquet_atomically(FRAME, path)
    unwritable = pd.DataFrame({"x": [object()]})  # pyarrow cannot serialize a bare object

    with pytest.raises(Exception):  # noqa: B017 - whatever pyarrow raises, the file survives
        write_parquet_atomically(unwritable, path)

    pd.testing.assert_frame_equal(pd.read_parquet(path), FRAME)
    assert [p.name for p in tmp_path.iterdir()] == ["t.parquet"]


def test_non_dataframe_output_is_refused_with_the_asset_named(tmp_path: Path) -> None:
    context = dg.build_output_context(asset_key=dg.AssetKey(["pool", "x"]))
    with pytest.raises(TypeError, match=r"asset pool/x returned dict"):
        manager_in(tmp_path).handle_output(context, {"not": "a frame"})  # type: ignore[arg-type]


def test_missing_input_says_to_materialize_first(tmp_path: Path) -> None:
    context = dg.build_input_context(asset_key=dg.AssetKey("seed_pool"))
    with pytest.raises(FileNotFoundError, match="materialize it first"):
        manager_in(tmp_path).load_input(context)


def test_data_folder_comes_from_config_then_environment_then_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("GENSTRAT_DATA", "GENSTRAT_PROFILE", "GENSTRAT_EDITION"):
        monkeypatch.delenv(name, raising=False)
    assert ProjectPaths().root_path() == tmp_path / "data"
    monkeypatch.setenv("GENSTRAT_DATA", str(tmp_path / "env"))
    assert ProjectPaths().root_path() == tmp_path / "env"
    assert ProjectPaths(data_dir=str(tmp_path / "cfg")).root_path() == tmp_path / "cfg"


def test_the_profile_and_edition_are_part_of_where_data_lives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Profiles and editions materialized into one data folder keep their tables apart."""
    for name in ("GENSTRAT_PROFILE", "GENSTRAT_EDITION"):
        monkeypatch.delenv(name, raising=False)
    root = str(tmp_path)
    assert ProjectPaths(data_dir=root).data_path() == tmp_path / "demo" / "edition-1"
    assert ProjectPaths(data_dir=root, profile="tiny", edition=3).data_path() == (
        tmp_path / "tiny" / "edition-3"
    )
    monkeypatch.setenv("GENSTRAT_PROFILE", "tiny-paper")
    monkeypatch.setenv("GENSTRAT_EDITION", "2")
    assert ProjectPaths(data_dir=root).data_path() == tmp_path / "tiny-paper" / "edition-2"
    # the configured settings win over the environment, as the profile resource's do
    assert (
        ProjectPaths(data_dir=root, profile="demo").data_path() == tmp_path / "demo" / "edition-2"
    )
    demo = manager_in(tmp_path)
    tiny = ParquetIOManager(paths=ProjectPaths(data_dir=root, profile="tiny"))
    key = dg.AssetKey("seed_pool")
    assert demo.asset_path(key) != tiny.asset_path(key)
    monkeypatch.setenv("GENSTRAT_EDITION", "0")
    with pytest.raises(ValueError, match="edition must be between 1"):
        ProjectPaths(data_dir=root).data_path()
    monkeypatch.setenv("GENSTRAT_EDITION", "two")
    with pytest.raises(ValueError, match="edition must be a positive whole number"):
        ProjectPaths(data_dir=root).data_path()


def test_partition_file_names_are_safe() -> None:
    assert partition_file_stem("4643") == "4643"
    assert partition_file_stem("kuhn|block-1") == "kuhn%7Cblock-1"
    assert partition_file_stem("../up") == "..%2Fup"
    with pytest.raises(ValueError, match="cannot be used as a file name"):
        partition_file_stem("..")


def test_stored_tables_carry_their_declared_columns(tmp_path: Path) -> None:
    """``dagster/column_schema`` and ``stored_columns`` come from the data dictionary
    (``quality.schema``): declared type, unit and description; other columns by their values."""

    @dg.asset(name="leaderboards")
    def board() -> pd.DataFrame:
        return pd.DataFrame({"model": ["a"], "alpha": [0.5], "note": ["x"]})

    result = dg.materialize(
        [board, table_of_scores], resources={"io_manager": manager_in(tmp_path)}
    )
    assert result.success
    metadata = result.asset_materializations_for_node("leaderboards")[0].metadata
    schema = metadata["dagster/column_schema"].schema
    assert metadata["stored_columns"].schema == schema
    columns = {c.name: c for c in schema.columns}
    assert columns["alpha"].type == "float"
    assert columns["alpha"].description is not None
    assert columns["alpha"].description.endswith("(chips/game)")
    assert columns["note"].description is None  # undeclared: its type only
    plain = result.asset_materializations_for_node("table_of_scores")[0].metadata
    assert [c.type for c in plain["dagster/column_schema"].schema.columns] == [
        "int",
        "string",
        "float",
    ]


@dg.asset
def table_of_scores() -> pd.DataFrame:
    return FRAME


# The storage layer (assets.resources.ProjectPaths): one setting, a folder or a URL.


def memory_root(tmp_path: Path) -> str:
    """A ``memory://`` root of this test's own (fsspec's memory file system is per process)."""
    return f"memory://{tmp_path.name}"


@dg.op(out=dg.Out(io_manager_key="step_io_manager"))
def deal() -> dict[str, list[int]]:
    return {"seeds": [3, 1, 2]}


@dg.op
def tabulate(share: dict[str, list[int]]) -> pd.DataFrame:
    return pd.DataFrame({"seed": sorted(share["seeds"])})


@dg.graph_asset(key_prefix=["pool"])
def dealt() -> pd.DataFrame:
    return tabulate(deal())


def test_tables_and_step_values_live_at_a_storage_url_and_nowhere_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from upath import UPath

    from pipelines.io_managers import StepValueIOManager

    monkeypatch.chdir(tmp_path)
    for name in ("GENSTRAT_DATA", "GENSTRAT_WORK"):
        monkeypatch.delenv(name, raising=False)
    paths = ProjectPaths(data_dir=memory_root(tmp_path), profile="demo", edition=1)
    resources = {
        "io_manager": ParquetIOManager(paths=paths),
        "step_io_manager": StepValueIOManager(paths=paths),
    }
    for key in PARTS.get_partition_keys():
        assert dg.materialize([per_game], partition_key=key, resources=resources).success
    result = dg.materialize(
        [per_game, all_games, dealt], selection=[all_games, dealt], resources=resources
    )
    assert result.success

    edition = UPath(memory_root(tmp_path)) / "demo" / "edition-1"
    assert sorted(p.name for p in (edition / "per_game").iterdir()) == [
        "kuhn.parquet",
        "seed%2F7.parquet",
    ]
    with (edition / "all_games.parquet").open("rb") as handle:
        assert pd.read_parquet(handle)["game"].tolist() == ["kuhn", "seed/7"]
    with (edition / "pool" / "dealt.parquet").open("rb") as handle:
        assert pd.read_parquet(handle)["seed"].tolist() == [1, 2, 3]
    [value] = list((edition / ".steps").rglob("*.json"))
    assert json.loads(value.read_bytes()) == {"seeds": [3, 1, 2]}
    metadata = result.asset_materializations_for_node("all_games")[0].metadata
    assert (
        metadata["dagster/uri"].value == f"{memory_root(tmp_path)}/demo/edition-1/all_games.parquet"
    )
    assert list(tmp_path.iterdir()) == []  # nothing fell back to a local default


def test_a_file_url_and_its_folder_are_the_same_storage(tmp_path: Path) -> None:
    @dg.asset
    def table() -> pd.DataFrame:
        return FRAME

    url = ParquetIOManager(
        paths=ProjectPaths(data_dir=tmp_path.as_uri(), profile="demo", edition=1)
    )
    result = dg.materialize([table], resources={"io_manager": url})
    assert result.success
    stored = tables(tmp_path) / "table.parquet"
    pd.testing.assert_frame_equal(pd.read_parquet(stored), FRAME)
    assert stored.stat().st_mode & 0o777 == 0o644  # the local atomic write, as for a folder
    folder = manager_in(tmp_path)
    loaded = folder.load_input(dg.build_input_context(asset_key=table.key))
    pd.testing.assert_frame_equal(loaded, FRAME)
    metadata = result.asset_materializations_for_node("table")[0].metadata
    assert metadata["dagster/uri"].value == stored.as_uri()


def test_the_working_folder_is_the_local_storage_or_must_be_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GENSTRAT_DATA", "GENSTRAT_WORK"):
        monkeypatch.delenv(name, raising=False)
    demo = {"profile": "demo", "edition": 1}
    assert ProjectPaths(data_dir=str(tmp_path), **demo).data_path() == tables(tmp_path)
    assert ProjectPaths(data_dir=tmp_path.as_uri(), **demo).data_path() == tables(tmp_path)
    remote = ProjectPaths(data_dir=memory_root(tmp_path), **demo)
    with pytest.raises(ValueError, match=r"set GENSTRAT_WORK") as raised:
        remote.data_path()
    assert "\n" not in str(raised.value)
    monkeypatch.setenv("GENSTRAT_WORK", str(tmp_path / "work"))
    assert remote.data_path() == tables(tmp_path / "work")
    assert str(remote.storage_path()) == f"{memory_root(tmp_path)}/demo/edition-1"
    named = ProjectPaths(data_dir=memory_root(tmp_path), work_dir=str(tmp_path / "w"), **demo)
    assert named.root_path() == tmp_path / "w"  # the setting wins over the environment


def test_a_url_no_file_system_reads_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"GENSTRAT_DATA=nosuch://x cannot be used") as raised:
        ProjectPaths(data_dir="nosuch://x").storage_root()
    assert "\n" not in str(raised.value)
