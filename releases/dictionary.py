"""The release's data dictionary (``SCHEMA.md``, ``schema.json``) and its data licence.

Why it exists: DESIGN.md ("Release bundle") asks for ``SCHEMA.md`` (every table and column) and
a LICENSE in every release. Both dictionaries are rendered from the one declaration of the
tables, ``quality.schema.TABLES``, restricted to what the release holds: each released table
with the columns its file has, in file order, with type, unit and meaning. The ``schema`` gate
(``quality.schema.schema_gate``) makes sure that every one of those columns is declared, so the
dictionary never has a hole. Nothing here reads a clock: the texts depend on the tables only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from quality.schema import COLUMN_TYPES, TABLES, Column, Table

DATA_LICENSE = "CC-BY-4.0"
DATA_LICENSE_NAME = "Creative Commons Attribution 4.0 International"
CODE_LICENSE = "Apache-2.0"

LICENSE_TEXT = f"""GENSTRAT release: data licence

The data of this release (every file in this folder: the tables, rulebooks, plots and
documents) are licensed under the {DATA_LICENSE_NAME} licence (CC BY 4.0;
SPDX identifier {DATA_LICENSE}).

You are free to share (copy and redistribute in any medium or format) and to adapt (remix,
transform and build upon) the data for any purpose, even commercially, under these terms:

- Attribution: give appropriate credit (cite this release as CITATION.cff describes), indicate
  whether changes were made, and do not suggest that the licensor endorses you or your use.
- No additional restrictions: do not apply legal terms or technological measures that legally
  restrict others from doing anything the licence permits.

The licence's legal code is the one Creative Commons publishes under the name
"{DATA_LICENSE_NAME}", version 4.0; it governs where this summary is silent.

The software that produced this release, GENSTRAT, is licensed separately under the Apache
License 2.0 (SPDX identifier {CODE_LICENSE}); that licence does not cover these data, and this
one does not cover the software.
"""

TYPE_NOTES: dict[str, str] = {
    "string": "text (Arrow string or large_string)",
    "int64": "64-bit signed integer",
    "uint64": "64-bit unsigned integer",
    "float64": "64-bit floating point; a missing value is null (NaN in pandas)",
    "bool": "true or false",
    "list<string>": "a list of texts",
}

UNDECLARED = Column("?", "string", "(not declared: the schema gate refuses the release)")


def _released(tables: Mapping[str, pd.DataFrame]) -> list[tuple[str, Table | None]]:
    """The released tables in the declaration's order (undeclared ones last, by name)."""
    known = [(n, TABLES[n]) for n in TABLES if n in tables]
    unknown: list[tuple[str, Table | None]] = [(n, None) for n in sorted(tables) if n not in TABLES]
    return [*known, *unknown]


def _columns(spec: Table | None, frame: pd.DataFrame) -> list[Column]:
    """The columns of ``frame``, in file order, as declared."""
    declared = {c.name: c for c in spec.columns} if spec is not None else {}
    return [
        declared.get(str(name), Column(str(name), UNDECLARED.type, UNDECLARED.description))
        for name in frame.columns
    ]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def schema_markdown(tables: Mapping[str, pd.DataFrame]) -> str:
    """``SCHEMA.md``: every released table and column (type, unit, meaning)."""
    lines = [
        "# Data dictionary",
        "",
        "Every table of this release (one Parquet file each, in `tables/`) and every column it",
        "has: its type, its unit and what it holds. `schema.json` holds the same in JSON. A",
        "table's rows, size and hashes are in `manifest.json`; `README.md` says how to load it.",
        "",
        "Types:",
        "",
        *(f"- `{kind}`: {TYPE_NOTES[kind]}" for kind in COLUMN_TYPES),
        "",
        "Tables:",
        "",
    ]
    released = _released(tables)
    for name, spec in released:
        what = spec.description if spec is not None else "(not declared)"
        lines.append(f"- [`{name}`](#{name}): {_cell(what)}")
    for name, spec in released:
        lines += ["", f"## {name}", ""]
        if spec is not None:
            lines += [
                f"`tables/{name}.parquet`: {spec.description}.",
                "",
                f"Source: {spec.source}.",
            ]
        lines += ["", "| column | type | unit | description |", "|---|---|---|---|"]
        for column in _columns(spec, tables[name]):
            unit = column.unit or "–"
            lines.append(
                f"| `{column.name}` | {column.type} | {_cell(unit)} | {_cell(column.description)} |"
            )
    lines.append("")
    return "\n".join(lines)


def schema_document(tables: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
    """The data dictionary as ``schema.json`` holds it."""
    out: list[dict[str, Any]] = []
    for name, spec in _released(tables):
        out.append(
            {
                "name": name,
                "path": f"tables/{name}.parquet",
                "description": spec.description if spec is not None else None,
                "source": spec.source if spec is not None else None,
                "columns": [
                    {"name": c.name, "type": c.type, "unit": c.unit, "description": c.description}
                    for c in _columns(spec, tables[name])
                ],
            }
        )
    return {"format": "genstrat-schema/1", "types": dict(TYPE_NOTES), "tables": out}


def schema_json(tables: Mapping[str, pd.DataFrame]) -> str:
    """``schema.json``: :func:`schema_document` as indented JSON."""
    return json.dumps(schema_document(tables), indent=2, ensure_ascii=False) + "\n"
