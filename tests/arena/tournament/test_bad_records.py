"""A journal or a response cache written by a version that did not bound replies (issue 43,
items 4, 5, 14) is repaired or refused in one line, never a traceback: a match record whose
usage or texts no bounded reply can give is set aside (its line moved to
``journal.jsonl.rejected``) and its match played again; a cache entry outside the bounds is
asked again (offline: the player stops, in one line); a record that cannot enter a table for
another reason, and a cache file that is not one, are refused in one line."""

from __future__ import annotations

import json
import logging
import math
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import JOURNAL, MATCHES, MOVES
from arena.tournament.runner import run_tournament
from tests.doubles.scripted_server import ScriptedServer, first_legal
from tests.support import REPO_ROOT

REJECTED = JOURNAL + ".rejected"


def spec(url: str) -> dict[str, Any]:
    return {
        "players": [
            {"name": "bot", "kind": "builtin", "agent": "random"},
            {"name": "llm", "kind": "openai", "model": "m", "base_url": url},
        ],
        "providers": {f"openai@{url}": {"backoff_base_s": 0.01, "max_retries": 1}},
    }


def genstrat(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``genstrat tournament run`` on Kuhn, 2 runs, into ``out`` (roster ``out/roster.json``)."""
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "tournament", "run", "--roster",
         str(out / "roster.json"), "--games", "kuhn", "--runs", "2", "--out", str(out),
         "--quiet", *extra],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def edit_journal(out: Path, edit: Callable[[list[dict[str, Any]]], None]) -> None:
    path = out / JOURNAL
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    edit(entries)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))


def llm_move(entry: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in entry["moves"] if m["player"] == "llm")


def test_a_1e308_record_and_cache_entry_of_an_older_version_are_repaired_in_one_line(
    tmp_path: Path,
) -> None:
    """The red team's poisoned run, as an older version left it: the journal and the cache
    hold ``output_tokens`` 1e308.  Every rerun (``--offline``, ``--retry-failed``, plain)
    ends without a traceback."""
    out = tmp_path / "t"
    with ScriptedServer(first_legal) as server:
        out.mkdir()
        (out / "roster.json").write_text(json.dumps(spec(server.url)))
        first = run_tournament(parse_roster(spec(server.url)), resolve_games(["kuhn"]), 2, out)
        assert first.status_counts == {"complete": 4}

        def poison(entries: list[dict[str, Any]]) -> None:
            seat = "alice" if entries[0]["match"]["alice"] == "llm" else "bob"
            entries[0]["match"][f"output_tokens_{seat}"] = 1e308
            llm_move(entries[0])["output_tokens"] = 1e308

        edit_journal(out, poison)
        with sqlite3.connect(out / "cache.sqlite") as db:
            db.execute(
                "UPDATE replies SET body = replace(body, '\"completion_tokens\": 8',"
                " '\"completion_tokens\": 1e308')"
            )
        poisoned_match = json.loads((out / JOURNAL).read_text().splitlines()[0])["match"]

        offline = genstrat(out, "--offline")
        retried = genstrat(out, "--retry-failed")
        plain = genstrat(out)
    for run in (offline, retried, plain):
        assert "Traceback" not in run.stderr, run.stderr
    set_aside, stopped = offline.stderr.splitlines()
    assert offline.returncode == 75
    assert set_aside.startswith(f"genstrat: {out / JOURNAL}: 1 match record(s) outside the ")
    seat = "alice" if poisoned_match["alice"] == "llm" else "bob"
    assert set_aside.endswith(
        f"moved to {REJECTED}, their matches to be played again; the first: line 1, match "
        f"{poisoned_match['match_id']}: output_tokens_{seat} is 1e+308, not a count from 0 to "
        "10^15"
    )
    assert stopped.startswith("genstrat: player 'llm' stopped: the cached reply of call ")
    assert "is unusable: usage.completion_tokens is 1e+308, not a token count" in stopped
    assert "run without --offline to ask the provider again" in stopped
    assert retried.returncode == plain.returncode == 0 and retried.stderr == plain.stderr == ""
    assert "4/4 matches recorded (4 complete)" in plain.stdout
    assert len((out / REJECTED).read_text().splitlines()) == 1
    moves = pd.read_parquet(out / MOVES)
    assert moves["output_tokens"].max() < 100


def test_negative_counts_and_a_huge_text_in_an_old_journal_are_set_aside(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "t"
    kuhn = resolve_games(["kuhn"])
    with ScriptedServer(first_legal) as server:
        roster = parse_roster(spec(server.url))
        run_tournament(roster, kuhn, 2, out)
        requests = len(server.requests)
        before = pd.read_parquet(out / MOVES).drop(columns=["latency_s", "cached"])

        def old(entries: list[dict[str, Any]]) -> None:
            llm_move(entries[1])["input_tokens"] = -40  # item 14, as an older version kept it
            llm_move(entries[2])["raw_response"] = "x" * (5 * 1024 * 1024)  # item 5
            entries[3]["match"]["cost_usd_alice"] = math.inf

        edit_journal(out, old)
        caplog.set_level(logging.WARNING, logger="arena.tournament.journal")
        again = run_tournament(roster, kuhn, 2, out)
        assert len(server.requests) == requests  # replayed from the response cache
    assert again.played == 3 and again.resumed == 1 and again.status_counts == {"complete": 4}
    (record,) = [r for r in caplog.records if r.name == "arena.tournament.journal"]
    assert "3 match record(s) outside the bounds of a reply" in record.getMessage()
    assert "the first: line 2, match " in record.getMessage()
    assert ": input_tokens is -40, not a count from 0 to 10^15" in record.getMessage()
    assert len((out / REJECTED).read_text().splitlines()) == 3
    after = pd.read_parquet(out / MOVES).drop(columns=["latency_s", "cached"])
    pd.testing.assert_frame_equal(after, before)  # the matches as they were first played
    assert (out / JOURNAL).stat().st_size < 64 * 1024


def test_a_record_that_cannot_enter_a_table_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "t"
    with ScriptedServer(first_legal) as server:
        out.mkdir()
        (out / "roster.json").write_text(json.dumps(spec(server.url)))
        assert genstrat(out).returncode == 0

        def broken(entries: list[dict[str, Any]]) -> None:
            entries[2]["match"]["game_seed"] = 10**30  # no reply writes it: not set aside

        edit_journal(out, broken)
        match_id = json.loads((out / JOURNAL).read_text().splitlines()[2])["match"]["match_id"]
        run = genstrat(out)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == (
        f"genstrat: error: the journal in {out} holds a record of match '{match_id}' that "
        f"cannot enter {MATCHES} (OverflowError: Python int too large to convert to C long); "
        "move its line out "
        "of the journal and run again to play the match again\n"
    )


def test_a_response_cache_that_is_not_one_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "t"
    out.mkdir()
    (out / "roster.json").write_text(json.dumps(spec("http://127.0.0.1:9/v1")))
    (out / "cache.sqlite").write_bytes(b"this is not a database, " * 100)
    run = genstrat(out, "--offline")
    assert run.returncode == 2
    assert run.stderr == (
        f"genstrat: error: the response cache {out / 'cache.sqlite'} cannot be read (file is "
        "not a database); move it away to start a new one\n"
    )


UNUSABLE = {
    "calls": "UPDATE replies SET calls = 1000000000000",
    "latency": "UPDATE replies SET latency_s = -3",
    "huge body": "UPDATE replies SET body = '[' || replace(hex(zeroblob(4500000)), '00', '1,')"
    " || '1]'",
    "deep body": "UPDATE replies SET body = replace(hex(zeroblob(100)), '00', '[')"
    " || replace(hex(zeroblob(100)), '00', ']')",
    "failure": 'UPDATE replies SET body = \'{"__genstrat_failed_call__": {"kind": 7}}\'',
}


@pytest.mark.parametrize("what", sorted(UNUSABLE))
def test_a_cache_entry_outside_the_bounds_is_asked_again_or_stops_offline(
    tmp_path: Path, what: str
) -> None:
    out = tmp_path / "t"
    kuhn = resolve_games(["kuhn"])
    with ScriptedServer(first_legal) as server:
        roster = parse_roster(spec(server.url))
        run_tournament(roster, kuhn, 1, out)
        entries = len(server.requests)
        (out / JOURNAL).unlink()  # rebuild from the cache: every entry is read
        with sqlite3.connect(out / "cache.sqlite") as db:
            db.execute(UNUSABLE[what])
        offline = run_tournament(roster, kuhn, 1, out, offline=True)
        assert offline.recorded == 0 and list(offline.stopped) == ["llm"]
        live = run_tournament(roster, kuhn, 1, out)
        asked_again = len(server.requests) - entries
    assert "is unusable" in offline.stopped["llm"], offline.stopped
    assert offline.stopped["llm"].endswith("; run without --offline to ask the provider again")
    assert live.status_counts == {"complete": 2}
    assert asked_again == entries  # every unusable entry asked again, and overwritten
    (out / JOURNAL).unlink()
    rebuilt = run_tournament(roster, kuhn, 1, out, offline=True)
    assert rebuilt.status_counts == {"complete": 2} and not rebuilt.stopped
