"""A tournament of reference engines on OpenSpiel games (issue 18): random, MCTS and Stockfish at
two skill levels on chess, Go 9x9, connect four and heads-up no-limit hold'em, paired seats.

Stockfish plays chess only, so the schedule leaves it out of the other games; everything is
seeded (MCTS and Stockfish's skill weakening from the seat's generator, Stockfish's search by
node and depth limits with one thread and a cleared hash), so the corpus, and the order it
gives, is the same on every run.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament, tournament_schedule
from engines.stats.leaderboard import overall_leaderboard
from engines.tournament.corpus_checks import paired_runs, zero_sum
from engines.tournament.pairs import complete_pairs

pytestmark = [
    pytest.mark.slow,  # about a minute on one core (the chess games of MCTS)
    pytest.mark.skipif(
        shutil.which("stockfish") is None and not Path("/usr/games/stockfish").is_file(),
        reason="stockfish not installed (make stockfish)",
    ),
]

# Two runs: MCTS at 40 simulations splits the first run with random on chess and wins both
# deals of the second (seeded, so always so); one run could not order them.
RUNS = 2
GAMES = [
    "openspiel:chess",
    "openspiel:go(board_size=9)",
    "openspiel:connect_four",
    "openspiel:hunl",
]
PLAYERS = [
    {"name": "random", "kind": "builtin", "agent": "random"},
    {"name": "mcts", "kind": "builtin", "agent": "mcts", "params": {"simulations": 40}},
    # Two skill levels, each a documented (skill, nodes) pair (arena/reference_engines/).
    {
        "name": "stockfish-s0",
        "kind": "builtin",
        "agent": "stockfish",
        "params": {"skill": 0, "nodes": 1000},
    },
    {
        "name": "stockfish-s8",
        "kind": "builtin",
        "agent": "stockfish",
        "params": {"skill": 8, "nodes": 1000},
    },
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, pd.DataFrame]:
    folder = tmp_path_factory.mktemp("openspiel_tournament")
    roster = parse_roster({"players": PLAYERS})
    games = resolve_games(GAMES)
    summary = run_tournament(roster, games, RUNS, folder)
    assert summary.finished, summary.as_dict()
    assert summary.status_counts == {"complete": summary.scheduled}
    return pd.read_parquet(folder / MATCHES), pd.read_parquet(folder / MOVES)


def test_stockfish_plays_only_chess_and_everyone_else_everything() -> None:
    roster = parse_roster({"players": PLAYERS})
    schedule = tournament_schedule(roster, resolve_games(GAMES), 1)
    per_game = pd.Series([m.game.token for m in schedule]).value_counts().to_dict()
    # chess: 6 pairs x 2 deals; the others: random v mcts, 2 deals each
    assert per_game == {"openspiel:chess": 12, **{g: 2 for g in GAMES[1:]}}
    assert len(tournament_schedule(roster, resolve_games(GAMES), RUNS)) == 2 * len(schedule)
    for m in schedule:
        if m.game.token != "openspiel:chess":
            assert set(m.players) == {"random", "mcts"}


def test_the_fingerprint_holds_each_engine_version_and_setting() -> None:
    roster = parse_roster({"players": PLAYERS})
    prints = {p["name"]: roster.fingerprint(str(p["name"])) for p in PLAYERS}
    assert len(set(prints.values())) == 4
    behaviour = roster.player("stockfish-s8").behaviour()  # type: ignore[call-arg]
    assert behaviour["version"] == "stockfish-15.1/uci-nodes-1/skill-pick-1"
    assert behaviour["params"] == {"skill": 8, "nodes": 1000}
    assert roster.player("mcts").behaviour()["version"].startswith("mcts-1/open_spiel-2.0.2")  # type: ignore[call-arg]
    assert "version" not in roster.player("random").behaviour()  # type: ignore[call-arg]


def test_runs_are_paired_and_the_corpus_zero_sum(corpus: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    matches, moves = corpus
    assert zero_sum(matches).passed, zero_sum(matches).message
    pairs, _ = complete_pairs(matches)
    assert len(pairs) == len(matches) == 18 * RUNS
    assert paired_runs(pairs).passed, paired_runs(pairs).message
    for _, run in matches.groupby("run_id"):
        assert sorted(run["deal"]) == [0, 1]
        first, second = run.sort_values("deal").itertuples()
        assert (first.alice, first.bob) == (second.bob, second.alice)
    # every recorded move was on the menu it was chosen from
    assert all(
        a in list(legal) for a, legal in zip(moves["action"], moves["legal_actions"], strict=True)
    )
    poker = matches[matches["game"] == "openspiel:hunl"]
    assert poker["alice_chip_delta"].abs().max() <= 200  # stacks of 200 chips


def test_the_chess_leaderboard_orders_the_skill_levels_over_mcts_over_random(
    corpus: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    matches, _ = corpus
    chess = matches[matches["game"] == "openspiel:chess"]
    board = overall_leaderboard(chess, np.random.default_rng(0), n_boot=200)
    alpha = dict(zip(board["model"], board["alpha"], strict=True))
    assert alpha["stockfish-s8"] > alpha["stockfish-s0"] > alpha["mcts"] > alpha["random"]
    # the stronger level wins both deals of both runs against the weaker
    levels = chess[chess["alice"].str.startswith("stockfish") & chess["bob"].str.startswith("s")]
    wins = np.where(
        levels["alice"] == "stockfish-s8", levels["margin_alice"], -levels["margin_alice"]
    )
    assert len(levels) == 2 * RUNS and (wins > 0).all()
    print(json.dumps({k: round(v, 3) for k, v in alpha.items()}))
