"""``genstrat tournament run`` stopped with SIGTERM (issue 43, item 16: it exited 143 without a
line): one line names the signal and says the same command resumes, the exit status is 143,
the tables hold what the journal kept, and the same command then finishes the tournament with
the corpus of an uninterrupted run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from engines.tournament.records import WALL_CLOCK_COLUMNS
from tests.doubles.scripted_server import ScriptedServer, first_legal
from tests.support import REPO_ROOT

RUNS = 40  # one pair on Kuhn: 80 matches, 20 ms per reply


def command(roster: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "pipelines.cli", "tournament", "run", "--roster", str(roster),
            "--games", "kuhn", "--runs", str(RUNS), "--out", str(out), "--parallel", "2",
            "--quiet"]  # fmt: skip


def stable(path: Path) -> pd.DataFrame:
    frame = pd.read_parquet(path)
    return frame.drop(columns=[c for c in (*WALL_CLOCK_COLUMNS, "latency_s") if c in frame])


def test_sigterm_ends_the_run_with_one_line_and_the_same_command_resumes(tmp_path: Path) -> None:
    out, whole = tmp_path / "out", tmp_path / "whole"
    with ScriptedServer(first_legal, delay_s=0.02) as server:
        roster = tmp_path / "roster.yaml"
        roster.write_text(
            "players:\n  - {name: bot, kind: builtin, agent: random}\n"
            f"  - {{name: llm, kind: openai, model: m, base_url: '{server.url}'}}\n"
        )
        process = subprocess.Popen(
            command(roster, out), cwd=REPO_ROOT, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        journal = out / "journal.jsonl"
        deadline = time.monotonic() + 120
        while not (journal.exists() and journal.read_text().count("\n") >= 5):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no match was journaled"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=60)
        kept = [json.loads(line) for line in journal.read_text().splitlines()]
        tabled = len(pd.read_parquet(out / "matches.parquet"))
        resumed = subprocess.run(command(roster, out), cwd=REPO_ROOT, capture_output=True,
                                 text=True, timeout=300, check=False)  # fmt: skip
        uninterrupted = subprocess.run(command(roster, whole), cwd=REPO_ROOT,
                                       capture_output=True, text=True, timeout=300,
                                       check=False)  # fmt: skip
    assert process.returncode == 143, stderr
    assert stdout == ""
    assert stderr == (
        f"genstrat: stopped by SIGTERM; the journal in {out} keeps the matches played: run the "
        "same command to resume\n"
    )
    assert 5 <= len(kept) < 2 * RUNS
    assert tabled == len(kept)  # the tables were written
    assert resumed.returncode == 0, resumed.stderr
    assert f"{2 * RUNS}/{2 * RUNS} matches recorded" in resumed.stdout
    assert f"{len(kept)} from before" in resumed.stdout
    assert uninterrupted.returncode == 0
    for table in ("matches.parquet", "moves.parquet"):
        pd.testing.assert_frame_equal(stable(out / table), stable(whole / table))
