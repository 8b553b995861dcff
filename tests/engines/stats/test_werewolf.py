"""Werewolf role ratings (``engines.stats.werewolf``): the team-outcome logistic model with a
role-side intercept, checked on planted worlds (the model's own, and bots of set strengths),
with its scale, its intervals' coverage and its refusals.

The planted figures come from ``benchmarks/werewolf_planted.py`` (the full run is in
docs/WEREWOLF.md); these tests run smaller versions of it."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pandas as pd
import pytest

from engines.stats.werewolf import (
    ROLES,
    design,
    fit,
    planted_seats,
    role_ratings,
    win_rates,
)
from engines.werewolf.bots import make_bot
from engines.werewolf.play import play_bots, seat_records
from engines.werewolf.schedule import ScheduledGame, balanced_schedule
from engines.werewolf.state import WerewolfState
from tests.support import REPO_ROOT

PLANTED = {
    "m0": {"werewolf": 0.6, "seer": -0.5, "doctor": 0.3, "villager": 0.2},
    "m1": {"werewolf": 0.2, "seer": 0.5, "doctor": -0.3, "villager": 0.1},
    "m2": {"werewolf": -0.2, "seer": 0.0, "doctor": 0.3, "villager": -0.1},
    "m3": {"werewolf": -0.6, "seer": 0.0, "doctor": -0.3, "villager": -0.2},
}
ALPHA = 0.3


def test_planted_skills_are_recovered_within_their_intervals() -> None:
    games = balanced_schedule(list(PLANTED), 252, seed=1)  # 2,016 games
    seats = planted_seats(games, ALPHA, PLANTED, np.random.default_rng(0))
    rated = role_ratings(seats, 300, np.random.default_rng(1))
    table = rated.ratings
    planted = np.array([PLANTED[m][r] for m, r in zip(table["model"], table["role"], strict=True)])
    # every estimate within its interval's whole width of the truth (about 3.9 standard errors;
    # the intervals' 95% coverage is the next test's and the benchmark's: 0.952 over 100 runs)
    error = np.abs(table["skill"] - planted)
    assert (error < table["ci_high"] - table["ci_low"]).all()
    assert np.max(error) < 0.25
    assert np.corrcoef(table["skill"], planted)[0, 1] > 0.95
    low, high = rated.alpha_interval
    assert low < ALPHA < high and abs(rated.alpha - ALPHA) < 0.15
    # the scale: each role's skills sum to zero over the models (the prior's gauge)
    sums = table.groupby("role")["skill"].sum()
    assert np.allclose(sums.to_numpy(), 0.0, atol=1e-8)
    # the overall skill is the deck-weighted role skill, and ranks m0 first, m3 last
    assert list(rated.overall["model"]) == ["m0", "m1", "m2", "m3"]
    grid = table.pivot(index="model", columns="role", values="skill")
    weighted = (
        grid["werewolf"] * 2 / 8 + grid["seer"] / 8 + grid["doctor"] / 8 + grid["villager"] / 2
    )
    assert np.allclose(rated.overall.set_index("model")["overall"], weighted)
    assert rated.games == len(games) and rated.n_boot == 300


@pytest.mark.slow
def test_the_intervals_cover_at_about_their_level() -> None:
    """30 planted tournaments of 1,024 games: 95% intervals cover the planted values at a rate
    consistent with 95% (510 intervals: 0.88 is more than four standard errors below)."""
    games = balanced_schedule(list(PLANTED), 128, seed=2)
    hits, total = 0, 0
    for rep in range(30):
        seats = planted_seats(games, ALPHA, PLANTED, np.random.default_rng([rep, 0]))
        rated = role_ratings(seats, 150, np.random.default_rng([rep, 1]))
        table = rated.ratings
        truth = [PLANTED[m][r] for m, r in zip(table["model"], table["role"], strict=True)]
        hits += int(((table["ci_low"] <= truth) & (truth <= table["ci_high"])).sum())
        hits += int(rated.alpha_interval[0] <= ALPHA <= rated.alpha_interval[1])
        total += len(table) + 1
    assert total == 510
    assert 0.88 <= hits / total <= 0.995, hits / total


def test_a_schedule_with_fixed_seat_counts_cannot_tell_a_model_from_the_rules() -> None:
    """Why the schedule varies seat counts: when every model holds two seats in every game, a
    model that helps the village in all its roles (+c in its village roles, -c in its Werewolf
    role) adds 2c to every game, just as the intercept would; two such worlds give every game
    the same odds, and the design loses one rank per model but one."""
    varied = balanced_schedule(list(PLANTED), 16, seed=1)
    fixed = [
        ScheduledGame(g.game_id, g.block, ("m0", "m1", "m2", "m3") * 2, g.roles, g.play_seed)
        for g in varied
    ]
    ranks = {}
    for name, schedule in (("varied", varied), ("fixed", fixed)):
        d = design(planted_seats(schedule, ALPHA, PLANTED, np.random.default_rng(0)))
        ranks[name] = int(np.linalg.matrix_rank(np.hstack([np.ones((len(d.y), 1)), d.x])))
        if name == "fixed":
            theta = np.array([PLANTED[m][r] for m in d.models for r in ROLES])
            c = {"m0": 0.4, "m1": -0.1, "m2": -0.1, "m3": -0.2}  # sums to zero: no role gauge
            sign = np.array([-1.0 if r == "werewolf" else 1.0 for r in ROLES])
            shifted = theta + np.concatenate([c[m] * sign for m in d.models])
            assert np.allclose(d.x @ theta, d.x @ shifted)  # the same odds in every game
    # 17 parameters less the four role shifts the intercept absorbs; fixed counts lose 3 more
    assert ranks == {"varied": 13, "fixed": 10}


@pytest.mark.slow
def test_bots_of_set_strengths_are_rated_in_their_planted_order() -> None:
    """Issue 47, item 5: a Seer that reveals against one that does not, a Doctor that guards
    the claimed Seer against one that guards at random, rule bots against random ones (480
    games; the benchmark's 2,016 give the same orders)."""
    field = {
        "sharp": make_bot("rule", name="sharp"),
        "quiet-seer": make_bot("rule", {"seer_reveals": False}, name="quiet-seer"),
        "lax-doctor": make_bot("rule", {"doctor_guards": False}, name="lax-doctor"),
        "random": make_bot("random", name="random"),
    }
    rows = []
    for game in balanced_schedule(list(field), 60, seed=47):
        state = play_bots(
            WerewolfState(game.roles), [field[p] for p in game.players], game.play_seed
        )
        rows += seat_records(state, game.players, game.game_id)
    rated = role_ratings(pd.DataFrame(rows), 200, np.random.default_rng(3))
    table = rated.ratings.set_index(["model", "role"])
    skill = table["skill"]
    assert skill[("quiet-seer", "seer")] < min(
        skill[("sharp", "seer")], skill[("lax-doctor", "seer")]
    )
    assert skill[("lax-doctor", "doctor")] < min(
        skill[("sharp", "doctor")], skill[("quiet-seer", "doctor")]
    )
    for role in ("werewolf", "villager", "seer", "doctor"):
        others = [skill[(m, role)] for m in ("sharp", "quiet-seer", "lax-doctor")]
        assert skill[("random", role)] < min(others)
    # separated, not just ordered: the quiet Seer's interval lies below the sharp Seer's
    assert table.loc[("quiet-seer", "seer"), "ci_high"] < table.loc[("sharp", "seer"), "ci_low"]
    assert rated.overall["model"].iloc[-1] == "random"


def test_plain_win_rates_per_team_and_role() -> None:
    seats = pd.DataFrame(
        [
            {"game_id": "g", "player": f"p{s}", "role": role, "won": role != "werewolf"}
            for s, role in enumerate(["werewolf", "werewolf", "seer", "doctor"] + ["villager"] * 4)
        ]
        + [
            {"game_id": "h", "player": f"p{s}", "role": role, "won": role == "werewolf"}
            for s, role in enumerate(["villager"] * 4 + ["seer", "doctor", "werewolf", "werewolf"])
        ]
    )
    rates = win_rates(seats).set_index(["team", "role"])
    assert rates.loc[("village", "all"), "win_rate"] == 0.5
    assert rates.loc[("werewolves", "werewolf"), "seats"] == 4
    assert rates.loc[("village", "villager"), "seats"] == 8
    d = design(seats)
    assert d.y.tolist() == [1.0, 0.0]
    assert d.x[0, d.index("p0", "werewolf")] == -1.0 and d.x[1, d.index("p0", "villager")] == 1.0
    assert fit(d)[0] == pytest.approx(0.0, abs=1e-6)  # one win each: no side favoured


def test_bad_seat_tables_are_refused_in_one_line() -> None:
    good = [
        {"game_id": "g", "player": "a", "role": role, "won": role != "werewolf"}
        for role in ["werewolf", "werewolf", "seer", "doctor"] + ["villager"] * 4
    ]
    with pytest.raises(ValueError, match="no column\\(s\\) won"):
        design(pd.DataFrame(good).drop(columns="won"))
    with pytest.raises(ValueError, match="unknown role\\(s\\) witch"):
        design(pd.DataFrame([*good[:-1], {**good[-1], "role": "witch"}]))
    with pytest.raises(ValueError, match=r"game g has roles .* not the deck's"):
        design(pd.DataFrame(good[:-1]))
    with pytest.raises(ValueError, match="game g: its seats disagree on which team won"):
        design(pd.DataFrame([*good[:-1], {**good[-1], "won": False}]))


def test_the_benchmark_runs_and_reports_both_worlds(capsys: pytest.CaptureFixture[str]) -> None:
    """``benchmarks/werewolf_planted.py`` (docs/WEREWOLF.md's command), on a small budget."""
    path = REPO_ROOT / "benchmarks" / "werewolf_planted.py"
    spec = importlib.util.spec_from_file_location("werewolf_planted", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    argv = ["--blocks", "8", "--reps", "2", "--bootstrap", "20", "--bot-blocks", "4", "--json"]
    assert module.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model_world"]["games"] == 64 and len(out["model_world"]["table"]) == 16
    assert set(out["model_world"]["coverage"]) == {*ROLES, "intercept", "all"}
    assert out["bot_world"]["games"] == 32 and len(out["bot_world"]["ratings"]) == 16
    assert set(out["bot_world"]["orders"]) == {
        "seer: quiet-seer below sharp and lax-doctor",
        "doctor: lax-doctor below sharp and quiet-seer",
        "werewolf: random below the rule bots",
        "villager: random below the rule bots",
    }
