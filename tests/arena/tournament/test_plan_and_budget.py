"""``tournament plan`` against the counts of a real (scripted) tournament, and budgets: a stop at
``max_usd``, recorded as ``stopped: budget``, that holds at any ``parallel`` (the spend passes a
limit by at most one request's worst-case cost, by the server's own account), and a resume that
ends with the corpus of a run that never had a budget."""

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
from arena.roster import Roster, parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.plan import plan_tournament
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
    # the moves too, but for the flag on the replies of the match the stop left in flight:
    # paid for before the stop, read back from the cache by the resumed run
    moves = stable(tmp_path / "b" / MOVES)
    pd.testing.assert_frame_equal(
        moves.drop(columns="cached"), stable(tmp_path / "free" / MOVES).drop(columns="cached")
    )
    replayed = moves.loc[moves["cached"]]
    assert replayed["player"].isin(["llm", "llm2"]).all()  # a built-in agent asks no one
    assert set(replayed["match_id"]).isdisjoint(partial["match_id"])


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


PRICE = {"input_per_mtok": 1.0, "output_per_mtok": 4.0}
MAX_TOKENS = 16


def priced_pair(url: str, llm: dict[str, Any] | None = None, **extra: Any) -> Roster:
    """A bot and two priced LLM players that cap their replies at ``MAX_TOKENS``."""
    players = [
        {"name": "random", "kind": "builtin", "agent": "random"},
        *(
            {"name": name, "kind": "openai", "model": model, "base_url": url, "price": PRICE,
             "settings": {"max_tokens": MAX_TOKENS}, **(llm or {} if name == "llm" else {})}
            for name, model in (("llm", "m"), ("llm2", "m2"))
        ),
    ]  # fmt: skip
    return parse_roster({"players": players, "protocol": "paper", **extra})


def test_budgets_hold_at_parallel_64_and_a_resume_equals_an_unbudgeted_run(
    tmp_path: Path,
) -> None:
    games = resolve_games(["kuhn", "leduc", "4"])
    # the server's own account of every reply: (model, request bytes, cost)
    account: list[tuple[str, int, float]] = []

    def metered(request: Request) -> Answer:
        answer = tokenizing(request)
        usage = json.loads(answer.body)["usage"]
        cost = (usage["prompt_tokens"] * PRICE["input_per_mtok"]
                + usage["completion_tokens"] * PRICE["output_per_mtok"]) / 1e6  # fmt: skip
        account.append((request.body["model"], int(request.headers["content-length"]), cost))
        return answer

    def spent(since: int, model: str | None = None) -> float:
        return sum(c for m, _, c in account[since:] if model in (None, m))

    with ScriptedServer(metered, delay_s=0.005) as server:
        free = run_tournament(priced_pair(server.url), games, 8, tmp_path / "free", parallel=64)
        total, by_llm = spent(0), spent(0, "m")
        start = len(account)
        run_max, llm_max = total / 3, by_llm / 4
        limited = priced_pair(server.url, llm={"max_usd": llm_max}, max_usd=run_max)
        stopped = run_tournament(limited, games, 8, tmp_path / "b", parallel=64)
        # the worst case of a request: every byte an input token, plus the reply's cap
        worst = max(
            (size * PRICE["input_per_mtok"] + MAX_TOKENS * PRICE["output_per_mtok"]) / 1e6
            for _, size, _ in account[start:]
        )
        assert all(cost <= worst for _, _, cost in account[start:])
        run_spend, llm_spend = spent(start), spent(start, "m")
        resumed = run_tournament(priced_pair(server.url), games, 8, tmp_path / "b", parallel=64)
    assert free.finished and not stopped.finished
    assert {"llm", "llm2"} <= set(stopped.stopped)
    assert all("stopped: budget" in message for message in stopped.stopped.values())
    # held: by the server's count, no limit is passed by more than one request's worst case
    assert run_max <= run_spend <= run_max + worst
    assert llm_spend <= llm_max + worst
    assert stopped.budget is not None
    assert stopped.budget["total_usd"] == pytest.approx(run_spend, abs=1e-6)
    # resumed without a budget: the corpus of the run that never had one, usage included
    assert resumed.finished
    assert not (tmp_path / "b" / "budget.json").exists()
    for table in (MATCHES, MOVES):
        pd.testing.assert_frame_equal(
            stable(tmp_path / "b" / table).drop(columns=["cached"], errors="ignore"),
            stable(tmp_path / "free" / table).drop(columns=["cached"], errors="ignore"),
        )
