"""Strategy programs as roster players: admitted per game, played like any other player, and
when hostile, forfeiting (crash, illegal action), timing out, or refused before they play."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.llm.cache import ResponseCache
from arena.programs.player import ProgramPlayer
from arena.roster import ProgramEntry, Roster, load_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.lineup import build_lineup
from arena.tournament.runner import TournamentSummary, run_tournament
from engines.gbg.engine import new_deal
from engines.tournament.pairs import complete_pairs

KUHN = resolve_games(["kuhn"])

GOOD = """\
def act(observation, legal_actions, rng):
    passive = [a for a in legal_actions if a in ("check", "call")]
    return passive[0] if passive else rng.choice(legal_actions)
"""

# Admission plays six Kuhn deals (at most 9 moves of the program); this program misbehaves on
# about one move in twenty, drawn from the move's seeded generator (a program keeps no state
# between moves: each runs in a fresh process), so with the seeds of these tests it passes
# admission and breaks in the tournament, like a bug in a situation the test missed.
BREAKS_LATER = """\
def act(observation, legal_actions, rng):
    if rng.random() < 0.05:
        {misbehave}
    return rng.choice(legal_actions)
"""

# About 0.3 s a move (no clock in the sandbox, so a busy loop): slower than admission allows.
SLOW = """\
def act(observation, legal_actions, rng):
    for _ in range(15_000_000):
        pass
    return legal_actions[0]
"""


def roster_file(folder: Path, program: str, limits: str = "") -> Path:
    """A roster of a built-in bot and the program ``program`` (written to prog.py)."""
    (folder / "prog.py").write_text(program)
    path = folder / "roster.yaml"
    path.write_text(
        "players:\n"
        "  - {name: bot, kind: builtin, agent: random}\n"
        f"  - {{name: prog, kind: program, path: prog.py{limits}}}\n"
    )
    return path


def play(roster: Roster, out: Path, runs: int = 2, **kwargs: Any) -> TournamentSummary:
    return run_tournament(roster, KUHN, runs, out, **kwargs)


def program_delta(row: pd.Series) -> int:
    return int(row["alice_chip_delta"] if row["alice"] == "prog" else row["bob_chip_delta"])


def test_a_program_plays_a_small_tournament(tmp_path: Path) -> None:
    roster = load_roster(roster_file(tmp_path, GOOD))
    summary = play(roster, tmp_path / "out")
    assert summary.finished and summary.not_admitted == {} and summary.not_played == 0
    assert summary.status_counts == {"complete": 4}
    moves = pd.read_parquet(tmp_path / "out" / MOVES)
    mine = moves[moves["player"] == "prog"]
    assert len(mine) > 0 and set(mine["model"]) == {"prog.py"}
    entry = roster.player("prog")
    assert isinstance(entry, ProgramEntry) and entry.code_sha256 in mine["settings"].iloc[0]
    assert summary.per_player["prog"]["fallbacks"] == 0


def test_worker_processes_play_programs_too(tmp_path: Path) -> None:
    roster = load_roster(roster_file(tmp_path, GOOD))
    summary = play(roster, tmp_path / "out", workers=2)
    assert summary.finished and summary.status_counts == {"complete": 4}
    assert (tmp_path / "out" / "journal.w1.jsonl").exists()


@pytest.mark.parametrize(
    ("misbehave", "error"),
    [
        ('raise RuntimeError("strategy bug")', "crash: RuntimeError: strategy bug"),
        ('return "all in"', "illegal: returned 'all in'"),
    ],
)
def test_a_crash_or_an_illegal_action_forfeits_the_match(
    tmp_path: Path, misbehave: str, error: str
) -> None:
    roster = load_roster(roster_file(tmp_path, BREAKS_LATER.format(misbehave=misbehave)))
    summary = play(roster, tmp_path / "out", runs=12)
    assert summary.not_admitted == {} and summary.finished
    matches = pd.read_parquet(tmp_path / "out" / MATCHES)
    assert set(matches["status"]) == {"complete", "forfeit"}
    forfeits = matches[matches["status"] == "forfeit"]
    assert all(f"Forfeit by prog: program 'prog' {error}" in e for e in forfeits["error"])
    assert all(program_delta(row) < 0 for _, row in forfeits.iterrows())  # a loss (a fold)
    assert (forfeits["alice_chip_delta"] + forfeits["bob_chip_delta"] == 0).all()
    kept, dropped = complete_pairs(matches)
    assert len(kept) == len(matches) and dropped == {}  # a forfeit is a decided match


def test_a_timeout_is_recorded_and_left_out_and_the_program_plays_on(tmp_path: Path) -> None:
    program = BREAKS_LATER.format(misbehave="while True:\n            pass")
    roster = load_roster(roster_file(tmp_path, program, ", limits: {move_seconds: 0.5}"))
    summary = play(roster, tmp_path / "out", runs=12)
    matches = pd.read_parquet(tmp_path / "out" / MATCHES)
    timeouts = matches[matches["status"] == "timeout"]
    assert len(timeouts) >= 1 and set(matches["status"]) == {"complete", "timeout"}
    assert timeouts["alice_chip_delta"].isna().all()
    # the timed-out process was killed, and the next match started a fresh one
    last_timeout = int(timeouts.index.max())
    assert (matches.loc[last_timeout + 1 :, "status"] == "complete").all()
    _, dropped = complete_pairs(matches)
    assert dropped["timeout"] == len(timeouts)
    assert summary.status_counts["timeout"] == len(timeouts)


def test_a_too_slow_program_is_refused_and_plays_once_fixed(tmp_path: Path) -> None:
    path = roster_file(tmp_path, SLOW, ", limits: {move_seconds: 10}")
    with path.open("a") as handle:
        handle.write("  - {name: heuristic, kind: builtin, agent: heuristic}\n")
    out = tmp_path / "out"
    refused = play(load_roster(path), out, runs=1)
    assert list(refused.not_admitted) == ["prog"]
    assert refused.not_admitted["prog"]["kuhn"].startswith("too slow: median move")
    assert (refused.scheduled, refused.recorded, refused.not_played) == (6, 2, 4)
    assert not refused.finished
    matches = pd.read_parquet(out / MATCHES)
    assert "prog" not in set(matches["alice"]) | set(matches["bob"])

    (tmp_path / "prog.py").write_text(GOOD)  # fixed: new code, new fingerprint, new matches
    fixed = play(load_roster(path), out, runs=1)
    assert fixed.not_admitted == {} and fixed.finished
    assert (fixed.resumed, fixed.played) == (2, 4)


def test_the_lineup_runs_one_sandbox_per_program_and_closes_it(tmp_path: Path) -> None:
    roster = load_roster(roster_file(tmp_path, GOOD))

    async def one_move() -> ProgramPlayer:
        lineup = build_lineup(roster, ResponseCache(None), random.Random(0))
        assert not lineup.all_builtin
        player = lineup.players["prog"]
        assert isinstance(player, ProgramPlayer)
        decision = await player.decide(new_deal(KUHN[0].spec, 1), 0, random.Random(0), "m/0")
        assert decision.action == "check" and player.program.proc is not None
        await lineup.aclose()
        return player

    player = asyncio.run(one_move())
    assert player.program.proc is None and not Path(player.program.scratch).exists()
