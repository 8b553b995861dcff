"""The ``release_bundle`` asset: publishes past every gate, is stable for identical inputs, and a
failing gate stops it with the gate's name and leaves the store untouched.

Upstream tables are small but real (presets, six screened seeds, the demo roster, complete
paired deals on two accepted games), written where the Parquet IO manager reads them; the
release asset is then materialized on its own, with its inputs as external assets.
"""

import json
from pathlib import Path

import dagster as dg
import pandas as pd
import pytest

from arena.roster import load_roster
from assets import release
from assets.pool import accepted_games
from assets.reference_games import reference_games
from assets.resources import ProjectPaths, RunProfile
from assets.roster import DEMO_ROSTER, roster_table
from engines.gbg import ENGINE_VERSION
from engines.gbg.generator import GENERATOR_VERSION, GenerationConfig
from engines.gbg.seed_pool import screen
from engines.stats.capability import PROFILE_COLUMNS
from pipelines.io_managers import ParquetIOManager, write_parquet_atomically
from releases.contents import WALL_CLOCK_COLUMNS
from releases.store import list_releases, verify
from tests.releases.support import snapshot
from tests.support import ProjectEnv


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
    """Complete paired deals between two bots on each accepted game (DESIGN match schema)."""
    rows = []
    for game in games.itertuples(index=False):
        for run in range(2):
            run_id = f"run-{game.seed}-{run}"
            for deal, (alice, bob) in enumerate((("random", "heuristic"), ("heuristic", "random"))):
                delta = 1 - 2 * ((run + deal) % 2)
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
                        "n_moves": 4,
                        "moves_alice": 2,
                        "moves_bob": 2,
                        "fallbacks_alice": 0,
                        "fallbacks_bob": 0,
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def upstream() -> dict[str, pd.DataFrame]:
    """The release's inputs, built once for the module."""
    pool = seed_pool_table()
    games = accepted_games(pool).value
    pairs = pairs_table(games)
    board = pd.DataFrame(
        {
            "model": ["heuristic", "random"],
            "alpha": [0.0, 0.0],
            "ci_low": [-1.0, -1.0],
            "ci_high": [1.0, 1.0],
            "rank": [1, 2],
            "matches": [len(pairs), len(pairs)],
            "tier": [1, 1],
        }
    )
    return {
        "reference_games": reference_games().value,
        "seed_pool": pool,
        "accepted_games": games,
        # The benchmark is every accepted game here, in seed order.
        "benchmark_games": games.assign(game=games["seed"].astype(str), order=range(len(games))),
        "roster": roster_table(load_roster(DEMO_ROSTER)),
        "complete_pairs": pairs,
        "leaderboards": board,
        # Too few games for profiles (the asset then returns an empty table with its columns).
        "capability_profiles": pd.DataFrame(columns=list(PROFILE_COLUMNS)),
    }


def materialize(
    env: ProjectEnv, tables: dict[str, pd.DataFrame], store: Path
) -> dg.ExecuteInProcessResult:
    paths = ProjectPaths(data_dir=str(env.data))
    manager = ParquetIOManager(paths=paths)
    for name, frame in tables.items():
        write_parquet_atomically(frame, manager.asset_path(dg.AssetKey(name)))
    return dg.materialize(
        [*(dg.AssetSpec(name) for name in release.RELEASE_INPUTS), release.release_bundle],
        resources={"profile": RunProfile(name="demo"), "paths": paths, "io_manager": manager},
        run_config={"ops": {"release_bundle": {"config": {"store": str(store)}}}},
        raise_on_error=False,
    )


def test_the_release_is_published_verified_and_stable(
    project_env: ProjectEnv, upstream: dict[str, pd.DataFrame], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    result = materialize(project_env, upstream, store)
    assert result.success
    row = result.asset_value("release_bundle").iloc[0]
    release_id = row["release_id"]
    assert row["newly_published"] and row["counted_matches"] == 12
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
    assert integrity["passed"] and len(integrity["gates"]) == 7
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

    # a replay on another day: same results, other timestamps and durations -> the same release
    replayed = dict(upstream)
    replayed["complete_pairs"] = upstream["complete_pairs"].assign(
        started_at="2031-01-01T00:00:00.000+00:00",
        finished_at="2031-01-01T00:00:01.500+00:00",
        duration_s=1.5,
    )
    later = materialize(project_env, replayed, store)
    assert later.success and later.asset_value("release_bundle").iloc[0]["release_id"] == release_id
    assert not set(WALL_CLOCK_COLUMNS) & set(
        pd.read_parquet(folder / "tables" / "complete_pairs.parquet").columns
    )


def test_a_failing_gate_names_itself_and_leaves_the_previous_release(
    project_env: ProjectEnv, upstream: dict[str, pd.DataFrame], tmp_path: Path
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
    (failure,) = result.get_step_failure_events()
    error = failure.step_failure_data.error
    while error is not None and error.cause is not None:
        error = error.cause
    assert error is not None
    assert "gate zero_sum failed: complete_pairs: 1 match(es) create or destroy chips" in (
        error.message
    )
    assert snapshot(store) == before


def test_blocking_checks_guard_each_input(upstream: dict[str, pd.DataFrame]) -> None:
    gates = [c for c in release.CHECKS if c is not release.published_release_verifies]
    assert len(gates) == len(release.CHECKS) - 1  # and the published release is verified
    checked = {spec.asset_key.to_user_string() for c in gates for spec in c.check_specs}
    # Every release input but the two guarded by blocking checks of their own.
    assert checked == set(release.RELEASE_INPUTS) - set(release.GUARDED_UPSTREAM)
    assert checked == {
        "seed_pool",
        "benchmark_games",
        "roster",
        "complete_pairs",
        "leaderboards",
        "capability_profiles",
    }
    assert all(spec.blocking for c in release.CHECKS for spec in c.check_specs)
    check = release.table_gate_check("complete_pairs")
    assert check(upstream["complete_pairs"]).passed
    pairs = upstream["complete_pairs"].assign(status="timeout")
    outcome = check(pairs)
    assert not outcome.passed
    problems = outcome.metadata["problems"].value
    assert "expectations: complete_pairs: 1 expectation(s) unmet" in problems
    assert "complete_pairs: 6 run(s) not complete pairs" in problems
