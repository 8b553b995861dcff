"""LLM players in tournaments against a local misbehaving server: rethink, fallback, faults,
stopped players, the response cache, offline rebuilds and the secrecy of API keys."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import Roster, parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from engines.agents.parser import FEEDBACK
from engines.tournament.records import WALL_CLOCK_COLUMNS
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion, legal_menu

CANARY = "sk-canary-7f3a9c2e51d84b06"
KEY_ENV = "GENSTRAT_TEST_LLM_KEY"


def llm_roster(url: str, kind: str = "openai", **extra: Any) -> Roster:
    return parse_roster(
        {
            "players": [
                {"name": "bot", "kind": "builtin", "agent": "random"},
                {
                    "name": "llm",
                    "kind": kind,
                    "model": "m-1",
                    "base_url": url,
                    "api_key_env": KEY_ENV,
                    "settings": {"temperature": 0},
                    **extra,
                },
            ],
            "providers": {
                f"{kind}@{url}": {"concurrency": 4, "backoff_base_s": 0.01, "max_retries": 2}
            },
        }
    )


def play(
    roster: Roster, out: Path, games: tuple[str, ...] = ("kuhn",), runs: int = 3, **kwargs: Any
) -> Any:
    return run_tournament(
        roster, resolve_games(list(games)), runs, out, environ={KEY_ENV: CANARY}, **kwargs
    )


def stable(path: Path) -> pd.DataFrame:
    frame = pd.read_parquet(path)
    return frame.drop(columns=[c for c in WALL_CLOCK_COLUMNS if c in frame.columns])


def chaos(request: Request) -> Answer:
    """Every fault of the issue, in turn: transport faults and bad replies."""
    menu = legal_menu(request)
    n = request.number
    if n % 9 == 1:
        return Answer(429, b'{"error": {"message": "slow down"}}', {"retry-after": "0"})
    if n % 9 == 2:
        return Answer(500, b"internal")
    if n % 9 == 3:
        return Answer(reset=True)
    if n % 9 == 4:
        return Answer(200, b"")
    if n % 9 == 5:
        return Answer(200, b'{"choices": [{"message": {"content": "{\\"act')
    if n % 9 == 6:
        return completion("I would bet here, and maybe call later.")  # prose, no JSON
    if n % 9 == 7:
        return completion('{"action": "raise 1000"}')  # illegal
    if n % 9 == 8:
        return Answer(delay_s=0.6, body=completion('{"action": "check"}').body)  # stall
    return completion("```json\n{'action': '" + menu[0].upper() + "',}\n```")


def test_rethink_feedback_then_a_legal_answer(tmp_path: Path) -> None:
    def script(request: Request) -> Answer:
        messages = request.body["messages"]
        menu = legal_menu(request)
        if messages[-1]["content"] == FEEDBACK["illegal"]:
            return completion(json.dumps({"action": menu[-1]}))
        return completion('{"action": "shove everything"}')

    with ScriptedServer(script) as server:
        summary = play(llm_roster(server.url), tmp_path / "t", runs=2)
        second = next(
            r.body["messages"]
            for r in server.requests
            if r.body["messages"][-1]["content"] == FEEDBACK["illegal"]
        )
    assert summary.status_counts == {"complete": 4}
    moves = pd.read_parquet(tmp_path / "t" / MOVES)
    llm = moves[moves["player"] == "llm"]
    assert (llm["rethinks"] == 1).all() and not llm["fallback"].any()
    assert (llm["verdict"] == "illegal").all()
    assert [list(e) for e in llm["earlier_responses"]] == [
        ['{"action": "shove everything"}']
    ] * len(llm)
    # the rethink request: the model's own reply, then the one-line feedback, nothing more
    assert second[-2] == {"role": "assistant", "content": '{"action": "shove everything"}'}
    assert second[-1] == {"role": "user", "content": FEEDBACK["illegal"]}
    matches = pd.read_parquet(tmp_path / "t" / MATCHES)
    llm_seat = matches["alice"].eq("llm")
    rethinks = matches["rethinks_alice"].where(llm_seat, matches["rethinks_bob"])
    moves_llm = matches["moves_alice"].where(llm_seat, matches["moves_bob"])
    assert (rethinks == moves_llm).all()


def test_prose_gets_k_rethinks_then_the_fallback(tmp_path: Path) -> None:
    with ScriptedServer(lambda r: completion("Betting feels right; I bet.")) as server:
        roster = llm_roster(server.url, rethinks=2)
        summary = play(roster, tmp_path / "t", runs=2)
        calls = len(server.requests)
    moves = pd.read_parquet(tmp_path / "t" / MOVES)
    llm = moves[moves["player"] == "llm"]
    assert llm["fallback"].all() and (llm["rethinks"] == 2).all()
    assert calls == 3 * len(llm)  # K = 2 rethinks: three calls a move
    assert (llm["verdict"] == "unparsable").all()
    # the paper's fallback: the minimum wager (check, else call) in Kuhn's betting menus
    assert set(llm["action"]) <= {"check", "call"}
    assert summary.per_player["llm"]["fallback_rate"] == 1.0
    assert summary.per_player["llm"]["rethink_rate"] == 2.0


def test_every_fault_is_handled_and_no_match_is_lost(tmp_path: Path) -> None:
    with ScriptedServer(chaos) as server:
        roster = llm_roster(server.url, timeout_s=0.3)
        summary = play(roster, tmp_path / "t", games=("kuhn", "leduc"), runs=6)
        received = len(server.requests)
    assert summary.finished and summary.recorded == summary.scheduled == 24
    assert summary.not_played == 0 and not summary.stopped
    matches = pd.read_parquet(tmp_path / "t" / MATCHES)
    assert matches["match_id"].is_unique and len(matches) == 24
    assert set(matches["status"]) <= {"complete", "timeout", "error"}
    assert (matches["status"] == "complete").sum() >= 6
    failed = matches[matches["status"] != "complete"]
    assert failed["error"].str.contains("player 'llm'").all()
    assert failed["alice_chip_delta"].isna().all()
    moves = pd.read_parquet(tmp_path / "t" / MOVES)
    llm = moves[moves["player"] == "llm"]
    assert llm["calls"].max() > 1  # retried moves
    assert llm["rethinks"].sum() > 0  # prose and illegal replies were rethought
    assert set(llm["verdict"]) >= {"ok"}
    played = moves[moves["action"].notna()]
    for row in played.itertuples():
        assert row.action in list(row.legal_actions)
    # the move that ended a failed match is a row without an action, with what it cost
    unfinished = moves[moves["action"].isna()]
    assert len(unfinished) > 0 and set(unfinished["match_id"]) <= set(failed["match_id"])
    assert (unfinished["player"] == "llm").all() and (unfinished["calls"] > 0).all()
    # every request the server received is counted, in the moves and in the matches
    assert moves["calls"].sum() == matches["calls_alice"].sum() + matches["calls_bob"].sum()
    assert moves["calls"].sum() == received
    n_moves = played.groupby("match_id").size().reindex(matches["match_id"], fill_value=0)
    assert n_moves.tolist() == matches["n_moves"].tolist()  # n_moves: the moves played


def test_a_resumed_or_repeated_tournament_reuses_every_answer(tmp_path: Path) -> None:
    out = tmp_path / "t"
    with ScriptedServer(chaos) as server:
        roster = llm_roster(server.url, timeout_s=0.3)
        play(roster, out, runs=4)
        before = stable(out / MATCHES), stable(out / MOVES)
        calls = len(server.requests)
        again = play(roster, out, runs=4)
        assert len(server.requests) == calls  # nothing asked twice
    assert again.played == 0 and again.resumed == again.scheduled
    pd.testing.assert_frame_equal(stable(out / MATCHES), before[0])
    pd.testing.assert_frame_equal(stable(out / MOVES), before[1])


def test_a_release_rebuilds_offline_from_the_cache(tmp_path: Path) -> None:
    out = tmp_path / "t"
    with ScriptedServer(chaos) as server:
        roster = llm_roster(server.url, timeout_s=0.3)
        play(roster, out, runs=4)
    before = stable(out / MATCHES), stable(out / MOVES)
    for name in ("journal.jsonl", MATCHES, MOVES):
        (out / name).unlink()
    # the server is gone: an offline rebuild must not call anything
    summary = play(roster, out, runs=4, offline=True)
    assert summary.cache_misses == 0 and summary.cache_hits > 0
    after = stable(out / MATCHES), stable(out / MOVES)
    # a reply read back counts the requests that obtained it: the rebuild's usage is the run's
    pd.testing.assert_frame_equal(after[0], before[0])
    assert after[0][["calls_alice", "calls_bob"]].to_numpy().sum() > 0

    # moves answered from the cache are flagged; their latency is the original call's (a
    # built-in agent's latency is its compute time, measured again)
    def comparable(moves: pd.DataFrame) -> pd.DataFrame:
        out = moves.drop(columns=["cached"])
        out.loc[out["player"] == "bot", "latency_s"] = 0.0
        return out

    pd.testing.assert_frame_equal(comparable(after[1]), comparable(before[1]))
    assert after[1].loc[after[1]["player"] == "llm", "cached"].all()


def test_offline_cache_miss_stops_the_player_without_recording(tmp_path: Path) -> None:
    roster = llm_roster("http://127.0.0.1:9/v1")  # never contacted
    (tmp_path / "t").mkdir()
    with pytest.raises(ValueError, match="offline replay needs the response cache"):
        play(roster, tmp_path / "t", offline=True)
    from arena.llm.cache import ResponseCache

    ResponseCache(tmp_path / "t" / "cache.sqlite").close()
    summary = play(roster, tmp_path / "t", offline=True)
    assert "no cached reply" in summary.stopped["llm"]
    assert summary.recorded == 0 and summary.not_played == summary.scheduled


@pytest.mark.parametrize("status", [400, 401, 404])
def test_a_non_retryable_error_stops_that_player_only(tmp_path: Path, status: int) -> None:
    body = json.dumps({"error": {"message": f"bad thing, key {CANARY}"}}).encode()
    with ScriptedServer(lambda r: Answer(status, body)) as server:
        roster = parse_roster(
            {
                "players": [
                    {"name": "a", "kind": "builtin", "agent": "random"},
                    {"name": "b", "kind": "builtin", "agent": "heuristic"},
                    {
                        "name": "llm",
                        "kind": "openai",
                        "model": "m",
                        "base_url": server.url,
                        "api_key_env": KEY_ENV,
                    },
                ]
            }
        )
        summary = play(roster, tmp_path / "t", runs=2, parallel=1)
        calls = len(server.requests)
    assert calls == 1  # stopped at the first refusal
    assert f"HTTP {status}" in summary.stopped["llm"]
    assert CANARY not in summary.stopped["llm"]
    matches = pd.read_parquet(tmp_path / "t" / MATCHES)
    assert set(matches["alice"]) | set(matches["bob"]) == {"a", "b"}  # the bots played on
    assert summary.not_played == 8 and summary.recorded == 4 and not summary.finished


def test_a_missing_key_variable_stops_the_player_and_a_rerun_plays_the_rest(
    tmp_path: Path,
) -> None:
    out = tmp_path / "t"
    with ScriptedServer() as server:
        roster = llm_roster(server.url)
        first = run_tournament(roster, resolve_games(["kuhn"]), 2, out, environ={})
        assert len(server.requests) == 0
        assert KEY_ENV in first.stopped["llm"] and "is not set" in first.stopped["llm"]
        assert first.recorded == 0
        second = run_tournament(roster, resolve_games(["kuhn"]), 2, out, environ={KEY_ENV: "k3y!"})
    assert second.finished and second.played == 4


def test_retry_failed_replays_recorded_failures(tmp_path: Path) -> None:
    out = tmp_path / "t"
    answers = {"now": Answer(500, b"down")}
    with ScriptedServer(lambda r: answers["now"]) as server:
        roster = llm_roster(server.url)
        failed = play(roster, out, runs=2)
        assert failed.status_counts == {"error": 4}
        answers["now"] = completion('{"action": "check"}')
        calls = len(server.requests)
        kept = play(roster, out, runs=2)  # recorded failures stay without the flag
        assert kept.played == 0 and len(server.requests) == calls
        replayed = play(roster, out, runs=2, retry_failed=True)
    assert replayed.played == 4 and replayed.status_counts == {"complete": 4}


def test_the_api_key_never_reaches_a_file_or_a_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def echo(request: Request) -> Answer:
        if request.number % 5 == 0:  # a provider that echoes the key in its reply
            return completion(f'{{"action": "check"}} (your key is {CANARY})')
        if request.number % 7 == 0:
            return Answer(500, f"server error for key {CANARY}".encode())
        return chaos(request)

    caplog.set_level(logging.DEBUG)
    out = tmp_path / "t"
    with ScriptedServer(echo) as server:
        roster = llm_roster(server.url, timeout_s=0.3)
        summary = play(roster, out, runs=3)
        sent = {r.headers.get("authorization") for r in server.requests}
    assert sent == {f"Bearer {CANARY}"}  # the key was really used
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"journal.jsonl", MATCHES, MOVES, "cache.sqlite"}
    for path in files:
        assert CANARY.encode() not in path.read_bytes(), path
    assert CANARY not in caplog.text
    assert CANARY not in json.dumps(summary.as_dict())
    assert any("[redacted]" in str(r) for r in pd.read_parquet(out / MOVES)["raw_response"])


def anthropic_script(request: Request) -> Answer:
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == CANARY
    assert request.headers["anthropic-version"] == "2023-06-01"
    # prompt caching is on by default for Anthropic: the rulebook is one cached system block
    (block,) = request.body["system"]
    assert block["type"] == "text" and block["text"]
    assert block["cache_control"] == {"type": "ephemeral"}
    assert request.body["max_tokens"] == 1024
    menu = legal_menu(request)
    reply = {
        "content": [
            {"type": "thinking", "thinking": "the pot odds favour it"},
            {"type": "text", "text": json.dumps({"action": menu[0]})},
        ],
        "usage": {"input_tokens": 321, "output_tokens": 12},
    }
    return Answer(200, json.dumps(reply).encode())


def gemini_script(request: Request) -> Answer:
    assert request.path == "/v1beta/models/m-1:generateContent"
    assert request.headers["x-goog-api-key"] == CANARY
    assert "key=" not in request.path
    assert request.body["generationConfig"]["responseMimeType"] == "application/json"
    assert request.body["systemInstruction"]["parts"][0]["text"]
    text = request.body["contents"][-1]["parts"][0]["text"]
    menu = legal_menu(Request("POST", "", {}, {"messages": [{"role": "user", "content": text}]}, 0))
    assert (
        request.body["generationConfig"]["responseSchema"]["properties"]["action"]["enum"] == menu
    )
    reply = {
        "candidates": [
            {
                "content": {
                    "parts": [
                        {"text": "thinking hard", "thought": True},
                        {"text": json.dumps({"action": menu[-1]})},
                    ]
                }
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 400,
            "candidatesTokenCount": 9,
            "thoughtsTokenCount": 30,
        },
    }
    return Answer(200, json.dumps(reply).encode())


@pytest.mark.parametrize(
    ("kind", "script", "suffix", "extra", "tokens"),
    [
        ("anthropic", anthropic_script, "/v1", {}, (321, 12, 0)),
        ("gemini", gemini_script, "/v1beta", {"response_format": "json_schema"}, (400, 39, 30)),
    ],
)
def test_anthropic_and_gemini_wire_formats(
    tmp_path: Path,
    kind: str,
    script: Any,
    suffix: str,
    extra: dict[str, Any],
    tokens: tuple[int, int, int],
) -> None:
    with ScriptedServer(script) as server:
        base = server.url.removesuffix("/v1") + suffix
        roster = llm_roster(
            base, kind=kind, price={"input_per_mtok": 1.0, "output_per_mtok": 10.0}, **extra
        )
        summary = play(roster, tmp_path / "t", runs=1)
    assert summary.status_counts == {"complete": 2}, summary.as_dict()
    moves = pd.read_parquet(tmp_path / "t" / MOVES)
    llm = moves[moves["player"] == "llm"]
    assert not llm["fallback"].any()
    first = llm.iloc[0]
    assert (first.input_tokens, first.output_tokens, first.reasoning_tokens) == tokens
    assert first.cost_usd == pytest.approx((tokens[0] * 1.0 + tokens[1] * 10.0) / 1e6)
    assert first.reasoning in ("the pot odds favour it", "thinking hard")
    assert json.loads(first.settings) == {"temperature": 0}
    assert first.model == "m-1"


def test_json_schema_response_formats_are_sent(tmp_path: Path) -> None:
    seen: list[Any] = []

    def script(request: Request) -> Answer:
        seen.append(request.body.get("response_format"))
        return completion(json.dumps({"action": legal_menu(request)[0]}))

    for mode in ("json_object", "json_schema", "json_object_schema"):
        seen.clear()
        with ScriptedServer(script) as server:
            play(llm_roster(server.url, response_format=mode), tmp_path / mode, runs=1)
        assert seen and all(f["type"] in ("json_object", "json_schema") for f in seen)
        if mode == "json_schema":
            assert seen[0]["json_schema"]["schema"]["properties"]["action"]["enum"]
        if mode == "json_object_schema":
            assert seen[0]["schema"]["required"] == ["action"]


def test_matches_are_played_concurrently(tmp_path: Path) -> None:
    with ScriptedServer(delay_s=0.2) as server:
        roster = llm_roster(server.url)
        summary = play(roster, tmp_path / "t", games=("kuhn",), runs=8, parallel=16)
    # the server held several requests at once: matches overlap (no wall-clock bound)
    assert summary.finished and server.most_in_flight > 1


def test_worker_processes_write_the_same_corpus(tmp_path: Path) -> None:
    with ScriptedServer(chaos) as server:
        roster = llm_roster(server.url, timeout_s=0.3)
        one = play(roster, tmp_path / "one", games=("kuhn", "leduc"), runs=4)
        two = play(roster, tmp_path / "two", games=("kuhn", "leduc"), runs=4, workers=2)
        calls = len(server.requests)
        again = play(roster, tmp_path / "two", games=("kuhn", "leduc"), runs=4, workers=2)
        assert len(server.requests) == calls and again.played == 0
    assert one.recorded == two.recorded == 16 and two.played == 16
    assert sorted(p.name for p in (tmp_path / "two").glob("journal*")) == [
        "journal.jsonl",
        "journal.w0.jsonl",
        "journal.w1.jsonl",
    ]
    # chaos answers by arrival order, so statuses may differ between the two runs; the
    # schedule, the ids and the order of the tables may not
    left, right = stable(tmp_path / "one" / MATCHES), stable(tmp_path / "two" / MATCHES)
    assert left["match_id"].tolist() == right["match_id"].tolist()
    assert set(right["status"]) <= {"complete", "timeout", "error"}
    with pytest.raises(ValueError, match="workers must be at least 1"):
        play(roster, tmp_path / "three", workers=0)


def test_killing_the_tournament_leaves_no_worker_behind(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    def running(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        return state != "Z"  # a zombie has exited

    def children(pid: int) -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == pid:
                    found.append(int(entry.name))
        return found

    with ScriptedServer(delay_s=0.1) as server:
        roster = tmp_path / "roster.yaml"
        roster.write_text(
            "players:\n"
            f"  - {{name: a, kind: openai, model: a, base_url: '{server.url}'}}\n"
            f"  - {{name: b, kind: openai, model: b, base_url: '{server.url}'}}\n"
        )
        genstrat = str(Path(sys.executable).with_name("genstrat"))
        out = str(tmp_path / "out")
        command = [genstrat, "tournament", "run", "--roster", str(roster), "--games", "leduc",
                   "--runs", "200", "--out", out, "--workers", "2", "--quiet"]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline and len(workers) < 2:
            workers = [c for c in children(process.pid) if c != process.pid]
            time.sleep(0.1)
        while time.monotonic() < deadline and len(server.requests) < 20:
            time.sleep(0.1)
        assert len(server.requests) >= 20, "the workers never played"
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        deadline = time.monotonic() + 120  # a fail-safe: the workers end with the command
        while time.monotonic() < deadline and any(running(w) for w in workers):
            time.sleep(0.1)

    assert workers and not [w for w in workers if running(w)]
