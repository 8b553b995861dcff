"""``genstrat game play`` draws chess, Go, connect four and Hex boards in Unicode (issue 46,
item 4), and each drawing is the position the moves so far give.

The drawings are read back off the screen and checked against the moves printed beside them,
by rules written out here independently of the adapter: python-chess replays a chess game's
SAN; a connect four disc falls to the lowest free cell of its column; a Go or Hex stone sits on
the point its move names (rows counted as the labels say, Go's columns skipping i).
"""

from __future__ import annotations

import re

import chess
import pytest

from engines.openspiel.boards import CHESS_GLYPHS, STONES
from pipelines.cli import main

GLYPH_PIECE = {glyph: letter for letter, glyph in CHESS_GLYPHS.items()}
MARK = {glyph: mark for mark, glyph in STONES.items()}


def play(
    token: str,
    seat: str,
    moves: int,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> list[str]:
    """Play ``moves`` of our moves (the first legal move each time) against the random bot,
    then quit; the screens shown before each of our moves."""
    screens: list[str] = []
    printed = [""]

    def answer(prompt: str = "") -> str:
        printed[0] += capsys.readouterr().out
        screen = printed[0]
        printed[0] = ""
        screens.append(screen)
        if len(screens) > moves:
            return "quit"
        menu = re.findall(r"Legal moves: (.*)\n", screen)[-1].split(", ")
        return str(menu[0])

    monkeypatch.setattr("builtins.input", answer)
    assert main(["game", "play", token, "--seat", seat, "--vs", "random", "--seed", "11"]) == 1
    return screens


def drawn_rows(screen: str, pattern: str) -> list[tuple[str, str]]:
    """(row label, the row's drawing) for each line of the last board on ``screen``."""
    last = screen.rsplit("Moves so far", 1)[0]
    return re.findall(pattern, last, re.MULTILINE)


def test_chess_is_drawn_from_blacks_side_as_python_chess_replays_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    screens = play("openspiel:chess", "alice", 6, capsys, monkeypatch)  # Alice is Black
    assert len(screens) == 7
    for screen in screens:
        rows = drawn_rows(screen, r"^([1-8]) │ (.*) │$")
        assert [r for r, _ in rows] == list("12345678")  # flipped: Black's side at the bottom
        assert re.search(r"^ +h g f e d c b a$", screen, re.MULTILINE)
        text = re.findall(r"Moves so far: (.*)\n", screen)[-1]
        board = chess.Board()
        for san in re.sub(r"\d+\. ", "", text).split():
            board.push_san(san)
        for rank, drawing in rows:
            cells = drawing.split(" ")[::-1]  # a to h
            for file, glyph in zip("abcdefgh", cells, strict=True):
                piece = board.piece_at(chess.parse_square(f"{file}{rank}"))
                assert GLYPH_PIECE.get(glyph) == (piece.symbol() if piece else None), (
                    file + rank,
                    screen,
                )
        fen = re.findall(r"FEN: (\S+)", screen)[-1]
        assert fen == board.board_fen()


def stones_named(screen: str, black: str, white: str) -> list[tuple[str, str]]:
    """(mark, coordinate) of every move named in the screen's move list."""
    text = re.findall(r"Moves so far: (.*)\n", screen)[-1]
    if text == "(none yet)":
        return []
    out = []
    for part in text.split(", "):
        side, move = part.rsplit(": ", 1)
        out.append(("x" if side == black else "o", move))
    return out


def test_go_stones_sit_on_the_points_their_moves_name(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    screens = play("openspiel:go(board_size=9)", "bob", 5, capsys, monkeypatch)
    files = "abcdefghj"
    for screen in screens:
        rows = drawn_rows(screen, r"^ ?([1-9]) (\S.*)$")
        assert [r for r, _ in rows] == list("987654321")
        assert re.search(r"^ +a b c d e f g h j$", screen, re.MULTILINE)
        grid = {r: d.split("─") for r, d in rows}
        assert grid["9"][0] == "┌" or grid["9"][0] in MARK  # the corner, unless a stone is on it
        named = stones_named(screen, "Black", "White")
        placed = [(m, c) for m, c in named if c != "pass"]
        stones = {
            f"{files[j]}{r}": MARK[p] for r, points in grid.items() for j, p in enumerate(points)
            if p in MARK
        }  # fmt: skip
        # No capture in five moves each on an empty 9x9 board: every stone is still there.
        assert stones == {c: m for m, c in placed}


def test_connect_four_discs_fall_to_the_lowest_free_cell(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    screens = play("openspiel:connect_four", "alice", 3, capsys, monkeypatch)  # no win yet
    for screen in screens:
        rows = re.findall(r"^│(.*)│$", screen.rsplit("Moves so far", 1)[0], re.MULTILINE)
        assert len(rows) == 6
        expected = [["·"] * 7 for _ in range(6)]
        for mark, column in stones_named(screen, "x", "o"):
            j = ord(column) - ord("a")
            i = max(i for i in range(6) if expected[i][j] == "·")
            expected[i][j] = STONES[mark]
        assert [r.split(" ") for r in rows] == expected


def test_hex_rows_shift_and_stones_sit_on_their_cells(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    screens = play("openspiel:hex(board_size=5)", "alice", 4, capsys, monkeypatch)
    for screen in screens:
        rows = drawn_rows(screen, r"^([1-5]) (.*)$")
        assert [r for r, _ in rows] == list("12345")
        cells = {}
        for k, (rank, drawing) in enumerate(rows):
            assert drawing.startswith(" " * k) and not drawing.startswith(" " * (k + 1))
            for j, glyph in enumerate(drawing.strip().split(" ")):
                cells[f"{'abcde'[j]}{rank}"] = glyph
        side_x = "x (connects top and bottom)"
        expected = {
            c: STONES[m] for m, c in stones_named(screen, side_x, "o (connects left and right)")
        }
        assert {c: g for c, g in cells.items() if g != "·"} == expected
