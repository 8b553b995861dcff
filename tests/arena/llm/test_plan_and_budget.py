"""``tournament plan`` against the counts of a real (scripted) tournament, and budgets: a stop at
``max_usd``, recorded as ``stopped: budget``, and a resume that ends with the corpus of a run that
never had a budget."""

from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.llm.plan import plan_tournament
from arena.roster import Roster, parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from engines.tournament.records import WALL_CLOCK_COLUMNS
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion, legal_menu

REPLY_TOKENS = 12


def tokenizing(request: Request) -> Answer:
    """A model that plays a legal action chosen by a hash of the conversation, and reports
    tokens as a 4-characters-per-token tokenizer would."""
    messages = request.body["messages"]
    text = "".join(str(m["content"]) for m in messages)
    menu = legal_menu(request)
    pick = random.Random(hashlib.sha256(text.encode()).digest()).choice(menu)
    reply = completion(
        json.dumps({"action": pick}),
        prompt_tokens=sum(math.ceil(len(str(m["content"])) / 4) for m in messages[:1])
        + sum(math.ceil(len(str(m["content"])) / 4) for m in messages[1:]),
        completion_tokens=REPLY_TOKENS,
    )
    return reply


def roster(url: str, **extra: Any) -> Roster:
    players = extra.pop("players", None) or [
        {"name": "random", "kind": "builtin", "agent": "random"},
        {"name": "heuristic", "kind": "builtin", "agent": "heuristic"},
    ]
    llm = {
        "name": "llm",
        "kind": "openai",
        "model": "m",
        "base_url": url,
        "price": {"input_per_mtok": 1.0, "output_per_mtok": 4.0},
        "expect": {"reply_tokens": REPLY_TOKENS, "latency_s": 0.5},
        **extra.pop("llm", {}),
    }
    return parse_roster({"players": [*players, llm], "protocol": "paper", **extra})


def test_the_plan_agrees_with_a_tournament_within_ten_percent(tmp_path: Path) -> None:
    games = resolve_games(["kuhn", "leduc", "4"])
    with ScriptedServer(tokenizing) as server:
        r = roster(server.url)
        plan = plan_tournament(r, games, 6)
        summary = run_tournament(r, games, 6, tmp_path / "t")
    assert summary.finished
    moves = pd.read_parquet(tmp_path / "t" / MOVES)
    llm = moves[moves["player"] == "llm"]
    estimate = plan.models["llm"]
    assert plan.matches == summary.scheduled
    assert estimate.matches == int((pd.read_parquet(tmp_path / "t" / MATCHES)[["alice", "bob"]]
                                    == "llm").any(axis=1).sum())  # fmt: skip
    actual = {
        "calls": llm["calls"].sum(),
        "input_tokens": llm["input_tokens"].sum(),
        "output_tokens": llm["output_tokens"].sum(),
    }
    for key, value in actual.items():
        assert getattr(estimate, key) == pytest.approx(value, rel=0.10), key
    assert estimate.cost_usd == pytest.approx(llm["cost_usd"].sum(), rel=0.10)
    # the time: calls at 8 in flight (the default) and 0.5 s a call
    assert plan.hours == pytest.approx(estimate.calls / (8 / 0.5) / 3600)


def test_a_plan_of_a_half_played_folder_prices_what_is_left(tmp_path: Path) -> None:
    games = resolve_games(["kuhn"])
    with ScriptedServer(tokenizing) as server:
        r = roster(server.url)
        run_tournament(r, games, 2, tmp_path / "t")
        full = plan_tournament(r, games, 4)
        rest = plan_tournament(r, games, 4, tmp_path / "t")
    assert rest.already_played == full.matches // 2
    assert rest.matches == full.matches - rest.already_played


