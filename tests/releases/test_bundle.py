"""Building a bundle: content-derived id, byte-identical tables and archive, manifest, README."""

from __future__ import annotations

import gzip
import json
import tarfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.gbg import ENGINE_VERSION
from releases.bundle import NAME_PATTERN, build_bundle, derive_release_id
from releases.dictionary import schema_document
from releases.readme import render_readme
from tests.releases.support import PASSING, sample_inputs


def test_same_inputs_give_the_same_id_and_the_same_bytes(tmp_path: Path) -> None:
    tables, texts, images, context = sample_inputs()
    one = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path / "a")
    tables2, texts2, images2, context2 = sample_inputs()  # rebuilt from scratch
    two = build_bundle(tables2, texts2, images2, context2, gates=PASSING, root=tmp_path / "b")

    assert one.name == two.name and one.name.startswith("gs-")
    files = sorted(p.relative_to(one).as_posix() for p in one.rglob("*") if p.is_file())
    assert f"{one.name}.tar.gz" in files and "tables/scores.parquet" in files
    for relative in files:
        assert (one / relative).read_bytes() == (two / relative).read_bytes(), relative


def test_a_changed_input_changes_the_id(tmp_path: Path) -> None:
    tables, texts, images, context = sample_inputs()
    base = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path / "a")
    more, *_ = sample_inputs(extra_rows=1)
    changed_table = build_bundle(more, texts, images, context, gates=PASSING, root=tmp_path / "b")
    failing = {"zero_sum": PASSING["zero_sum"]._replace(passed=False)}
    changed_gate = build_bundle(tables, texts, images, context, gates=failing, root=tmp_path / "c")
    assert len({base.name, changed_table.name, changed_gate.name}) == 3


def test_the_archive_is_deterministic_and_holds_the_folder(tmp_path: Path) -> None:
    tables, texts, images, context = sample_inputs()
    folder = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path)
    archive = folder / f"{folder.name}.tar.gz"
    raw = archive.read_bytes()
    assert raw[4:8] == b"\0\0\0\0"  # gzip header mtime 0
    with gzip.open(archive) as unzipped:
        assert unzipped.read(1)  # a valid gzip stream
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names[0] == f"{folder.name}/manifest.json"  # first: a reader checks the rest by it
    assert names[1:] == sorted(names[1:])
    assert all(m.mtime == 0 and m.uid == 0 and m.gid == 0 and m.uname == "" for m in members)
    manifest = json.loads((folder / "manifest.json").read_text())
    expected = sorted(f"{folder.name}/{e['path']}" for e in manifest["files"])
    assert names[1:] == expected


def test_the_manifest_records_what_the_design_asks_for(tmp_path: Path) -> None:
    tables, texts, images, context = sample_inputs()
    folder = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text())

    assert manifest["release_id"] == folder.name == derive_release_id(manifest)
    assert manifest["engine_version"] == ENGINE_VERSION
    assert manifest["code_version"] == "test-code"
    assert manifest["profile"] == {"name": "demo", "seed_count": 300}
    assert manifest["roster"][0]["settings"] == {"temperature": 0}
    assert manifest["generation_configs"] == {"generator_version": 1}
    entries = {e["path"]: e for e in manifest["files"]}
    assert entries["tables/scores.parquet"]["rows"] == 3
    assert entries["tables/scores.parquet"]["columns"] == ["model", "alpha", "when"]
    assert len(entries["tables/scores.parquet"]["content_sha256"]) == 64
    assert {"README.md", "integrity.json", "plots/blank.png"} <= set(entries)
    assert "manifest.json" not in entries
    stored = pd.read_parquet(folder / "tables/scores.parquet")
    pd.testing.assert_frame_equal(stored, tables["scores"])

    integrity = json.loads((folder / "integrity.json").read_text())
    assert integrity["passed"] is True
    assert set(integrity["gates"]) == {"zero_sum", "redaction"}
    readme = (folder / "README.md").read_text()
    assert folder.name in readme and "tables/scores.parquet" in readme and "redaction" in readme


