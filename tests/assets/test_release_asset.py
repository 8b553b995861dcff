"""The ``release_bundle`` asset: publishes past every gate, is stable for identical inputs, ships
every table the analysis and the paper's figures need (with a data dictionary, a dataset card, a
licence and a citation), and a failing gate stops it with the gate's name and leaves the store
untouched.

Upstream tables are small but real (presets, six screened seeds, the demo roster, complete
paired deals of three bots on three accepted games, axis scores and moves per game, the
leaderboards and profiles the statistics assets compute from them), written where the Parquet
IO manager reads them; the release asset is then materialized on its own, with its inputs as
external assets (the per-game ones partitioned).
"""

import json
from pathlib import Path
from typing import Any

import dagster as dg
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arena.roster import load_roster
from arena.secrets import REDACTED
from assets import release
from assets.anchored_scales import AnchoredConfig, build_anchored_scales
from assets.capability_profiles import build_capability_profiles
from assets.leaderboards import StatsConfig, build_leaderboards, leaderboards
from assets.pool import accepted_games
from assets.reference_games import reference_games
from assets.resources import ProjectPaths, RunProfile
from assets.roster import DEMO_ROSTER, roster_table
from engines.axes.benchmark import AXIS_SCORE_COLUMNS, benchmark_table, select_benchmark
from engines.axes.names import AXES
from engines.axes.screening import SCREENING_AXES
from engines.gbg import ENGINE_VERSION, GameSpec
from engines.gbg.generator import GENERATOR_VERSION, GenerationConfig
from engines.gbg.seed_pool import screen
from engines.stats.adaptation import ADAPTATION_COLUMNS
from engines.stats.program_track import OVERALL, TRACK_COLUMNS
from pipelines.io_managers import ParquetIOManager, write_parquet_atomically
from quality.schema import TABLES
from releases.analysis import NOT_SHIPPED, SHIPPED, SUMMARY
from releases.contents import WALL_CLOCK_COLUMNS
from releases.store import list_releases, verify
from tests.releases.support import snapshot
from tests.support import ProjectEnv

GAMES = ("0", "4", "5")  # the seeds accepted among 0-5
PARTS = dg.StaticPartitionsDefinition(list(GAMES))
MODELS = (("random", "heuristic"), ("random", "population"), ("heuristic", "population"))
SECRET_NAME, SECRET = "GENSTRAT_TEST_API_KEY", "this-is-the-secret-value-42"
LEAKED_KEY = "sk-" + "A1b2C3d4" * 4


def seed_pool_table() -> pd.DataFrame:
    """Seeds 0-5 screened as the seed_pool asset stores them (0, 4 and 5 are accepted)."""
    config = GenerationConfig()
    rows = list(screen(0, 3, config))
    for row in rows:
        row["reasons"] = ",".join(row["reasons"])
        row["repairs"] = json.dumps(row.get("repairs", []))
    frame = pd.DataFrame(rows)
    frame["config_hash"] = config.config_hash
    frame["generator_version"] = GENERATOR_VERSION
    return frame


def pairs_table(games: pd.DataFrame) -> pd.DataFrame:
    """Complete paired deals of three bots, each pair twice on every accepted game (DESIGN
    match schema)."""
    rows = []
    for game in games.itertuples(index=False):
        for pair, (first, second) in enumerate(MODELS):
            for run in range(2):
                run_id = f"run-{game.seed}-{pair}-{run}"
                for deal, (alice, bob) in enumerate(((first, second), (second, first))):
                    delta = (int(game.seed) + 3 * pair + 2 * run + deal) % 5 - 2
                    rows.append(
                        {
                            "match_id": f"{run_id}.{deal}",
                            "game": str(game.seed),
                            "game_seed": int(game.seed),
                            "spec_hash": game.spec_hash,
                            "engine_version": ENGINE_VERSION,
                            "block": "block-1",
                            "run_id": run_id,
                            "run_index": run,
                            "deal": deal,
                            "play_seed": 100 + run,
                            "alice": alice,
                            "bob": bob,
                            "alice_chip_delta": delta,
                            "bob_chip_delta": -delta,
                            "margin_alice": 2 * delta,
                            "status": "complete",
                            "n_moves": 2,
                            "moves_alice": 1,
                            "moves_bob": 1,
                            "fallbacks_alice": 0,
                            "fallbacks_bob": 0,
                        }
                    )
    return pd.DataFrame(rows)


