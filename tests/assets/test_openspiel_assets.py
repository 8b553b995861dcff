"""The ``openspiel`` benchmark group (issue 18): its games with their own partitions, the
tournament per game, the leaderboard and the group's release, materialized in process once per
module; and the profile field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import pandas as pd
import pytest

from assets import openspiel, roster
from assets.partitions import OPENSPIEL_GAMES, OPENSPIEL_GAMES_NAME
from assets.resources import ProjectPaths
from assets.run_profiles import PROFILES
from engines.openspiel.spec import ADAPTER_VERSION, OPEN_SPIEL_VERSION
from engines.tournament.corpus_checks import paired_runs, zero_sum
from engines.tournament.pairs import complete_pairs
from pipelines.cli import main
from releases.store import GateFailed, verify
from tests.assets.resources import resources
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


def test_a_profile_without_openspiel_games_materializes_an_empty_table_and_no_partitions(
    project_env: ProjectEnv,
) -> None:
    """Under the demo profile the root ``openspiel_games`` has nothing to do: the UI's
    ``roots(*)`` selects it beside the graph's roots, and it must succeed, empty."""
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(OPENSPIEL_GAMES.name or "", ["openspiel:chess"])
    result = dg.materialize(
        [openspiel.openspiel_games], resources=resources(project_env), instance=instance
    )
    assert result.success
    frame = result.output_for_node("openspiel_games")
    assert frame.empty and "game" in frame.columns
    assert instance.get_dynamic_partitions(OPENSPIEL_GAMES.name or "") == []
    (event,) = result.get_asset_materialization_events()
    assert "names no OpenSpiel games" in str(event.materialization.metadata["games"].value)


@dataclass(frozen=True)
class Group:
    """The group materialized once for the module: the roster, the games, one corpus per
    game, the leaderboard and the release, with the instance and the release store."""

    env: ProjectEnv
    instance: dg.DagsterInstance
    games: dg.ExecuteInProcessResult
    corpora: list[dg.ExecuteInProcessResult]
    board: dg.ExecuteInProcessResult
    release: dg.ExecuteInProcessResult
    store: Path
    run_config: dict[str, Any]


GROUP_ASSETS = [
    roster.roster,
    openspiel.openspiel_games,
    openspiel.openspiel_match_corpus,
    openspiel.openspiel_leaderboards,
    openspiel.openspiel_release,
    openspiel.openspiel_release_verifies,
]


def materialize_release(
    group_env: ProjectEnv, instance: dg.DagsterInstance, store: Path
) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        GROUP_ASSETS,
        selection=[dg.AssetKey("openspiel_release")],
        resources=resources(group_env),
        run_config={"ops": {"openspiel_release": {"config": {"store": str(store)}}}},
        instance=instance,
        raise_on_error=False,
    )


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Group]:
    """The whole group, materialized once: two games, three players, ``RUNS`` runs."""
    tmp_path = tmp_path_factory.mktemp("openspiel_group")
    env = ProjectEnv(data=tmp_path / "data", dagster_home=tmp_path / "dagster_home")
    store = tmp_path / "releases"
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("GENSTRAT_DATA", str(env.data))
        monkeypatch.setenv("GENSTRAT_RELEASES", str(store))
        monkeypatch.delenv("GENSTRAT_PROFILE", raising=False)
        path = tmp_path / "roster.yaml"
        path.write_text(ROSTER)
        instance = dg.DagsterInstance.ephemeral()
        config: dict[str, Any] = {
            "ops": {
                "roster": {"config": {"path": str(path)}},
                "openspiel_games": {"config": {"games": GAMES}},
            }
        }
        games = dg.materialize(
            [roster.roster, openspiel.openspiel_games], resources=resources(env),
            run_config=config, instance=instance,
        )  # fmt: skip
        corpora = [
            dg.materialize(
                GROUP_ASSETS[:3],
                selection=[dg.AssetKey("openspiel_match_corpus")],
                partition_key=key,
                resources=resources(env),
                run_config={"ops": {"openspiel_match_corpus": {"config": {"runs": RUNS}}}},
                instance=instance,
            )
            for key in GAMES
        ]
        board = dg.materialize(
            GROUP_ASSETS[:4],
            selection=[dg.AssetKey("openspiel_leaderboards")],
            resources=resources(env),
            run_config={
                "ops": {"openspiel_leaderboards": {"config": {"bootstrap": 50, "subsets": 20}}}
            },
            instance=instance,
        )
        release = materialize_release(env, instance, store)
        yield Group(env, instance, games, corpora, board, release, store, config)


