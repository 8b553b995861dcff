"""Metadata helpers shared by the assets: Markdown tables, inline PNG plots, the declared
column schema of a table (``quality.schema``) as Dagster shows it, the catalog's conventions
(kinds, ``dagster/table_name``) and the data-contract checks with their suites."""

from __future__ import annotations

import base64
import warnings
from typing import Any

import dagster as dg
import numpy as np
import pandas as pd

from quality.schema import TABLES, Column

# What an asset is, as the catalog shows it (its kinds): a table the IO manager keeps as a
# Parquet file (a pandas DataFrame in the code), or a release published into the release store
# (a folder with an HTML report and a reproducible .tar.gz).
TABLE_KINDS = frozenset({"pandas", "parquet"})
RELEASE_KINDS = frozenset({"folder", "tar", "html"})
# The catalog's namespace of the tables (``dagster/table_name``: ``genstrat.<asset>``).
TABLE_NAMESPACE = "genstrat"


def table_name(asset: str) -> str:
    """``dagster/table_name`` of the table asset ``asset``."""
    return f"{TABLE_NAMESPACE}.{asset}"


# Logical column types (quality.schema) -> the column types Dagster's UI shows.
DAGSTER_TYPES = {
    "string": "string",
    "int64": "int",
    "uint64": "int",
    "float64": "float",
    "bool": "bool",
    "list<string>": "list<string>",
}


def table_column(column: Column) -> dg.TableColumn:
    """A declared column as a Dagster table column (its unit after the description)."""
    unit = f" ({column.unit})" if column.unit else ""
    return dg.TableColumn(
        column.name, DAGSTER_TYPES[column.type], description=column.description + unit
    )


def declared_columns(name: str) -> tuple[dg.TableColumn, ...]:
    """The declared columns of table ``name`` (``quality.schema.TABLES``), in order."""
    return tuple(table_column(c) for c in TABLES[name].columns)


def column_schema(name: str) -> dg.TableSchema:
    """``dagster/column_schema`` of a declared table, for an asset's definition."""
    return dg.TableSchema(columns=list(declared_columns(name)))


def markdown_table(table: pd.DataFrame, index: bool = False, digits: int = 2) -> str:
    """A GitHub-flavoured Markdown table; floats to ``digits`` places, NaN as an en dash."""
    frame = table.reset_index() if index else table

    def cell(value: object) -> str:
        if isinstance(value, float | np.floating):
            return "–" if not np.isfinite(value) else f"{value:.{digits}f}"
        return str(value)

    lines = [
        "| " + " | ".join(str(c) for c in frame.columns) + " |",
        "|" + "---|" * len(frame.columns),
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(False)]
    return "\n".join(lines)


def image_metadata(png: bytes, title: str) -> dg.MetadataValue:
    """A PNG embedded in Markdown, which the Dagster UI renders inline."""
    encoded = base64.b64encode(png).decode("ascii")
    return dg.MetadataValue.md(f"![{title}](data:image/png;base64,{encoded})")


def contract_check(
    asset: str,
    *,
    description: str | None = None,
    blocking: bool = False,
    partitions_def: dg.PartitionsDefinition | None = None,
) -> dg.AssetChecksDefinition:
    """An asset check of ``asset`` (each partition, for a partitioned asset) against its data
    contract: the great_expectations suite ``quality.expectations.SUITES[asset]``."""
    from quality.expectations import SUITES

    suite = SUITES[asset]
    with warnings.catch_warnings():  # partitioned checks are a Dagster preview feature
        warnings.simplefilter("ignore", dg.PreviewWarning)
        return _contract_check(asset, suite, description, blocking, partitions_def)


def suite_markdown(suite: Any) -> str:
    """A great_expectations suite (``(expectation, arguments)`` pairs) as a Markdown list, one
    expectation a line, as the check's page shows it."""
    lines = []
    for expectation, arguments in suite:
        given = ", ".join(f"{key}={value!r}" for key, value in sorted(arguments.items()))
        lines.append(f"- `{expectation}`" + (f" ({given})" if given else ""))
    return "\n".join(lines)


def _contract_check(
    asset: str,
    suite: Any,
    description: str | None,
    blocking: bool,
    partitions_def: dg.PartitionsDefinition | None,
) -> dg.AssetChecksDefinition:
    @dg.asset_check(
        asset=asset,
        name="contract",
        blocking=blocking,
        partitions_def=partitions_def,
        metadata={"suite": dg.MetadataValue.md(suite_markdown(suite))},
        description=description
        or f"The {asset} table meets its data contract ({len(suite)} great_expectations "
        "expectations: columns, nulls, uniqueness, ranges).",
    )
    def check(table: pd.DataFrame) -> dg.AssetCheckResult:
        from quality.expectations import expectations_gate

        gate = expectations_gate(table, suite, asset)
        return dg.AssetCheckResult(
            passed=gate.passed,
            metadata={
                "rows": len(table),
                "expectations": len(suite),
                "problems": gate.message if not gate.passed else "none",
            },
        )

    return check
