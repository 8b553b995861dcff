"""Prompt caching per provider against the scripted server: the exact request bodies (the
rulebook as a stable, cache-marked prefix; OpenAI's cache key), the cached input tokens each
provider reports, and the cost with cached-token prices."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games import resolve_games
from arena.llm.player import Price
from arena.llm.providers import (
    AnthropicMessages,
    GeminiGenerate,
    OpenAIChat,
    caches_by_default,
    prompt_cache_key,
)
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from engines.gbg import rulebook
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, legal_menu

KUHN_RULEBOOK = rulebook(resolve_games(["kuhn"])[0].spec)


def openai_script(request: Request) -> Answer:
    menu = legal_menu(request)
    body = {
        "choices": [{"message": {"role": "assistant", "content": json.dumps({"action": menu[0]})}}],
        "usage": {
            "prompt_tokens": 1000,
            "completion_tokens": 10,
            "prompt_tokens_details": {"cached_tokens": 800},
        },
    }
    return Answer(200, json.dumps(body).encode())


def anthropic_script(request: Request) -> Answer:
    menu = legal_menu(request)
    body = {
        "content": [{"type": "text", "text": json.dumps({"action": menu[0]})}],
        "usage": {
            "input_tokens": 150,
            "cache_read_input_tokens": 800,
            "cache_creation_input_tokens": 50,
            "output_tokens": 10,
        },
    }
    return Answer(200, json.dumps(body).encode())


def gemini_script(request: Request) -> Answer:
    text = request.body["contents"][-1]["parts"][0]["text"]
    fake = Request("POST", "", {}, {"messages": [{"role": "user", "content": text}]}, 0)
    body = {
        "candidates": [
            {"content": {"parts": [{"text": json.dumps({"action": legal_menu(fake)[0]})}]}}
        ],
        "usageMetadata": {
            "promptTokenCount": 1000,
            "cachedContentTokenCount": 750,
            "candidatesTokenCount": 9,
        },
    }
    return Answer(200, json.dumps(body).encode())


# kind, script, URL suffix, roster extras, price, (input, cached, output), cost of one call
CASES: list[tuple[str, Any, str, dict[str, Any], dict[str, float], tuple[int, int, int], float]] = [
    (
        "openai",
        openai_script,
        "/v1",
        {"prompt_cache": True},
        {"input_per_mtok": 2.0, "output_per_mtok": 8.0, "cached_input_per_mtok": 0.5},
        (1000, 800, 10),
        (200 * 2.0 + 800 * 0.5 + 10 * 8.0) / 1e6,
    ),
    (
        "anthropic",
        anthropic_script,
        "/v1",
        {},
        {
            "input_per_mtok": 3.0,
            "output_per_mtok": 15.0,
            "cached_input_per_mtok": 0.3,
            "cache_write_per_mtok": 3.75,
        },
        (1000, 800, 10),
        (150 * 3.0 + 800 * 0.3 + 50 * 3.75 + 10 * 15.0) / 1e6,
    ),
    (
        "gemini",
        gemini_script,
        "/v1beta",
        {},
        {"input_per_mtok": 1.25, "output_per_mtok": 10.0, "cached_input_per_mtok": 0.3125},
        (1000, 750, 9),
        (250 * 1.25 + 750 * 0.3125 + 9 * 10.0) / 1e6,
    ),
]


def expected_body(kind: str, request: Request) -> dict[str, Any]:
    """The body the provider must receive for this request's turn prompt."""
    if kind == "openai":
        prompt = request.body["messages"][1]["content"]
        return {
            "model": "m-1",
            "messages": [
                {"role": "system", "content": KUHN_RULEBOOK},
                {"role": "user", "content": prompt},
            ],
            "temperature": 0,
            "prompt_cache_key": "genstrat-"
            + hashlib.sha256(KUHN_RULEBOOK.encode()).hexdigest()[:16],
        }
    if kind == "anthropic":
        prompt = request.body["messages"][0]["content"]
        return {
            "model": "m-1",
            "system": [
                {"type": "text", "text": KUHN_RULEBOOK, "cache_control": {"type": "ephemeral"}}
            ],
            "messages": [{"role": "user", "content": prompt}],
            "max_tokens": 1024,
            "temperature": 0,
        }
    prompt = request.body["contents"][0]["parts"][0]["text"]
    return {
        "systemInstruction": {"parts": [{"text": KUHN_RULEBOOK}]},
        "contents": [{"role": "user", "parts": [{"text": prompt}]}],
        "generationConfig": {"temperature": 0},
    }


