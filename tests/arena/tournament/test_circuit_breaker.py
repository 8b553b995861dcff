"""A dead endpoint is given up after N consecutive connection failures (issue 41, item 4): the
player is unavailable for the rest of the run, its remaining matches are not attempted (nor
recorded: the folder's ``unavailable.json`` names the player and how many matches it left), and
the same command plays them once the endpoint answers again."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import Roster, parse_roster
from arena.tournament.journal import MOVES
from arena.tournament.runner import UNAVAILABLE_FILE, run_tournament
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, first_legal

CONCURRENCY = 8
RUNS = 500  # one pair on Kuhn: 1,000 matches


def roster(url: str) -> Roster:
    return parse_roster(
        {
            "players": [
                {"name": "bot", "kind": "builtin", "agent": "random"},
                {"name": "llm", "kind": "openai", "model": "m", "base_url": url},
            ],
            # short backoffs: without a breaker the run would still end, in seconds, with
            # every match recorded as an error after three attempts each
            "providers": {
                f"openai@{url}": {
                    "concurrency": CONCURRENCY, "backoff_base_s": 0.01, "max_retries": 2,
                }
            },
        }
    )  # fmt: skip


@pytest.mark.parametrize("threshold", [None, 3])
def test_a_dead_endpoint_is_given_up_after_n_consecutive_connection_failures(
    tmp_path: Path, threshold: int | None
) -> None:
    out = tmp_path / "t"
    with ScriptedServer(lambda request: Answer(reset=True)) as server:
        summary = run_tournament(roster(server.url), resolve_games(["kuhn"]), RUNS, out,
                                 max_connection_failures=threshold)  # fmt: skip
        attempted = len(server.requests)
    n = threshold or 10  # the default
    # the breaker opened at the n-th failure: at most the requests already in flight followed
    assert attempted <= n + CONCURRENCY
    assert summary.scheduled == 1000 and summary.recorded == 0 and summary.played == 0
    assert summary.not_played == 1000 and summary.not_played_by == {"llm": 1000}
    message = summary.stopped["llm"]
    assert message.startswith("player 'llm' stopped: unavailable: ")
    assert f"{n} consecutive connection failures at {server.url}" in message
    assert list(summary.unavailable) == ["llm"]
    state = json.loads((out / UNAVAILABLE_FILE).read_text())
    assert state == {"unavailable": {"llm": message}, "not_played": {"llm": 1000}}


def test_an_unavailable_players_matches_are_played_once_its_endpoint_answers(
    tmp_path: Path,
) -> None:
    dead = {"now": True}

    def script(request: Request) -> Answer:
        return Answer(reset=True) if dead["now"] else first_legal(request)

    out = tmp_path / "t"
    kuhn = resolve_games(["kuhn"])
    with ScriptedServer(script) as server:
        players = roster(server.url)
        first = run_tournament(players, kuhn, 20, out)
        assert first.recorded == 0 and list(first.unavailable) == ["llm"]
        assert (out / UNAVAILABLE_FILE).exists()
        dead["now"] = False
        again = run_tournament(players, kuhn, 20, out)
    assert again.finished and again.played == 40 and not again.stopped
    assert not (out / UNAVAILABLE_FILE).exists()


def test_replies_between_failures_keep_the_breaker_closed(tmp_path: Path) -> None:
    def flaky(request: Request) -> Answer:  # two requests reset, then one answered, in turn
        return first_legal(request) if request.number % 3 == 0 else Answer(reset=True)

    out = tmp_path / "t"
    with ScriptedServer(flaky) as server:
        summary = run_tournament(roster(server.url), resolve_games(["kuhn"]), 20, out,
                                 parallel=1, max_connection_failures=3)  # fmt: skip
    assert summary.finished and not summary.stopped
    assert not (out / UNAVAILABLE_FILE).exists()
    # many failed attempts in all (a move of three requests had one), never three in a row
    moves = pd.read_parquet(out / MOVES)
    assert (moves["calls"] >= 3).sum() >= 10
