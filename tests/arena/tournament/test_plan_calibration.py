"""``tournament plan`` held to the run it plans (issue 41, item 3): against the planted-skill
server (real HTTP on loopback: illegal answers, rethinks, 429s that are retried), a plan
calibrated on a first run predicts the calls, input and output tokens and cost of the rest of
the tournament within 10%, on a generated game and on chess; uncalibrated, it says its calls
are a lower bound, and they are one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import Roster, parse_roster
from arena.tournament.journal import MOVES
from arena.tournament.plan import TournamentPlan, plan_tournament
from arena.tournament.runner import run_tournament
from engines.tournament.schedule import Game
from tests.doubles.planted_server import PlantedModel, PlantedServer, roster_players


def planted_roster(url: str, model: PlantedModel, builtins: list[str]) -> Roster:
    players, providers = roster_players([model], url, backoff_base_s=0.001)
    return parse_roster(
        {
            "players": [{"name": b, "kind": "builtin", "agent": b} for b in builtins] + players,
            "providers": providers,
        }
    )


def rest_of_the_run(
    tmp_path: Path,
    games: list[Game],
    model: PlantedModel,
    builtins: list[str],
    calibration_runs: int,
    runs: int,
) -> tuple[TournamentPlan, TournamentPlan, dict[str, float], dict[str, Any]]:
    """A calibration run, the uncalibrated and the calibrated plans of the rest, the rest
    played: (uncalibrated plan, calibrated plan, the rest's usage of the model, the server's
    account of the rest)."""
    folder = tmp_path / "t"
    with PlantedServer([model], [g.spec for g in games]) as server:
        roster = planted_roster(server.url, model, builtins)
        run_tournament(roster, games, calibration_runs, folder)
        first = pd.read_parquet(folder / MOVES)
        before = server.stats()[model.name]
        blind = plan_tournament(roster, games, runs - calibration_runs)
        plan = plan_tournament(roster, games, runs, folder)
        summary = run_tournament(roster, games, runs, folder)
        after = server.stats()[model.name]
    assert summary.finished
    moves = pd.read_parquet(folder / MOVES)
    rest = moves[~moves["match_id"].isin(set(first["match_id"])) & (moves["player"] == model.name)]
    usage = {k: float(rest[k].sum()) for k in ("calls", "input_tokens", "output_tokens")}
    usage["cost_usd"] = float(rest["cost_usd"].sum())
    account = {k: after[k] - before[k] for k in ("requests", "rate_limited", "overloaded")}
    assert blind.matches == plan.matches  # the same matches: the schedule's later runs
    return blind, plan, usage, account


def assert_within_ten_percent(plan: TournamentPlan, name: str, usage: dict[str, float]) -> None:
    estimate = plan.models[name]
    for key, actual in usage.items():
        assert getattr(estimate, key) == pytest.approx(actual, rel=0.10), key


@pytest.mark.slow
def test_a_calibrated_plan_of_a_generated_game_holds_within_ten_percent(tmp_path: Path) -> None:
    games = resolve_games(["leduc", "4"])
    model = PlantedModel(
        "m1", skill=0.6, illegal_rate=0.15, latency_s=0.0005, overload_rate=0.05,
        overload_retry_after_s=0.0005,
    )  # fmt: skip
    blind, plan, usage, account = rest_of_the_run(
        tmp_path, games, model, ["random", "heuristic"], 60, 120
    )
    # the rest asked for rethinks and met 429s that the harness retried: all of it is counted
    assert account["overloaded"] > 0 and account["requests"] == usage["calls"]
    estimate = plan.models["m1"]
    # 2 opponents x 2 deals x 60 runs on each game: its own means per match
    assert estimate.bases == ["calibrated"]
    assert estimate.calibrated_matches == {"leduc": 240, "4": 240}
    assert not estimate.lower_bounds and estimate.rel_se < 0.04
    assert_within_ten_percent(plan, "m1", usage)
    # uncalibrated, the plan names its calls a lower bound (one request a move), and they are:
    # rethinks and retried 429s come on top; its tokens name what they assume
    guess = blind.models["m1"]
    assert guess.lower_bounds == ["calls"]
    assert "one answer a move on leduc (up to 1 rethinks more)" in guess.assumptions
    assert guess.low["calls"] == pytest.approx(guess.calls)
    assert guess.calls < usage["calls"] < guess.high["calls"]


@pytest.mark.slow
def test_a_plan_of_chess_holds_within_ten_percent(tmp_path: Path) -> None:
    """Chess: no menu, three rethinks, then a loss.  Four calibration matches give the rates;
    the moves come from playouts (a uniform player's games, as this model plays)."""
    games = resolve_games(["openspiel:chess"])
    model = PlantedModel(
        "m1", skill=0.0, illegal_rate=0.15, latency_s=0.0005, overload_rate=0.05,
        overload_retry_after_s=0.0005,
    )  # fmt: skip
    blind, plan, usage, _ = rest_of_the_run(tmp_path, games, model, ["random"], 2, 20)
    estimate = plan.models["m1"]
    assert estimate.bases == ["game statistics at calibrated rates"]
    assert_within_ten_percent(plan, "m1", usage)
    guess = blind.models["m1"]
    assert "calls" in guess.lower_bounds and guess.calls < usage["calls"] < guess.high["calls"]