@pytest.mark.parametrize(
    ("texts", "reason"),
    [
        ({"../escape.md": "x"}, "must be relative"),
        ({"/abs.md": "x"}, "must be relative"),
        ({"manifest.json": "x"}, "reserved"),
        ({"tables/x.parquet": "x"}, "reserved"),
    ],
)
def test_unsafe_or_reserved_paths_are_refused(
    tmp_path: Path, texts: dict[str, str], reason: str
) -> None:
    tables, _, images, context = sample_inputs()
    with pytest.raises(ValueError, match=reason):
        build_bundle(tables, texts, images, context, root=tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing left behind


def test_the_date_and_analysis_settings_are_recorded_and_in_the_id(tmp_path: Path) -> None:
    from dataclasses import replace

    tables, texts, images, context = sample_inputs()
    plain = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path / "a")
    manifest = json.loads((plain / "manifest.json").read_text())
    assert "analysis" not in manifest and "date" not in manifest  # "test-code" is no commit
    richer = replace(context, date="2026-05-04", analysis={"n_boot": 2000, "seed": 0})
    full = build_bundle(tables, texts, images, richer, gates=PASSING, root=tmp_path / "b")
    recorded = json.loads((full / "manifest.json").read_text())
    assert recorded["analysis"] == {"n_boot": 2000, "seed": 0} and recorded["date"] == "2026-05-04"
    assert full.name == derive_release_id(recorded) != plain.name
    edited = {k: v for k, v in recorded.items() if k != "analysis"}
    assert derive_release_id(edited) != full.name  # dropping a recorded setting is an edit


CFF_ROOT_KEYS = {
    "abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi",
    "identifiers", "keywords", "license", "license-url", "message", "preferred-citation",
    "references", "repository", "repository-artifact", "repository-code", "title", "type",
    "url", "version",
}  # fmt: skip
CFF_REFERENCE_TYPES = {"article", "book", "dataset", "generic", "report", "software", "unpublished"}


def test_the_citation_is_valid_citation_file_format(tmp_path: Path) -> None:
    """The keys and value shapes of CFF 1.2.0 (its schema: root keys, required keys, entity
    authors, a date, an SPDX licence, references with type, title and authors)."""
    from dataclasses import replace

    import yaml

    tables, texts, images, context = sample_inputs()
    folder = build_bundle(
        tables, texts, images, replace(context, date="2026-05-04"), gates=PASSING, root=tmp_path
    )
    cff = yaml.safe_load((folder / "CITATION.cff").read_text())
    assert set(cff) <= CFF_ROOT_KEYS
    assert {"cff-version", "message", "title", "authors"} <= set(cff)
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "dataset"
    assert cff["version"] == folder.name and cff["title"] == f"GENSTRAT release {folder.name}"
    assert cff["date-released"] == "2026-05-04" and cff["license"] == "CC-BY-4.0"
    assert cff["authors"] == [{"name": "GENSTRAT maintainers"}]
    assert "commit" not in cff  # "test-code" names no commit
    (paper,) = cff["references"]
    assert paper["type"] in CFF_REFERENCE_TYPES and paper["authors"][0]["name"]
    assert paper["title"] == (
        "GENSTRAT: Toward a Science of Strategic Reasoning in Large Language Models"
    )
    entries = {e["path"]: e for e in json.loads((folder / "manifest.json").read_text())["files"]}
    assert entries["CITATION.cff"]["role"] == "citation"


def test_the_readme_is_a_dataset_card_of_the_tables_with_rows(tmp_path: Path) -> None:
    import yaml

    tables, texts, images, context = sample_inputs()
    tables = {**tables, "empty": tables["scores"].iloc[:0]}
    folder = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path)
    readme = (folder / "README.md").read_text()
    assert readme.startswith("---\n")
    card = yaml.safe_load(readme.split("---\n")[1])
    assert [c["config_name"] for c in card["configs"]] == ["reference_games", "scores"]
    assert card["configs"][1]["data_files"] == [{"split": "train", "path": "tables/scores.parquet"}]
    assert "## Leaderboard" not in readme  # no leaderboards table in this bundle


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(
        st.one_of(
            st.from_regex(NAME_PATTERN, fullmatch=True),
            st.sampled_from(["null", "true", "yes", "1.5", "0x1f", "1e3", "007"]),
        ),
        min_size=1,
        max_size=4,
        unique=True,
    )
)
def test_the_dataset_card_is_read_back_by_huggingface_hub(names: list[str]) -> None:
    """The README's header is the metadata ``huggingface_hub``'s ``DatasetCard`` reads back, for
    every table name a bundle accepts (``NAME_PATTERN``), those YAML would read as a number, a
    boolean or null included."""
    import yaml
    from huggingface_hub import DatasetCard

    files = [
        {"path": f"tables/{name}.parquet", "role": "table", "rows": i, "bytes": 10}
        for i, name in enumerate(names)
    ]
    manifest = {"release_id": "gs-" + "0" * 32, "files": files}
    readme = render_readme(manifest, {"gates": {}})
    card = DatasetCard(readme)
    expected = [
        {"config_name": n, "data_files": [{"split": "train", "path": f"tables/{n}.parquet"}]}
        for i, n in enumerate(names)
        if i
    ]
    assert card.data.to_dict()["configs"] == expected == (card.data.configs or [])
    assert card.data.pretty_name == f"GENSTRAT release gs-{'0' * 32}"
    front = yaml.safe_load(readme.removeprefix("---\n").split("\n---\n", 1)[0])
    assert front == card.data.to_dict()
    assert card.text.startswith(f"\n# GENSTRAT release gs-{'0' * 32}\n")


