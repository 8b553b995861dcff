"""Bad input anywhere on the command line: one line on stderr, exit status 2, nothing written.

Each case is an input that once ran for minutes, printed megabytes, ended in a traceback or was
silently accepted (a count of zero, a nested file, a huge spec)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines.gbg import presets
from pipelines import cli
from pipelines.cli import MAX_ERROR_CHARS
from tests.support import REPO_ROOT

CRASHES = Path(__file__).resolve().parents[1] / "arena" / "programs" / "programs" / "raises.py"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["pool", "screen", "--count", "3", "--deals", "0"], "--deals must be at least 1, got 0"),
        (["pool", "screen", "--count", "3", "--deals", "-5"], "--deals must be at least 1"),
        (["pool", "screen", "--count", "3", "--workers", "0"], "--workers must be at least 1"),
        (["pool", "screen", "--count", "3", "--workers", "-2"], "--workers must be at least 1"),
        (["pool", "screen", "--count", "x"], "--count expected an integer, got 'x'"),
        (["pool", "screen", "--count", "3", "--start", "-1"], "--start must be a non-negative"),
        (["program", "check", str(CRASHES), "--game", "kuhn", "--deals", "0"], "--deals must"),
        (
            ["tournament", "run", "--roster", "r.yaml", "--games", "kuhn", "--runs",
             "1000000000", "--out", "o"],
            "--runs must be at most 10,000, got 1,000,000,000",
        ),
        (["stats", "leaderboard", "--matches", "m", "--bootstrap", "0"], "--bootstrap must be"),
        (["game", "simulate", "kuhn", "--deals", "0"], "--deals must be at least 1"),
        (["axes", "kuhn", "--workers", "0"], "--workers must be at least 1"),
    ],
)  # fmt: skip
def test_every_count_option_is_checked_by_the_parser(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = run(argv, capsys)
    assert code == 2
    assert err.count("\n") == 1 and message in err and "--help" in err


def spec_file(tmp_path: Path, mutate: object) -> Path:
    spec = json.loads(presets.kuhn().canonical_json())
    mutate(spec)  # type: ignore[operator]
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return path


def thousand_betting_rounds(spec: dict[str, object]) -> None:
    phases = spec["phases"]
    assert isinstance(phases, list)
    bet = phases[1]
    rounds = [
        {**bet, "id": f"b{i}", "next": [{"to": f"b{i + 1}"}] if i < 999 else []}
        for i in range(1000)
    ]
    spec["phases"] = [{**phases[0], "next": [{"to": "b0"}]}, *rounds]


def huge_deck(spec: dict[str, object]) -> None:
    deck = spec["deck"]
    assert isinstance(deck, dict)
    deck["ranks"] = [{"label": f"r{i}", "value": i % 100} for i in range(200_000)]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (thousand_betting_rounds, "phases: Tuple should have at most 100 items"),
        (huge_deck, "deck.ranks"),
    ],
)
def test_hostile_specs_are_one_bounded_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mutate: object, message: str
) -> None:
    code, err = run(["game", "show", str(spec_file(tmp_path, mutate))], capsys)
    assert code == 2 and err.count("\n") == 1 and message in err
    assert len(err) <= len("genstrat: error: ") + MAX_ERROR_CHARS + 1


def test_a_spec_nested_past_the_parser_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nested.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    code, err = run(["game", "show", str(path)], capsys)
    assert code == 2 and err.count("\n") == 1 and "invalid game spec" in err


def test_a_deeply_nested_release_index_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "index.json").write_text("[" * 100_000 + "]" * 100_000)
    monkeypatch.setenv("GENSTRAT_RELEASES", str(store))
    code, err = run(["release", "list"], capsys)
    assert code == 2 and err.count("\n") == 1 and "is not a release index" in err


def test_an_alias_bomb_roster_is_refused_before_it_is_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{b}: &{b} [{', '.join(['*' + a] * 10)}]\n"
        for a, b in zip("abcdefgh", "bcdefghi", strict=True)
    )
    roster = tmp_path / "roster.yaml"
    roster.write_text(bomb + "players: [{name: r, kind: builtin, agent: random}]\n")
    out = tmp_path / "out"
    code, err = run(
        ["tournament", "run", "--roster", str(roster), "--games", "kuhn", "--runs", "1",
         "--out", str(out), "--quiet"],
        capsys,
    )  # fmt: skip
    assert code == 2 and err.count("\n") == 1 and "alias bomb" in err
    assert not out.exists()


def test_help_documents_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for line in ("0    success", "1    a refusal or a failed check", "2    a usage or input error"):
        assert line in out


def genstrat(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    """``python -m pipelines.cli ARGS`` in a child process, as the red team ran it."""
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def one_error_line(done: subprocess.CompletedProcess[str], status: int = 2) -> str:
    """The error line of a refused command: its exit status, no traceback, and one
    ``genstrat: error:`` line, the last on stderr (progress lines may come before it)."""
    assert done.returncode == status, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("genstrat: error: ")]
    assert len(errors) == 1 and done.stderr.splitlines()[-1] == errors[0], done.stderr
    return errors[0]


@pytest.mark.skipif(not Path("/proc/version").is_file(), reason="a Linux /proc")
def test_verdicts_into_a_file_that_takes_no_data_are_one_line(tmp_path: Path) -> None:
    """Issue 43, item 15: ``pool screen --verdicts /proc/version`` screened, then ended in an
    OSError traceback."""
    done = genstrat("pool", "screen", "--count", "1", "--verdicts", "/proc/version")
    if os.access("/proc/version", os.W_OK):  # root opens it, and the write fails
        assert "/proc/version: Input/output error" in one_error_line(done)
    else:
        assert "/proc/version: Permission denied" in one_error_line(done)
    folder = one_error_line(genstrat("pool", "screen", "--count", "1", "--verdicts", str(tmp_path)))
    assert f"cannot write the verdicts to {tmp_path}: it is a folder" in folder
    missing = tmp_path / "no" / "such" / "v.jsonl"
    line = one_error_line(genstrat("pool", "screen", "--count", "1", "--verdicts", str(missing)))
    assert "No such file or directory" in line


def test_a_store_url_that_does_not_parse_is_one_line(tmp_path: Path) -> None:
    """Issue 43, item 15: ``release pull --from 'http://[::1'`` ended in an httpx traceback."""
    dest = tmp_path / "dest"
    for url in ("http://[::1", "http://", "https://user:pw@[::1"):
        line = one_error_line(
            genstrat("release", "pull", "gs-" + "0" * 32, "--from", url, "--to", str(dest))
        )
        assert "is not a store URL" in line and "pw@" not in line
    assert not dest.exists()


@pytest.mark.parametrize("command", ["show", "simulate"])
def test_openspiel_parameters_openspiel_cannot_play_are_one_line(command: str) -> None:
    """Issue 43, item 15: ``game simulate 'openspiel:go(board_size=-1)'`` ended in a SpielError
    traceback, and ``game show`` printed the rules of a -1x-1 board with exit status 0."""
    done = genstrat("game", command, "openspiel:go(board_size=-1)")
    line = one_error_line(done)
    assert "parameter board_size is -1; give a whole number from 0 to 1,000" in line
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("openspiel:go(board_size=1)", "OpenSpiel cannot start this game"),  # OpenSpiel says so
        ("openspiel:hex(board_size=0)", "the first player has no move"),
        ("openspiel:hex(board_size=-1)", "parameter board_size is -1"),  # a one-cell nonsense
        ("openspiel:hex(board_size=10000)", "parameter board_size is 10,000"),  # 5 GB
        ("openspiel:connect_four(rows=-1)", "parameter rows is -1"),
        ("openspiel:liars_dice(numdice=-1)", "parameter numdice is -1"),
        ("openspiel:go(max_game_length=-1)", "parameter max_game_length is -1"),
        ("openspiel:go(board_size=x)", "not an OpenSpiel game OpenSpiel can load"),
    ],
)
def test_every_unplayable_openspiel_game_is_refused_in_exactly_one_line(
    token: str, message: str
) -> None:
    """OpenSpiel writes "OpenSpiel exception: ..." to stderr itself before it raises; the
    command's one line is all a reader sees."""
    done = genstrat("game", "show", token)
    assert message in one_error_line(done)
    assert done.stderr.count("\n") == 1, done.stderr


def test_openspiel_games_with_good_parameters_still_play(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["game", "show", "openspiel:go(board_size=9)"]) == 0
    assert "9x9 board" in capsys.readouterr().out
    assert cli.main(["game", "simulate", "openspiel:hex(board_size=5)", "--deals", "2"]) == 0
    assert cli.main(["game", "show", "openspiel:hunl"]) == 0
