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
    assert agent_version("stockfish") == "stockfish-15.1/uci-nodes-1/skill-pick-1"
    agent = make_builtin("stockfish")
    with pytest.raises(ValueError, match="openspiel:chess only"):
        agent.act(parse_openspiel("openspiel:go").new_deal(0), 0, random.Random(0))


@pytest.mark.parametrize(
    ("params", "message"),
    [({"nodes": 0}, "at least 1"), ({"level": 5}, "no parameter 'level'"),
     ({"nodes": "many"}, "must be int"), ({"skill": 20}, "skill must be a whole number"),
     ({"skill": -1}, "from 0 to 19"), ({"skill": 2.5}, "from 0 to 19"),
     ({"skill": True}, "from 0 to 19")],
)  # fmt: skip
def test_bad_settings_are_refused(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_builtin("stockfish", params)


OPENING = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def test_a_skill_level_is_reproducible_per_seed_and_weakens_by_the_seed() -> None:
    """Stockfish's own Skill Level answers this position with e7e5, c7c6 or c7c5 from run to
    run (a clock-seeded generator); the agent's level draws from the seat's generator: the same
    seed gives the same move, and different seeds spread over the candidates."""
    chess = parse_openspiel("openspiel:chess")
    weak = make_builtin("stockfish", {"skill": 0, "nodes": 1000})
    try:
        state = chess.new_deal(0)
        state.apply("e2e4")
        ranked = weak.candidates(OPENING)
        assert 2 <= len(ranked) <= 4 and [s for _, s in ranked] == sorted(
            (s for _, s in ranked), reverse=True
        )
        picks = [weak.act(state, state.current_player, random.Random(seed)) for seed in range(12)]
        again = [weak.act(state, state.current_player, random.Random(seed)) for seed in range(12)]
        assert picks == again
        assert len(set(picks)) > 1 and set(picks) <= {m for m, _ in ranked}
        assert all(move in state.legal_actions() for move in picks)
    finally:
        weak.close()


def test_every_skill_level_still_takes_a_mate_in_one() -> None:
    """A candidate's push is under 120/128 of its gap to the best plus under a pawn, so a
    weaker move cannot overtake a mate (scored 100,000 centipawns), at any level."""
    chess = parse_openspiel("openspiel:chess")
    from engines.openspiel.text import read_move

    state = chess.new_deal(0)
    for san in ("e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"):
        state.apply(str(read_move(state, san)))
    for skill in (0, 19):
        agent = make_builtin("stockfish", {"skill": skill, "nodes": 2000})
        try:
            for seed in range(3):
                assert agent.act(state, state.current_player, random.Random(seed)) == "h5f7"
        finally:
            agent.close()
