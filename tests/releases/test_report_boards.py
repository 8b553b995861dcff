"""The report's match viewer draws the boards of OpenSpiel deals (issue 46, item 4).

The viewer's data (``releases.report.replay_openspiel``) is checked against independent
replays: python-chess reading the released PGN for chess, the named points of the recorded
moves for Go, OpenSpiel's own card strings for hold'em. Then headless Chromium draws a chess and
a Go board from a published release: the pieces and stones its SVG holds are read from the DOM
and checked the same way, and the screenshots are kept (``GENSTRAT_VIEWER_SHOTS``, default
``/tmp/genstrat-issue46``).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from engines.openspiel import parse_openspiel
from engines.openspiel.boards import unpack
from engines.openspiel.text import poker_fields
from releases.report import replay_openspiel
from tests.releases.openspiel_release import Published, publish_chess_and_go

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = Path(os.environ.get("GENSTRAT_VIEWER_SHOTS", "/tmp/genstrat-issue46"))


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Published]:
    yield publish_chess_and_go(tmp_path_factory.mktemp("openspiel_viewer"))


def embedded(folder: Path) -> list[dict[str, Any]]:
    page = (folder / "report" / "viewer.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="deals-data">(.*?)</script>', page, re.S)
    assert found is not None
    deals: list[dict[str, Any]] = json.loads(found.group(1))["deals"]
    return deals


def python_chess_boards(folder: Path, deal: dict[str, Any]) -> list[chess.Board]:
    """The position before each move and at the end, by python-chess from the deal's PGN."""
    text = (folder / "report" / deal["pgn"]).resolve().read_text(encoding="utf-8")
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    boards = [game.board()]
    for node in game.mainline():
        boards.append(node.board())
    return boards


def placement(rows: list[str] | tuple[str, ...]) -> dict[str, str]:
    """{square: FEN letter} of a chess board's rows (rank 8 first)."""
    return {
        f"{'abcdefgh'[j]}{8 - i}": c
        for i, row in enumerate(rows)
        for j, c in enumerate(row)
        if c != "."
    }


def python_chess_placement(board: chess.Board) -> dict[str, str]:
    return {chess.square_name(s): p.symbol() for s, p in board.piece_map().items()}


def test_every_chess_step_is_the_position_python_chess_reaches(published: Published) -> None:
    deals = [d for d in embedded(published.folder) if d["game"] == "openspiel:chess"]
    assert len(deals) == 6
    for deal in deals:
        expected = python_chess_boards(published.folder, deal)
        assert len(deal["boards"]) == len(deal["moves"]) + 1 == len(expected)
        for k, (drawn, board) in enumerate(zip(deal["boards"], expected, strict=True)):
            assert drawn["family"] == "chess" and drawn["files"] == list("abcdefgh")
            assert placement(unpack(drawn["rows"])) == python_chess_placement(board), (deal, k)
        assert deal["ended"] and deal["replay"] is None
        sides = [dict(view["facts"])["side"] for view in deal["views"][0]]
        assert sides == ["Black", "White"]  # OpenSpiel's player 0 is Black
        mover = 0 if deal["moves"][0]["seat"] == "alice" else 1
        assert mover == 1 and deal["views"][0][1]["to_act"]  # White moves first


def test_each_go_stone_appears_where_its_move_names_it(published: Published) -> None:
    deals = [d for d in embedded(published.folder) if d["game"].startswith("openspiel:go")]
    assert len(deals) == 6
    for deal in deals:
        boards = [unpack(b["rows"]) for b in deal["boards"]]
        assert len(boards) == len(deal["moves"]) + 1 and set("".join(boards[0])) == {"."}
        files, ranks = deal["boards"][0]["files"], deal["boards"][0]["ranks"]
        for k, move in enumerate(deal["moves"]):
            if move["action"] == "pass":
                continue
            column, row = files.index(move["action"][0]), ranks.index(move["action"][1:])
            mark = "x" if move["seat"] == "alice" else "o"  # Alice (player 0) is Black
            assert boards[k][row][column] == "." and boards[k + 1][row][column] == mark
            # a move adds one stone and may take some of the other colour, never its own
            before, after = "".join(boards[k]), "".join(boards[k + 1])
            assert after.count(mark) == before.count(mark) + 1
            other = "o" if mark == "x" else "x"
            assert after.count(other) <= before.count(other)


