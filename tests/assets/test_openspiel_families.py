"""The openspiel group fits one metric per game family and publishes one release per unit, so no
released table fits results and chips together (issue 46, item 1).

A tournament of random and MCTS on connect four (results) and hold'em (chips): the leaderboard
asset's function rates each family alone; the release function publishes two releases, each
within one unit; a release whose games mix units is refused by name before any gate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from assets.leaderboards import StatsConfig
from assets.openspiel import (
    FAMILY_RATINGS,
    FAMILY_SUMMARY,
    build_openspiel_release,
    build_openspiel_releases,
    family_tables,
    game_units,
    openspiel_pairs,
    openspiel_release_tables,
    openspiel_table,
    unit_groups,
)
from assets.release import ReleaseConfig
from assets.roster import roster_table
from engines.stats.families import RATING_COLUMNS, SUMMARY_COLUMNS, GameUnit
from quality.schema import declared
from releases.store import GateFailed

GAMES = ["openspiel:connect_four", "openspiel:hunl"]
PLAYERS = [
    {"name": "random", "kind": "builtin", "agent": "random"},
    {"name": "mcts", "kind": "builtin", "agent": "mcts", "params": {"simulations": 8}},
]
SETTINGS = StatsConfig(bootstrap=40, subsets=10).analysis_settings()


@dataclass(frozen=True)
class Group:
    folder: Path
    games: pd.DataFrame
    corpus: dict[str, pd.DataFrame]
    moves: pd.DataFrame
    roster: pd.DataFrame


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Group:
    folder = tmp_path_factory.mktemp("families")
    roster = parse_roster({"players": PLAYERS})
    summary = run_tournament(roster, resolve_games(GAMES), 3, folder / "t")
    assert summary.finished
    matches = pd.read_parquet(folder / "t" / MATCHES)
    return Group(
        folder,
        openspiel_table(GAMES),
        {g: matches.loc[matches["game"] == g].reset_index(drop=True) for g in GAMES},
        pd.read_parquet(folder / "t" / MOVES),
        roster_table(roster),
    )


def test_units_come_from_openspiels_utility_bounds() -> None:
    units = game_units(["openspiel:chess", "openspiel:hunl", "openspiel:liars_dice"])
    assert units == {
        "openspiel:chess": GameUnit("chess", "result"),
        # blinds 1-2 (engines.openspiel.spec.HUNL_PARAMS): the big blind is 2
        "openspiel:hunl": GameUnit("universal_poker", "chips", 2),
        "openspiel:liars_dice": GameUnit("liars_dice", "result"),
    }
    assert unit_groups(["openspiel:hunl", "openspiel:chess", "openspiel:go"]) == {
        "chips": ["openspiel:hunl"],
        "result": ["openspiel:chess", "openspiel:go"],
    }


def test_the_family_tables_are_declared_as_the_statistics_write_them() -> None:
    assert declared(FAMILY_RATINGS).names == RATING_COLUMNS
    assert declared(FAMILY_SUMMARY).names == SUMMARY_COLUMNS


def test_each_family_is_rated_in_its_own_metric(group: Group) -> None:
    corpus = group.corpus
    ratings, summary = family_tables(openspiel_pairs(corpus), SETTINGS)
    by = ratings.set_index(["family", "model"])
    assert by.loc[("connect_four", "random"), "metric"] == "elo"
    assert by.loc[("universal_poker", "random"), "metric"] == "bb_per_100"
    # hold'em is zero-sum between two players: one's BB/100 is the other's loss
    poker = ratings.loc[ratings["family"] == "universal_poker", "value"]
    assert poker.sum() == pytest.approx(0, abs=1e-9)
    hunl = corpus["openspiel:hunl"]
    random_chips = np.where(
        hunl["alice"] == "random", hunl["alice_chip_delta"], hunl["bob_chip_delta"]
    )
    expected = 100 * random_chips.sum() / len(hunl) / 2
    assert by.loc[("universal_poker", "random"), "value"] == pytest.approx(expected)
    assert (ratings["ci_low"] <= ratings["value"]).all()
    assert (ratings["value"] <= ratings["ci_high"]).all()
    assert set(summary["model"]) == {"random", "mcts"} and (summary["families"] == 2).all()


def test_the_group_publishes_one_release_per_unit(group: Group) -> None:
    store = group.folder / "store"
    corpus = group.corpus
    ratings, _ = family_tables(openspiel_pairs(corpus), SETTINGS)
    rows, metadata = build_openspiel_releases(
        group.games,
        corpus,
        group.roster,
        group.moves,
        {"name": "demo"},
        ReleaseConfig(store=str(store)),
        SETTINGS,
        ratings=ratings,
    )
    assert len(rows) == 2 and all(m["newly_published"] for m in metadata)
    units = game_units(GAMES)
    for row in rows.to_dict("records"):
        folder = Path(row["path"])
        games = pd.read_parquet(folder / "tables" / "openspiel_games.parquet")["game"].tolist()
        assert len({units[g].unit for g in games}) == 1  # every fit of the release in one unit
        pairs = pd.read_parquet(folder / "tables" / "complete_pairs.parquet")
        assert set(pairs["game"]) == set(games)
        released = pd.read_parquet(folder / "tables" / "family_ratings.parquet")
        assert set(released["family"]) == {units[g].family for g in games}
        card = json.loads((folder / "integrity.json").read_text())
        assert card["passed"] and card["gates"]["reproduction"]["passed"]
    # the releases' family ratings together are the asset's
    both = pd.concat(
        [pd.read_parquet(Path(p) / "tables" / "family_ratings.parquet") for p in rows["path"]]
    )
    columns = ["family", "model", "value", "ci_low", "ci_high"]
    pd.testing.assert_frame_equal(
        both[columns].sort_values(["family", "model"]).reset_index(drop=True),
        ratings[columns].sort_values(["family", "model"]).reset_index(drop=True),
        check_dtype=False,
    )
    stale = ratings.assign(value=ratings["value"] + 1)
    with pytest.raises(ValueError, match="differ from openspiel_leaderboards'"):
        build_openspiel_releases(
            group.games,
            corpus,
            group.roster,
            group.moves,
            {"name": "demo"},
            ReleaseConfig(store=str(store)),
            SETTINGS,
            ratings=stale,
        )


def test_a_release_that_mixes_units_is_refused_before_any_gate(
    group: Group, tmp_path: Path
) -> None:
    corpus = group.corpus
    with pytest.raises(ValueError, match=r"^one release per unit: leaderboards .* 2 units"):
        openspiel_release_tables(
            group.games,
            corpus,
            group.roster,
            group.moves,
            SETTINGS,
        )
    # tables put together by hand, as the release of the whole group used to be
    one = openspiel_release_tables(
        group.games.iloc[[0]].reset_index(drop=True),
        {GAMES[0]: corpus[GAMES[0]]},
        group.roster,
        group.moves,
        SETTINGS,
    )
    mixed = {**one, "openspiel_games": group.games}
    store = tmp_path / "store"
    with pytest.raises(GateFailed, match=r"^gate units failed: leaderboards") as info:
        build_openspiel_release(mixed, {"name": "demo"}, ReleaseConfig(store=str(store)))
    assert "chips: openspiel:hunl; result: openspiel:connect_four" in str(info.value)
    assert "\n" not in str(info.value) and not store.exists()