def test_the_group_materializes_per_game_and_fits_a_leaderboard(group: Group) -> None:
    instance = group.instance
    assert group.games.success
    games = group.games.output_for_node("openspiel_games")
    assert list(games["game"]) == GAMES
    assert set(games["engine_version"]) == {
        f"openspiel-adapter-{ADAPTER_VERSION}/open_spiel-{OPEN_SPIEL_VERSION}"
    }
    assert OPENSPIEL_GAMES.get_partition_keys(dynamic_partitions_store=instance) == GAMES
    assert instance.get_dynamic_partitions(OPENSPIEL_GAMES_NAME) == GAMES

    corpora = []
    for key, result in zip(GAMES, group.corpora, strict=True):
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

    board = group.board
    assert board.success
    assert all(c.passed for c in board.get_asset_check_evaluations())
    # one metric per family (issue 46): both games are win/draw/loss games, so Elo in each,
    # anchored at the family's lowest player
    table = board.output_for_node("openspiel_leaderboards")
    assert set(table["family"]) == {"connect_four", "liars_dice"}
    assert set(table["metric"]) == {"elo"} and set(table["model"]) == set(PLAYERS)
    four = table.loc[table["family"] == "connect_four"].set_index("model")
    assert four.loc["mcts-60", "value"] > four.loc["random", "value"]
    assert four["value"].min() == 0.0 and four.loc[four["anchor"].iloc[0], "value"] == 0.0
    (mat,) = board.asset_materializations_for_node("openspiel_leaderboards")
    assert mat.metadata["games"].value == ", ".join(sorted(GAMES))
    assert mat.metadata["families"].value == "connect_four, liars_dice"
    assert "family_summary" in mat.metadata and mat.metadata["runs"].value == len(GAMES) * 3 * RUNS


def released(folder: Path, name: str) -> pd.DataFrame:
    return pd.read_parquet(folder / "tables" / f"{name}.parquet")


