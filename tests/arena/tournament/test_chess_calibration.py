"""Calibrated chess Elo from a real tournament (issue 46, item 2): Stockfish at the chess field's
four (skill, nodes) levels, MCTS at 40 simulations, uniform random and an LLM served over the
loopback interface by an OpenAI-compatible server (``tests/doubles/scripted_server.py``, its
script reading the position from the prompt and answering a one-ply material-greedy move with
python-chess). Every player is calibrated on the measured Stockfish ladder with bootstrap
intervals; the ladder rises with the settings, the table states its reference, and the
family's anchored scales rank every entrant against the chess field.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import chess
import numpy as np
import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES
from arena.tournament.runner import run_tournament
from engines.stats.calibration import INSIDE, calibration_summary, calibration_table
from engines.stats.families import GameUnit
from engines.stats.openspiel_fields import (
    CHESS_LADDER,
    MCTS_MEMBER,
    STOCKFISH_LEVELS,
    family_anchored_tables,
)
from engines.tournament.pairs import complete_pairs
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("stockfish") is None and not Path("/usr/games/stockfish").is_file(),
        reason="stockfish not installed (make stockfish)",
    ),
]

RUNS = 2
GAME = "openspiel:chess"
LLM = "greedy-llm"
_FEN = re.compile(r"Position \(FEN\): (\S+ \S+ \S+ \S+ \S+ \S+)")
VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def greedy_move(request: Request) -> Answer:
    """The LLM's script: the capture of the most valuable piece, else the first legal move (UCI
    order); mate in one first."""
    messages = request.body.get("messages", [])
    fen = next(
        m.group(1)
        for message in reversed(messages)
        if (m := _FEN.search(str(message.get("content", ""))))
    )
    board = chess.Board(fen)
    moves = sorted(board.legal_moves, key=lambda m: m.uci())

    def gain(move: chess.Move) -> int:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return 100
        captured = board.piece_type_at(move.to_square)
        return VALUE.get(captured, 0) if captured is not None else 0

    best = max(moves, key=gain)  # the first of the best in UCI order
    return completion(json.dumps({"action": board.san(best)}))


def roster_of(url: str) -> dict[str, object]:
    levels: list[dict[str, object]] = [
        {"name": name, "kind": "builtin", "agent": "stockfish",
         "params": {"skill": skill, "nodes": nodes}}
        for name, skill, nodes in STOCKFISH_LEVELS
    ]  # fmt: skip
    players: list[dict[str, object]] = [
        {"name": "random", "kind": "builtin", "agent": "random"},
        {"name": MCTS_MEMBER, "kind": "builtin", "agent": "mcts", "params": {"simulations": 40}},
        *levels,
        {"name": LLM, "kind": "openai", "model": "greedy", "base_url": url,
         "settings": {"temperature": 0, "max_tokens": 16}},
    ]  # fmt: skip
    return {"players": players, "providers": {f"openai@{url}": {"concurrency": 1}}}


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    folder = tmp_path_factory.mktemp("chess_calibration")
    with ScriptedServer(greedy_move) as server:
        roster = parse_roster(roster_of(server.url))
        summary = run_tournament(roster, resolve_games([GAME]), RUNS, folder)
    assert summary.finished, summary.as_dict()
    frame = pd.read_parquet(folder / MATCHES)
    return frame.assign(game=frame["game"].astype(str))


@pytest.fixture(scope="module")
def table(matches: pd.DataFrame) -> pd.DataFrame:
    pairs, _ = complete_pairs(matches)
    return calibration_table(pairs, CHESS_LADDER, 500, np.random.default_rng(0))


def test_every_player_is_calibrated_with_an_interval(table: pd.DataFrame) -> None:
    print(table.drop(columns=["reference"]).round(1).to_string())  # the figures, with -s
    assert set(table["model"]) == {"random", MCTS_MEMBER, LLM, *CHESS_LADDER.levels}
    assert table["elo"].notna().all()
    assert (table["ci_low"] <= table["elo"]).all() and (table["elo"] <= table["ci_high"]).all()
    entrants = table.loc[table["role"] == "entrant"]
    assert (entrants["ci_high"] > entrants["ci_low"]).all()
    assert (entrants["deals_vs_ladder"] == 2 * RUNS * 4).all()


def test_the_ladder_rises_with_the_settings_and_states_its_reference(table: pd.DataFrame) -> None:
    summary = calibration_summary(table)
    assert summary["monotone"] is True
    assert str(summary["reference"]).startswith("measured ladder: Bradley-Terry among the levels")
    levels = table.loc[table["role"] == "level"].sort_values("level")
    assert list(levels["model"]) == list(CHESS_LADDER.levels)
    assert levels["elo"].iloc[0] == 0.0


def test_random_is_below_the_ladder_and_said_so(table: pd.DataFrame) -> None:
    rows = table.set_index("model")
    assert rows.loc["random", "elo"] < 0.0
    assert rows.loc["random", "calibration"] != INSIDE
    assert rows.loc["random", "elo"] == table["elo"].min()


def test_the_chess_field_ranks_every_entrant(matches: pd.DataFrame) -> None:
    anchored, notes = family_anchored_tables(matches, {GAME: GameUnit("chess", "result")}, 200, 0)
    assert notes == {}
    entrants = anchored.loc[anchored["role"] == "entrant"]
    assert list(entrants["model"]) == [LLM]
    assert entrants["rank"].tolist() == [1]
    assert bool(entrants["partial"].iloc[0]) == (entrants["status"].iloc[0] == "provisional")
    assert (anchored["field"] == "openspiel-chess-v1").all()


def test_the_leaderboards_metadata_states_the_calibration(matches: pd.DataFrame) -> None:
    """``openspiel_leaderboards``' metadata: the calibrated table, its reference, the order."""
    from assets.leaderboards import StatsConfig
    from assets.openspiel import calibration_metadata

    pairs, _ = complete_pairs(matches)
    settings = StatsConfig(bootstrap=200).analysis_settings()
    out = calibration_metadata(matches, pairs, settings)
    assert out["chess_ladder_monotone"] is True
    assert str(out["chess_calibration_reference"]).startswith("measured ladder")
    assert "stockfish-s14-n4000 | level | 3" in out["chess_calibration"].md_str
    assert out["family_anchored_notes"] == "none"
    assert "openspiel-chess-v1" in out["family_anchored"].md_str