def test_holdem_views_show_each_seat_its_own_cards() -> None:
    spec = parse_openspiel("openspiel:hunl")
    state = spec.new_deal(21)
    moves = []
    while not state.is_terminal():
        seat = state.current_player
        legal = state.legal_actions()
        action = "check" if "check" in legal else "call"
        moves.append({"seat": ("alice", "bob")[seat], "action": action, "legal_actions": legal})
        state.apply(action)
    replay = replay_openspiel(spec, 21, moves)
    assert replay.problem is None and all(b is None for b in replay.boards)
    suits = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
    for seat in (0, 1):
        own = poker_fields(state.ps.information_state_string(seat))["Private"]
        shown = replay.final[seat]["cards"]["hole"]
        assert shown == [own[i] + suits[own[i + 1]] for i in range(0, 4, 2)]
    streets = [len(step[0]["cards"]["board"]) for step in replay.views]
    assert streets == [0, 0, 3, 3, 4, 4, 5, 5]  # check and call down: two moves a street
    assert replay.views[0][0]["cards"]["hole"] != replay.views[0][1]["cards"]["hole"]


def test_a_transcript_the_engine_does_not_accept_stops_the_replay_where_it_breaks() -> None:
    spec = parse_openspiel("openspiel:chess")
    moves = [
        {"seat": "bob", "action": "e2e4"},
        {"seat": "alice", "action": "e7e5"},
        {"seat": "bob", "action": "e4e5"},  # blocked by the pawn on e5
    ]
    replay = replay_openspiel(spec, 0, moves)
    assert replay.problem == "move 3: 'e4e5' is not a legal move here"
    assert len(replay.views) == 3 and len(replay.boards) == 4  # before each move, and the end
    wrong_seat = replay_openspiel(spec, 0, [{"seat": "alice", "action": "e7e5"}])
    assert wrong_seat.problem == "move 1: the engine has seat 1 to act"


# -- in headless Chromium --------------------------------------------------------------------

PIECES = (
    "[...document.querySelectorAll('svg.board text[data-piece]')]"
    ".map(e => [e.getAttribute('data-square'), e.getAttribute('data-piece')])"
)
STONES = (
    "[...document.querySelectorAll('svg.board circle[data-stone]')]"
    ".map(e => [e.getAttribute('data-point'), e.getAttribute('data-stone')])"
)


def colour_share(shot: Path, colour: tuple[int, int, int]) -> float:
    from PIL import Image

    image = Image.open(shot).convert("RGB")
    counts = dict((c, n) for n, c in image.getcolors(maxcolors=10_000_000) or [])
    return counts.get(colour, 0) / (image.size[0] * image.size[1])