def screening_rows(games: pd.DataFrame) -> pd.DataFrame:
    """Made-up screening axes of the accepted games (as the screening_axes asset stores them)."""
    values = {
        a: [0.3 * k + 0.1 * j for k in range(len(games))] for j, a in enumerate(SCREENING_AXES)
    }
    return pd.DataFrame({"seed": games["seed"], "spec_hash": games["spec_hash"], **values})


def axis_rows(games: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """One ``axis_scores`` row per game (made-up values; the state space has no sampling error,
    so that column is all missing, as the axes stage stores it)."""
    out = {}
    for k, game in enumerate(games.itertuples(index=False)):
        row: dict[str, Any] = {
            c: 0.1 * (k + 1) + 0.01 * j for j, c in enumerate(AXIS_SCORE_COLUMNS)
        }
        row.update(
            game=str(game.seed),
            name=GameSpec.from_json(game.spec_json).name,
            spec_hash=game.spec_hash,
            selected=True,
            se_state_space=None,
            temporal=0.2 + 0.25 * k,
            decisions_alice=40,
            decisions_bob=41,
            replays=1000,
            world_fallback_share=0.0,
            search_world_fallback_share=0.0,
            budget="quick",
            seed=0,
            engine_version=ENGINE_VERSION,
            axes_version="1",
            rulebook_chars=len(game.rulebook),
        )
        out[str(game.seed)] = pd.DataFrame([row], columns=list(AXIS_SCORE_COLUMNS))
    return out


def moves_tables(pairs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Two moves per match, per game; one reply leaks a key-shaped string and one reasoning the
    value of a secret variable; one move belongs to a match that was not released."""
    rows = []
    for match in pairs.itertuples(index=False):
        for index, seat in enumerate(("alice", "bob")):
            rows.append(
                {
                    "game": match.game,
                    "match_id": match.match_id,
                    "index": index,
                    "seat": seat,
                    "player": getattr(match, seat),
                    "model": getattr(match, seat),
                    "settings": "{}",
                    "phase": "betting",
                    "legal_actions": ["check", "bet 1"],
                    "prompt_sha256": None,
                    "raw_response": '{"action": "check"}',
                    "earlier_responses": [],
                    "verdict": "ok",
                    "action": "check",
                    "fallback": False,
                    "rethinks": 0,
                    "latency_s": 0.001 * (index + 1),
                    "input_tokens": 0,
                    "output_tokens": 0,
                    "reasoning_tokens": 0,
                    "cost_usd": 0.0,
                    "calls": 0,
                    "cached": False,
                    "reasoning": None,
                }
            )
    rows[0]["raw_response"] = f'{{"action": "check"}}\nmy key is {LEAKED_KEY}, keep it'
    rows[1]["reasoning"] = f"I could use {SECRET} here.\nThen check."
    orphan = {**rows[2], "match_id": "timed-out.0"}
    frame = pd.DataFrame([*rows, orphan])
    return {
        g: part.drop(columns="game").reset_index(drop=True) for g, part in frame.groupby("game")
    }


def anchored_tables(pairs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The issue-19 tables: the anchored scales of the three bots (the field lacks search-2,
    so the scales are empty and the entrant provisional), and small episode and program
    tables in their declared columns."""
    scales, _ = build_anchored_scales(
        pairs, roster_table(load_roster(DEMO_ROSTER)), AnchoredConfig(), 20
    )
    episodes = pd.DataFrame(
        [("kuhn", "adaptive", "overfolder", "change", 0.4, 0.1, 0.7, 4, 80)],
        columns=list(ADAPTATION_COLUMNS),
    )
    programs = pd.DataFrame(
        [("programs", "handwritten", OVERALL, 2, 2, 0, 0, 0, 0, 43.0, 39.0, 47.0, "ranked", 1, "")],
        columns=list(TRACK_COLUMNS),
    )
    return {"anchored_scales": scales, "episode_adaptation": episodes, "program_track": programs}


@pytest.fixture(scope="module")
def upstream() -> dict[str, Any]:
    """The release's inputs (per-game ones as ``{partition: table}``), built once."""
    pool = seed_pool_table()
    games = accepted_games(pool, RunProfile(name="demo")).value
    pairs = pairs_table(games)
    axes = axis_rows(games)
    board, _ = build_leaderboards(pairs, StatsConfig())
    profiles, _ = build_capability_profiles(pairs, axes, StatsConfig())
    return {
        "reference_games": reference_games().value,
        "seed_pool": pool,
        "accepted_games": games,
        # The benchmark is every accepted game here (made-up screening axes).
        "benchmark_games": select_benchmark(screening_rows(games), games, len(games)),
        "axis_scores": axes,
        "benchmark_axes": benchmark_table(pd.concat(axes.values(), ignore_index=True)),
        "roster": roster_table(load_roster(DEMO_ROSTER)),
        "complete_pairs": pairs,
        "match_moves": moves_tables(pairs),
        "leaderboards": board,
        # Too few games for profiles (the asset then returns an empty table with its columns).
        "capability_profiles": profiles,
        "validity_checks": pd.DataFrame(
            {
                "check": ["screening vs final composite"],
                "figure": ["Spearman rho of the composites"],
                "ours": ["0.71"],
                "paper": ["0.80"],
            }
        ),
        **anchored_tables(pairs),
        "ablations": pd.DataFrame(
            {
                "ablation": ["programs", "thinking_budget"],
                "quantity": ["disclosure_effect", "high_minus_low"],
                "subject": ["all", "search"],
                "estimate": [0.5, 0.1],
                "ci_low": [0.1, -0.2],
                "ci_high": [0.9, 0.4],
                "n": [12, 8],
            }
        ),
    }


def materialize(env: ProjectEnv, tables: dict[str, Any], store: Path) -> dg.ExecuteInProcessResult:
    paths = ProjectPaths(data_dir=str(env.data))
    manager = ParquetIOManager(paths=paths)
    for name, value in tables.items():
        key = dg.AssetKey(name)
        if isinstance(value, dict):
            for partition, frame in value.items():
                write_parquet_atomically(frame, manager.asset_path(key, partition))
        else:
            write_parquet_atomically(value, manager.asset_path(key))
    specs = [
        dg.AssetSpec(name, partitions_def=PARTS if name in release.PARTITIONED else None)
        for name in release.RELEASE_INPUTS
    ]
    return dg.materialize(
        [*specs, release.release_bundle],
        resources={"profile": RunProfile(name="demo"), "paths": paths, "io_manager": manager},
        run_config={"ops": {"release_bundle": {"config": {"store": str(store)}}}},
        raise_on_error=False,
    )


@pytest.fixture()
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A secret-looking variable whose value one transcript repeats."""
    monkeypatch.setenv(SECRET_NAME, SECRET)


def innermost_error(result: dg.ExecuteInProcessResult) -> str:
    (failure,) = result.get_step_failure_events()
    error = failure.step_failure_data.error
    while error is not None and error.cause is not None:
        error = error.cause
    assert error is not None
    return error.message


@pytest.mark.slow  # over 5 s: make test only
def test_the_release_is_published_verified_and_stable(
    project_env: ProjectEnv, upstream: dict[str, Any], tmp_path: Path, secret_env: None
) -> None:
    store = tmp_path / "store"
    result = materialize(project_env, upstream, store)
    assert result.success, innermost_error(result)
    row = result.asset_value("release_bundle").iloc[0]
    release_id = row["release_id"]
    assert row["newly_published"] and row["counted_matches"] == 36
    assert verify(release_id, store).release_id == release_id

    folder = store / release_id
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["profile"]["name"] == "demo" and manifest["engine_version"] == ENGINE_VERSION
    assert [p["name"] for p in manifest["roster"]][:2] == ["random", "heuristic"]
    assert manifest["roster"][3]["settings"] == {"depth": 2, "worlds": 8}
    assert GenerationConfig().config_hash in manifest["generation_configs"]["configs"]
    assert manifest["results"]["superseded_matches"] == 0
    files = {e["path"] for e in manifest["files"]}
    assert {f"tables/{n}.parquet" for n in release.RELEASE_INPUTS} <= files
    assert {"rulebooks/kuhn.md", "rulebooks/seed-4.md", "plots/seed_pool.png"} <= files
    integrity = json.loads((folder / "integrity.json").read_text())
    assert integrity["passed"] and set(integrity["gates"]) == {
        "expectations",
        "schema",
        "rulebook_consistency",
        "attestation",
        "parse_fallbacks",
        "zero_sum",
        "complete_pairs",
        "moves",
        "reproduction",
        "redaction",
    }
    metadata = result.asset_materializations_for_node("release_bundle")[0].metadata
    assert metadata["release_id"].value == release_id
    assert "| redaction | passed |" in metadata["gates"].value

    again = materialize(project_env, upstream, store)
    assert again.success
    assert again.asset_value("release_bundle").iloc[0]["release_id"] == release_id
    assert not again.asset_value("release_bundle").iloc[0]["newly_published"]

    check = release.published_release_verifies(result.asset_value("release_bundle"))
    assert check.passed and check.metadata["files_verified"].value == len(manifest["files"]) + 2
    (folder / "tables" / "leaderboards.parquet").write_bytes(b"tampered")
    tampered = release.published_release_verifies(result.asset_value("release_bundle"))
    assert not tampered.passed
    assert "leaderboards.parquet" in tampered.metadata["problems"].value
    assert len(list_releases(store)["releases"]) == 1

    # a replay on another day: same results, other timestamps, durations and latencies -> the
    # same release
    replayed = dict(upstream)
    replayed["complete_pairs"] = upstream["complete_pairs"].assign(
        started_at="2031-01-01T00:00:00.000+00:00",
        finished_at="2031-01-01T00:00:01.500+00:00",
        duration_s=1.5,
    )
    replayed["match_moves"] = {
        g: moves.assign(latency_s=moves["latency_s"] * 3)
        for g, moves in upstream["match_moves"].items()
    }
    replayed["axis_scores"] = {
        g: axes.assign(seconds=99.0, rerun_seconds=66.0)
        for g, axes in upstream["axis_scores"].items()
    }
    later = materialize(project_env, replayed, store)
    assert later.success and later.asset_value("release_bundle").iloc[0]["release_id"] == release_id
    assert not set(WALL_CLOCK_COLUMNS) & set(
        pd.read_parquet(folder / "tables" / "complete_pairs.parquet").columns
    )


@pytest.fixture(scope="module")
def published(upstream: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One release of ``upstream``, published once for the tests that read its content."""
    env_root = tmp_path_factory.mktemp("published")
    env = ProjectEnv(data=env_root / "data", dagster_home=env_root / "home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SECRET_NAME, SECRET)
        result = materialize(env, upstream, env_root / "store")
    assert result.success, innermost_error(result)
    return Path(str(result.asset_value("release_bundle").iloc[0]["path"]))


def test_the_release_holds_every_table_of_the_analysis_and_the_figures(
    published: Path, upstream: dict[str, Any]
) -> None:
    manifest = json.loads((published / "manifest.json").read_text())
    tables = {
        e["path"].removeprefix("tables/").removesuffix(".parquet")
        for e in manifest["files"]
        if e["role"] == "table"
    }
    # the inputs, the axis diagnostics, and every table of the analysis that this corpus has
    # (three games: no profiles, factor analysis or jaggedness, which need eight)
    analysis = {
        "per_game_alpha", "per_game_margin", "pairwise", "bradley_terry", "leave_one_game_out",
        "game_subsets", "block_leaderboard", "without_model_leaderboard", "axis_slopes",
        "composite_weights", "composite_scores", "hardest_leaderboard",
        "most_temporal_leaderboard", "half_split", "temporal_tertiles", "composite_tertiles",
        "variance_decomposition", "composite_alternatives", "late_block", SUMMARY,
    }  # fmt: skip
    # (rethink_fallback needs the seat columns moves/fallbacks/rethinks, which this made-up
    # corpus leaves out; tests/engines/stats/test_stats_analysis.py covers it)
    across = {"edition_scores", "edition_saturation"}  # the anchored scores by edition
    expected = {*release.RELEASE_INPUTS, "axis_diagnostics", "axis_correlations", *analysis}
    expected |= across
    assert tables == expected
    assert analysis - {SUMMARY} <= set(SHIPPED) and not set(SHIPPED) & set(NOT_SHIPPED)

    # the settings the leaderboards were fit with: B = 2,000, the default StatsConfig's
    assert manifest["analysis"] == StatsConfig().analysis_settings().as_json()
    assert manifest["analysis"]["n_boot"] == 2000 and manifest["analysis"]["seed"] == 0
    # the published leaderboard is the asset's, and the release's own analysis reproduces it
    board = pd.read_parquet(published / "tables" / "leaderboards.parquet")
    pd.testing.assert_frame_equal(board, upstream["leaderboards"], check_dtype=False)
    integrity = json.loads((published / "integrity.json").read_text())
    assert (
        integrity["gates"]["reproduction"]["figures"]["leaderboards"]["max_abs_difference"] < 1e-9
    )
    per_game = pd.read_parquet(published / "tables" / "per_game_alpha.parquet")
    assert list(per_game.columns) == ["game_seed", "model", "alpha"] and len(per_game) == 3 * 3
    summary = pd.read_parquet(published / "tables" / "analysis_summary.parquet").set_index("figure")
    assert summary.loc["bootstrap", "value"] == 2000 and summary.loc["games", "value"] == 3

    files = {e["path"] for e in manifest["files"]}
    for name in ("leaderboard", "per_game_heatmap", "benchmark_axes", "benchmark_map", "seed_pool"):
        assert {f"plots/{name}.png", f"plots/{name}.svg"} <= files, name
        assert (published / "plots" / f"{name}.png").read_bytes().startswith(b"\x89PNG")
        assert b"<svg" in (published / "plots" / f"{name}.svg").read_bytes()[:500]
    assert {"SCHEMA.md", "schema.json", "LICENSE", "CITATION.cff", "README.md"} <= files


def test_every_released_column_is_declared_and_typed(published: Path) -> None:
    """No column of Arrow type null; the roster's once-null columns are strings (a deliberate
    change of its Parquet bytes); the data dictionary describes every released column."""
    document = json.loads((published / "schema.json").read_text())
    described = {t["name"]: [c["name"] for c in t["columns"]] for t in document["tables"]}
    markdown = (published / "SCHEMA.md").read_text()
    for path in sorted((published / "tables").glob("*.parquet")):
        schema = pq.read_schema(path)
        assert not [f.name for f in schema if pa.types.is_null(f.type)], path.name
        assert described[path.stem] == schema.names, path.name
        assert set(schema.names) <= set(TABLES[path.stem].names)
        assert f"## {path.stem}\n" in markdown
    roster = pq.read_schema(published / "tables" / "roster.parquet")
    for name in ("api_key_env", "family", "variant", "path", "code_sha256"):
        assert pa.types.is_large_string(roster.field(name).type), name
    moves = pq.read_schema(published / "tables" / "match_moves.parquet")
    listed = moves.field("earlier_responses").type  # every list empty: typed as declared
    assert pa.types.is_list(listed) and pa.types.is_string(listed.value_type)
    axes = pq.read_schema(published / "tables" / "axis_scores.parquet")
    assert axes.field("se_state_space").type == pa.float64()


def test_transcripts_are_the_released_matches_with_credentials_redacted(
    published: Path, upstream: dict[str, Any]
) -> None:
    moves = pd.read_parquet(published / "tables" / "match_moves.parquet")
    assert set(moves["match_id"]) == set(upstream["complete_pairs"]["match_id"])  # no orphan
    assert len(moves) == 2 * len(upstream["complete_pairs"])
    assert "latency_s" not in moves.columns  # wall-clock, like a match's duration
    text = "\n".join(str(v) for v in [*moves["raw_response"], *moves["reasoning"].dropna()])
    assert LEAKED_KEY not in text and SECRET not in text and text.count(REDACTED) == 2
    first = moves.loc[0, "raw_response"]
    assert first == f'{{"action": "check"}}\nmy key is {REDACTED}, keep it'  # layout kept
    integrity = json.loads((published / "integrity.json").read_text())
    assert integrity["gates"]["redaction"]["passed"]


def test_the_readme_is_a_dataset_card_that_starts_with_the_leaderboard(
    published: Path, upstream: dict[str, Any]
) -> None:
    import yaml

    readme = (published / "README.md").read_text()
    _, front, body = readme.split("---\n", 2)
    card = yaml.safe_load(front)
    assert card["license"] == "cc-by-4.0"
    configs = {c["config_name"]: c for c in card["configs"]}
    assert configs["leaderboards"]["default"] is True
    assert configs["match_moves"]["data_files"] == [
        {"split": "train", "path": "tables/match_moves.parquet"}
    ]
    tables = {p.stem for p in (published / "tables").glob("*.parquet")}
    nonempty = {
        t for t in tables if pq.read_metadata(published / "tables" / f"{t}.parquet").num_rows
    }
    assert set(configs) == nonempty
    sections = [line for line in body.splitlines() if line.startswith("## ")]
    assert sections[0] == "## Leaderboard"
    best = upstream["leaderboards"].iloc[0]
    assert f"| 1 | {best['model']} | {best['alpha']:+.2f} | [{best['ci_low']:+.2f}, " in body
    assert "B = 2,000 resamples" in body


def test_the_tables_load_with_datasets_offline(
    published: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf" / "datasets"))
    import datasets  # a dev dependency: its import is slow, so it is imported here

    board = datasets.load_dataset(str(published), "leaderboards", split="train")
    assert board.column_names == ["model", "alpha", "ci_low", "ci_high", "rank", "matches", "tier"]
    assert len(board) == 3
    default = datasets.load_dataset(str(published), split="train")  # the leaderboard
    assert default.column_names == board.column_names
    moves = datasets.load_dataset(str(published), "match_moves", split="train")
    assert moves.features["legal_actions"].feature.dtype in ("string", "large_string")
    roster = datasets.load_dataset(str(published), "roster", split="train")
    assert roster.features["api_key_env"].dtype in ("string", "large_string")


def test_licence_and_citation(published: Path) -> None:
    import yaml

    licence = (published / "LICENSE").read_text()
    assert "Creative Commons Attribution 4.0 International" in licence
    assert "CC-BY-4.0" in licence and "Apache-2.0" in licence
    citation = yaml.safe_load((published / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["version"] == published.name
    assert citation["authors"] == [{"name": "GENSTRAT maintainers"}]
    (reference,) = citation["references"]
    assert reference["title"].startswith("GENSTRAT: Toward a Science of Strategic Reasoning")
    manifest = json.loads((published / "manifest.json").read_text())
    if "date" in manifest:  # the code version's commit date (no date outside a git checkout)
        assert citation["date-released"] == manifest["date"]


@pytest.mark.slow  # over 5 s: make test only
def test_a_failing_gate_names_itself_and_leaves_the_previous_release(
    project_env: ProjectEnv, upstream: dict[str, Any], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    assert materialize(project_env, upstream, store).success
    before = snapshot(store)
    broken = dict(upstream)
    pairs = upstream["complete_pairs"].copy()
    pairs.loc[3, "bob_chip_delta"] = 5  # chips created from nothing
    broken["complete_pairs"] = pairs

    result = materialize(project_env, broken, store)
    assert not result.success
    assert "gate zero_sum failed: complete_pairs: 1 match(es) create or destroy chips" in (
        innermost_error(result)
    )
    assert snapshot(store) == before


@pytest.mark.slow  # over 5 s: make test only
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"leaderboards": lambda t: t.assign(alpha=t["alpha"] + 0.5)},
            "gate reproduction failed: leaderboards: the release's own recomputation differs "
            "(alpha differs by up to 0.5)",
        ),
        (
            {"ablations": lambda t: t.assign(undeclared=1)},
            "gate schema failed: ablations: 1 schema problem(s); ablations: undeclared "
            "column(s) undeclared",
        ),
    ],
    ids=["leaderboard not reproduced", "undeclared column"],
)
def test_a_table_the_release_cannot_reproduce_or_describe_is_refused(
    project_env: ProjectEnv,
    upstream: dict[str, Any],
    tmp_path: Path,
    change: dict[str, Any],
    message: str,
) -> None:
    store = tmp_path / "store"
    changed = {**upstream, **{name: edit(upstream[name]) for name, edit in change.items()}}
    result = materialize(project_env, changed, store)
    assert not result.success
    assert message in innermost_error(result)
    assert not (store / "index.json").exists()


def test_the_release_reads_the_settings_the_leaderboards_used(upstream: dict[str, Any]) -> None:
    instance = dg.DagsterInstance.ephemeral()
    assert release.analysis_settings(instance) == StatsConfig().analysis_settings()

    @dg.asset(name="complete_pairs")
    def complete_pairs() -> pd.DataFrame:
        return upstream["complete_pairs"]

    config = {"bootstrap": 300, "seed": 7, "subsets": 20}
    result = dg.materialize(
        [complete_pairs, leaderboards],
        instance=instance,
        run_config={"ops": {"leaderboards": {"config": config}}},
        resources={"io_manager": dg.mem_io_manager},
    )
    assert result.success
    settings = release.analysis_settings(instance)
    assert settings == StatsConfig(**config).analysis_settings()
    assert settings.config.n_boot == 300 and settings.seed == 7


def test_blocking_checks_guard_each_input(upstream: dict[str, Any]) -> None:
    gates = [c for c in release.CHECKS if c is not release.published_release_verifies]
    assert len(gates) == len(release.CHECKS) - 1  # and the published release is verified
    checked = {spec.asset_key.to_user_string() for c in gates for spec in c.check_specs}
    # Every unpartitioned input with gates of its own, but the two guarded by blocking checks of
    # their own (the per-game inputs are gated inside the release, all partitions together).
    assert checked == {
        "seed_pool",
        "benchmark_games",
        "roster",
        "complete_pairs",
        "leaderboards",
        "capability_profiles",
        "ablations",
    }  # validity_checks has no expectations suite: its schema gate runs in the release
    assert not checked & (set(release.GUARDED_UPSTREAM) | set(release.PARTITIONED))
    assert all(spec.blocking for c in release.CHECKS for spec in c.check_specs)
    check = release.table_gate_check("complete_pairs")
    assert check(upstream["complete_pairs"]).passed
    pairs = upstream["complete_pairs"].assign(status="timeout")
    outcome = check(pairs)
    assert not outcome.passed
    problems = outcome.metadata["problems"].value
    assert "expectations: complete_pairs: 1 expectation(s) unmet" in problems
    assert "complete_pairs: 18 run(s) not complete pairs" in problems
    undeclared = check(upstream["complete_pairs"].assign(extra=np.int64(1)))
    assert "schema: 1 schema problem(s); complete_pairs: undeclared column(s) extra" in (
        undeclared.metadata["problems"].value
    )
    assert AXES[0] in TABLES["axis_scores"].names
