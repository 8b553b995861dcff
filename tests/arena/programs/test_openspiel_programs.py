"""Strategy programs on OpenSpiel games (issue 46, item 5): admitted by the admission test on
the game, sandboxed as on generated games, shown the seat's view and nothing hidden, and refused
with the reason when they answer an illegal move."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from arena.games import resolve_games
from arena.programs.openspiel_track import admit_openspiel, openspiel_observation
from arena.roster import load_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from engines.openspiel.text import poker_fields

# Plays the lowest legal column, and proves what it was shown: an answer outside the menu (a
# forfeit) unless the observation has the documented keys with the seat's own view.
READS_THE_VIEW = """
def act(observation, legal_actions, seed):
    keys = {"game", "family", "seat", "state", "moves", "prompt"}
    if set(observation) != keys or not observation["game"].startswith("openspiel:"):
        return "not a move"
    if observation["seat"] not in (0, 1) or "Reply with a JSON" not in observation["prompt"]:
        return "not a move"
    return sorted(legal_actions)[0]
"""
ILLEGAL = """
def act(observation, legal_actions, seed):
    return "e2e5"
"""
CONNECT_FOUR = resolve_games(["openspiel:connect_four"])
RUNS = 2


def roster_with(tmp_path: Path, source: str) -> Path:
    (tmp_path / "prog.py").write_text(source)
    roster = tmp_path / "roster.yaml"
    roster.write_text(
        "players:\n"
        "  - {name: bot, kind: builtin, agent: random}\n"
        "  - {name: prog, kind: program, path: prog.py}\n"
    )
    return roster


def test_a_program_plays_an_openspiel_tournament(tmp_path: Path) -> None:
    roster = load_roster(roster_with(tmp_path, READS_THE_VIEW))
    summary = run_tournament(roster, CONNECT_FOUR, RUNS, tmp_path / "out")
    assert summary.finished and summary.not_admitted == {}
    matches = pd.read_parquet(tmp_path / "out" / MATCHES)
    assert len(matches) == 2 * RUNS and (matches["status"] == "complete").all()
    moves = pd.read_parquet(tmp_path / "out" / MOVES)
    mine = moves.loc[moves["player"] == "prog"]
    assert len(mine) >= 2 * RUNS
    assert all(a == sorted(json.loads(m) if isinstance(m, str) else list(m))[0]
               for a, m in zip(mine["action"], mine["legal_actions"], strict=True))  # fmt: skip


def test_an_illegal_program_is_refused_on_the_game_with_the_reason(tmp_path: Path) -> None:
    roster = load_roster(roster_with(tmp_path, ILLEGAL))
    summary = run_tournament(roster, CONNECT_FOUR, RUNS, tmp_path / "out")
    refusal = summary.not_admitted["prog"]["openspiel:connect_four"]
    assert "illegal" in refusal and "e2e5" in refusal


def test_the_admission_test_plays_both_seats_and_reports_speed(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(READS_THE_VIEW)
    [chess] = resolve_games(["openspiel:chess"])
    verdict = admit_openspiel(tmp_path / "prog.py", chess.spec, deals=2, moves_per_deal=5)  # type: ignore[arg-type]
    assert verdict.admitted, verdict.reason
    assert verdict.moves == 10 and verdict.median_move_ms is not None


def test_the_view_holds_the_seats_own_cards_only() -> None:
    [hunl] = resolve_games(["openspiel:hunl"])
    state = hunl.spec.new_deal(3)  # type: ignore[union-attr]
    own = [poker_fields(state.ps.information_state_string(s))["Private"] for s in (0, 1)]
    for seat in (0, 1):
        seen = openspiel_observation(state, seat)
        assert own[seat] in seen["state"] and own[1 - seat] not in seen["state"]
        assert own[1 - seat] not in json.dumps(seen)
