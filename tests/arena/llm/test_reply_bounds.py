"""Provider replies are held to bounds before they reach the journal or the cache (issue 43,
items 4 and 14): a token count is an integer from 0 to ``MAX_TOKEN_COUNT`` (a reply saying
``1e308`` or ``-5`` is an error of its request, recorded and counted), JSON is nested at most
``MAX_JSON_DEPTH`` deep, and a reply's text is kept within ``MAX_TEXT_CHARS`` with its answer
still read.  Every server here is the scripted one on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import math
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.llm.http11 import lean_client
from arena.llm.providers import (
    CUT_MARK,
    MAX_JSON_DEPTH,
    MAX_REASONING_CHARS,
    MAX_TEXT_CHARS,
    MAX_TOKEN_COUNT,
    AnthropicMessages,
    GeminiGenerate,
    MalformedReply,
    OpenAIChat,
    json_depth,
)
from arena.llm.transport import ProviderGate, ReplyRejected, Transport
from arena.retry import RetryPolicy
from arena.roster import Roster, parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion, legal_menu


def roster(url: str, kind: str = "openai") -> Roster:
    return parse_roster(
        {
            "players": [
                {"name": "bot", "kind": "builtin", "agent": "random"},
                {"name": "llm", "kind": kind, "model": "m", "base_url": url,
                 "price": {"input_per_mtok": 1.0, "output_per_mtok": 4.0}},
            ],
            "providers": {f"{kind}@{url}": {"backoff_base_s": 0.01, "max_retries": 1}},
        }
    )  # fmt: skip


def answer_json(request: Request) -> str:
    return json.dumps({"action": legal_menu(request)[0]})


def raw(body: str) -> Answer:
    """A 200 reply whose body is ``body`` exactly (``1e308`` stays a literal)."""
    return Answer(200, body.encode())


def openai_body(content: str, usage: str) -> str:
    return (
        '{"choices": [{"index": 0, "message": {"role": "assistant", "content": '
        + json.dumps(content)
        + '}, "finish_reason": "stop"}], "usage": '
        + usage
        + "}"
    )


def test_a_token_count_of_1e308_is_an_error_of_its_request_and_every_rerun_works(
    tmp_path: Path,
) -> None:
    """The red team's reply: ``usage.completion_tokens: 1e308``."""
    sane = {"now": False}

    def script(request: Request) -> Answer:
        if sane["now"]:
            return completion(answer_json(request))
        usage = '{"prompt_tokens": 10, "completion_tokens": 1e308, "total_tokens": 1e308}'
        return raw(openai_body(answer_json(request), usage))

    out = tmp_path / "t"
    kuhn = resolve_games(["kuhn"])
    with ScriptedServer(script) as server:
        players = roster(server.url)
        first = run_tournament(players, kuhn, 2, out)
        requests = len(server.requests)
        # the same command again, offline, and with --retry-failed once the provider is sane
        again = run_tournament(players, kuhn, 2, out)
        offline = run_tournament(players, kuhn, 2, out, offline=True)
        assert len(server.requests) == requests
        sane["now"] = True
        retried = run_tournament(players, kuhn, 2, out, retry_failed=True)
    assert first.status_counts == {"error": 4} and first.recorded == 4
    assert again.played == offline.played == 0 and offline.status_counts == {"error": 4}
    assert retried.status_counts == {"complete": 4}
    journal = (out / "journal.jsonl").read_text()
    assert "1e308" not in journal and "1000000000000000" not in journal
    matches = pd.read_parquet(out / MATCHES)
    assert set(matches["status"]) == {"complete"}
    # the failed run's rows: the refused reply's request is counted, its tokens are not
    failed = [json.loads(line) for line in journal.splitlines()][:4]
    for entry in failed:
        assert entry["match"]["status"] == "error"
        assert "usage.completion_tokens is 1e+308, not a token count" in entry["match"]["error"]
        (unfinished,) = [m for m in entry["moves"] if m["action"] is None]
        assert unfinished["calls"] == 1 and unfinished["output_tokens"] == 0
    assert sum(m["calls"] for e in failed for m in e["moves"] if m["player"] == "llm") == requests


