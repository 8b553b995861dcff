"""``genstrat tournament run``: the corpus, progress, the summary, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from engines.tournament.records import MATCH_SCHEMA, MOVE_SCHEMA
from pipelines.cli import main
from tests.support import REPO_ROOT

GENSTRAT = str(Path(sys.executable).with_name("genstrat"))
BOTS = (
    "players:\n"
    "  - {name: a, kind: builtin, agent: random}\n"
    "  - {name: b, kind: builtin, agent: heuristic}\n"
)


def genstrat(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [GENSTRAT, *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False
    )


def test_run_writes_the_corpus_and_a_json_summary(tmp_path: Path) -> None:
    roster = tmp_path / "roster.yaml"
    roster.write_text(BOTS)
    out = tmp_path / "out"
    args = ["--roster", str(roster), "--games", "kuhn,4", "--runs", "3", "--out", str(out)]
    done = genstrat("tournament", "run", *args, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["scheduled"] == report["recorded"] == 2 * 3 * 2
    assert report["finished"] is True and report["status_counts"] == {"complete": 12}
    assert set(report["per_player"]) == {"a", "b"}
    assert "matches/s" in done.stderr and "ETA" in done.stderr  # progress
    matches = pd.read_parquet(out / "matches.parquet")
    moves = pd.read_parquet(out / "moves.parquet")
    assert list(matches.columns) == MATCH_SCHEMA.names
    assert list(moves.columns) == MOVE_SCHEMA.names
    assert set(matches["game"]) == {"kuhn", "4"}

    again = genstrat("tournament", "run", *args)  # the same command again: nothing to play
    assert again.returncode == 0
    assert (
        "12/12 matches recorded" in again.stdout and "played 0 now, 12 from before" in again.stdout
    )


@pytest.mark.parametrize(
    ("roster", "games", "runs", "message"),
    [
        (BOTS, "kuhn", "0", "--runs must be at least 1"),
        (BOTS, "kuhn,chess", "1", "'chess' is not a game"),
        ("players: [{name: a, kind: builtin, agent: random}]", "kuhn", "1", "players:"),
        (BOTS.replace("heuristic", "oracle"), "kuhn", "1", "unknown built-in agent 'oracle'"),
        (None, "kuhn", "1", "cannot read roster"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    roster: str | None,
    games: str,
    runs: str,
    message: str,
) -> None:
    path = tmp_path / "roster.yaml"
    if roster is not None:
        path.write_text(roster)
    code = main(
        ["tournament", "run", "--roster", str(path), "--games", games, "--runs", runs,
         "--out", str(tmp_path / "out"), "--quiet"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("genstrat: error: ")
    assert message in err


def _one_run_on_kuhn(roster: Path, out: Path) -> int:
    """``genstrat tournament run`` of ``roster`` on Kuhn, one run, quietly; its exit code."""
    return main(
        ["tournament", "run", "--roster", str(roster), "--games", "kuhn", "--runs", "1",
         "--out", str(out), "--quiet"]
    )  # fmt: skip


def test_a_stopped_player_exits_1_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GENSTRAT_UNSET_KEY", raising=False)
    roster = tmp_path / "roster.yaml"
    roster.write_text(
        BOTS + "  - {name: llm, kind: openai, model: m, base_url: 'http://127.0.0.1:9/v1',"
        " api_key_env: GENSTRAT_UNSET_KEY}\n"
    )
    code = _one_run_on_kuhn(roster, tmp_path / "out")
    captured = capsys.readouterr()
    assert code == 1
    assert (
        "player 'llm' stopped: environment variable GENSTRAT_UNSET_KEY is not set" in captured.err
    )
    assert "4 matches not played" in captured.err
    assert "2/6 matches recorded" in captured.out


def test_a_program_refused_on_a_game_exits_1_and_the_summary_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "fine.py").write_text(
        "def act(observation, legal_actions, rng):\n    return legal_actions[0]\n"
    )
    (tmp_path / "broken.py").write_text("def act(:\n")
    roster = tmp_path / "roster.yaml"
    roster.write_text(
        BOTS
        + "  - {name: fine, kind: program, path: fine.py}\n"
        + "  - {name: broken, kind: program, path: broken.py}\n"
    )
    code = _one_run_on_kuhn(roster, tmp_path / "out")
    captured = capsys.readouterr()
    assert code == 1
    assert "6/12 matches recorded (6 complete)" in captured.out
    assert "not admitted: program 'broken' on game kuhn: does not load: does not compile" in (
        captured.out
    )
    assert "6 matches not played" in captured.err
