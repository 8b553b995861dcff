"""Crafted releases that verify (issue 43, item 12): ``release show`` and ``release diff`` end in
one line and exit status 1 instead of a traceback; names are printed without terminal escapes
(``release show``, ``stats leaderboard``); and ``release show`` of a small archive that verifies
does not unpack gigabytes into the temporary folder.

A release's id derives from its contents, whatever those are, so anyone can seal a release
that verifies (:func:`tests.releases.hostile.reseal`); what genstrat reads from it is checked
before use.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipelines.cli import main
from releases.errors import Refused
from releases.opened import open_release
from releases.store import verify
from releases.verification import verify_archive
from tests.releases.hostile import reseal
from tests.releases.test_opened import corpus_release
from tests.support import REPO_ROOT

ESCAPES = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b[31m"
EVIL = f"{ESCAPES}evil\x1b[0m\u202e"


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A genuine release folder (outside any store) with a leaderboard of four models."""
    store = tmp_path_factory.mktemp("genuine")
    release_id = corpus_release(store, 4)
    return store / release_id


def parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def board(genuine: Path, change: Callable[[pd.DataFrame], pd.DataFrame]) -> bytes:
    return parquet(change(pd.read_parquet(genuine / "tables" / "leaderboards.parquet")))


def craft(genuine: Path, root: Path, how: str) -> Path:
    """A sealed release that verifies, crafted in one way (``how``)."""
    files: dict[str, bytes | None] = {}
    context: dict[str, object] = {}
    if how == "no rank column":
        files["tables/leaderboards.parquet"] = board(genuine, lambda b: b.drop(columns="rank"))
    elif how == "rank NaN":
        files["tables/leaderboards.parquet"] = board(genuine, lambda b: b.assign(rank=np.nan))
    elif how == "model missing":
        files["tables/leaderboards.parquet"] = board(
            genuine, lambda b: b.assign(model=[None, *b["model"][1:]])
        )
    elif how == "model twice":
        files["tables/leaderboards.parquet"] = board(
            genuine, lambda b: b.assign(model=[b["model"][0]] * len(b))
        )
    elif how == "alpha text":
        files["tables/leaderboards.parquet"] = board(genuine, lambda b: b.assign(alpha="x"))
    elif how == "not parquet":
        files["tables/leaderboards.parquet"] = b"PAR1 this is no table PAR1"
    elif how == "card a list":
        files["integrity.json"] = b"[]"
    elif how == "card not json":
        files["integrity.json"] = b"{not json"
    elif how == "gate without message":
        files["integrity.json"] = json.dumps({"gates": {"x": {"passed": True}}}).encode()
    elif how == "no card":
        files["integrity.json"] = None
    elif how == "profile text":
        context["profile"] = "demo"
    elif how == "analysis list":
        context["analysis"] = [1, 2]
    elif how == "n_boot text":
        context["analysis"] = {"n_boot": "many", "seed": 0}
    elif how == "engine number":
        context["engine_version"] = 5
    elif how == "rows text":
        return reseal(genuine, root, entries={"tables/leaderboards.parquet": {"rows": "many"}})
    else:
        raise AssertionError(how)
    return reseal(genuine, root, files, context)


CRAFTED = [
    "no rank column",
    "rank NaN",
    "model missing",
    "model twice",
    "alpha text",
    "not parquet",
    "card a list",
    "card not json",
    "gate without message",
    "no card",
    "profile text",
    "analysis list",
    "n_boot text",
    "engine number",
    "rows text",
]


