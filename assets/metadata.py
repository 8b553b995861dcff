"""Metadata helpers shared by the assets: Markdown tables and inline PNG plots for the UI."""

from __future__ import annotations

import base64

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
