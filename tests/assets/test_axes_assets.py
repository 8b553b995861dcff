"""The axes stage: screening_axes, benchmark_games, axis_scores (per game) and benchmark_axes,
as plain functions and through Dagster on the demo profile."""

from __future__ import annotations

import math

import dagster as dg
import pandas as pd
import pytest

from assets import axes
from assets.partitions import BENCHMARK_GAMES
from assets.resources import ProjectPaths, RunProfile
from engines.axes.names import AXES
from engines.axes.screening import SCREENING_AXES
from engines.gbg import rulebook
from engines.gbg.generator import generate
from pipelines.io_managers import ParquetIOManager
from tests.support import ProjectEnv

POOL_SEEDS = (0, 4, 5, 6, 7, 8, 9, 11, 13, 14)  # accepted under the default config


def accepted_frame(seeds: tuple[int, ...] = POOL_SEEDS) -> pd.DataFrame:
    """A small accepted_games table (the columns the axes stage reads, and a few more)."""
    rows = []
    for seed in seeds:
        spec = generate(seed)
        text = rulebook(spec)
        rows.append(
            {
                "seed": seed,
                "spec_hash": spec.spec_hash,
                "spec_json": spec.canonical_json(),
                "rulebook": text,
                "rulebook_chars": len(text),
            }
        )
    return pd.DataFrame(rows)


def resources(env: ProjectEnv) -> dict[str, object]:
    paths = ProjectPaths(data_dir=str(env.data))
    return {
        "profile": RunProfile(name="demo"),
        "paths": paths,
        "io_manager": ParquetIOManager(paths=paths),
    }


def test_the_selection_is_deterministic_and_spread() -> None:
    accepted = accepted_frame()
    screening = pd.DataFrame(
        [
            {
                "seed": s,
                "spec_hash": h,
                **{a: float((s * (i + 3)) % 7) for i, a in enumerate(SCREENING_AXES)},
            }
            for s, h in zip(accepted["seed"], accepted["spec_hash"], strict=True)
        ]
    )
    first = axes.select_benchmark(screening, accepted, 4)
    again = axes.select_benchmark(screening.sample(frac=1.0, random_state=1), accepted, 4)
    pd.testing.assert_frame_equal(first, again)  # independent of the table's row order
    assert list(first["order"]) == [0, 1, 2, 3]
    assert first["game"].is_unique and first["spec_json"].notna().all()
    assert list(first["distance"][1:]) == sorted(first["distance"][1:], reverse=True)
    whole = axes.select_benchmark(screening, accepted, 50)  # more than the pool: all of it
    assert sorted(whole["seed"]) == sorted(POOL_SEEDS)


def test_benchmark_table_and_diagnostics_from_rows() -> None:
    rows = {}
    for i, game in enumerate(("a", "b", "c", "d", "e", "f", "g", "h")):
        row = {"game": game}
        for j, a in enumerate(AXES):
            value = float((i + 1) * (j + 2) % 5 + i * 0.1 * j)
            row.update({a: value, f"se_{a}": 0.1, f"rerun_{a}": value + 0.01 * (i % 3)})
            if a != "state_space":
                row.update({f"alice_{a}": value, f"bob_{a}": value + 0.05 * i})
        rows[game] = pd.DataFrame([row])
    frame = axes.benchmark_table(rows)
    assert list(frame["game"]) == list("abcdefgh")
    for a in AXES:
        assert frame[f"z_{a}"].mean() == pytest.approx(0.0, abs=1e-12)
    tables = axes.diagnostics_tables(frame)
    per_axis = tables["per_axis"].set_index("axis")
    assert math.isnan(per_axis.loc["state_space", "seat agreement (rho)"])
    assert per_axis.loc["temporal", "rerun correlation (rho)"] > 0.5
    assert len(tables["pairs"]) == 10


def test_the_soundness_check_names_what_is_wrong() -> None:
    row = {a: 0.5 for a in AXES} | {"game": "7", "std_g": 2.0, "world_fallback_share": 0.0}
    assert axes.axis_score_problems(pd.DataFrame([row])) == []
    broken = row | {"temporal": 1.5, "precision": math.nan, "std_g": 0.0}
    broken["world_fallback_share"] = 0.5
    problems = axes.axis_score_problems(pd.DataFrame([broken]))
    assert problems == [
        "7: non-finite precision",
        "7: temporal 1.5 outside [0, 1]",
        "7: STD_g is 0 (every population deal ties)",
        "7: 50% of worlds fell back to the true cards",
    ]


def test_the_stage_materializes_on_the_demo_profile(project_env: ProjectEnv) -> None:
    env = resources(project_env)
    instance = dg.DagsterInstance.ephemeral()
    project_env.data.mkdir(parents=True, exist_ok=True)
    accepted_frame().to_parquet(project_env.data / "accepted_games.parquet")
    upstream = [dg.AssetSpec("accepted_games"), axes.screening_axes, axes.benchmark_games]
    first = dg.materialize(
        upstream,
        selection=[dg.AssetKey("screening_axes"), dg.AssetKey("benchmark_games")],
        resources=env,
        instance=instance,
    )
    assert first.success
    screening = pd.read_parquet(project_env.data / "screening_axes.parquet")
    chosen = pd.read_parquet(project_env.data / "benchmark_games.parquet")
    assert list(screening["seed"]) == list(POOL_SEEDS)
    assert screening[list(SCREENING_AXES)].notna().all().all()
    assert len(chosen) == 8  # the demo profile's benchmark size
    selection = first.asset_materializations_for_node("benchmark_games")[0].metadata
    assert "image/png;base64" in selection["selection"].value

    # benchmark_games registered the selected games as the dynamic partition set.
    keys = BENCHMARK_GAMES.get_partition_keys(dynamic_partitions_store=instance)
    assert keys == list(chosen["game"])
    for key in keys:
        result = dg.materialize(
            [dg.AssetSpec("benchmark_games"), axes.axis_scores],
            partition_key=key,
            resources=env,
            instance=instance,
        )
        assert result.success
        metadata = result.asset_materializations_for_node("axis_scores")[0].metadata
        assert metadata["game"].value == key and "precision" in metadata["axes"].value
    row = pd.read_parquet(project_env.data / "axis_scores" / f"{keys[-1]}.parquet")
    assert len(row) == 1 and row["game"].iloc[0] == keys[-1]
    assert row[list(AXES)].notna().all().all()
    assert row[[f"rerun_{a}" for a in AXES]].notna().all().all()  # the rerun diagnostic ran
    assert bool(row["selected"].iloc[0]) == (keys[-1] in set(chosen["game"]))

    last = dg.materialize(
        [
            dg.AssetSpec("axis_scores", partitions_def=BENCHMARK_GAMES),
            axes.benchmark_axes,
            axes.axis_scores_sound,
        ],
        resources=env,
        instance=instance,
    )
    assert last.success
    assert [c.passed for c in last.get_asset_check_evaluations()] == [True]
    table = pd.read_parquet(project_env.data / "benchmark_axes.parquet")
    assert sorted(table["game"]) == sorted(keys)
    metadata = last.asset_materializations_for_node("benchmark_axes")[0].metadata
    assert "image/png;base64" in metadata["figure_1"].value
    assert "rerun correlation" in metadata["diagnostics"].value