@pytest.mark.parametrize("how", CRAFTED)
def test_show_and_diff_of_a_crafted_release_that_verifies_are_one_line_and_exit_1(
    genuine: Path, tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    crafted = craft(genuine, tmp_path, how)
    assert verify(crafted).release_id == crafted.name  # it verifies
    assert verify(crafted / f"{crafted.name}.tar.gz").release_id == crafted.name
    for argv in (
        ["release", "show", str(crafted)],
        ["release", "show", str(crafted), "--json"],
        ["release", "show", str(crafted / f"{crafted.name}.tar.gz")],
        ["release", "diff", str(genuine), str(crafted)],
        ["release", "diff", str(crafted), str(genuine), "--json"],
    ):
        code = main(argv)
        captured = capsys.readouterr()
        assert code == 1, (argv, captured.err)
        assert captured.err.startswith("genstrat: error: release ")
        assert captured.err.count("\n") == 1, captured.err


def test_a_diff_of_benchmarks_with_odd_game_names_or_no_game_column(
    genuine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = reseal(
        genuine,
        tmp_path,
        {"tables/benchmark_games.parquet": parquet(pd.DataFrame({"game": ["²", "12", "kuhn"]}))},
    )
    assert main(["release", "diff", str(genuine), str(odd)]) == 0
    assert "games added: 12, kuhn, ²" in capsys.readouterr().out
    none = reseal(
        genuine, tmp_path, {"tables/benchmark_games.parquet": parquet(pd.DataFrame({"x": [1]}))}
    )
    assert main(["release", "diff", str(genuine), str(none)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "benchmark_games.parquet has no game column" in err


def genstrat(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m pipelines.cli ARGS`` as the red team ran it."""
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_release_show_of_a_crafted_release_is_one_line_not_a_traceback(
    genuine: Path, tmp_path: Path
) -> None:
    crafted = craft(genuine, tmp_path, "profile text")
    for args in (("show", str(crafted)), ("diff", str(genuine), str(crafted))):
        done = genstrat("release", *args)
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
        assert "its profile is not a mapping with a name" in done.stderr


def test_names_are_printed_without_terminal_escapes(genuine: Path, tmp_path: Path) -> None:
    """A model named with escape sequences (clear screen, window title, colour, a right-to-left
    override) is printed as its plain letters by ``release show`` and ``stats leaderboard``."""
    pairs = pd.read_parquet(genuine / "tables" / "complete_pairs.parquet")
    first = str(pairs["alice"].iloc[0])
    renamed = pairs.replace({first: EVIL})
    crafted = reseal(
        genuine,
        tmp_path,
        {
            "tables/complete_pairs.parquet": parquet(renamed),
            "tables/leaderboards.parquet": board(genuine, lambda b: b.replace({first: EVIL})),
        },
        {"code_version": f"git:{ESCAPES}abc"},
    )
    matches = tmp_path / "matches.parquet"
    renamed.to_parquet(matches)
    for args in (
        ("release", "show", str(crafted)),
        ("stats", "leaderboard", "--matches", str(matches), "--bootstrap", "20"),
    ):
        done = genstrat(*args)
        assert done.returncode == 0, done.stderr
        assert "evil" in done.stdout
        for bad in ("\x1b", "\x07", "\u202e", "\x9b"):
            assert bad not in done.stdout, (args, bad)


def test_shown_drops_escapes_and_control_characters() -> None:
    from pipelines.commands.release import shown

    assert shown(EVIL) == "evil"
    assert shown("a\tb\nc\x00d\x9b31me\u200bf") == "a b cdef"
    assert shown("plain ünïcode — ok") == "plain ünïcode — ok"


def zeros_archive(genuine: Path, root: Path, relative: str, size: int) -> Path:
    """The archive of a release like ``genuine`` with one more listed file, ``relative``, of
    ``size`` zero bytes, sealed so that it verifies: small, since zeros compress 1000:1."""
    crafted = reseal(genuine, root, zeros={relative: size})
    return crafted / f"{crafted.name}.tar.gz"


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Path, list[int]]]:
    """A temporary folder for the command, and the most bytes it held while watched."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    peak = [0]
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            total = 0
            for path in folder.rglob("*"):
                with contextlib.suppress(OSError):  # removed while watched
                    total += path.stat().st_blocks * 512 if path.is_file() else 0
            peak[0] = max(peak[0], total)
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    yield folder, peak
    stop.set()
    thread.join()


def test_opening_an_archive_unpacks_only_what_is_read_within_a_bound(
    genuine: Path, tmp_path: Path
) -> None:
    archive = zeros_archive(genuine, tmp_path / "crafted", "tables/zeros.parquet", 48 << 20)
    assert archive.stat().st_size < 1 << 20
    assert verify_archive(archive).bytes > 48 << 20
    opened = open_release(archive, unpack_limit=16 << 20)
    leaderboard = opened.leaderboard()  # what show reads: the zeros stay packed
    assert leaderboard is not None and len(leaderboard) == 4
    assert opened.unpacked_bytes < 1 << 20
    assert not (opened.path / "tables" / "zeros.parquet").exists()
    with pytest.raises(Refused, match=r"would unpack [\d,]+ bytes, over the 16,777,216"):
        opened.table("zeros")
    assert not (opened.path / "tables" / "zeros.parquet").exists()


@pytest.mark.slow
def test_release_show_of_a_small_archive_does_not_unpack_gigabytes(
    genuine: Path, tmp_path: Path, watched: tuple[Path, list[int]]
) -> None:
    """The red team's case: a 2 MB archive that verifies and holds 2 GB of zeros. ``release
    show`` reads the manifest, the card and the leaderboard, and nothing else; a table of 2 GB
    is refused, unread, past the bound."""
    folder, peak = watched
    archive = zeros_archive(genuine, tmp_path / "crafted", "tables/zeros.parquet", 2 << 30)
    assert archive.stat().st_size < 3 << 20
    done = genstrat("release", "show", str(archive), env={"TMPDIR": str(folder)})
    assert done.returncode == 0, done.stderr
    assert "every SHA-256 verified" in done.stdout
    assert peak[0] < 8 << 20, peak[0]
    big = zeros_archive(genuine, tmp_path / "crafted2", "tables/leaderboards.parquet", 2 << 30)
    done = genstrat("release", "show", str(big), env={"TMPDIR": str(folder)})
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "over the 1,073,741,824 a reader unpacks" in done.stderr
    assert peak[0] < 8 << 20, peak[0]
