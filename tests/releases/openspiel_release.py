"""A small published release of the openspiel group with chess and Go games, for the tests of the
PGN export and the viewer's boards (issue 46, item 4).

Players: ``random``; ``careful``, a scripted model (OpenAI-compatible server on the loopback
interface) that plays chess by python-chess from the FEN in its prompt (a mate if it has one,
else a capture, else the first move in SAN order) and Go by the first point of the menu; and
``hasty``, the same model but for its first reply to every move, an illegal move (a rethink
each move). One run per matchup on chess and Go 9x9: 6 matches per game (three pairings, both
seats).

No player forfeits here: a forfeited match's last move row has no action, which the release's
``match_moves`` expectations refuse (``quality.expectations``: ``action`` not null), so such a
release does not publish; ``tests/releases/test_pgn_export.py`` writes a forfeit's PGN on its
own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import chess
import pandas as pd

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from assets.leaderboards import StatsConfig
from assets.openspiel import build_openspiel_release, openspiel_release_tables, openspiel_table
from assets.release import ReleaseConfig
from assets.roster import roster_table
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion

GAMES = ["openspiel:chess", "openspiel:go(board_size=9)"]
FEN = re.compile(r"Position \(FEN\): (\S+ [wb] \S+ \S+ \d+ \d+)")
MENU = re.compile(r"Legal moves: (.*)")


def careful_chess(fen: str) -> str:
    """A mate if there is one, else a capture, else the first legal move in SAN order."""
    board = chess.Board(fen)
    moves = sorted(board.legal_moves, key=board.san)
    for move in moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return board.san(move)
    captures = [m for m in moves if board.is_capture(m)]
    return board.san(captures[0] if captures else moves[0])


def script(request: Request) -> Answer:
    body = request.body
    prompt = next(str(m["content"]) for m in reversed(body["messages"]) if m["role"] == "user")
    first = next(str(m["content"]) for m in body["messages"] if m["role"] == "user")
    if body.get("model") == "hasty" and len(body["messages"]) <= 2:  # the first ask of a move
        return completion(json.dumps({"action": "Ke9"}))
    fen = FEN.search(first)
    if fen is not None:
        return completion(json.dumps({"action": careful_chess(fen.group(1))}))
    menu = MENU.search(prompt) or MENU.search(first)
    assert menu is not None, prompt
    points = [m for m in menu.group(1).split(", ") if m != "pass"]
    return completion(json.dumps({"action": points[0] if points else "pass"}))


@dataclass(frozen=True)
class Published:
    """The published release's folder and the tables it was built from."""

    folder: Path
    tables: dict[str, pd.DataFrame]


def publish_chess_and_go(root: Path) -> Published:
    """Play the tournament into ``root/tournament`` and publish its release into
    ``root/releases``."""
    folder = root / "tournament"
    with ScriptedServer(script) as server:
        url = server.url
        roster = parse_roster(
            {
                "players": [
                    {"name": "random", "kind": "builtin", "agent": "random"},
                    {"name": "careful", "kind": "openai", "model": "careful", "base_url": url},
                    {"name": "hasty", "kind": "openai", "model": "hasty", "base_url": url},
                ],
                "providers": {f"openai@{url}": {"concurrency": 4, "max_retries": 0}},
            }
        )
        summary = run_tournament(roster, resolve_games(GAMES), 1, folder)
    assert summary.finished, summary.as_dict()
    matches = pd.read_parquet(folder / MATCHES)
    corpus = {g: matches.loc[matches["game"] == g].reset_index(drop=True) for g in GAMES}
    stats = StatsConfig(bootstrap=50, subsets=20)
    tables = openspiel_release_tables(
        openspiel_table(GAMES),  # chess and Go: both counted in results, one release
        corpus,
        roster_table(roster),
        pd.read_parquet(folder / MOVES),
        stats.analysis_settings(),
    )
    row, _ = build_openspiel_release(
        tables,
        {"name": "demo"},
        ReleaseConfig(store=str(root / "releases")),
        stats.analysis_settings(),
    )
    return Published(Path(row["path"].iloc[0]), tables)
