"""Bad input anywhere on the command line: one line on stderr, exit status 2, nothing written.

Each case is an input that once ran for minutes, printed megabytes, ended in a traceback or was
silently accepted (a count of zero, a nested file, a huge spec)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.gbg import presets
from pipelines import cli
from pipelines.cli import MAX_ERROR_CHARS

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
