"""The tournament stage: roster, match_corpus (per game) and complete_pairs, as plain functions
and through Dagster, with their blocking checks."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pandas as pd
import pytest

from arena.roster import load_roster
from assets import complete_pairs, match_corpus, roster
from assets.partitions import BENCHMARK_GAMES, BENCHMARK_GAMES_NAME, DEMO_BENCHMARK_GAMES
from assets.resources import ROSTER_ENV_VAR
from releases.contents import WALL_CLOCK_COLUMNS
from tests.assets.resources import resources
from tests.support import ProjectEnv

SMALL = (
    "players:\n"
    "  - {name: random, kind: builtin, agent: random}\n"
    "  - {name: heuristic, kind: builtin, agent: heuristic}\n"
)


def roster_config(roster_path: Path) -> dict[str, object]:
    return {"ops": {"roster": {"config": {"path": str(roster_path)}}}}


TWO_RUNS = {"ops": {"match_corpus": {"config": {"runs": 2}}}}
# match_corpus reads each game's spec from the stored benchmark_games table (a source here)
BENCHMARK = dg.AssetSpec("benchmark_games")


def store_benchmark(folder: Path, tokens: list[str], config: str = "default") -> pd.DataFrame:
    """A ``benchmark_games`` table listing the generated games among ``tokens`` (seeds under
    ``config``) with their specs and hashes, written where the demo profile reads it."""
    from engines.gbg.generator import generate, named_config

    seeds = [int(t) for t in tokens if t.isdigit()]
    specs = [generate(seed, named_config(config)) for seed in seeds]
    frame = pd.DataFrame(
        {
            "order": range(len(seeds)),
            "game": [str(s) for s in seeds],
            "seed": seeds,
            "spec_hash": [spec.spec_hash for spec in specs],
            "spec_json": [spec.canonical_json() for spec in specs],
        }
    )
    folder.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(folder / "benchmark_games.parquet")
    return frame


def test_the_demo_roster_is_built_in_bots_and_round_trips() -> None:
    parsed = load_roster(roster.DEMO_ROSTER)
    assert all(p.kind == "builtin" for p in parsed.players)
    table = roster.roster_table(parsed)
    assert list(table.columns) == [c.name for c in roster.COLUMNS]
    assert roster.roster_from_table(table) == parsed
    assert table["fingerprint"].is_unique


def test_without_run_config_the_roster_is_genstrat_roster_else_the_demo_roster(
    project_env: ProjectEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the UI's Materialize and ``make run`` read: the deployment's roster file, the one
    ``roster_sensor`` watches (``pipelines.automation.roster_path``)."""
    from pipelines.automation import roster_path
    from pipelines.definitions import defs

    def materialized() -> pd.DataFrame:
        job = defs.resolve_implicit_global_asset_job_def()
        with dg.instance_for_test() as instance:
            result = job.execute_in_process(
                instance=instance, asset_selection=[dg.AssetKey("roster")]
            )
        assert result.success
        return result.output_for_node("roster")

    monkeypatch.delenv(ROSTER_ENV_VAR, raising=False)
    demo = materialized()
    assert roster_path() == roster.DEMO_ROSTER
    assert list(demo["name"]) == [p.name for p in load_roster(roster.DEMO_ROSTER).players]

    path = tmp_path / "roster.yaml"
    path.write_text(SMALL)
    monkeypatch.setenv(ROSTER_ENV_VAR, str(path))
    assert roster_path() == path.resolve()
    assert list(materialized()["name"]) == ["random", "heuristic"]
    # the run config still wins over the environment
    other = tmp_path / "other.yaml"
    other.write_text(SMALL.replace("name: random", "name: uniform"))
    result = dg.materialize(
        [roster.roster], resources=resources(project_env), run_config=roster_config(other)
    )
    assert list(result.output_for_node("roster")["name"]) == ["uniform", "heuristic"]


