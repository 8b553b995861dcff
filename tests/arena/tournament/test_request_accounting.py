"""Every request an LLM player makes is counted, whatever ends the match (issue 41, item 1): the
moves table, the matches table and the per-player summary agree with the scripted server's own
count of requests and of the tokens it reported, for matches that end in a forfeit (an
OpenSpiel protocol that forfeits after its rethinks) and in an error (a rethink whose retries
run out)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import Roster, parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import TournamentSummary, run_tournament
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion, legal_menu

PRICE = {"input_per_mtok": 2.0, "output_per_mtok": 10.0}


def roster(url: str) -> Roster:
    return parse_roster(
        {
            "players": [
                {"name": "bot", "kind": "builtin", "agent": "random"},
                {"name": "llm", "kind": "openai", "model": "m", "base_url": url, "price": PRICE},
            ],
            "providers": {
                f"openai@{url}": {"concurrency": 4, "backoff_base_s": 0.01, "max_retries": 2}
            },
        }
    )


class Ledger:
    """The server's own account: requests received, and the tokens of the replies it sent."""

    def __init__(self) -> None:
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def reply(self, content: str, request: Request) -> Answer:
        prompt = 90 + 7 * len(request.body["messages"])  # varies with the conversation
        self.prompt_tokens += prompt
        self.completion_tokens += 11
        return completion(content, prompt_tokens=prompt, completion_tokens=11)


def assert_counted(
    out: Path, summary: TournamentSummary, server: ScriptedServer, ledger: Ledger
) -> pd.DataFrame:
    """The corpus's usage equals the server's count; the unfinished move rows (returned)."""
    matches = pd.read_parquet(out / MATCHES)
    moves = pd.read_parquet(out / MOVES)
    llm = moves[moves["player"] == "llm"]
    assert llm["calls"].sum() == len(server.requests) > 0
    assert llm["input_tokens"].sum() == ledger.prompt_tokens
    assert llm["output_tokens"].sum() == ledger.completion_tokens
    cost = (ledger.prompt_tokens * PRICE["input_per_mtok"]
            + ledger.completion_tokens * PRICE["output_per_mtok"]) / 1e6  # fmt: skip
    assert llm["cost_usd"].sum() == pytest.approx(cost, rel=1e-12)
    for column in ("calls", "input_tokens", "output_tokens", "cost_usd"):
        seats = matches[f"{column}_alice"].where(matches["alice"] == "llm", 0) + matches[
            f"{column}_bob"
        ].where(matches["bob"] == "llm", 0)
        assert seats.sum() == pytest.approx(llm[column].sum(), rel=1e-12), column
    per_player = summary.per_player["llm"]
    assert per_player["calls"] == len(server.requests)
    assert per_player["cost_usd"] == pytest.approx(cost, rel=1e-9)
    # moves counts the moves played; the move that ended a match is a row without an action
    assert per_player["moves"] == llm["action"].notna().sum()
    played = moves[moves["action"].notna()].groupby("match_id").size()
    assert played.reindex(matches["match_id"], fill_value=0).tolist() == matches["n_moves"].tolist()
    return llm[llm["action"].isna()]


def test_a_forfeited_match_counts_every_request(tmp_path: Path) -> None:
    ledger = Ledger()

    def never_legal(request: Request) -> Answer:
        return ledger.reply("I move my king to e9", request)

    with ScriptedServer(never_legal) as server:
        summary = run_tournament(roster(server.url), resolve_games(["openspiel:chess"]), 2,
                                 tmp_path / "t")  # fmt: skip
        unfinished = assert_counted(tmp_path / "t", summary, server, ledger)
    assert summary.status_counts == {"forfeit": 4}
    # chess forfeits after three rethinks: four requests, all in the forfeiting move's row
    assert len(unfinished) == 4 and (unfinished["calls"] == 4).all()
    assert (unfinished["rethinks"] == 3).all() and not unfinished["fallback"].any()
    assert [len(e) for e in unfinished["earlier_responses"]] == [3] * 4
    assert set(unfinished["raw_response"]) == {"I move my king to e9"}
    assert set(unfinished["verdict"]) <= {"illegal", "unparsable"}
    matches = pd.read_parquet(tmp_path / "t" / MATCHES)
    llm_seat = matches["alice"].eq("llm")
    assert (matches["rethinks_alice"].where(llm_seat, matches["rethinks_bob"]) == 3).all()


