"""What a release holds (``releases.contents``): released tables, rulebooks, figures, the
manifest's context, and the row describing a published release."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engines.gbg import ENGINE_VERSION
from engines.gbg.generator import GENERATOR_VERSION, PAPER_CONFIG, GenerationConfig, generate
from engines.gbg.seed_pool import screen
from quality.gates import GateResult
from releases.contents import (
    ROSTER_FIELDS,
    WALL_CLOCK_COLUMNS,
    axis_diagnostics,
    generation_configs,
    plot_images,
    published_row,
    recorded_gates,
    release_analysis,
    release_context,
    release_tables,
    roster_records,
    rulebook_texts,
    transcripts,
)
from releases.store import Published
from tests.releases.support import reference_table


def matches(versions: tuple[str, ...]) -> pd.DataFrame:
    """One deal per engine version, all the same match (game, block, seats, run, deal)."""
    return pd.DataFrame(
        [
            {
                "match_id": f"m{i}",
                "game": "kuhn",
                "block": "b",
                "alice": "x",
                "bob": "y",
                "run_index": 0,
                "deal": 0,
                "engine_version": version,
                "margin_alice": i,
                "started_at": "2031-01-01T00:00:00",
                "duration_s": 1.0,
            }
            for i, version in enumerate(versions)
        ]
    )


def test_released_tables_leave_out_wall_clock_and_keep_the_newest_results() -> None:
    tables = {"complete_pairs": matches(("0.9", ENGINE_VERSION)), "other": pd.DataFrame({"a": [1]})}
    released, results = release_tables(tables)
    assert not set(WALL_CLOCK_COLUMNS) & set(released["complete_pairs"].columns)
    assert list(released["complete_pairs"]["engine_version"]) == [ENGINE_VERSION]
    assert list(released["superseded_matches"]["match_id"]) == ["m0"]
    assert results["superseded_matches"] == 1 and results["counted_matches"] == 1
    assert "started_at" in tables["complete_pairs"].columns  # the inputs are left as they were
    plain, none = release_tables({"complete_pairs": matches((ENGINE_VERSION,))})
    assert "superseded_matches" not in plain and none["superseded_matches"] == 0


def test_rulebooks_come_from_the_presets_and_the_benchmark() -> None:
    presets = reference_table()
    benchmark = pd.DataFrame(
        {"seed": [4], "spec_json": [generate(4).canonical_json()], "game": ["4"]}
    )
    accepted = pd.DataFrame({"seed": [5], "rulebook": ["five"]})
    texts = rulebook_texts(
        {"reference_games": presets, "benchmark_games": benchmark, "accepted_games": accepted}
    )
    assert set(texts) == {*(f"rulebooks/{n}.md" for n in presets["name"]), "rulebooks/seed-4.md"}
    assert texts["rulebooks/kuhn.md"] == presets.set_index("name").loc["kuhn", "rulebook"]
    assert "rulebooks/seed-5.md" in rulebook_texts({"accepted_games": accepted})
    assert rulebook_texts({"leaderboards": pd.DataFrame({"model": ["x"]})}) == {}


def test_the_seed_pool_picture_in_png_and_svg() -> None:
    rows = list(screen(0, 1, GenerationConfig()))  # seed 0, accepted
    pool = pd.DataFrame([{**r, "reasons": ",".join(r["reasons"])} for r in rows])
    assert plot_images({"roster": pd.DataFrame()}) == {}
    images = plot_images({"seed_pool": pool})
    assert set(images) == {"plots/seed_pool.png", "plots/seed_pool.svg"}
    assert images["plots/seed_pool.png"].startswith(b"\x89PNG")
    assert images["plots/seed_pool.svg"].startswith(b"<?xml")


def test_the_roster_keeps_key_names_and_parses_settings() -> None:
    roster = pd.DataFrame(
        {
            "name": ["llm"],
            "kind": ["openai"],
            "api_key_env": ["LLM_KEY"],
            "settings": [json.dumps({"temperature": 0})],
            "internal": ["not recorded"],
        }
    )
    (record,) = roster_records({"roster": roster})
    assert record == {
        "name": "llm",
        "kind": "openai",
        "api_key_env": "LLM_KEY",
        "settings": {"temperature": 0},
    }
    assert set(record) <= set(ROSTER_FIELDS) and roster_records({}) == []


def test_generation_configs_and_the_context() -> None:
    default = GenerationConfig().config_hash
    pool = pd.DataFrame({"config_hash": [default, default, "unknown"]})
    configs = generation_configs({"seed_pool": pool})
    assert configs["generator_version"] == GENERATOR_VERSION
    assert configs["configs"]["unknown"] is None
    assert configs["configs"][default] == json.loads(GenerationConfig().canonical_json())
    # The paper configuration is known too, and printed in full with its added fields.
    paper = generation_configs(
        {"seed_pool": pd.DataFrame({"config_hash": [PAPER_CONFIG.config_hash]})}
    )
    assert paper["configs"][PAPER_CONFIG.config_hash]["label"] == "paper"
    assert paper["configs"][PAPER_CONFIG.config_hash]["reject_inert"] is True
    assert generation_configs({"seed_pool": pd.DataFrame({"seed": [1]})}) == {}
    context = release_context({"seed_pool": pool}, {"name": "demo", "seeds": 3}, {"x": 1})
    assert context.profile == "demo" and dict(context.profile_settings) == {"seeds": 3}
    assert context.generation_configs == configs and context.results == {"x": 1}


def test_the_row_of_a_published_release_and_its_recorded_gates(tmp_path: Path) -> None:
    card = {"gates": {"zero_sum": {"passed": True, "figures": {"matches": 4}, "message": "ok"}}}
    (tmp_path / "integrity.json").write_text(json.dumps(card))
    assert recorded_gates(tmp_path) == {"zero_sum": GateResult(True, {"matches": 4}, "ok")}
    entry = {
        "archive": {"sha256": "a" * 64},
        "manifest_sha256": "m" * 64,
        "files": 9,
        "bytes": 1234,
        "profile": "demo",
        "engine_version": ENGINE_VERSION,
        "code_version": "git:abc",
        "counted_matches": 12,
    }
    published = Published("gs-0123456789abcdef", tmp_path, tmp_path / "x.tar.gz", True, entry)
    row = published_row(published).iloc[0]
    assert row["release_id"] == "gs-0123456789abcdef" and row["newly_published"]
    assert row["counted_matches"] == 12 and row["superseded_matches"] == 0
    assert row["archive_sha256"] == "a" * 64 and row["files"] == 9


@pytest.mark.parametrize("name", ["reference_games", "benchmark_games"])
def test_a_table_without_rulebooks_or_specs_gives_none(name: str) -> None:
    assert rulebook_texts({name: pd.DataFrame({"seed": [1]})}) == {}


def test_transcripts_are_those_of_the_released_matches_with_credentials_redacted() -> None:
    key = "sk-" + "x1Y2" * 6
    moves = pd.DataFrame(
        {
            "match_id": ["m1", "m1", "gone"],
            "index": [0, 1, 0],
            "raw_response": pd.array([f"take {key}\nnow", '{"monkey": 3}', key], dtype="str"),
            "earlier_responses": [["the-secret-value, twice", "ok"], [], []],
            "reasoning": pd.array([None, None, None], dtype="str"),
        }
    )
    released = {"complete_pairs": pd.DataFrame({"match_id": ["m1"]})}
    kept = transcripts(moves, released, secrets=("the-secret-value",))
    assert kept["match_id"].tolist() == ["m1", "m1"]
    assert kept.loc[0, "raw_response"] == "take [redacted]\nnow"
    assert kept.loc[1, "raw_response"] == '{"monkey": 3}'  # a reply keeps its words
    assert kept["raw_response"].dtype == "str"
    assert kept["reasoning"].dtype == "str"  # all missing, still text
    assert list(kept.loc[0, "earlier_responses"]) == ["[redacted], twice", "ok"]
    assert transcripts(moves, {}, secrets=())["match_id"].tolist() == ["m1", "m1", "gone"]
    # release_tables applies it, and leaves a move's latency out (it is wall-clock)
    tables = {"complete_pairs": matches((ENGINE_VERSION,)).assign(match_id="m1")}
    released_tables, _ = release_tables(
        {**tables, "match_moves": moves.assign(latency_s=0.1)}, secrets=()
    )
    assert "latency_s" not in released_tables["match_moves"].columns
    assert len(released_tables["match_moves"]) == 2


def test_axis_diagnostics_are_released_with_plain_column_names() -> None:
    from engines.axes.names import AXES, SEAT_AXES
    from quality.schema import schema_problems

    rng = np.random.default_rng(1)
    frame = pd.DataFrame({a: rng.normal(size=6) for a in AXES})
    for a in AXES:
        frame[f"se_{a}"] = 0.1
        frame[f"rerun_{a}"] = frame[a] + rng.normal(scale=0.1, size=6)
    for a in SEAT_AXES:
        frame[f"alice_{a}"] = frame[a] + 0.01
        frame[f"bob_{a}"] = frame[a] - 0.01
    tables = axis_diagnostics(frame)
    assert list(tables["axis_diagnostics"].columns) == [
        "axis",
        "median_sampling_error",
        "seat_agreement",
        "rerun_correlation",
        "vif",
    ]
    pairs = tables["axis_correlations"]
    assert len(pairs) == 10 and set(pairs["axis_a"]) <= set(AXES)
    for name, table in tables.items():
        assert schema_problems(name, table) == []


def test_a_corpus_the_analysis_refuses_fails_the_reproduction_gate() -> None:
    from releases.analysis import AnalysisSettings

    one_model = pd.DataFrame({"match_id": ["x"], "margin_alice": [0]})
    analysis, gate = release_analysis({"complete_pairs": one_model}, AnalysisSettings())
    assert analysis is None and not gate.passed
    assert gate.message.startswith("the analysis refused the corpus: ")
    none, skipped = release_analysis({}, AnalysisSettings())
    assert none is None and skipped.passed and skipped.message.startswith("not applicable")


def test_the_documents_describe_the_released_tables() -> None:
    from releases.contents import documents

    texts = documents({"leaderboards": pd.DataFrame({"model": ["a"], "alpha": [0.1]})})
    assert set(texts) == {"SCHEMA.md", "schema.json", "LICENSE"}
    schema = json.loads(texts["schema.json"])
    (table,) = schema["tables"]
    assert table["path"] == "tables/leaderboards.parquet"
    assert [c["name"] for c in table["columns"]] == ["model", "alpha"]
    assert table["columns"][1]["unit"] == "chips/game"
    assert "| `alpha` | float64 | chips/game |" in texts["SCHEMA.md"]
    assert "CC-BY-4.0" in texts["LICENSE"]
