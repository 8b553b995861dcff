"""Boards of OpenSpiel deals (issue 46, item 4): read from OpenSpiel's text of the state, packed
FEN-style for the report's viewer, drawn in Unicode for the terminal."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.openspiel import parse_openspiel
from engines.openspiel.boards import Board, board_of, board_text, cards, unpack

BOARDS = [
    "openspiel:chess",
    "openspiel:go(board_size=9)",
    "openspiel:connect_four",
    "openspiel:hex(board_size=7)",
]
SPECS = {t: parse_openspiel(t) for t in [*BOARDS, "openspiel:hunl", "openspiel:liars_dice"]}


def test_the_starting_positions() -> None:
    chess = board_of(SPECS["openspiel:chess"].new_deal(0))
    assert chess is not None
    # FIDE's starting position, as every FEN writes it
    assert chess.packed() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert chess.cell("e", "1") == "K" and chess.cell("d", "8") == "q"
    go = board_of(SPECS["openspiel:go(board_size=9)"].new_deal(0))
    assert go is not None and go.packed() == "/".join(["9"] * 9)
    assert go.files == tuple("abcdefghj") and go.ranks == tuple("987654321")
    four = board_of(SPECS["openspiel:connect_four"].new_deal(0))
    assert four is not None and (len(four.rows), len(four.files)) == (6, 7)
    hexes = board_of(SPECS["openspiel:hex(board_size=7)"].new_deal(0))
    assert hexes is not None and hexes.ranks == tuple("1234567") and hexes.files[-1] == "g"
    assert board_of(SPECS["openspiel:hunl"].new_deal(0)) is None
    assert board_of(SPECS["openspiel:liars_dice"].new_deal(0)) is None


def test_a_move_lands_where_it_is_named() -> None:
    chess = SPECS["openspiel:chess"].new_deal(0)
    chess.apply("e2e4")
    board = board_of(chess)
    assert board is not None and board.cell("e", "4") == "P" and board.cell("e", "2") == "."
    go = SPECS["openspiel:go(board_size=9)"].new_deal(0)
    go.apply("c7")  # Black
    go.apply("j1")  # White
    board = board_of(go)
    assert board is not None and board.cell("c", "7") == "x" and board.cell("j", "1") == "o"
    four = SPECS["openspiel:connect_four"].new_deal(0)
    for column in "ddc":
        four.apply(column)
    board = board_of(four)
    assert board is not None
    assert (board.cell("d", "1"), board.cell("d", "2"), board.cell("c", "1")) == ("x", "o", "x")
    hexes = SPECS["openspiel:hex(board_size=7)"].new_deal(0)
    hexes.apply("b6")
    board = board_of(hexes)
    assert board is not None and board.cell("b", "6") == "x"
    assert board_text(board).splitlines()[6] == "6      · ● · · · · ·"  # row 6: five spaces in


@pytest.mark.parametrize("token", BOARDS)
@settings(max_examples=6, deadline=None)
@given(move_seed=st.integers(0, 2**32))
def test_packing_round_trips_through_a_random_game(token: str, move_seed: int) -> None:
    state = SPECS[token].new_deal(0)
    rng = random.Random(move_seed)
    while not state.is_terminal() and len(state.moves) < 120:
        board = board_of(state)
        assert board is not None and unpack(board.packed()) == board.rows
        assert set("".join(board.rows)) <= set(
            ".xo" if token != "openspiel:chess" else ".KQRBNPkqrbnp"
        )
        state.apply(rng.choice(state.legal_actions()))


def test_a_board_whose_rows_and_labels_disagree_is_refused() -> None:
    with pytest.raises(ValueError, match="rows and labels disagree"):
        Board("go", ("...", ".."), tuple("abc"), ("2", "1"))


def test_cards_get_suit_symbols() -> None:
    assert cards("Kc4dTh2s") == ["K♣", "4♦", "T♥", "2♠"]
    assert cards("") == []
    with pytest.raises(ValueError, match="not a string of cards"):
        cards("Kx")
