"""No secret of the host leaves through a strategy program: a program that reads every
``/proc/*/environ`` it can see plays a tournament, and a canary key set in the tournament's
environment appears in no outcome, table, journal, file or log; the lineup gives program players
the API keys of its LLM players, and what a program raises with such a key is redacted."""

from __future__ import annotations

import asyncio
import logging
import random
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from arena.games import resolve_games
from arena.llm.cache import ResponseCache
from arena.programs.player import ProgramPlayer
from arena.roster import load_roster
from arena.tournament.journal import MATCHES
from arena.tournament.lineup import build_lineup
from arena.tournament.runner import run_tournament
from engines.agents.base import Forfeit
from engines.gbg.engine import new_deal

KUHN = resolve_games(["kuhn"])
CANARY = "genstrat-canary-5e1d9a0b7c3f4e21"
CANARY_KEY = "sk-canary-0123456789abcdefghij"

# Plays like admission wants on most moves, and on about one move in twenty (as its generator
# decides: none of admission's nine moves, several of the tournament's) raises with the
# environment of every process it can see and its own.  Every move starts from a clean state,
# so a count of moves could not tell admission from the tournament.
SNOOPS = """\
import os
from pathlib import Path

def act(observation, legal_actions, rng):
    if rng.random() >= 0.05:
        return rng.choice(legal_actions)
    try:
        entries = sorted(os.listdir("/proc"))
    except OSError as exc:
        entries = [type(exc).__name__]
    seen = {}
    for entry in entries:
        if entry.isdigit() or entry == "self":
            try:
                seen[entry] = Path(f"/proc/{entry}/environ").read_bytes().decode()
            except OSError as exc:
                seen[entry] = type(exc).__name__
    raise RuntimeError(f"saw {entries}: {seen}; own {dict(os.environ)}")
"""
SAW = "saw ['FileNotFoundError']: {}; own {'PYTHONHASHSEED': '0', 'PWD': '/scratch', 'LC_CTYPE'"


def texts_of(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``: its bytes, and for Parquet its values as text too."""
    found: dict[str, bytes] = {}
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix == ".parquet":
            table = pq.read_table(path).to_pandas()
            data += table.to_csv().encode()
        found[str(path.relative_to(folder))] = data
    return found


def test_a_canary_in_the_environment_leaves_no_trace_in_a_tournament(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GENSTRAT_CANARY", CANARY)  # a name redaction would not know
    monkeypatch.setenv("GENSTRAT_CANARY_API_KEY", CANARY_KEY)
    caplog.set_level(logging.DEBUG)
    (tmp_path / "prog.py").write_text(SNOOPS)
    roster = tmp_path / "roster.yaml"
    roster.write_text(
        "players:\n"
        "  - {name: bot, kind: builtin, agent: random}\n"
        "  - {name: prog, kind: program, path: prog.py}\n"
    )
    out = tmp_path / "out"
    summary = run_tournament(load_roster(roster), KUHN, 12, out)
    assert summary.finished and summary.not_admitted == {}
    matches = pd.read_parquet(out / MATCHES)
    forfeits = matches[matches["status"] == "forfeit"]
    assert len(forfeits) >= 1  # the program did look, and said what it saw: no process at all
    assert all(f"crash: RuntimeError: {SAW}" in e for e in forfeits["error"])
    files = texts_of(out)
    assert any(SAW.encode() in data for data in files.values())
    out_text, err_text = capfd.readouterr()
    for canary in (CANARY, CANARY_KEY):
        assert [name for name, data in files.items() if canary.encode() in data] == []
        assert canary not in caplog.text and canary not in out_text + err_text


def test_the_lineup_gives_program_players_the_keys_and_they_are_redacted(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(
        "def act(observation, legal_actions, rng):\n"
        f"    raise RuntimeError('the key is {CANARY}')\n"
    )
    roster_file = tmp_path / "roster.yaml"
    roster_file.write_text(
        "players:\n"
        "  - {name: prog, kind: program, path: prog.py}\n"
        "  - {name: llm, kind: openai, model: m, api_key_env: GENSTRAT_PROVIDER}\n"
    )
    roster = load_roster(roster_file)

    async def one_move() -> str:
        environ = {"GENSTRAT_PROVIDER": CANARY}
        lineup = build_lineup(roster, ResponseCache(None), random.Random(0), environ)
        player = lineup.players["prog"]
        assert isinstance(player, ProgramPlayer)
        assert CANARY in player.secrets and CANARY in player.program.secrets
        assert CANARY not in repr(player)
        try:
            await player.decide(new_deal(KUHN[0].spec, 1), 0, random.Random(0), "m/0")
        except Forfeit as forfeit:
            return str(forfeit)
        finally:
            await lineup.aclose()
        raise AssertionError("the program should have forfeited")

    message = asyncio.run(one_move())
    assert message == "program 'prog' crash: RuntimeError: the key is [redacted]"
