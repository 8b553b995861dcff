"""The ``openspiel`` benchmark group (issue 18): its games with their own partitions, the
tournament per game and the leaderboard, materialized in process; and the profile field."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pandas as pd
import pytest

from assets import openspiel, roster
from assets.partitions import OPENSPIEL_GAMES, OPENSPIEL_GAMES_NAME
from assets.resources import ProjectPaths, RosterFile, RunProfile
from assets.run_profiles import PROFILES
from engines.openspiel.spec import ADAPTER_VERSION, OPEN_SPIEL_VERSION
from engines.tournament.corpus_checks import paired_runs, zero_sum
from engines.tournament.pairs import complete_pairs
from pipelines.io_managers import ParquetIOManager
from tests.support import ProjectEnv

GAMES = ["openspiel:connect_four", "openspiel:liars_dice"]
ROSTER = (
    "players:\n"
    "  - {name: random, kind: builtin, agent: random}\n"
    "  - {name: mcts-8, kind: builtin, agent: mcts, params: {simulations: 8}}\n"
    "  - {name: mcts-60, kind: builtin, agent: mcts, params: {simulations: 60}}\n"
    "  - {name: heuristic, kind: builtin, agent: heuristic}\n"  # plays generated games only
)
RUNS = 3
PLAYERS = ("random", "mcts-8", "mcts-60")


def resources(env: ProjectEnv) -> dict[str, object]:
    paths = ProjectPaths(data_dir=str(env.data))
    return {
        "profile": RunProfile(name="demo"),
        "paths": paths,
        "io_manager": ParquetIOManager(paths=paths),
        "roster_file": RosterFile(),
    }


def test_the_demo_profile_has_no_openspiel_games_and_dumps_as_before() -> None:
    assert PROFILES["demo"].openspiel_games == ()
    assert "openspiel_games" not in PROFILES["demo"].model_dump()  # its release is unchanged
    paper = PROFILES["paper"].model_dump()["openspiel_games"]
    assert {"openspiel:chess", "openspiel:go(board_size=9)", "openspiel:hunl"} <= set(paper)
    table = openspiel.openspiel_table(list(paper))  # every paper game loads and is playable
    assert table["spec_hash"].is_unique and len(table) == len(paper)


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        (["kuhn"], "'kuhn' is not an OpenSpiel game"),
        (["openspiel:no_such_game"], "OpenSpiel has no game"),
        (["openspiel:go", "openspiel:go(board_size=19)"], "is the same game as"),
    ],
)
def test_a_bad_game_list_is_one_line(tokens: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        openspiel.openspiel_table(tokens)
    assert "\n" not in str(info.value)


def test_a_profile_without_openspiel_games_is_refused_in_one_line(
    project_env: ProjectEnv,
) -> None:
    result = dg.materialize(
        [openspiel.openspiel_games],
        resources=resources(project_env),
        instance=dg.DagsterInstance.ephemeral(),
        raise_on_error=False,
    )
    assert not result.success
    (failure,) = result.get_step_failure_events()
    assert "names no OpenSpiel games" in str(failure.step_failure_data.error)


def test_the_group_materializes_per_game_and_fits_a_leaderboard(
    project_env: ProjectEnv, tmp_path: Path
) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text(ROSTER)
    env = resources(project_env)
    instance = dg.DagsterInstance.ephemeral()
    config = {
        "ops": {
            "roster": {"config": {"path": str(path)}},
            "openspiel_games": {"config": {"games": GAMES}},
        }
    }
    first = dg.materialize(
        [roster.roster, openspiel.openspiel_games], resources=env, run_config=config,
        instance=instance,
    )  # fmt: skip
    assert first.success
    games = first.output_for_node("openspiel_games")
    assert list(games["game"]) == GAMES
    assert set(games["engine_version"]) == {
        f"openspiel-adapter-{ADAPTER_VERSION}/open_spiel-{OPEN_SPIEL_VERSION}"
    }
    assert OPENSPIEL_GAMES.get_partition_keys(dynamic_partitions_store=instance) == GAMES
    assert instance.get_dynamic_partitions(OPENSPIEL_GAMES_NAME) == GAMES

    corpora = []
    for key in GAMES:
        result = dg.materialize(
            [roster.roster, openspiel.openspiel_games, openspiel.openspiel_match_corpus],
            selection=[dg.AssetKey("openspiel_match_corpus")],
            partition_key=key,
            resources=env,
            run_config={"ops": {"openspiel_match_corpus": {"config": {"runs": RUNS}}}},
            instance=instance,
        )
        assert result.success
        checks = result.get_asset_check_evaluations()
        assert sorted(c.check_name for c in checks) == sorted(openspiel.CORPUS_CHECKS)
        assert all(c.passed for c in checks)
        matches = result.output_for_node("openspiel_match_corpus")
        assert set(matches["game"]) == {key}
        # heuristic plays no OpenSpiel game: three pairs of the other three
        assert set(matches["alice"]) == set(PLAYERS) and len(matches) == 3 * RUNS * 2
        corpora.append(matches)
    corpus = pd.concat(corpora, ignore_index=True)
    assert len(corpus) == len(GAMES) * 3 * RUNS * 2
    assert zero_sum(corpus).passed, zero_sum(corpus).message
    pairs, dropped = complete_pairs(corpus)
    assert len(pairs) == len(corpus) and sum(dropped.values()) == 0
    assert paired_runs(pairs).passed, paired_runs(pairs).message

    board = dg.materialize(
        [roster.roster, openspiel.openspiel_games, openspiel.openspiel_match_corpus,
         openspiel.openspiel_leaderboards],
        selection=[dg.AssetKey("openspiel_leaderboards")],
        resources=env,
        run_config={
            "ops": {"openspiel_leaderboards": {"config": {"bootstrap": 50, "subsets": 20}}}
        },
        instance=instance,
    )  # fmt: skip
    assert board.success
    assert all(c.passed for c in board.get_asset_check_evaluations())
    table = board.output_for_node("openspiel_leaderboards")
    assert set(table["model"]) == set(PLAYERS)
    alpha = dict(zip(table["model"], table["alpha"], strict=True))
    assert abs(sum(alpha.values())) < 1e-9  # sum-to-zero strengths
    assert alpha["mcts-60"] > alpha["random"]
    (mat,) = board.asset_materializations_for_node("openspiel_leaderboards")
    assert mat.metadata["games"].value == ", ".join(sorted(GAMES))
    assert "per_game_alpha" in mat.metadata and mat.metadata["runs"].value == len(GAMES) * 3 * RUNS


def test_a_new_game_list_replaces_the_partitions(project_env: ProjectEnv) -> None:
    """Materializing ``openspiel_games`` again with another list drops the games no longer
    named and adds the new ones (the keys are the tokens as given)."""
    instance = dg.DagsterInstance.ephemeral()
    for games in (GAMES, ["openspiel:liars_dice", "openspiel:hex(board_size=5)"]):
        result = dg.materialize(
            [openspiel.openspiel_games],
            resources=resources(project_env),
            run_config={"ops": {"openspiel_games": {"config": {"games": games}}}},
            instance=instance,
        )
        assert result.success
        assert sorted(instance.get_dynamic_partitions(OPENSPIEL_GAMES_NAME)) == sorted(games)
    bad = dg.materialize(
        [openspiel.openspiel_games],
        resources=resources(project_env),
        run_config={"ops": {"openspiel_games": {"config": {"games": ["openspiel:chess", "7"]}}}},
        instance=instance,
        raise_on_error=False,
    )
    assert not bad.success  # nothing half-written: the partitions stay as they were
    assert sorted(instance.get_dynamic_partitions(OPENSPIEL_GAMES_NAME)) == sorted(games)


def test_a_roster_without_two_openspiel_players_is_refused_in_one_line(
    project_env: ProjectEnv, tmp_path: Path
) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text(
        "players:\n"
        "  - {name: random, kind: builtin, agent: random}\n"
        "  - {name: heuristic, kind: builtin, agent: heuristic}\n"
    )
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(OPENSPIEL_GAMES_NAME, ["openspiel:connect_four"])
    assert dg.materialize(
        [roster.roster],
        resources=resources(project_env),
        run_config={"ops": {"roster": {"config": {"path": str(path)}}}},
        instance=instance,
    ).success
    result = dg.materialize(
        [roster.roster, openspiel.openspiel_games, openspiel.openspiel_match_corpus],
        selection=[dg.AssetKey("openspiel_match_corpus")],
        partition_key="openspiel:connect_four",
        resources=resources(project_env),
        instance=instance,
        raise_on_error=False,
    )
    assert not result.success
    (failure,) = result.get_step_failure_events()
    cause = failure.step_failure_data.error.cause  # the asset's own ValueError
    message = str(cause.message).strip()
    assert cause.cls_name == "ValueError"
    assert "no two players of the roster play openspiel:connect_four" in message
    assert "\n" not in message
