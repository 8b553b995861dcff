"""Roster kind ``python``: in-process agents play matches with the fingerprint, timing and
recording of every other player."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament


def roster(agent: dict[str, Any]) -> Any:
    players = [
        {"name": "bot", "kind": "builtin", "agent": "random"},
        {"name": "py", "kind": "python", **agent},
    ]
    return parse_roster({"players": players})


def test_an_act_agent_plays_and_is_recorded(tmp_path: Path) -> None:
    r = roster({"entry": "tests.doubles.python_agents:LastLegal", "params": {"index": 1}})
    summary = run_tournament(r, resolve_games(["kuhn", "leduc"]), 3, tmp_path / "t")
    assert summary.finished and summary.status_counts == {"complete": 12}
    moves = pd.read_parquet(tmp_path / "t" / MOVES)
    mine = moves[moves["player"] == "py"]
    assert len(mine) > 0
    assert all(row.action == list(row.legal_actions)[-1] for row in mine.itertuples())
    assert (mine["model"] == "tests.doubles.python_agents:LastLegal").all()
    assert set(mine["settings"]) == {'{"index":1}'}
    assert (mine["latency_s"] > 0).all()  # timed like every player
    matches = pd.read_parquet(tmp_path / "t" / MATCHES)
    seat = matches["alice"].eq("py")
    fingerprints = matches["alice_fingerprint"].where(seat, matches["bob_fingerprint"])
    assert set(fingerprints) == {r.fingerprint("py")}


def test_a_decide_agent_plays_with_its_own_accounting(tmp_path: Path) -> None:
    r = roster({"entry": "tests.doubles.python_agents:AwaitingAgent"})
    summary = run_tournament(r, resolve_games(["kuhn"]), 2, tmp_path / "t")
    assert summary.finished
    mine = pd.read_parquet(tmp_path / "t" / MOVES).query("player == 'py'")
    assert (mine["input_tokens"] == 7).all() and (mine["calls"] == 1).all()
    assert (mine["latency_s"] >= 0.001).all()


def test_fingerprint_follows_params_and_code() -> None:
    one = roster({"entry": "tests.doubles.python_agents:LastLegal", "params": {"index": 1}})
    two = roster({"entry": "tests.doubles.python_agents:LastLegal", "params": {"index": 2}})
    assert one.fingerprint("py") != two.fingerprint("py")
    entry = one.player("py")
    assert entry.code_sha256 is not None and len(entry.code_sha256) == 64  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="has changed since this roster was recorded"):
        roster({"entry": "tests.doubles.python_agents:LastLegal", "code_sha256": "0" * 64})


def test_an_illegal_answer_forfeits(tmp_path: Path) -> None:
    r = roster({"entry": "tests.doubles.python_agents:Cheater"})
    summary = run_tournament(r, resolve_games(["kuhn"]), 1, tmp_path / "t")
    assert summary.status_counts == {"forfeit": 2}
    matches = pd.read_parquet(tmp_path / "t" / MATCHES)
    assert matches["error"].str.contains("not a legal action").all()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("tests.doubles.no_such_module:X", "cannot import module 'tests.doubles.no_such_module'"),
        ("tests.doubles.python_agents:Missing", "has no class 'Missing'"),
        ("tests.doubles.python_agents:NotAnAgent", "has neither act"),
        ("not a class path", "players\\[1\\].entry"),
    ],
)
def test_a_bad_entry_is_named(entry: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        roster({"entry": entry})


def test_parameters_the_class_refuses(tmp_path: Path) -> None:
    r = roster({"entry": "tests.doubles.python_agents:LastLegal", "params": {"depth": 3}})
    with pytest.raises(ValueError, match="does not take the parameters given"):
        run_tournament(r, resolve_games(["kuhn"]), 1, tmp_path / "t")