def test_a_demo_profile_plays_llm_players_whose_keys_are_set(
    project_env: ProjectEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 41, item 5: any profile takes the roster's LLM players; one whose key variable is
    unset is refused at the roster, naming the variable (not after the pool and the axes)."""
    path = tmp_path / "roster.yaml"
    path.write_text(SMALL + "  - {name: llm, kind: openai, model: m, api_key_env: SOME_KEY}\n")
    monkeypatch.delenv("SOME_KEY", raising=False)

    def materialized() -> dg.ExecuteInProcessResult:
        return dg.materialize(
            [roster.roster],
            resources=resources(project_env),
            run_config={"ops": {"roster": {"config": {"path": str(path)}}}},
            raise_on_error=False,
        )

    result = materialized()
    assert not result.success
    (failure,) = result.get_step_failure_events()
    assert "llm (SOME_KEY) is not set" in str(failure.step_failure_data.error)
    monkeypatch.setenv("SOME_KEY", "sk-not-a-real-key")
    result = materialized()
    assert result.success
    table = result.output_for_node("roster")
    assert list(table["name"]) == ["random", "heuristic", "llm"]
    assert "sk-not-a-real-key" not in table.to_json()


def test_the_stage_materializes_every_game_and_passes_its_checks(
    project_env: ProjectEnv, tmp_path: Path
) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text(SMALL)
    env = resources(project_env)
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(BENCHMARK_GAMES_NAME, list(DEMO_BENCHMARK_GAMES))
    assert BENCHMARK_GAMES.get_partition_keys(dynamic_partitions_store=instance) == list(
        DEMO_BENCHMARK_GAMES
    )
    store_benchmark(project_env.tables(), list(DEMO_BENCHMARK_GAMES))
    first = dg.materialize(
        [roster.roster], resources=env, run_config=roster_config(path), instance=instance
    )
    assert first.success
    for key in DEMO_BENCHMARK_GAMES:
        result = dg.materialize(
            [BENCHMARK, roster.roster, match_corpus.match_corpus],
            selection=[dg.AssetKey("match_corpus"), dg.AssetKey("match_moves")],
            partition_key=key,
            resources=env,
            run_config=TWO_RUNS,
            instance=instance,
        )
        assert result.success
        checks = result.get_asset_check_evaluations()
        assert sorted(c.check_name for c in checks) == sorted(match_corpus.CHECK_NAMES)
        assert all(c.passed for c in checks)
    matches = pd.read_parquet(project_env.tables() / "match_corpus" / "kuhn.parquet")
    moves = pd.read_parquet(project_env.tables() / "match_moves" / "kuhn.parquet")
    assert len(matches) == 2 * 2 and set(moves["match_id"]) == set(matches["match_id"])
    assert (project_env.tables() / "tournament" / "kuhn" / "journal.jsonl").exists()

    result = dg.materialize(
        [
            BENCHMARK,
            roster.roster,
            match_corpus.match_corpus,
            complete_pairs.complete_pairs,
            *complete_pairs.CHECKS,
        ],
        selection=[dg.AssetKey("complete_pairs")],
        resources=env,
        instance=instance,
    )
    assert result.success
    checks = result.get_asset_check_evaluations()
    assert {c.check_name: c.passed for c in checks} == {
        "both_seats_in_every_run": True,
        "unique_match_ids": True,
        "fallback_rate_within_bound": True,
    }
    pairs = pd.read_parquet(project_env.tables() / "complete_pairs.parquet")
    assert len(pairs) == len(DEMO_BENCHMARK_GAMES) * 4
    (mat,) = result.asset_materializations_for_node("complete_pairs")
    assert mat.metadata["dropped"].value == 0


PROGRAM = "def act(observation, legal_actions, rng):\n    return legal_actions[0]\n"


@pytest.mark.parametrize("with_program", [False, True], ids=["built-in bots", "with a program"])
def test_a_tournament_in_steps_records_the_matches_of_one_in_one_step(
    tmp_path: Path, with_program: bool
) -> None:
    """``steps``: the same match ids and rows (wall-clock columns aside), whether a game's
    matches are played in one step or dealt to several (built-in rosters play in a plain loop,
    rosters with a program on an event loop)."""
    (tmp_path / "prog.py").write_text(PROGRAM)
    path = tmp_path / "roster.yaml"
    path.write_text(SMALL + ("  - {name: prog, kind: program, path: prog.py}\n" * with_program))
    game = "leduc"
    tables = {}
    for steps in (1, 3):
        env = resources(ProjectEnv(data=tmp_path / f"data{steps}", dagster_home=tmp_path))
        instance = dg.DagsterInstance.ephemeral()
        instance.add_dynamic_partitions(BENCHMARK_GAMES_NAME, [game])
        store_benchmark(ProjectEnv(tmp_path / f"data{steps}", tmp_path).tables(), [])
        config = {"ops": {"roster": {"config": {"path": str(path)}}}}
        config["ops"]["match_corpus"] = {"config": {"runs": 3, "steps": steps}}
        result = dg.materialize(
            [BENCHMARK, roster.roster, match_corpus.match_corpus],
            selection=[dg.AssetKey(k) for k in ("roster", "match_corpus", "match_moves")],
            partition_key=game,
            resources=env,
            run_config=config,
            instance=instance,
        )
        assert result.success
        played = [
            e.step_key
            for e in result.all_events
            if e.is_step_success and e.step_key and ".play_matches[" in e.step_key
        ]
        assert len(played) == steps
        assert all(c.passed for c in result.get_asset_check_evaluations())
        tables[steps] = [
            pd.read_parquet(
                ProjectEnv(tmp_path / f"data{steps}", tmp_path).tables() / name / f"{game}.parquet"
            ).drop(columns=list(WALL_CLOCK_COLUMNS), errors="ignore")
            for name in ("match_corpus", "match_moves")
        ]
    (one_matches, one_moves), (split_matches, split_moves) = tables[1], tables[3]
    assert len(one_matches) == 3 * 2 * (3 if with_program else 1)  # runs x seats x pairs
    pd.testing.assert_frame_equal(split_matches, one_matches)
    pd.testing.assert_frame_equal(split_moves, one_moves)


def test_a_program_player_round_trips_and_plays(project_env: ProjectEnv, tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(PROGRAM)
    path = tmp_path / "roster.yaml"
    path.write_text(SMALL + "  - {name: prog, kind: program, path: prog.py}\n")
    parsed = load_roster(path)
    table = roster.roster_table(parsed)
    assert list(table.columns) == [c.name for c in roster.COLUMNS]
    row = table.set_index("name").loc["prog"]
    assert (row["kind"], row["model"], row["path"]) == (
        "program",
        "prog.py",
        str(tmp_path / "prog.py"),
    )
    assert row["code_sha256"] == parsed.player("prog").code_sha256
    assert roster.roster_from_table(table) == parsed

    env = resources(project_env)  # the demo profile: no API keys, programs allowed
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(BENCHMARK_GAMES_NAME, ["kuhn"])
    store_benchmark(project_env.tables(), [])
    assets = [BENCHMARK, roster.roster, match_corpus.match_corpus]
    config = {"ops": roster_config(path)["ops"] | TWO_RUNS["ops"]}
    played = dg.materialize(
        assets, partition_key="kuhn", resources=env, instance=instance,
        run_config=config,
    )  # fmt: skip
    assert played.success
    matches = pd.read_parquet(project_env.tables() / "match_corpus" / "kuhn.parquet")
    assert len(matches) == 3 * 2 * 2 and set(matches["status"]) == {"complete"}

    (tmp_path / "prog.py").write_text("def act(:\n")  # does not compile: refused on kuhn
    refused = dg.materialize(
        assets, partition_key="kuhn", resources=env, instance=instance,
        run_config=config, raise_on_error=False,
    )  # fmt: skip
    assert not refused.success
    (failure,) = refused.get_step_failure_events()
    assert "program 'prog' not admitted: does not load" in str(failure.step_failure_data.error)


def test_the_fallback_check_fails_above_the_bound() -> None:
    frame = pd.DataFrame(
        {
            "alice": ["x", "y"],
            "bob": ["y", "x"],
            "moves_alice": [100, 100],
            "moves_bob": [100, 100],
            "fallbacks_alice": [2, 0],
            "fallbacks_bob": [0, 0],
            "rethinks_alice": [0, 0],
            "rethinks_bob": [0, 0],
        }
    )
    result = complete_pairs.fallback_rate_within_bound(frame, {"g": frame})
    assert not result.passed
    problems = str(result.metadata["problems"].value)
    assert "x: fallback on 1.00% of 200 moves (bound 0.99%)" in problems
    assert pytest.approx(3 * 0.0033) == complete_pairs.MAX_FALLBACK_RATE


def _corpus_run(
    env: ProjectEnv, roster_path: Path, key: str, *, raise_on_error: bool = True
) -> dg.ExecuteInProcessResult:
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(BENCHMARK_GAMES_NAME, [key])
    return dg.materialize(
        [BENCHMARK, roster.roster, match_corpus.match_corpus],
        partition_key=key,
        resources=resources(env),
        instance=instance,
        run_config={"ops": roster_config(roster_path)["ops"] | TWO_RUNS["ops"]},
        raise_on_error=raise_on_error,
    )


def test_the_tournament_plays_the_spec_benchmark_games_records_not_a_regenerated_seed(
    project_env: ProjectEnv, tmp_path: Path
) -> None:
    """Seed 0 is another game under the paper configuration than under the default one; the
    corpus is the paper game's, as benchmark_games records it (issue 39, item 1)."""
    from engines.gbg.generator import generate, named_config

    path = tmp_path / "roster.yaml"
    path.write_text(SMALL)
    paper, default = generate(0, named_config("paper")), generate(0)
    assert paper.spec_hash != default.spec_hash
    store_benchmark(project_env.tables(), ["0"], config="paper")
    result = _corpus_run(project_env, path, "0")
    assert result.success
    matches = pd.read_parquet(project_env.tables() / "match_corpus" / "0.parquet")
    assert set(matches["spec_hash"]) == {paper.spec_hash}
    assert all(c.passed for c in result.get_asset_check_evaluations())


def test_a_seed_benchmark_games_does_not_list_is_refused_in_one_line(
    project_env: ProjectEnv, tmp_path: Path
) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text(SMALL)
    store_benchmark(project_env.tables(), ["4"])
    result = _corpus_run(project_env, path, "5", raise_on_error=False)
    assert not result.success
    (failure,) = result.get_step_failure_events()
    error = failure.step_failure_data.error
    while error.cause is not None:  # the innermost error: what the step raised
        error = error.cause
    message = error.message.strip()
    assert "game '5' is not in benchmark_games" in message and "\n" not in message
    assert not (project_env.tables() / "match_corpus" / "5.parquet").exists()


def test_a_corpus_of_another_game_than_benchmark_games_records_fails_the_check_by_name(
    project_env: ProjectEnv, tmp_path: Path
) -> None:
    """The planted mismatch: benchmark_games records one game for seed 4 and holds the spec
    of another (as a stage that re-derives a seed under an assumed configuration would
    play). The check compares with the recorded hash, so it fails, naming the game."""
    from engines.gbg.generator import generate, named_config

    path = tmp_path / "roster.yaml"
    path.write_text(SMALL)
    frame = store_benchmark(project_env.tables(), ["4"])
    recorded = generate(4, named_config("paper")).spec_hash
    frame.assign(spec_hash=[recorded]).to_parquet(project_env.tables() / "benchmark_games.parquet")
    result = _corpus_run(project_env, path, "4", raise_on_error=False)
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert not checks["spec_hash_matches_game"].passed
    assert checks["zero_sum"].passed and checks["unique_match_ids"].passed
    problems = str(checks["spec_hash_matches_game"].metadata["problems"].value)
    assert problems.startswith("game '4': 4 matches have a spec hash that differs")
    assert recorded in problems