def test_the_group_release_is_published_verifies_and_holds_the_assets(
    group: Group, capsys: pytest.CaptureFixture[str]
) -> None:
    assert group.release.success
    (check,) = group.release.get_asset_check_evaluations()
    assert check.check_name == "published_release_verifies" and check.passed
    row = group.release.output_for_node("openspiel_release").iloc[0]
    folder = Path(row["path"])
    assert folder.parent == group.store and folder.name == row["release_id"]
    assert bool(row["newly_published"]) and row["counted_matches"] == len(GAMES) * 3 * RUNS * 2
    # verify passes, as a function and as `genstrat release verify`
    assert verify(folder).release_id == row["release_id"]
    assert main(["release", "verify", row["release_id"], "--store", str(group.store)]) == 0
    assert row["release_id"] in capsys.readouterr().out
    assert main(["release", "list", "--store", str(group.store)]) == 0
    assert "[openspiel]" in capsys.readouterr().out
    assert main(["release", "show", str(folder), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["benchmark"] == "openspiel"

    # the manifest tells it apart from the generated benchmark's, and records its engine
    manifest = json.loads((folder / "manifest.json").read_text())
    games = group.games.output_for_node("openspiel_games")
    assert manifest["benchmark"] == "openspiel"
    assert manifest["engine_version"] == games["engine_version"].iloc[0]
    assert manifest["analysis"]["n_boot"] == 50  # the settings openspiel_leaderboards recorded
    assert {p["name"] for p in manifest["roster"]} == set(PLAYERS)  # heuristic did not play
    (entry,) = json.loads((group.store / "index.json").read_text())["releases"]
    assert entry["benchmark"] == "openspiel" and entry["release_id"] == row["release_id"]
    assert "`openspiel` benchmark group" in (folder / "README.md").read_text()
    assert "openspiel_games" in (folder / "SCHEMA.md").read_text()

    # every gate ran and passed, the matches attested to the games' spec hashes
    card = json.loads((folder / "integrity.json").read_text())
    assert all(g["passed"] for g in card["gates"].values()), card["gates"]
    matches = len(GAMES) * 3 * RUNS * 2
    assert card["gates"]["attestation"]["figures"]["match_corpus"]["matches"] == matches
    assert set(card["gates"]["zero_sum"]["figures"]) == {"match_corpus", "complete_pairs"}
    assert (
        "recomputed from the released data: leaderboards"
        in card["gates"]["reproduction"]["message"]
    )

    # its tables equal the assets
    corpus = pd.concat(
        [r.output_for_node("openspiel_match_corpus") for r in group.corpora], ignore_index=True
    )
    shipped = released(folder, "match_corpus")
    assert sorted(shipped["match_id"]) == sorted(corpus["match_id"])
    assert zero_sum(shipped).passed and "duration_s" not in shipped.columns  # no wall clock
    pairs = released(folder, "complete_pairs")
    assert sorted(pairs["match_id"]) == sorted(corpus["match_id"])
    assert paired_runs(pairs).passed
    board = group.board.output_for_node("openspiel_leaderboards")
    columns = ["family", "model", "value", "ci_low", "ci_high", "rank", "z"]
    pd.testing.assert_frame_equal(
        released(folder, "family_ratings")[columns], board[columns], check_dtype=False
    )
    assert set(released(folder, "family_summary")["model"]) == set(PLAYERS)
    assert set(released(folder, "leaderboards")["model"]) == set(PLAYERS)
    assert set(released(folder, "per_game_alpha")["game_seed"]) == set(games["game_seed"])
    assert len(released(folder, "pairwise")) and len(released(folder, "bradley_terry"))
    pd.testing.assert_frame_equal(
        released(folder, "openspiel_games")[["game", "spec_hash", "engine_version"]],
        games[["game", "spec_hash", "engine_version"]],
    )
    rethinks = released(folder, openspiel.RETHINKS)  # built-in agents: none allowed or taken
    assert len(rethinks) == len(GAMES) * len(PLAYERS)
    assert set(rethinks["player"]) == set(PLAYERS) and set(rethinks["game"]) == set(GAMES)
    assert (rethinks[["rethinks_allowed", "rethinks"]] == 0).all().all()
    moves = released(folder, "match_moves")
    assert set(moves["match_id"]) == set(corpus["match_id"])
    assert len(moves) == int(corpus["n_moves"].sum()) and "latency_s" not in moves.columns


def test_materializing_the_release_again_publishes_the_same_id(group: Group) -> None:
    first = group.release.output_for_node("openspiel_release").iloc[0]
    again = materialize_release(group.env, group.instance, group.store)
    assert again.success
    row = again.output_for_node("openspiel_release").iloc[0]
    assert row["release_id"] == first["release_id"] and not bool(row["newly_published"])
    assert len(json.loads((group.store / "index.json").read_text())["releases"]) == 1


def release_inputs(group: Group) -> dict[str, pd.DataFrame]:
    return openspiel.openspiel_release_tables(
        group.games.output_for_node("openspiel_games"),
        {
            key: result.output_for_node("openspiel_match_corpus")
            for key, result in zip(GAMES, group.corpora, strict=True)
        },
        group.games.output_for_node("roster"),
        openspiel.tournament_moves(ProjectPaths(data_dir=str(group.env.data)), GAMES),
    )


def store_state(store: Path) -> tuple[bytes, list[str]]:
    index = store / "index.json"
    return (
        index.read_bytes() if index.exists() else b"",
        sorted(p.name for p in store.iterdir()) if store.exists() else [],
    )


@pytest.mark.parametrize("store_kind", ["published", "empty"])
def test_a_non_zero_sum_row_fails_its_gate_by_name_and_publishes_nothing(
    group: Group, tmp_path: Path, store_kind: str
) -> None:
    tables = release_inputs(group)
    corpus = tables["match_corpus"].copy()
    corpus.loc[0, "bob_chip_delta"] = corpus.loc[0, "bob_chip_delta"] + 1  # chips from nowhere
    tables["match_corpus"] = corpus
    store = group.store if store_kind == "published" else tmp_path / "store"
    before = store_state(store)
    config = openspiel.ReleaseConfig(store=str(store))
    with pytest.raises(GateFailed, match=r"^gate zero_sum failed: match_corpus: ") as info:
        openspiel.build_openspiel_release(tables, {"name": "demo"}, config)
    assert "\n" not in str(info.value)
    assert store_state(store) == before  # nothing published, the index as it was


def test_matches_of_a_game_not_in_the_games_table_fail_attestation(
    group: Group, tmp_path: Path
) -> None:
    tables = release_inputs(group)
    games = tables["openspiel_games"]
    tables["openspiel_games"] = games.loc[games["game"] != "openspiel:liars_dice"]
    config = openspiel.ReleaseConfig(store=str(tmp_path / "store"))
    with pytest.raises(GateFailed, match=r"^gate attestation failed: complete_pairs: .*outside"):
        openspiel.build_openspiel_release(tables, {"name": "demo"}, config)
    assert store_state(tmp_path / "store") == (b"", [])


def test_a_game_without_its_moves_journal_is_refused_in_one_line(tmp_path: Path) -> None:
    paths = ProjectPaths(data_dir=str(tmp_path / "data"))
    with pytest.raises(ValueError, match=r"^openspiel:chess: no moves journal at ") as info:
        openspiel.tournament_moves(paths, ["openspiel:chess"])
    assert "\n" not in str(info.value)


def test_games_under_two_engine_versions_are_refused_in_one_line() -> None:
    games = pd.DataFrame({"engine_version": ["openspiel-adapter-1/x", "openspiel-adapter-2/x"]})
    with pytest.raises(ValueError, match="2 engine versions, not one"):
        openspiel.engine_version_of(games)


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


def test_two_players_get_a_leaderboard(project_env: ProjectEnv, tmp_path: Path) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text("players:\n" + "".join(ROSTER.splitlines(keepends=True)[1:3]))  # random, mcts-8
    instance = dg.DagsterInstance.ephemeral()
    game = "openspiel:connect_four"
    config = {
        "ops": {
            "roster": {"config": {"path": str(path)}},
            "openspiel_games": {"config": {"games": [game]}},
        }
    }
    dg.materialize(
        [roster.roster, openspiel.openspiel_games], resources=resources(project_env),
        run_config=config, instance=instance,
    )  # fmt: skip
    dg.materialize(
        GROUP_ASSETS[:3], selection=[dg.AssetKey("openspiel_match_corpus")], partition_key=game,
        resources=resources(project_env), instance=instance,
        run_config={"ops": {"openspiel_match_corpus": {"config": {"runs": 2}}}},
    )  # fmt: skip
    board = dg.materialize(
        GROUP_ASSETS[:4], selection=[dg.AssetKey("openspiel_leaderboards")],
        resources=resources(project_env), instance=instance,
        run_config={"ops": {"openspiel_leaderboards": {"config": {"bootstrap": 20, "subsets": 5}}}},
    ).output_for_node("openspiel_leaderboards")  # fmt: skip
    assert set(board["model"]) == {"random", "mcts-8"}
    # two players: the lower is the anchor at 0 Elo, the summary's z is -1 and +1
    assert sorted(board["value"])[0] == 0.0 and sorted(board["z"]) == [-1.0, 1.0]
