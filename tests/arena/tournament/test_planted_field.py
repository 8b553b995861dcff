"""The planted-skill field over real HTTP (issue 41, item 6): models that play a strong policy
with set probabilities, behind an OpenAI-compatible server on loopback with latency, a rate
limit the roster does not know (429s with Retry-After), overloads, illegal answers and token
counts.  The whole path (roster, transport, retries, rethinks, fallbacks, the corpus, the
complete pairs and the leaderboard) recovers the planted order, and the corpus's bill equals
the server's own account, request for request and token for token."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from engines.stats.analysis import AnalysisConfig, analyse
from engines.tournament.pairs import complete_pairs
from tests.doubles.planted_server import (
    PlantedModel,
    PlantedServer,
    heuristic_choice,
    load_field,
    observed_strength,
    planted_field,
    roster_players,
)


@pytest.mark.slow
def test_the_leaderboard_recovers_the_planted_order_and_the_bill_is_the_servers(
    tmp_path: Path,
) -> None:
    games = resolve_games(["leduc", "4", "11"])
    field = planted_field(
        3,
        illegal_rate=0.05,
        latency_s=0.003,
        requests_per_minute=6_000,
        burst=2,
        overload_rate=0.03,
        overload_retry_after_s=0.002,
        reasoning_tokens=6,
    )
    with PlantedServer(field, [g.spec for g in games]) as server:
        players, providers = roster_players(
            field,
            server.url,
            concurrency=2,
            max_retries=12,
            backoff_base_s=0.002,
            rate_limits=False,
        )
        roster = parse_roster({"players": players, "providers": providers})
        summary = run_tournament(roster, games, 16, tmp_path / "t")
        account = server.stats()
        over_http = httpx.get(f"{server.url}/stats").json()
    assert summary.finished and summary.status_counts == {"complete": 288}
    assert over_http == json.loads(json.dumps(account))
    # the faults happened, and the harness took them: 429s retried, illegal answers rethought
    total = {k: sum(a[k] for a in account.values()) for k in next(iter(account.values()))}
    assert total["rate_limited"] > 0 and total["overloaded"] > 0 and total["illegal"] > 0
    moves = pd.read_parquet(tmp_path / "t" / MOVES)
    assert moves["rethinks"].sum() > 0
    # the bill: every request the server saw is in the corpus, and every token it billed
    for name, seen in account.items():
        own = moves[moves["player"] == name]
        assert int(own["calls"].sum()) == seen["requests"]
        assert int(own["input_tokens"].sum()) == seen["prompt_tokens"]
        assert int(own["output_tokens"].sum()) == seen["completion_tokens"]
        assert int(own["reasoning_tokens"].sum()) > 0
        assert own["cost_usd"].sum() == pytest.approx(seen["cost_usd"], rel=1e-9)
    matches = pd.read_parquet(tmp_path / "t" / MATCHES)
    cost = matches["cost_usd_alice"].sum() + matches["cost_usd_bob"].sum()
    assert cost == pytest.approx(total["cost_usd"], rel=1e-9)
    # the planted order, by the leaderboard of the complete pairs
    kept, dropped = complete_pairs(matches)
    assert not sum(dropped.values())
    board = analyse(
        kept, rng=np.random.default_rng(0), config=AnalysisConfig(n_boot=50, n_subsets=5)
    ).tables["leaderboard"]
    ranked = list(board.sort_values("alpha", ascending=False)["model"])
    assert ranked == [m.name for m in sorted(field, key=lambda m: -m.skill)]


def test_the_same_request_gets_the_same_answer(tmp_path: Path) -> None:
    """Answers are drawn from the request (not the clock): a second tournament into another
    folder against the same server plays the same moves; the strong policy follows the hand."""
    games = resolve_games(["kuhn"])
    field = [PlantedModel("m", skill=0.5, illegal_rate=0.2, latency_s=0.001)]
    with PlantedServer(field, [g.spec for g in games]) as server:
        players, providers = roster_players(field, server.url)
        roster = parse_roster(
            {"players": [{"name": "r", "kind": "builtin", "agent": "random"}, *players],
             "providers": providers}
        )  # fmt: skip
        run_tournament(roster, games, 4, tmp_path / "a")
        run_tournament(roster, games, 4, tmp_path / "b")
    a, b = (pd.read_parquet(tmp_path / f / MOVES) for f in ("a", "b"))
    columns = ["match_id", "index", "raw_response", "action", "rethinks", "input_tokens"]
    pd.testing.assert_frame_equal(a[columns], b[columns])


def test_the_strong_policy_reads_the_hand_and_a_field_file(tmp_path: Path) -> None:
    import random

    from engines.gbg.engine import new_deal
    from engines.gbg.render import turn_prompt
    from engines.gbg.rules import game_rules

    kuhn = resolve_games(["kuhn"])[0].spec
    game = game_rules(kuhn)
    seen: dict[str, list[float]] = {}
    for seed in range(30):
        state = new_deal(kuhn, seed)
        card = game.label_of[state.hands[0][0]]
        strength = observed_strength(game, turn_prompt(state, 0), random.Random(seed))
        seen.setdefault(card[0], []).append(strength)
    # Kuhn's king beats both other cards, the jack neither
    assert min(seen["K"]) == 1.0 and max(seen["J"]) == 0.0
    rng = random.Random(0)
    assert heuristic_choice(["check", "bet 1"], 1.0, rng) == "bet 1"
    assert heuristic_choice(["call", "fold"], 0.0, rng) == "fold"
    assert heuristic_choice(["check", "bet 1"], 0.0, rng) == "check"  # never fold for free
    path = tmp_path / "field.json"
    path.write_text(json.dumps([{"name": "a", "skill": 0.25}, {"name": "b", "skill": 1.0}]))
    assert [m.skill for m in load_field(path)] == [0.25, 1.0]
    path.write_text(json.dumps([{"name": "a", "skill": 0.25, "talent": 3}]))
    with pytest.raises(ValueError, match="talent"):
        load_field(path)
    with pytest.raises(ValueError, match="skill"):
        PlantedModel("x", skill=1.5)
