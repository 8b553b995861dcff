"""``genstrat release list|verify|pull``: output, JSON shape, and one-line errors (exit 2 for a
mistake, 1 for a release that fails a check)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines.cli import main
from releases.store import publish
from tests.releases.support import PASSING, sample_inputs, serve


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    path = tmp_path / "store"
    ids = []
    for extra in (0, 1):
        tables, texts, images, context = sample_inputs(extra_rows=extra)
        ids.append(publish(tables, texts, images, context, path, gates=PASSING).release_id)
    monkeypatch.setenv("GENSTRAT_RELEASES", str(path))
    return path, ids


def test_list_prints_json_oldest_first_and_a_table(
    store: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, ids = store
    assert main(["release", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["store"] == str(path)
    assert [r["release_id"] for r in listing["releases"]] == ids
    assert main(["release", "list", "--store", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"2 release(s) in {path}" in out and ids[0] in out and "2/2 passed" in out


def test_list_of_an_empty_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["release", "list", "--store", str(tmp_path / "none")]) == 0
    assert "no releases in" in capsys.readouterr().out


def test_verify_by_id_and_by_path(
    store: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, ids = store
    assert main(["release", "verify", ids[1]]) == 0
    assert f"release {ids[1]} verified:" in capsys.readouterr().out
    assert main(["release", "verify", str(path / ids[0])]) == 0
    assert "every SHA-256 matches" in capsys.readouterr().out


def test_pull_over_http(
    store: tuple[Path, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, ids = store
    with serve(path) as (url, _):
        code = main(["release", "pull", ids[0], "--from", url, "--to", str(tmp_path / "d")])
    assert code == 0
    out = capsys.readouterr().out
    assert f"pulled {ids[0]} into {tmp_path / 'd' / ids[0]}" in out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["release", "verify", "gs-ffffffffffffffff"], "unknown release gs-ffffffffffffffff"),
        (["release", "verify", "nonsense"], "is not a release folder"),
        (["release", "pull", "gs-ffffffffffffffff", "--from", "ftp://x", "--to", "d"], "ftp"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    store: tuple[Path, list[str]],
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    expected: str,
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("genstrat: error: ") and expected in err
    assert err.count("\n") == 1


def test_a_tampered_release_fails_verify_with_exit_1(
    store: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, ids = store
    (path / ids[0] / "README.md").write_text("edited")
    assert main(["release", "verify", ids[0]]) == 1
    err = capsys.readouterr().err
    assert f"release {ids[0]}: README.md: size mismatch" in err and err.count("\n") == 1