def test_a_move_whose_rethink_fails_counts_its_reply_and_every_attempt(tmp_path: Path) -> None:
    ledger = Ledger()

    def prose_then_down(request: Request) -> Answer:
        if len(request.body["messages"]) > 2:  # the rethink: the server is down
            return Answer(500, b'{"error": {"message": "down"}}')
        if request.number % 2:
            return ledger.reply("I think I will call.", request)  # no JSON: a rethink
        return ledger.reply(json.dumps({"action": legal_menu(request)[0]}), request)

    # Every rethink fails, so the circuit breaker (10 failures in a row) would stop the player
    # after a number of matches that depends on which ones are in flight: off here, where the
    # subject is one failed rethink's accounting, not the breaker's.
    with ScriptedServer(prose_then_down) as server:
        summary = run_tournament(roster(server.url), resolve_games(["kuhn", "leduc"]), 4,
                                 tmp_path / "t", max_connection_failures=0)  # fmt: skip
        unfinished = assert_counted(tmp_path / "t", summary, server, ledger)
    assert summary.status_counts.get("error", 0) == len(unfinished) > 0
    # one reply, then the rethink's three attempts (max_retries 2), all answered 500
    assert (unfinished["calls"] == 4).all() and (unfinished["rethinks"] == 1).all()
    assert set(unfinished["raw_response"]) == {"I think I will call."}
    assert set(unfinished["verdict"]) == {"unparsable"}
    assert not unfinished["cached"].any()


def test_an_offline_rebuild_of_failed_and_forfeited_matches_counts_the_same(
    tmp_path: Path,
) -> None:
    ledger = Ledger()

    def mixed(request: Request) -> Answer:
        messages = request.body["messages"]
        board = hashlib.sha256(str(messages[1]["content"]).encode()).digest()[0]
        if len(messages) == 6 and board % 2:  # the third answer of some moves: the server fails
            return Answer(500, b"{}")
        return ledger.reply("Nf9", request)

    def usage(out: Path) -> pd.DataFrame:
        return pd.read_parquet(out / MOVES).drop(columns=["latency_s", "cached"])

    out = tmp_path / "t"
    with ScriptedServer(mixed) as server:
        players = roster(server.url)
        run_tournament(players, resolve_games(["openspiel:chess"]), 3, out)
        before = usage(out)
        requests = len(server.requests)
        statuses = set(pd.read_parquet(out / MATCHES)["status"])
    (out / "journal.jsonl").unlink()
    # the server is gone: the rebuild reads every reply and failure back from the cache
    rebuilt = run_tournament(players, resolve_games(["openspiel:chess"]), 3, out, offline=True)
    assert statuses == {"forfeit", "error"}
    assert rebuilt.cache_misses == 0
    pd.testing.assert_frame_equal(usage(out), before)
    assert before["calls"].sum() == requests
    assert before["action"].isna().sum() == 6  # every match ended at a move of the model


def test_requests_of_matches_the_circuit_breaker_dropped_are_counted_when_they_are_played(
    tmp_path: Path,
) -> None:
    """The endpoint goes down after a few replies: the circuit breaker stops the player, and
    the moves in flight then had requests that reached the server but got no reply (their
    matches are not recorded, to be played later). They are cached as ``stopped`` failures
    with their requests, so the run that plays those matches once the endpoint is back counts
    them: the corpus then equals the server's count over both runs."""
    ledger = Ledger()
    down = True

    def up_then_down(request: Request) -> Answer:
        if down and request.number >= 12:
            return Answer(500, b'{"error": {"message": "down"}}')
        return ledger.reply(json.dumps({"action": legal_menu(request)[0]}), request)

    out = tmp_path / "t"
    games = resolve_games(["kuhn", "leduc"])
    with ScriptedServer(up_then_down) as server:
        first = run_tournament(roster(server.url), games, 8, out)
        assert "unavailable" in first.stopped.get("llm", ""), first.stopped
        assert first.recorded < first.scheduled
        with sqlite3.connect(out / "cache.sqlite") as db:
            stopped_calls = [
                calls
                for body, calls in db.execute("SELECT body, calls FROM replies")
                if '"kind": "stopped"' in body
            ]
        # the request that opened the breaker had made its three attempts
        assert stopped_calls and max(stopped_calls) == 3, stopped_calls
        down = False
        second = run_tournament(roster(server.url), games, 8, out)
        assert second.recorded == second.scheduled and not second.stopped
        assert_counted(out, second, server, ledger)
