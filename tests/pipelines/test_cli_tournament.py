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
from tests.doubles.loopback import unused_port
from tests.doubles.scripted_server import Answer, ScriptedServer
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


def test_a_stopped_player_exits_75_naming_it_in_one_line(
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
    assert code == 75  # incomplete, and running again (with the key set) finishes it
    assert captured.err == (
        "genstrat: player 'llm' stopped: environment variable GENSTRAT_UNSET_KEY is not set "
        "(it should hold the API key); 4 matches not played: run the same command again once "
        "the cause is fixed\n"
    )
    assert "2/6 matches recorded" in captured.out


def test_a_dead_endpoint_ends_the_run_with_one_line_and_exit_75(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{unused_port()}/v1"  # nothing listens: connections are refused
    roster = tmp_path / "roster.yaml"
    roster.write_text(BOTS + f"  - {{name: llm, kind: openai, model: m, base_url: '{url}'}}\n")
    code = main(
        ["tournament", "run", "--roster", str(roster), "--games", "kuhn", "--runs", "250",
         "--out", str(tmp_path / "out"), "--quiet"]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 75
    assert captured.err.count("\n") == 1  # one line: the player, the cause, what to do
    line = captured.err
    assert line.startswith(
        f"genstrat: player 'llm' stopped: unavailable: 10 consecutive connection failures at "
        f"{url}/chat/completions (the last: connection failed (ConnectError: cannot connect"
    )
    assert line.endswith(
        "; 1000 matches not played: run the same command again once the endpoint answers\n"
    )
    assert "500/1500 matches recorded (500 complete)" in captured.out  # the bots played


def test_matches_recorded_as_errors_exit_75_naming_retry_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedServer(lambda request: Answer(500, b'{"error": "down"}')) as server:
        roster = tmp_path / "roster.yaml"
        roster.write_text(
            "players:\n  - {name: a, kind: builtin, agent: random}\n"
            f"  - {{name: llm, kind: openai, model: m, base_url: '{server.url}'}}\n"
            f"providers:\n  'openai@{server.url}': {{backoff_base_s: 0.01, max_retries: 1}}\n"
        )
        code = _one_run_on_kuhn(roster, tmp_path / "out")
    captured = capsys.readouterr()
    assert "2/2 matches recorded (2 error)" in captured.out
    assert code == 75  # every match is recorded, but none has a result: not a success
    assert captured.err == (
        "genstrat: 2 matches recorded as timeout or error; run the same command with "
        "--retry-failed to play them again\n"
    )


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
    assert code == 1  # running the same command again cannot play them
    assert "6/12 matches recorded (6 complete)" in captured.out
    assert "not admitted: program 'broken' on game kuhn: does not load: does not compile" in (
        captured.out
    )
    assert captured.err == (
        "genstrat: 6 matches not played: 1 program(s) refused admission on a game (see 'not "
        "admitted'); running the same command again cannot play them, only a fixed program "
        "can\n"
    )


def test_the_exit_codes_are_documented_in_the_help() -> None:
    for args in (["--help"], ["tournament", "run", "--help"]):
        done = genstrat(*args)
        assert done.returncode == 0
        codes = done.stdout[done.stdout.index("exit status:") :]
        for code in ("0 ", "1 ", "2 ", "75 ", "130 "):
            assert f"\n  {code}" in codes, (args, code)
    run_help = genstrat("tournament", "run", "--help").stdout
    assert "running again can finish it" in run_help and "cannot finish it" in run_help
    assert "--max-connection-failures" in run_help