def test_rate_limits_and_caching_in_the_plan() -> None:
    url = "https://api.example.com/v1"
    r = roster(
        url,
        llm={"prompt_cache": True, "expect": {"reply_tokens": 10, "chars_per_token": 1.0}},
        providers={f"openai@{url}": {"concurrency": 100, "requests_per_minute": 60}},
    )
    plan = plan_tournament(r, resolve_games(["leduc"]), 2)
    m = plan.models["llm"]
    assert plan.hours == pytest.approx(m.calls / 1.0 / 3600)  # 60 a minute bounds 100/2 s
    # one character a token: the rulebook passes the minimum and is cached after the first call
    assert m.cached_input_tokens > 0 and m.cached_input_tokens < m.input_tokens
    assert m.output_tokens == pytest.approx(10 * m.calls)


def stable(path: Path) -> pd.DataFrame:
    frame = pd.read_parquet(path)
    return frame.drop(columns=[c for c in (*WALL_CLOCK_COLUMNS, "latency_s") if c in frame])


def two_models(url: str, **extra: Any) -> Roster:
    second = {"name": "llm2", "kind": "openai", "model": "m2", "base_url": url,
              "price": {"input_per_mtok": 1.0, "output_per_mtok": 4.0}}  # fmt: skip
    return roster(
        url,
        players=[{"name": "random", "kind": "builtin", "agent": "random"}, second],
        **extra,
    )


def test_a_budget_stop_and_resume_equals_an_unbudgeted_run(tmp_path: Path) -> None:
    games = resolve_games(["kuhn", "leduc"])
    with ScriptedServer(tokenizing) as server:
        free = run_tournament(two_models(server.url), games, 3, tmp_path / "free", parallel=1)
        per_match = free.as_dict()
        spent = pd.read_parquet(tmp_path / "free" / MATCHES)
        llm_cost = (spent["cost_usd_alice"].where(spent["alice"] == "llm", 0)
                    + spent["cost_usd_bob"].where(spent["bob"] == "llm", 0)).sum()  # fmt: skip
        limited = two_models(server.url, llm={"max_usd": llm_cost / 3})
        stopped = run_tournament(limited, games, 3, tmp_path / "b", parallel=1)
        assert not stopped.finished
        assert "llm" in stopped.stopped and "stopped: budget" in stopped.stopped["llm"]
        assert "llm2" not in stopped.stopped
        assert stopped.budget is not None
        assert stopped.budget["spent_usd"]["llm"] >= llm_cost / 3  # type: ignore[index]
        state = json.loads((tmp_path / "b" / "budget.json").read_text())
        assert state["stopped"] == {"llm": "budget"}
        assert state["spent_usd"]["llm"] >= llm_cost / 3
        partial = pd.read_parquet(tmp_path / "b" / MATCHES)
        assert 0 < len(partial) < len(spent)
        # the same budget: nothing new starts for that player
        again = run_tournament(limited, games, 3, tmp_path / "b", parallel=1)
        assert again.played == 0 and "stopped: budget" in again.stopped["llm"]
        # the budget raised: the rest is played
        raised = two_models(server.url, llm={"max_usd": llm_cost * 10})
        resumed = run_tournament(raised, games, 3, tmp_path / "b", parallel=1)
    assert resumed.finished and not resumed.stopped and per_match["finished"]
    assert not (tmp_path / "b" / "budget.json").exists()  # complete again: no budget stop
    pd.testing.assert_frame_equal(
        stable(tmp_path / "b" / MATCHES), stable(tmp_path / "free" / MATCHES)
    )
    pd.testing.assert_frame_equal(stable(tmp_path / "b" / MOVES), stable(tmp_path / "free" / MOVES))


def test_the_runs_budget_stops_every_match(tmp_path: Path) -> None:
    games = resolve_games(["kuhn"])
    with ScriptedServer(tokenizing) as server:
        summary = run_tournament(
            two_models(server.url, max_usd=1e-9), games, 2, tmp_path / "t", parallel=1
        )
    assert summary.played == 1  # the first match spends past the run's budget
    assert summary.stopped and all("stopped: budget" in m for m in summary.stopped.values())
    with pytest.raises(ValueError, match="workers=1"):
        run_tournament(two_models("http://127.0.0.1:9/v1", max_usd=1.0), games, 2,
                       tmp_path / "w", workers=2)  # fmt: skip