@pytest.mark.slow
def test_chromium_draws_a_chess_and_a_go_board(published: Published, tmp_path: Path) -> None:
    from tests.e2e.chromium import browser

    if CHROMIUM is None:
        raise AssertionError("chromium is not installed: run 'make browser' (it installs it)")
    folder = published.folder
    deals = embedded(folder)
    chess_deal = max(
        (d for d in deals if d["game"] == "openspiel:chess"), key=lambda d: len(d["moves"])
    )
    go_deal = next(d for d in deals if d["game"].startswith("openspiel:go"))
    viewer = (folder / "report" / "viewer.html").as_uri()
    SHOTS.mkdir(parents=True, exist_ok=True)
    with browser(CHROMIUM, tmp_path / "profile", (1400, 1500)) as page:
        step = min(40, len(chess_deal["moves"]) // 2)  # a middle game
        page.goto(f"{viewer}#deal={chess_deal['id']}&step={step}")
        page.wait_for(
            f"document.getElementById('viewer').getAttribute('data-step') === '{step}' && "
            "!!document.querySelector('svg.board[data-family=chess]')",
            "the chess board",
        )
        assert page.evaluate("document.body.getAttribute('data-js')") == "ready"
        assert page.evaluate("document.body.getAttribute('data-js-errors')") is None
        drawn = dict(page.evaluate(PIECES))
        board = python_chess_boards(folder, chess_deal)[step]
        assert drawn == python_chess_placement(board)
        moved = page.evaluate("document.querySelectorAll('svg.board rect.moved').length")
        assert moved >= 2  # the last move's from- and to-squares
        caption = page.evaluate("document.querySelector('.board-figure figcaption').textContent")
        assert caption.startswith(f"The board before move {step + 1}")
        chess_shot = page.screenshot(SHOTS / "viewer-chess.png")
        assert colour_share(chess_shot, (0xF0, 0xD9, 0xB5)) > 0.01  # the light squares

        step = len(go_deal["moves"])  # the end of the game
        page.goto(f"{viewer}#deal={go_deal['id']}&step={step}")
        page.wait_for(
            f"document.getElementById('viewer').getAttribute('data-deal') === '{go_deal['id']}'"
            " && !!document.querySelector('svg.board[data-family=go]')",
            "the Go board",
        )
        stones = dict(page.evaluate(STONES))
        final = unpack(go_deal["boards"][-1]["rows"])
        files, ranks = go_deal["boards"][-1]["files"], go_deal["boards"][-1]["ranks"]
        expected = {
            f"{files[j]}{ranks[i]}": c
            for i, row in enumerate(final)
            for j, c in enumerate(row)
            if c != "."
        }
        assert stones == expected and {"x", "o"} <= set(stones.values())
        go_shot = page.screenshot(SHOTS / "viewer-go.png")
        assert colour_share(go_shot, (0xDC, 0xB3, 0x5C)) > 0.01  # the board's wood
        assert page.evaluate("document.body.getAttribute('data-js-errors')") is None


def played(
    token: str, play_seed: int, move_seed: int
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A match row and its move rows: a random game of ``token`` (the match schema's columns
    the viewer reads)."""
    import random

    spec = parse_openspiel(token)
    state = spec.new_deal(play_seed)
    rng = random.Random(move_seed)
    match_id = f"m-{spec.short_name}"
    moves: list[dict[str, Any]] = []
    while not state.is_terminal():
        seat = state.current_player
        legal = list(state.legal_actions())
        action = rng.choice(legal)
        moves.append(
            {
                "match_id": match_id, "index": len(moves), "seat": ("alice", "bob")[seat],
                "player": ("p0", "p1")[seat], "phase": state.phase_id, "legal_actions": legal,
                "action": action, "fallback": False, "rethinks": 0,
            }
        )  # fmt: skip
        state.apply(action)
    alice, bob = state.returns()
    match = {
        "match_id": match_id, "game": token, "spec_hash": spec.spec_hash, "run_id": f"r-{match_id}",
        "run_index": 0, "deal": 0, "play_seed": play_seed, "alice": "p0", "bob": "p1",
        "status": "complete", "alice_chip_delta": alice, "bob_chip_delta": bob,
        "n_moves": len(moves),
    }  # fmt: skip
    return match, moves


@pytest.mark.slow
def test_chromium_draws_connect_four_and_hex(tmp_path: Path) -> None:
    import pandas as pd

    from releases.report import render_report
    from tests.e2e.chromium import browser

    if CHROMIUM is None:
        raise AssertionError("chromium is not installed: run 'make browser' (it installs it)")
    games = {"openspiel:connect_four": "connect_four", "openspiel:hex(board_size=5)": "hex"}
    rows, moves = [], []
    for k, token in enumerate(games):
        match, transcript = played(token, 3, k)
        rows.append(match)
        moves += transcript
    tables = {"match_corpus": pd.DataFrame(rows), "match_moves": pd.DataFrame(moves)}
    manifest = {"release_id": "gs-test", "files": []}
    report = tmp_path / "report"
    report.mkdir()
    for name, content in render_report(tables, {}, {}, manifest).items():
        (report / name).write_bytes(content)
    deals = {d["game"]: d for d in embedded(tmp_path)}
    with browser(CHROMIUM, tmp_path / "profile", (1400, 1300)) as page:
        for token, family in games.items():
            deal = deals[token]
            step = len(deal["moves"])  # the final position
            page.goto(f"{(report / 'viewer.html').as_uri()}#deal={deal['id']}&step={step}")
            page.wait_for(
                f"!!document.querySelector('svg.board[data-family={family}]')", f"the {family}"
            )
            cells = dict(
                page.evaluate(
                    "[...document.querySelectorAll('svg.board [data-cell]')]"
                    ".map(e => [e.getAttribute('data-cell'), e.getAttribute('data-stone')])"
                )
            )
            board = deal["boards"][-1]
            final = unpack(board["rows"])
            expected = {
                f"{board['files'][j]}{board['ranks'][i]}": c
                for i, row in enumerate(final)
                for j, c in enumerate(row)
            }
            assert cells == expected and {"x", "o"} <= set(cells.values())
            page.screenshot(SHOTS / f"viewer-{family}.png")
            assert page.evaluate("document.body.getAttribute('data-js-errors')") is None
