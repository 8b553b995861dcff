"""Boards people can see (issue 46, item 4): the position of a chess, Go, connect four or Hex deal
as a grid of cells, drawn in Unicode for the terminal (``genstrat game play``) and packed as
JSON for the release report's match viewer (``releases.report``, which draws it as SVG).

A :class:`Board` is read from OpenSpiel's own text of the state, never from our move names, so
what it shows is what OpenSpiel plays:

- chess: the piece placement of the FEN (``ps.board().to_fen()``), rank 8 first; a cell is a
  FEN letter (``K`` a white king, ``k`` a black one) or ``.``;
- Go: the grid of ``str(ps)`` (``X`` black, ``O`` white, ``+`` empty; columns A-T without I),
  top row first; a cell is ``x`` (Black, OpenSpiel's player 0), ``o`` (White) or ``.``;
- connect four: ``str(ps)``'s rows, top first: ``x`` (the first player), ``o``, ``.``;
- Hex: ``str(ps)``'s rows of the rhombus, top first (each row is drawn shifted half a cell right
  of the one above): ``x`` (the first player, top to bottom), ``o`` (left to right), ``.``.

Cell letters are the same in every family (``.`` empty), so the viewer's script needs one reader;
:meth:`Board.packed` writes the rows FEN-style (runs of empty cells as a number, rows joined by
``/``) to keep a deal's JSON small.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

BOARD_FAMILIES = ("chess", "go", "connect_four", "hex")

EMPTY = "."

# U+2654-U+265F: white king, queen, rook, bishop, knight, pawn, then black's.
CHESS_GLYPHS = dict(zip("KQRBNPkqrbnp", "♔♕♖♗♘♙♚♛♜♝♞♟", strict=True))
STONES = {"x": "●", "o": "○"}  # Go: Black, White; connect four and Hex: first, second player

_GO_ROW = re.compile(r"^\s*(\d+) ([+XO]+)$")
_GO_LETTERS = "abcdefghjklmnopqrst"  # Go skips i


@dataclass(frozen=True)
class Board:
    """A position: ``rows`` top first, one character per cell (module docstring), with the
    columns' labels left to right (``files``) and the rows' top to bottom (``ranks``)."""

    family: str
    rows: tuple[str, ...]
    files: tuple[str, ...]
    ranks: tuple[str, ...]

    def __post_init__(self) -> None:
        width = len(self.files)
        if len(self.ranks) != len(self.rows) or any(len(r) != width for r in self.rows):
            raise ValueError(f"a {self.family} board's rows and labels disagree: {self.rows}")

    def cell(self, file: str, rank: str) -> str:
        """The cell at column ``file`` and row ``rank`` (``board.cell("e", "4")``)."""
        return self.rows[self.ranks.index(rank)][self.files.index(file)]

    def packed(self) -> str:
        """The rows FEN-style: a run of empty cells as its length, rows joined by ``/``."""
        return "/".join(re.sub(r"\.+", lambda m: str(len(m.group(0))), row) for row in self.rows)

    def as_json(self) -> dict[str, Any]:
        """What the report's viewer draws: the family, the packed rows and the labels."""
        return {
            "family": self.family,
            "rows": self.packed(),
            "files": list(self.files),
            "ranks": list(self.ranks),
        }


def unpack(packed: str) -> tuple[str, ...]:
    """The rows of :meth:`Board.packed` (its inverse)."""
    return tuple(
        re.sub(r"\d+", lambda m: EMPTY * int(m.group(0)), row) for row in packed.split("/")
    )


def board_of(state: Any) -> Board | None:
    """The board of an ``OpenSpielState`` (or of a pyspiel state with its ``spec``'s family
    given as ``state.spec.family``), or None for a family without one (poker, liar's dice)."""
    family = state.spec.family
    ps = state.ps
    if family == "chess":
        placement = ps.board().to_fen().split(" ")[0]
        rows = unpack(placement)
        return Board(family, rows, tuple("abcdefgh"), tuple(str(r) for r in range(8, 0, -1)))
    if family == "go":
        grid = [m.groups() for m in map(_GO_ROW.match, str(ps).splitlines()) if m]
        rows = tuple(r.replace("+", EMPTY).lower() for _, r in grid)
        files = tuple(_GO_LETTERS[: len(rows[0])])
        return Board(family, rows, files, tuple(n for n, _ in grid))
    if family == "connect_four":
        rows = tuple(line for line in str(ps).splitlines() if line.strip())
        files = tuple(chr(ord("a") + c) for c in range(len(rows[0])))
        return Board(family, rows, files, tuple(str(len(rows) - i) for i in range(len(rows))))
    if family == "hex":
        rows = tuple(line.replace(" ", "") for line in str(ps).splitlines() if line.strip())
        files = tuple(chr(ord("a") + c) for c in range(len(rows[0])))
        return Board(family, rows, files, tuple(str(i + 1) for i in range(len(rows))))
    return None


