"""Stockfish over UCI as the chess reference engine (``arena.reference_engines``)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from arena.reference_engines import agent_plays, agent_version, make_builtin
from engines.openspiel import parse_openspiel

pytestmark = pytest.mark.skipif(
    shutil.which("stockfish") is None and not Path("/usr/games/stockfish").is_file(),
    reason="stockfish not installed (make stockfish)",
)


def test_stockfish_finds_a_mate_in_one_and_repeats_itself() -> None:
    chess = parse_openspiel("openspiel:chess")
    agent = make_builtin("stockfish", {"nodes": 2000})
    try:
        moves = []
        for _ in range(2):
            state = chess.new_deal(0)
            for san in ("e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"):
                from engines.openspiel.text import read_move

                state.apply(str(read_move(state, san)))
            move = agent.act(state, state.current_player, random.Random(0))
            moves.append(move)
            state.apply(move)
            assert state.is_terminal() and state.returns() == (-1, 1)  # White (player 1) mates
        assert moves == ["h5f7", "h5f7"]  # Qxf7#, the same with a fresh search
    finally:
        agent.close()


def test_stockfish_plays_chess_only_and_declares_its_version() -> None:
    assert agent_plays("stockfish", parse_openspiel("openspiel:chess"))
    assert not agent_plays("stockfish", parse_openspiel("openspiel:go"))
    assert agent_version("stockfish") == "stockfish-15.1/uci-nodes-1"
    agent = make_builtin("stockfish")
    with pytest.raises(ValueError, match="openspiel:chess only"):
        agent.act(parse_openspiel("openspiel:go").new_deal(0), 0, random.Random(0))


@pytest.mark.parametrize(
    ("params", "message"),
    [({"nodes": 0}, "at least 1"), ({"skill": 5}, "no parameter 'skill'"),
     ({"nodes": "many"}, "must be int")],
)  # fmt: skip
def test_bad_settings_are_refused(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_builtin("stockfish", params)