@pytest.mark.parametrize(("kind", "script", "suffix", "extra", "price", "tokens", "cost"), CASES)
def test_caching_request_fields_cached_tokens_and_cost(
    tmp_path: Path,
    kind: str,
    script: Any,
    suffix: str,
    extra: dict[str, Any],
    price: dict[str, float],
    tokens: tuple[int, int, int],
    cost: float,
) -> None:
    with ScriptedServer(script) as server:
        base = server.url.removesuffix("/v1") + suffix
        roster = parse_roster(
            {
                "players": [
                    {"name": "bot", "kind": "builtin", "agent": "random"},
                    {
                        "name": "llm",
                        "kind": kind,
                        "model": "m-1",
                        "base_url": base,
                        "settings": {"temperature": 0},
                        "price": price,
                        **extra,
                    },
                ]
            }
        )
        summary = run_tournament(roster, resolve_games(["kuhn"]), 2, tmp_path / "t")
        requests = list(server.requests)
    assert summary.finished
    assert requests
    for request in requests:
        assert request.body == expected_body(kind, request)
    moves = pd.read_parquet(tmp_path / "t" / MOVES)
    llm = moves[moves["player"] == "llm"]
    assert len(llm) == len(requests)
    assert (llm["input_tokens"] == tokens[0]).all()
    assert (llm["cached_input_tokens"] == tokens[1]).all()
    assert (llm["output_tokens"] == tokens[2]).all()
    assert llm["cost_usd"].to_numpy() == pytest.approx([cost] * len(llm), rel=1e-12)
    matches = pd.read_parquet(tmp_path / "t" / MATCHES)
    seat_cost = matches["cost_usd_alice"].where(matches["alice"] == "llm", matches["cost_usd_bob"])
    assert seat_cost.sum() == pytest.approx(cost * len(llm), rel=1e-12)
    # the built-in player's moves carry no tokens
    assert (moves.loc[moves["player"] == "bot", "cached_input_tokens"] == 0).all()


def test_caching_defaults_per_provider() -> None:
    assert caches_by_default("anthropic", None)
    assert caches_by_default("gemini", "http://127.0.0.1:1/v1beta")
    assert caches_by_default("openai", None)
    assert caches_by_default("openai", "https://api.openai.com/v1/")
    assert not caches_by_default("openai", "http://127.0.0.1:8080/v1")  # llama.cpp, vLLM, ...
    off = OpenAIChat("http://x/v1").request("m", "rules", [], {}, None, "none")
    assert "prompt_cache_key" not in off.body
    on = OpenAIChat("http://x/v1").request("m", "rules", [], {}, None, "none", prompt_cache=True)
    assert on.body["prompt_cache_key"] == prompt_cache_key("rules")
    assert (
        AnthropicMessages("http://x/v1").request("m", "rules", [], {}, None, "none").body["system"]
        == "rules"
    )
    gemini = GeminiGenerate("http://x").request("m", "rules", [], {}, None, "none", True)
    assert (
        gemini.body == GeminiGenerate("http://x").request("m", "rules", [], {}, None, "none").body
    )


def test_roster_switch_turns_caching_off() -> None:
    roster = parse_roster(
        {
            "players": [
                {"name": "a", "kind": "anthropic", "model": "m", "prompt_cache": False},
                {"name": "b", "kind": "anthropic", "model": "m"},
            ]
        }
    )
    assert not roster.player("a").caches_prompt  # type: ignore[union-attr]
    assert roster.player("b").caches_prompt  # type: ignore[union-attr]
    # caching changes what is billed, not how the player plays
    assert roster.fingerprint("a") == roster.fingerprint("b")


counts = st.integers(min_value=0, max_value=10**9)
prices = st.floats(min_value=0, max_value=1000, allow_nan=False)


@given(counts, counts, counts, counts, prices, prices, prices, prices)
def test_cost_arithmetic(
    total: int, cached: int, written: int, output: int, p_in: float, p_out: float, p_c: float,
    p_w: float,
) -> None:  # fmt: skip
    price = Price(p_in, p_out, p_c, p_w)
    cost = price.cost(total, output, cached, written)
    c = min(cached, total)
    w = min(written, total - c)
    expected = ((total - c - w) * p_in + c * p_c + w * p_w + output * p_out) / 1e6
    assert cost == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert cost >= 0
    # default prices bill nothing for cached tokens and cache writes at the input price
    plain = Price(p_in, p_out)
    assert plain.cost(total, output, c, w) == pytest.approx(
        ((total - c) * p_in + output * p_out) / 1e6, rel=1e-9, abs=1e-12
    )
    # no caching: the old arithmetic
    assert Price(p_in, p_out).cost(total, output) == pytest.approx(
        (total * p_in + output * p_out) / 1e6, rel=1e-9, abs=1e-12
    )
