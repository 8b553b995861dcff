"""The Parquet IO manager: every asset is a pandas DataFrame in one Parquet file per partition.

Layout, under the project's storage (``$GENSTRAT_DATA``: a folder or an fsspec URL, else
``./data``; ``assets.resources.ProjectPaths``), in the folder of the run's profile and edition
(``<storage>/<profile>/edition-<n>``, ``ProjectPaths.storage_path``)::

    <profile data>/<asset key path>.parquet                    an unpartitioned asset
    <profile data>/<asset key path>/<partition key>.parquet    one partition of a partitioned asset

Every read and write goes through ``upath.UPath``, so the same code serves a local folder, a
shared volume and an object store.  Writes are atomic: on a local file system
(``arena.files.atomic_write``) the table goes to a temporary file in the destination folder, is
flushed to disk, made readable by others (0644), and replaces the old file with
``os.replace``; elsewhere it is one ``put`` of the whole file, which object stores make
visible whole.  A reader never sees half a file, and a crashed write leaves the previous
version in place.

Every stored table's metadata carries its columns (``stored_columns`` and
``dagster/column_schema``): the declared type, unit and description of every column that the
data dictionary (``quality.schema``) declares, the type of its values for any other.

Reading a partitioned upstream asset returns a ``DataFrame`` when the consuming step is itself
partitioned and maps to exactly one upstream partition; otherwise (an unpartitioned consumer,
or a mapping to several partitions) it returns ``dict[partition key, DataFrame]``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO
from urllib.parse import quote

import dagster as dg
import numpy as np
import pandas as pd
from upath import UPath

from arena.files import atomic_write
from assets.metadata import table_column
from assets.resources import ProjectPaths, local_path
from quality.schema import TABLES

# Characters kept as they are in a partition key's file name; anything else is %-escaped so that
# a key can never name another folder.
_SAFE_PARTITION_CHARS = "-_.=+@,"


def partition_file_stem(partition_key: str) -> str:
    """The file name (without ``.parquet``) of a partition; ``ValueError`` for unusable keys."""
    stem = quote(partition_key, safe=_SAFE_PARTITION_CHARS)
    if stem in {"", ".", ".."}:
        raise ValueError(f"partition key {partition_key!r} cannot be used as a file name")
    return stem


def write_atomically(path: UPath | Path, write: Callable[[IO[bytes]], object]) -> int:
    """Write ``path`` through ``write(handle)`` so that readers see the old file or the new one
    (module docstring); return its size."""
    local = path if isinstance(path, Path) else local_path(path)
    if local is not None:
        return atomic_write(local, write)
    buffer = io.BytesIO()
    write(buffer)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())
    return len(buffer.getvalue())


def write_parquet_atomically(frame: pd.DataFrame, path: UPath | Path) -> int:
    """Write ``frame`` to ``path`` atomically (local files mode 0644); return its size."""
    return write_atomically(path, frame.to_parquet)


PREVIEW_ROWS = 8
PREVIEW_CHARS = 80

# pandas dtype kinds -> the column types Dagster's UI shows.
_DAGSTER_TYPES = {"b": "bool", "i": "int", "u": "int", "f": "float", "M": "datetime"}


def table_schema(frame: pd.DataFrame, table: str | None = None) -> dg.TableSchema:
    """The stored table's columns, as Dagster's UI shows a table schema: a column that the
    data dictionary (``quality.schema``) declares for ``table`` with its declared type, unit and
    description, any other with the type of its values."""
    declared = {c.name: c for c in TABLES[table].columns} if table in TABLES else {}
    return dg.TableSchema(
        columns=[
            table_column(declared[str(name)])
            if str(name) in declared
            else dg.TableColumn(str(name), _DAGSTER_TYPES.get(dtype.kind, "string"))
            for name, dtype in frame.dtypes.items()
        ]
    )


def _cell(value: object) -> str | int | float | bool | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, np.generic):  # numpy scalars (arrays are shown as text)
        item = value.item()
        if isinstance(item, bool | int | float):
            return item
    text = str(value)
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 3] + "..."


def table_preview(frame: pd.DataFrame) -> dg.TableMetadataValue:
    """The first rows of a stored table as a Dagster table (shown on the asset's page)."""
    head = frame.head(PREVIEW_ROWS)
    records = [
        dg.TableRecord({str(k): _cell(v) for k, v in row.items()})
        for row in head.to_dict("records")
    ]
    return dg.MetadataValue.table(records=records, schema=table_schema(frame))


class ParquetIOManager(dg.ConfigurableIOManager):
    """Stores asset outputs (pandas DataFrames) as Parquet files under the data folder."""

    paths: ProjectPaths

    def asset_path(self, asset_key: dg.AssetKey, partition_key: str | None = None) -> UPath:
        """Where an asset (or one of its partitions) is stored."""
        base = self.paths.storage_path().joinpath(*asset_key.path)
        if partition_key is None:
            return base.with_name(base.name + ".parquet")
        return base / f"{partition_file_stem(partition_key)}.parquet"

    def handle_output(self, context: dg.OutputContext, obj: pd.DataFrame | None) -> None:
        if obj is None:
            return
        asset_key = self._asset_key(context)
        if not isinstance(obj, pd.DataFrame):
            raise TypeError(
                f"asset {asset_key.to_user_string()} returned {type(obj).__name__}; "
                "the Parquet IO manager stores pandas DataFrames only"
            )
        partition_key = context.partition_key if context.has_asset_partitions else None
        path = self.asset_path(asset_key, partition_key)
        size = write_parquet_atomically(obj, path)
        schema = table_schema(obj, asset_key.to_user_string())
        context.add_output_metadata(
            {
                "path": dg.MetadataValue.path(str(path)),
                "dagster/uri": path.as_uri(),
                "parquet_bytes": size,
                "preview": table_preview(obj),
                "stored_columns": dg.MetadataValue.table_schema(schema),
                "dagster/column_schema": schema,
            }
        )

    def load_input(self, context: dg.InputContext) -> pd.DataFrame | dict[str, pd.DataFrame]:
        asset_key = self._asset_key(context)
        if not context.has_asset_partitions:
            return self._read(asset_key, self.asset_path(asset_key))
        keys = list(context.asset_partition_keys)
        if context.has_partition_key and len(keys) == 1:
            return self._read(asset_key, self.asset_path(asset_key, keys[0]))
        return {key: self._read(asset_key, self.asset_path(asset_key, key)) for key in keys}

    @staticmethod
    def _asset_key(context: dg.OutputContext | dg.InputContext) -> dg.AssetKey:
        if not context.has_asset_key:
            raise ValueError("the Parquet IO manager stores asset outputs only, not op outputs")
        return context.asset_key

    @staticmethod
    def _read(asset_key: dg.AssetKey, path: UPath) -> pd.DataFrame:
        if not path.exists():
            raise FileNotFoundError(
                f"no stored value for asset {asset_key.to_user_string()} at {path}; "
                "materialize it first"
            )
        local = local_path(path)
        if local is not None:
            return pd.read_parquet(local)
        with path.open("rb") as handle:
            return pd.read_parquet(handle)


class StepValueIOManager(dg.ConfigurableIOManager):
    """Stores the values steps hand each other inside a graph-backed asset (not assets: a
    share of a game's matches, what a play step played) as JSON files in the project's storage,
    ``<storage>/<profile>/edition-<n>/.steps/<run id>/<step key>/<output>[.<mapping key>].json``,
    where a step of the same run on another process or machine (a Dask worker) reads them."""

    paths: ProjectPaths

    def value_path(self, identifier: Sequence[str]) -> UPath:
        parts = [quote(part, safe="-_.[]") for part in identifier]
        return self.paths.storage_path().joinpath(".steps", *parts[:-1], parts[-1] + ".json")

    def handle_output(self, context: dg.OutputContext, obj: object) -> None:
        path = self.value_path(context.get_identifier())
        text = json.dumps(obj, sort_keys=True)
        write_atomically(path, lambda handle: handle.write(text.encode("utf-8")))

    def load_input(self, context: dg.InputContext) -> object:
        upstream = context.upstream_output
        if upstream is None:
            raise ValueError("the step value IO manager reads the outputs of upstream steps only")
        path = self.value_path(upstream.get_identifier())
        if not path.exists():
            raise FileNotFoundError(f"no value of step {upstream.step_key} at {path}")
        return json.loads(path.read_bytes().decode("utf-8"))
