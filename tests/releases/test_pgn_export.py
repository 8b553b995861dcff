"""Every chess game of an openspiel release is exported in PGN, and python-chess reads each back
to the position OpenSpiel reached (issue 46, item 4).

The release (``tests.releases.openspiel_release``) has games between scripted models and
against random; python-chess is the independent reader: it parses the files, replays their moves
by its own rules, and its final position must be OpenSpiel's (``chess_pgn.final_fen``). A
forfeit, which such a release cannot hold yet (see that module), is written on its own.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import pandas as pd
import pytest

from engines.openspiel import parse_openspiel
from engines.openspiel.pgn import LINE, match_pgn
from tests.releases.openspiel_release import Published, publish_chess_and_go

SEVEN_TAGS = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Published]:
    yield publish_chess_and_go(tmp_path_factory.mktemp("openspiel_pgn"))


def read(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors, game.errors if game else text
    return game


def fen_fields(fen: str) -> tuple[str, ...]:
    """Placement, side to move, castling, clocks: the en passant field is left out (OpenSpiel
    and python-chess differ on whether to name a square no pawn can take on)."""
    fields = fen.split(" ")
    return (fields[0], fields[1], fields[2], fields[4], fields[5])


def test_every_released_chess_game_round_trips_through_python_chess(
    published: Published,
) -> None:
    folder = published.folder
    matches = pd.read_parquet(folder / "tables" / "match_corpus.parquet")
    chess_matches = matches.loc[matches["game"] == "openspiel:chess"]
    table = pd.read_parquet(folder / "tables" / "chess_pgn.parquet")
    assert sorted(table["match_id"]) == sorted(chess_matches["match_id"]) and len(table) == 6
    by_id = chess_matches.set_index("match_id")
    terminations = set()
    for row in table.to_dict("records"):
        path = folder / row["path"]
        assert path.read_text(encoding="utf-8") == row["pgn"]
        assert all(len(line) <= LINE for line in row["pgn"].splitlines())
        game = read(row["pgn"])
        assert list(game.headers)[:7] == SEVEN_TAGS
        match = by_id.loc[row["match_id"]]
        assert game.headers["White"] == match["bob"] and game.headers["Black"] == match["alice"]
        assert game.headers["MatchId"] == row["match_id"]
        board = game.end().board()
        assert len(list(game.mainline_moves())) == row["plies"] == match["n_moves"]
        assert fen_fields(board.fen()) == fen_fields(row["final_fen"])
        # the result is the match's, and how it ended is what python-chess sees on the board
        white = int(match["bob_chip_delta"])
        assert game.headers["Result"] == {1: "1-0", -1: "0-1", 0: "1/2-1/2"}[white]
        termination = game.headers["Termination"]
        terminations.add(termination)
        if termination == "normal":
            assert board.is_game_over(claim_draw=True) or board.can_claim_draw()
            if board.is_checkmate():  # the side to move is mated
                assert white == (-1 if board.turn == chess.WHITE else 1)
        else:
            assert termination == "adjudication" and row["plies"] == 400 and white == 0
            assert not board.is_game_over()
    assert "normal" in terminations and terminations <= {"normal", "adjudication"}


def test_the_collected_file_holds_every_game_in_order(published: Published) -> None:
    table = pd.read_parquet(published.folder / "tables" / "chess_pgn.parquet")
    text = (published.folder / "pgn" / "games.pgn").read_text(encoding="utf-8")
    stream = io.StringIO(text)
    ids = []
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors
        ids.append(game.headers["MatchId"])
    assert ids == list(table["match_id"])
    manifest = (published.folder / "manifest.json").read_text(encoding="utf-8")
    for path in [*table["path"], "pgn/games.pgn"]:
        assert f'"path": "{path}"' in manifest  # hashed with the release's files


def test_scholars_mate_in_pgn() -> None:
    """A known game: the Scholar's mate, 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#, 1-0."""
    spec = parse_openspiel("openspiel:chess")
    uci = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
    moves = [{"action": u, "seat": "bob" if k % 2 == 0 else "alice"} for k, u in enumerate(uci)]
    match = {
        "match_id": "m1", "run_id": "r1", "run_index": 0, "deal": 1, "play_seed": 5,
        "alice": "black-player", "bob": 'white "player"', "status": "complete",
        "alice_chip_delta": -1, "bob_chip_delta": 1, "n_moves": 7,
    }  # fmt: skip
    text, summary = match_pgn(spec, match, moves)
    assert text.endswith("\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n")
    assert '[White "white \\"player\\""]' in text and '[Termination "normal"]' in text
    game = read(text)
    # Escaped as the PGN standard says (section 7: \" and \\); python-chess 1.11.2 keeps a
    # tag's text as written (chess/pgn.py, TAG_REGEX), so unescaping it gives the name.
    raw = game.headers["White"]
    assert raw.replace('\\"', '"').replace("\\\\", "\\") == 'white "player"'
    assert game.end().board().is_checkmate()
    assert summary == {
        "result": "1-0",
        "termination": "normal",
        "plies": 7,
        "final_fen": "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",
    }
    with pytest.raises(ValueError, match=r"move 2 \(e2e4\) is not legal"):
        match_pgn(spec, {**match, "n_moves": 2}, [moves[0], moves[0]])
    with pytest.raises(ValueError, match="records 7 moves, its moves table 6"):
        match_pgn(spec, match, moves[:6])


def test_a_forfeit_and_a_match_without_result() -> None:
    spec = parse_openspiel("openspiel:chess")
    moves = [
        {"action": "e2e4", "seat": "bob"},
        {"action": "", "seat": "alice"},  # the move that ended the match: no action
    ]
    match = {
        "match_id": "m2", "run_id": "r2", "run_index": 1, "deal": 0, "play_seed": 9,
        "alice": "forfeiter", "bob": "winner", "status": "forfeit",
        "error": "Forfeit by forfeiter: /home/someone/secret path", "n_moves": 1,
        "alice_chip_delta": -1, "bob_chip_delta": 1,
    }  # fmt: skip
    text, summary = match_pgn(spec, match, moves)
    game = read(text)
    assert game.headers["Result"] == "1-0" and game.headers["Termination"] == "rules infraction"
    assert game.end().comment == "Black forfeits: no legal move after its rethinks"
    assert "/home/someone" not in text  # the match's error text is not copied
    assert summary["plies"] == 1
    failed = {**match, "status": "timeout", "alice_chip_delta": None, "bob_chip_delta": None}
    text, summary = match_pgn(spec, failed, moves)
    game = read(text)
    assert game.headers["Result"] == "*" and game.headers["Termination"] == "unterminated"
    assert summary["result"] == "*"


def test_the_viewer_links_each_chess_deal_to_its_pgn(published: Published) -> None:
    page = (published.folder / "report" / "viewer.html").read_text(encoding="utf-8")
    table = pd.read_parquet(published.folder / "tables" / "chess_pgn.parquet")
    for path in table["path"]:
        assert re.search(rf'"pgn":"\.\./{re.escape(path)}"', page), path
    assert Path(published.folder / "pgn").is_dir()
