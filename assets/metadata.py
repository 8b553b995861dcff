"""Metadata helpers shared by the assets: Markdown tables and inline PNG plots for the UI."""

from __future__ import annotations

import base64
import warnings
from typing import Any

import dagster as dg
import numpy as np
import pandas as pd


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