NEGATIVE = {
    "openai": lambda text: openai_body(text, '{"prompt_tokens": 10, "completion_tokens": -5}'),
    "anthropic": lambda text: json.dumps(
        {
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": -40, "output_tokens": 3},
        }
    ),
    "gemini": lambda text: json.dumps(
        {
            "candidates": [{"content": {"parts": [{"text": text}]}}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": -7},
        }
    ),
}
FIELD = {
    "openai": "usage.completion_tokens is -5",
    "anthropic": "usage.input_tokens is -40",
    "gemini": "usageMetadata.candidatesTokenCount is -7",
}


@pytest.mark.parametrize("kind", sorted(NEGATIVE))
def test_negative_token_counts_are_an_error_not_a_record(tmp_path: Path, kind: str) -> None:
    def script(request: Request) -> Answer:
        return raw(NEGATIVE[kind]('{"action": "check"}'))  # refused before it is read

    with ScriptedServer(script) as server:
        summary = run_tournament(roster(server.url, kind), resolve_games(["kuhn"]), 2,
                                 tmp_path / "t")  # fmt: skip
        requests = len(server.requests)
    assert summary.status_counts == {"error": 4}
    moves = pd.read_parquet(tmp_path / "t" / MOVES)
    counts = ["input_tokens", "output_tokens", "reasoning_tokens", "cached_input_tokens", "calls"]
    assert (moves[counts].fillna(0) >= 0).all().all()
    assert (moves["cost_usd"] >= 0).all()
    assert moves.loc[moves["player"] == "llm", "calls"].sum() == requests
    errors = pd.read_parquet(tmp_path / "t" / MATCHES)["error"]
    assert errors.str.contains(FIELD[kind] + ", not a token count").all()


def parsed(kind: str, counts: dict[str, Any]) -> Any:
    if kind == "openai":
        return OpenAIChat("u").parse({"choices": [{"message": {"content": "hi"}}], "usage": counts})
    if kind == "anthropic":
        return AnthropicMessages("u").parse(
            {"content": [{"type": "text", "text": "hi"}], "usage": counts}
        )
    return GeminiGenerate("u").parse(
        {"candidates": [{"content": {"parts": [{"text": "hi"}]}}], "usageMetadata": counts}
    )


COUNT_FIELD = {"openai": "completion_tokens", "anthropic": "output_tokens",
               "gemini": "candidatesTokenCount"}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(COUNT_FIELD))
@pytest.mark.parametrize(
    "value",
    [1e308, -1, -0.5, 2.5, math.inf, math.nan, MAX_TOKEN_COUNT + 1, 10**400, "12", True, [3]],
    ids=lambda v: repr(v)[:12],
)
def test_every_provider_refuses_a_count_that_is_not_a_sane_integer(kind: str, value: Any) -> None:
    with pytest.raises(MalformedReply, match="not a token count"):
        parsed(kind, {COUNT_FIELD[kind]: value})


@pytest.mark.parametrize("kind", sorted(COUNT_FIELD))
@pytest.mark.parametrize(("value", "read"), [(0, 0), (12, 12), (12.0, 12), (None, 0)])
def test_sane_counts_read_as_integers(kind: str, value: Any, read: int) -> None:
    reply = parsed(kind, {COUNT_FIELD[kind]: value})
    assert reply.output_tokens == read and isinstance(reply.output_tokens, int)


def nested(depth: int) -> bytes:
    """A chat reply whose ``usage`` holds lists nested so that the body is ``depth`` deep."""
    inner = "[" * (depth - 2) + "]" * (depth - 2)
    return openai_body('{"action": "check"}', '{"extra": ' + inner + "}").encode()


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 200_000])
def test_a_reply_nested_past_the_bound_is_refused_at_once(depth: int) -> None:
    async def post(url: str) -> Any:
        async with lean_client() as client:
            transport = Transport(client, ProviderGate(2), RetryPolicy(max_retries=3),
                                  random.Random(0), timeout_s=10)  # fmt: skip
            return await transport.post_json(url + "/chat/completions", {"model": "m"}, {})

    with ScriptedServer(lambda request: Answer(200, nested(depth))) as server:
        with pytest.raises(ReplyRejected, match=f"nested more than {MAX_JSON_DEPTH} levels"):
            asyncio.run(post(server.url))
        assert len(server.requests) == 1  # never retried
    with ScriptedServer(lambda request: Answer(200, nested(MAX_JSON_DEPTH))) as server:
        assert json_depth(asyncio.run(post(server.url)).body) == MAX_JSON_DEPTH  # at the bound


def test_a_long_text_is_kept_within_the_bound_and_its_answer_still_read(tmp_path: Path) -> None:
    def script(request: Request) -> Answer:
        body = {
            "choices": [{"message": {
                "content": "Let me think. " * 40_000 + answer_json(request),
                "reasoning_content": "hmm " * 200_000,
            }}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 8},
        }  # fmt: skip
        return Answer(200, json.dumps(body).encode())

    with ScriptedServer(script) as server:
        summary = run_tournament(roster(server.url), resolve_games(["kuhn"]), 1, tmp_path / "t")
    assert summary.status_counts == {"complete": 2}
    moves = pd.read_parquet(tmp_path / "t" / MOVES)
    llm = moves[moves["player"] == "llm"]
    assert (llm["verdict"] == "ok").all() and not llm["fallback"].any()
    assert (llm["raw_response"].str.len() == MAX_TEXT_CHARS).all()
    assert llm["raw_response"].str.contains(CUT_MARK, regex=False).all()
    assert (llm["raw_response"].str.startswith("Let me think. ")).all()
    assert (llm["reasoning"].str.len() == MAX_REASONING_CHARS).all()