# -- Unicode, for the terminal ---------------------------------------------------------------


def board_text(board: Board, flip: bool = False) -> str:
    """``board`` drawn in Unicode with its coordinates; ``flip`` turns a chess board round
    (Black's side at the bottom). Every line ends without trailing spaces."""
    draw = {"go": _go_text, "connect_four": _four_text, "hex": _hex_text}
    lines = _chess_text(board, flip) if board.family == "chess" else draw[board.family](board)
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _chess_text(board: Board, flip: bool) -> list[str]:
    rows = [(rank, row) for rank, row in zip(board.ranks, board.rows, strict=True)]
    files = list(board.files)
    if flip:
        rows = [(rank, row[::-1]) for rank, row in reversed(rows)]
        files.reverse()
    lines = ["  ┌" + "─" * 17 + "┐"]
    for rank, row in rows:
        cells = " ".join(CHESS_GLYPHS.get(c, "·") for c in row)
        lines.append(f"{rank} │ {cells} │")
    lines.append("  └" + "─" * 17 + "┘")
    lines.append("    " + " ".join(files))
    return lines


def _grid_point(top: bool, bottom: bool, left: bool, right: bool) -> str:
    vertical = "┬" if top else "┴" if bottom else "┼"
    if left:
        return "┌" if top else "└" if bottom else "├"
    if right:
        return "┐" if top else "┘" if bottom else "┤"
    return vertical


def _go_text(board: Board) -> list[str]:
    n_rows, n_cols = len(board.rows), len(board.files)
    width = max(len(r) for r in board.ranks)
    lines = []
    for i, (rank, row) in enumerate(zip(board.ranks, board.rows, strict=True)):
        points = [
            STONES.get(c) or _grid_point(i == 0, i == n_rows - 1, j == 0, j == n_cols - 1)
            for j, c in enumerate(row)
        ]
        lines.append(f"{rank:>{width}} " + "─".join(points))
    lines.append(" " * (width + 1) + " ".join(board.files))
    return lines


def _four_text(board: Board) -> list[str]:
    lines = ["│" + " ".join(STONES.get(c, "·") for c in row) + "│" for row in board.rows]
    lines.append("└" + "─" * (2 * len(board.files) - 1) + "┘")
    lines.append(" " + " ".join(board.files))
    return lines


def _hex_text(board: Board) -> list[str]:
    width = max(len(r) for r in board.ranks)
    lines = [" " * (width + 1) + " ".join(board.files)]
    for i, (rank, row) in enumerate(zip(board.ranks, board.rows, strict=True)):
        cells = " ".join(STONES.get(c, "·") for c in row)
        lines.append(f"{rank:>{width}} " + " " * i + cells)
    return lines


# -- cards, for poker -------------------------------------------------------------------------

SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def cards(text: str) -> list[str]:
    """OpenSpiel's card string (``Kc4d``) as cards with suit symbols (``["K♣", "4♦"]``)."""
    if len(text) % 2 or any(text[i + 1] not in SUITS for i in range(0, len(text), 2)):
        raise ValueError(f"{text!r} is not a string of cards (rank then suit, e.g. Kc4d)")
    return [text[i] + SUITS[text[i + 1]] for i in range(0, len(text), 2)]


def poker_cards(state: Any, seat: int) -> tuple[list[str], list[str]]:
    """``seat``'s hole cards and the community cards of a hold'em deal, with suit symbols."""
    from engines.openspiel.text import poker_fields

    fields = poker_fields(state.ps.information_state_string(seat))
    return cards(fields.get("Private", "")), cards(fields.get("Public", ""))


def position_text(state: Any, seat: int) -> str:
    """What a person at the terminal sees of the position as ``seat``: the board in Unicode
    (chess from the seat's side, with the FEN), hold'em's cards with suit symbols before the
    seat's observation, else the observation as a model reads it
    (``engines.openspiel.text.observation_text``)."""
    from engines.openspiel.text import observation_text, side_name

    family = state.spec.family
    board = board_of(state)
    if board is None:
        seen = observation_text(state, seat)
        if family == "universal_poker":
            hole, shared = poker_cards(state, seat)
            line = f"Your cards: {' '.join(hole)}   Board: {' '.join(shared) or '(none)'}"
            return f"{line}\n{seen}\n"
        return f"{seen}\n"
    text = board_text(board, flip=family == "chess" and seat == 0)  # OpenSpiel's 0 is Black
    if family == "chess":
        text += f"FEN: {state.ps.board().to_fen()}\n"
    elif family in ("connect_four", "hex"):
        marks = ", ".join(f"{STONES[m]} {side_name(family, s)}" for s, m in enumerate("xo"))
        text += f"{marks}\n"
    elif family == "go":
        text += f"{STONES['x']} Black, {STONES['o']} White\n"
    return text
