"""The pool stage: seed_pool and accepted_games as plain functions, then through Dagster."""

from __future__ import annotations

import dagster as dg
import pandas as pd

from assets import pool
from assets.resources import ProjectPaths, RunProfile
from engines.gbg import rulebook
from pipelines.io_managers import ParquetIOManager
from tests.support import ProjectEnv


def test_pool_stage_materializes_with_a_passing_check(project_env: ProjectEnv) -> None:
    paths = ProjectPaths(data_dir=str(project_env.data))
    result = dg.materialize(
        [pool.seed_pool, pool.accepted_games, pool.accepted_games_conform],
        resources={
            "profile": RunProfile(name="demo"),
            "paths": paths,
            "io_manager": ParquetIOManager(paths=paths),
        },
    )
    assert result.success
    checks = result.get_asset_check_evaluations()
    assert [c.passed for c in checks] == [True]
    seeds = pd.read_parquet(project_env.tables() / "seed_pool.parquet")
    games = pd.read_parquet(project_env.tables() / "accepted_games.parquet")
    assert int(seeds["accepted"].sum()) == len(games) == 60  # the demo profile's target
    assert seeds["seed"].tolist() == list(range(len(seeds)))  # screened in order
    rejected = seeds[~seeds["accepted"]]
    assert (rejected["reasons"].str.len() > 0).all()  # every rejection says why
    mat = result.asset_materializations_for_node("seed_pool")[0]
    assert mat.metadata["accepted"].value == 60
    assert "image/png;base64" in mat.metadata["picture"].value


def test_the_check_names_a_bad_rulebook() -> None:
    from engines.gbg.generator import generate

    spec = generate(5)
    frame = pd.DataFrame(
        [
            {
                "seed": 5,
                "spec_hash": spec.spec_hash,
                "spec_json": spec.canonical_json(),
                "rulebook": rulebook(spec).replace("Each player starts with", "Players get"),
            }
        ]
    )
    problems = pool.accepted_game_problems(frame, deals=5)
    assert len(problems) == 1 and problems[0].startswith("seed 5: rulebook inconsistent: stack")