def test_a_benchmark_is_recorded_only_when_named_and_is_in_the_id(tmp_path: Path) -> None:
    """Issue 18: the openspiel group's release records ``"benchmark"``; a release that names
    none (the generated benchmark's) has no such key, so its manifest and id are as before."""
    from dataclasses import replace

    tables, texts, images, context = sample_inputs()
    plain = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path / "a")
    assert "benchmark" not in json.loads((plain / "manifest.json").read_text())
    assert "| benchmark |" not in (plain / "README.md").read_text()
    named = replace(context, benchmark="openspiel")
    other = build_bundle(tables, texts, images, named, gates=PASSING, root=tmp_path / "b")
    manifest = json.loads((other / "manifest.json").read_text())
    assert manifest["benchmark"] == "openspiel"
    assert other.name == derive_release_id(manifest) != plain.name
    assert "| benchmark | openspiel |" in (other / "README.md").read_text()
    assert "`openspiel` benchmark group" in (other / "README.md").read_text()


CROISSANT_REQUIRED = {"@context", "@type", "conformsTo", "name", "description", "license", "url"}
"""What the Croissant 1.0 specification requires of a dataset (its section "Dataset-level
information": the schema.org ``name``, ``description``, ``license`` and ``url``, with
``@type`` ``sc:Dataset`` and ``dct:conformsTo`` naming the version)."""


def test_croissant_metadata_describes_every_table_file_and_column(tmp_path: Path) -> None:
    """``croissant.json`` beside ``SCHEMA.md``: a Croissant 1.0 dataset whose file objects are
    the release's table files (path, SHA-256 and size as the manifest has them) and whose record
    sets hold every column ``schema.json`` lists, each read from its own Parquet column."""
    tables, texts, images, context = sample_inputs()
    folder = build_bundle(tables, texts, images, context, gates=PASSING, root=tmp_path)
    document = json.loads((folder / "croissant.json").read_text())
    manifest = json.loads((folder / "manifest.json").read_text())
    schema = schema_document(tables)  # what schema.json holds
    assert set(document) >= CROISSANT_REQUIRED
    assert document["@type"] == "sc:Dataset"
    assert document["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    assert (
        document["name"]
        == f"GENSTRAT release {folder.name}"
        == f"GENSTRAT release {manifest['release_id']}"
    )
    entries = {e["path"]: e for e in manifest["files"]}
    assert entries["croissant.json"]["sha256"]  # hashed into the id like every file
    files = {f["@id"]: f for f in document["distribution"]}
    assert {f["contentUrl"] for f in files.values()} == {
        p for p, e in entries.items() if e["role"] == "table"
    }
    for item in files.values():
        assert item["@type"] == "cr:FileObject"
        assert item["encodingFormat"] == "application/x-parquet"
        assert item["sha256"] == entries[item["contentUrl"]]["sha256"]
        assert item["contentSize"] == f"{entries[item['contentUrl']]['bytes']} B"
    described = {
        t["name"]: [(c["name"], c["description"].split(" (unit:")[0]) for c in t["columns"]]
        for t in schema["tables"]
    }
    sets = {r["name"]: r for r in document["recordSet"]}
    assert set(sets) == set(described)
    for name, record_set in sets.items():
        fields = record_set["field"]
        assert [(f["name"], f["description"].split(" (unit:")[0]) for f in fields] == described[
            name
        ]
        for field in fields:
            assert field["source"]["extract"] == {"column": field["name"]}
            assert field["source"]["fileObject"]["@id"] in files
            assert field["dataType"] in {"sc:Text", "sc:Integer", "sc:Float", "sc:Boolean"}
    readme = (folder / "README.md").read_text()
    assert "| `croissant.json` |" in readme
