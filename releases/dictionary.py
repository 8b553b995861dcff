"""The release's data dictionary (``SCHEMA.md``, ``schema.json``, ``croissant.json``) and its
data licence.

Why it exists: DESIGN.md ("Release bundle") asks for ``SCHEMA.md`` (every table and column) and
a LICENSE in every release. Both dictionaries are rendered from the one declaration of the
tables, ``quality.schema.TABLES``, restricted to what the release holds: each released table
with the columns its file has, in file order, with type, unit and meaning. The ``schema`` gate
(``quality.schema.schema_gate``) makes sure that every one of those columns is declared, so the
dictionary never has a hole. ``croissant.json`` says the same as MLCommons Croissant 1.0
metadata (JSON-LD) for the tools that read it, with each table file's SHA-256 from the manifest
(so the bundle writes it once the tables are written). Nothing here reads a clock: the texts
depend on the tables (and, for Croissant, the manifest) only.
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
CROISSANT = "croissant.json"

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


CROISSANT_CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
"""The JSON-LD context of Croissant 1.0 as ``mlcroissant`` 1.1.1 writes it (its standard one)."""

CROISSANT_CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
CROISSANT_TYPES: dict[str, str] = {
    "string": "sc:Text",
    "int64": "sc:Integer",
    "uint64": "sc:Integer",
    "float64": "sc:Float",
    "bool": "sc:Boolean",
    "list<string>": "sc:Text",  # a repeated field (Croissant's ``repeated``)
}
"""The Croissant data type of each logical column type (:data:`quality.schema.COLUMN_TYPES`)."""

CROISSANT_DESCRIPTION = (
    "A versioned, hash-attested release of the GENSTRAT benchmark of strategic reasoning: "
    "procedurally generated two-player zero-sum card games with hidden information, their "
    "complexity axes, the tournament's matches and moves, and the leaderboards and capability "
    "profiles computed from them. SCHEMA.md describes every table and column."
)


def croissant_document(
    manifest: Mapping[str, Any], tables: Mapping[str, pd.DataFrame]
) -> dict[str, Any]:
    """``croissant.json``: the release as an MLCommons Croissant 1.0 dataset (JSON-LD). Each
    table file of the manifest is a ``cr:FileObject`` (its path, its SHA-256 and size from the
    manifest) and a ``cr:RecordSet`` whose fields are the table's columns as declared in
    ``quality.schema`` (the same ones ``SCHEMA.md`` lists), each read from its Parquet column."""
    release_id = str(manifest["release_id"])
    distribution: list[dict[str, Any]] = []
    record_sets: list[dict[str, Any]] = []
    entries = {str(e["path"]): e for e in manifest["files"] if e.get("role") == "table"}
    for name, spec in _released(tables):
        path = f"tables/{name}.parquet"
        entry = entries.get(path)
        if entry is None:
            continue
        file_id = f"file/{name}"
        distribution.append(
            {
                "@type": "cr:FileObject",
                "@id": file_id,
                "name": f"{name}.parquet",
                "contentUrl": path,
                "contentSize": f"{int(entry['bytes'])} B",
                "encodingFormat": "application/x-parquet",
                "sha256": str(entry["sha256"]),
            }
        )
        fields = []
        for column in _columns(spec, tables[name]):
            description = column.description + (f" (unit: {column.unit})" if column.unit else "")
            field: dict[str, Any] = {
                "@type": "cr:Field",
                "@id": f"{name}/{column.name}",
                "name": column.name,
                "description": description,
                "dataType": CROISSANT_TYPES[column.type],
                "source": {"fileObject": {"@id": file_id}, "extract": {"column": column.name}},
            }
            if column.type.startswith("list<"):
                field["repeated"] = True
            fields.append(field)
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": name,
                "name": name,
                "description": spec.description if spec is not None else "(not declared)",
                "field": fields,
            }
        )
    document: dict[str, Any] = {
        "@context": CROISSANT_CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CROISSANT_CONFORMS_TO,
        "name": f"GENSTRAT release {release_id}",
        "description": CROISSANT_DESCRIPTION,
        "version": release_id,
        "license": "https://creativecommons.org/licenses/by/4.0/",
        "url": "README.md",
        "citeAs": "CITATION.cff",
        "creator": {"@type": "sc:Organization", "name": "GENSTRAT maintainers"},
        "keywords": ["benchmark", "games", "strategic reasoning"],
    }
    if manifest.get("date"):
        document["datePublished"] = str(manifest["date"])
    document["distribution"] = distribution
    document["recordSet"] = record_sets
    return document


def croissant_json(manifest: Mapping[str, Any], tables: Mapping[str, pd.DataFrame]) -> str:
    """``croissant.json``: :func:`croissant_document` as indented JSON."""
    return json.dumps(croissant_document(manifest, tables), indent=2, ensure_ascii=False) + "\n"
