"""A tournament with a strategy program is reproducible (issue 43, item 10): every move runs in
a fresh process forked from one that never ran the program, so a program that keeps state in
a module, in builtins or in its scratch folder plays the same moves in two identical runs and
in a run resumed from half of its journal."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from arena.games import resolve_games
from arena.roster import load_roster
from arena.tournament.journal import JOURNAL, MATCHES, MOVES
from arena.tournament.runner import run_tournament
from engines.tournament.records import WALL_CLOCK_COLUMNS

PROGRAMS = Path(__file__).with_name("programs")
KUHN = resolve_games(["kuhn"])
RUNS = 4


def stable(frame: pd.DataFrame) -> pd.DataFrame:
    drop = [c for c in (*WALL_CLOCK_COLUMNS, "latency_s") if c in frame.columns]
    return frame.drop(columns=drop)


def test_a_program_that_keeps_state_plays_the_same_in_repeated_and_resumed_runs(
    tmp_path: Path,
) -> None:
    (tmp_path / "prog.py").write_text((PROGRAMS / "counts_moves.py").read_text())
    roster_file = tmp_path / "roster.yaml"
    roster_file.write_text(
        "players:\n"
        "  - {name: bot, kind: builtin, agent: random}\n"
        "  - {name: prog, kind: program, path: prog.py}\n"
    )
    roster = load_roster(roster_file)
    whole, again, resumed = (tmp_path / name for name in ("whole", "again", "resumed"))
    for out in (whole, again, resumed):
        summary = run_tournament(roster, KUHN, RUNS, out)
        assert summary.finished and summary.not_admitted == {}
    lines = (resumed / JOURNAL).read_bytes().splitlines(keepends=True)
    assert len(lines) == 2 * RUNS
    (resumed / JOURNAL).write_bytes(b"".join(lines[: RUNS - 1]))  # killed after three matches
    summary = run_tournament(roster, KUHN, RUNS, resumed)
    assert summary.finished and summary.resumed == RUNS - 1
    moves = pd.read_parquet(whole / MOVES)
    assert (moves["player"] == "prog").sum() >= RUNS
    for name in (MATCHES, MOVES):
        left = stable(pd.read_parquet(whole / name))
        for other in (again, resumed):
            pd.testing.assert_frame_equal(left, stable(pd.read_parquet(other / name)))
