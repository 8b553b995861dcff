"""Killed at any moment and started again, a tournament ends with exactly the corpus an
uninterrupted run writes: no lost match, no duplicated match (issue 5, "Done when"); with LLM
players, the same usage too: calls, tokens and cost (issue 41)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import Roster, parse_roster
from arena.tournament.journal import JOURNAL, MATCHES, MOVES, Corpus
from arena.tournament.runner import run_tournament
from engines.tournament.records import WALL_CLOCK_COLUMNS
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion, legal_menu

GENSTRAT = str(Path(sys.executable).with_name("genstrat"))
# three generated games (the first seeds the default generator configuration accepts)
GAMES = "0,4,5"
RUNS = 10
ROSTER = """\
players:
  - {name: random, kind: builtin, agent: random}
  - {name: heuristic, kind: builtin, agent: heuristic}
  - {name: population, kind: builtin, agent: population}
  - {name: search-2, kind: builtin, agent: search, params: {depth: 2, worlds: 8}}
"""


def command(roster: Path, out: Path, *extra: str) -> list[str]:
    return [GENSTRAT, "tournament", "run", "--roster", str(roster), "--games", GAMES,
            "--runs", str(RUNS), "--out", str(out), "--json", "--quiet", *extra]  # fmt: skip


def journal_lines(out: Path) -> int:
    path = out / JOURNAL
    return path.read_bytes().count(b"\n") if path.exists() else 0


def run_and_kill_after(roster: Path, out: Path, lines: int, *extra: str) -> bool:
    """Start the command, SIGKILL it once the journal has ``lines`` lines; False if it ended."""
    process = subprocess.Popen(command(roster, out, *extra), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            if journal_lines(out) >= lines:
                os.kill(process.pid, signal.SIGKILL)
                process.wait(30)
                return True
            time.sleep(0.005)
        raise AssertionError("the tournament made no progress")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)


def stable(frame: pd.DataFrame) -> pd.DataFrame:
    drop = [c for c in (*WALL_CLOCK_COLUMNS, "latency_s") if c in frame.columns]
    return frame.drop(columns=drop)


@pytest.mark.slow
def test_killed_and_resumed_tournament_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    roster = tmp_path / "roster.yaml"
    roster.write_text(ROSTER)
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"

    done = subprocess.run(command(roster, whole), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    scheduled = 6 * 3 * RUNS * 2  # pairs x games x runs x deals
    assert report["scheduled"] == report["recorded"] == scheduled
    assert report["status_counts"] == {"complete": scheduled}

    # kill it twice, at different points, then let it finish
    assert run_and_kill_after(roster, resumed, 40), "finished before the first kill"
    first_kill = journal_lines(resumed)
    assert 40 <= first_kill < scheduled
    killed_again = run_and_kill_after(roster, resumed, first_kill + 150)
    final = subprocess.run(command(roster, resumed), capture_output=True, text=True, timeout=600)
    assert final.returncode == 0, final.stderr
    last = json.loads(final.stdout)
    assert last["recorded"] == scheduled
    assert last["resumed"] >= first_kill + (150 if killed_again else 0)

    # no lost and no duplicated match: one journal line per scheduled match
    assert journal_lines(resumed) == scheduled
    for name in (MATCHES, MOVES):
        left = stable(pd.read_parquet(whole / name))
        right = stable(pd.read_parquet(resumed / name))
        pd.testing.assert_frame_equal(left, right)
    matches = pd.read_parquet(resumed / MATCHES)
    assert matches["match_id"].is_unique and len(matches) == scheduled
    assert set(matches["game"]) == {"0", "4", "5"}
    assert set(matches["game_seed"]) == {0, 4, 5}


def test_a_torn_last_line_is_cut_and_the_match_replayed(tmp_path: Path) -> None:
    roster = parse_roster(
        {"players": [{"name": "a", "kind": "builtin", "agent": "random"},
                     {"name": "b", "kind": "builtin", "agent": "heuristic"}]}
    )  # fmt: skip
    games = resolve_games(["kuhn"])
    whole = run_tournament(roster, games, 3, tmp_path / "whole")
    out = tmp_path / "torn"
    run_tournament(roster, games, 3, out)
    data = (out / JOURNAL).read_bytes()
    cut = data[: data.rfind(b"\n", 0, len(data) - 1) + 1]  # drop the last match's line ...
    (out / JOURNAL).write_bytes(cut + data[len(cut) : len(cut) + 40])  # ... leave half of it
    again = run_tournament(roster, games, 3, out)
    assert again.played == 1 and again.recorded == whole.recorded == 6
    assert journal_lines(out) == 6
    pd.testing.assert_frame_equal(
        stable(pd.read_parquet(out / MATCHES)),
        stable(pd.read_parquet(tmp_path / "whole" / MATCHES)),
    )


def test_two_tournaments_cannot_write_one_folder(tmp_path: Path) -> None:
    with Corpus(tmp_path) as corpus:
        assert corpus.records == {}
        with pytest.raises(ValueError, match="another tournament is writing"):
            Corpus(tmp_path).open()


def test_a_changed_setting_plays_new_matches_and_leaves_old_ones_out(tmp_path: Path) -> None:
    def roster(depth: int) -> Roster:
        return parse_roster(
            {"players": [{"name": "a", "kind": "builtin", "agent": "random"},
                         {"name": "s", "kind": "builtin", "agent": "search",
                          "params": {"depth": depth, "worlds": 2}}]}
        )  # fmt: skip

    games = resolve_games(["kuhn"])
    first = run_tournament(roster(1), games, 2, tmp_path)
    old = set(pd.read_parquet(tmp_path / MATCHES)["match_id"])
    second = run_tournament(roster(2), games, 2, tmp_path)
    assert first.played == second.played == 4
    new = set(pd.read_parquet(tmp_path / MATCHES)["match_id"])
    assert len(new) == 4 and new.isdisjoint(old)  # the table holds the current roster's only
    assert journal_lines(tmp_path) == 8  # the old matches stay in the journal


def hashed_answer(request: Request) -> Answer:
    """A model whose answers and token counts depend only on the conversation."""
    text = json.dumps(request.body["messages"], sort_keys=True)
    pick = random.Random(hashlib.sha256(text.encode()).digest())
    return completion(
        json.dumps({"action": pick.choice(legal_menu(request))}),
        prompt_tokens=len(text) // 4,
        completion_tokens=pick.randrange(5, 40),
    )


def cached_replies(out: Path) -> int:
    with sqlite3.connect(out / "cache.sqlite") as db:
        return int(db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])


def journaled_calls(out: Path) -> int:
    lines = (out / JOURNAL).read_text().splitlines()
    return sum(int(mv["calls"]) for line in lines for mv in json.loads(line)["moves"])


@pytest.mark.slow
def test_a_killed_llm_tournament_resumes_with_the_usage_of_an_uninterrupted_one(
    tmp_path: Path,
) -> None:
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    with ScriptedServer(hashed_answer, delay_s=0.01) as server:
        roster = tmp_path / "roster.yaml"
        price = "price: {input_per_mtok: 1.5, output_per_mtok: 6}"
        roster.write_text(
            "players:\n"
            "  - {name: bot, kind: builtin, agent: random}\n"
            f"  - {{name: a, kind: openai, model: a, base_url: '{server.url}', {price}}}\n"
            f"  - {{name: b, kind: openai, model: b, base_url: '{server.url}', {price}}}\n"
        )
        extra = ("--parallel", "8")
        done = subprocess.run(command(roster, whole, *extra), capture_output=True, text=True,
                              timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr
        scheduled = json.loads(done.stdout)["scheduled"]
        requests = len(server.requests)
        # kill it while matches are in flight: some of their replies are cached, not journaled
        lines = 20
        while True:
            assert run_and_kill_after(roster, resumed, lines, *extra), "finished before a kill"
            if cached_replies(resumed) > journaled_calls(resumed):
                break
            lines = journal_lines(resumed) + 10
            assert lines < scheduled, "no kill landed in the middle of a match"
        final = subprocess.run(command(roster, resumed, *extra), capture_output=True, text=True,
                               timeout=600)  # fmt: skip
    assert final.returncode == 0, final.stderr
    assert json.loads(final.stdout)["resumed"] > 0
    usage = ["calls", "input_tokens", "output_tokens", "cost_usd"]
    left, right = (pd.read_parquet(out / MATCHES) for out in (whole, resumed))
    for column in usage:
        for seat in ("alice", "bob"):
            assert left[f"{column}_{seat}"].tolist() == right[f"{column}_{seat}"].tolist()
    assert left[["calls_alice", "calls_bob"]].to_numpy().sum() == requests
    pd.testing.assert_frame_equal(stable(left), stable(right))
    moves = [pd.read_parquet(out / MOVES).drop(columns=["latency_s", "cached"])
             for out in (whole, resumed)]  # fmt: skip
    pd.testing.assert_frame_equal(moves[0], moves[1])
