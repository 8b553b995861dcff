"""Planted Werewolf ratings: per-role skills recovered, and the coverage of their intervals
(issue 47, items 3 and 5).

Two worlds, each played on the balanced schedule (``engines.werewolf.schedule``) and fitted by
``engines.stats.werewolf.role_ratings`` (the team-outcome logistic model with a role-side
intercept, bootstrap over games, 95% percentile intervals):

1. **The model's own world.**  Four players with planted skills per role (each role's skills
   summing to zero, the fit's own scale; ``PLANTED``) and a planted intercept; every game's
   outcome is drawn from the model.  Reported: one tournament's table (planted, estimate,
   interval, covered), and over ``--reps`` tournaments the share of intervals that cover the
   planted value, per role and for the intercept, with its standard error over tournaments
   (the intervals of one tournament are dependent).
2. **Bots of set strengths** (``engines.werewolf.bots``): ``sharp`` (every habit of the rule
   bot), ``quiet-seer`` (a Seer that keeps its findings to itself), ``lax-doctor`` (a Doctor
   who guards at random) and ``random``.  The three rule bots play alike except in one role
   each, so the planted order is: Seer, ``quiet-seer`` below ``sharp`` and ``lax-doctor``;
   Doctor, ``lax-doctor`` below ``sharp`` and ``quiet-seer``; ``random`` below the rule bots
   in the Werewolf and Villager roles.  Reported: the fitted table and which orders hold.

    .venv/bin/python benchmarks/werewolf_planted.py [--blocks 252] [--reps 100]
        [--bootstrap 400] [--bot-blocks 252] [--seed 47] [--json]

The default run takes about two CPU-minutes on this machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines.stats.werewolf import ROLES, RoleRatings, planted_seats, role_ratings
from engines.werewolf.bots import make_bot
from engines.werewolf.play import play_bots, seat_records
from engines.werewolf.schedule import balanced_schedule
from engines.werewolf.state import WerewolfState

PLANTED: dict[str, dict[str, float]] = {
    "m0": {"werewolf": 0.6, "seer": -0.5, "doctor": 0.3, "villager": 0.2},
    "m1": {"werewolf": 0.2, "seer": 0.5, "doctor": -0.3, "villager": 0.1},
    "m2": {"werewolf": -0.2, "seer": 0.0, "doctor": 0.3, "villager": -0.1},
    "m3": {"werewolf": -0.6, "seer": 0.0, "doctor": -0.3, "villager": -0.2},
}
PLANTED_ALPHA = 0.3
BOT_FIELD: dict[str, tuple[str, dict[str, bool]]] = {
    "sharp": ("rule", {}),
    "quiet-seer": ("rule", {"seer_reveals": False}),
    "lax-doctor": ("rule", {"doctor_guards": False}),
    "random": ("random", {}),
}


def recovery_table(fit: RoleRatings) -> pd.DataFrame:
    table = fit.ratings[["model", "role", "skill", "ci_low", "ci_high", "seats"]].copy()
    table.insert(
        2, "planted", [PLANTED[m][r] for m, r in zip(table["model"], table["role"], strict=True)]
    )
    table["covered"] = (table["ci_low"] <= table["planted"]) & (
        table["planted"] <= table["ci_high"]
    )
    return table


def model_world(blocks: int, reps: int, n_boot: int, seed: int) -> dict[str, Any]:
    """Part 1 of the module docstring."""
    games = balanced_schedule(list(PLANTED), blocks, seed)
    covered: list[dict[str, float]] = []
    first: pd.DataFrame | None = None
    first_fit: RoleRatings | None = None
    for rep in range(reps):
        seats = planted_seats(games, PLANTED_ALPHA, PLANTED, np.random.default_rng([seed, rep, 0]))
        fit = role_ratings(seats, n_boot, np.random.default_rng([seed, rep, 1]))
        table = recovery_table(fit)
        if first is None:
            first, first_fit = table, fit
        row = {r: float(table.loc[table["role"] == r, "covered"].mean()) for r in ROLES}
        low, high = fit.alpha_interval
        row["intercept"] = float(low <= PLANTED_ALPHA <= high)
        row["all"] = float((table["covered"].sum() + row["intercept"]) / (len(table) + 1))
        covered.append(row)
    assert first is not None and first_fit is not None
    frame = pd.DataFrame(covered)
    coverage = {
        k: {
            "coverage": float(frame[k].mean()),
            "se": float(frame[k].std(ddof=1) / np.sqrt(len(frame))),
        }
        for k in frame.columns
    }
    return {
        "games": len(games),
        "reps": reps,
        "bootstrap": n_boot,
        "table": first,
        "alpha": (first_fit.alpha, *first_fit.alpha_interval),
        "coverage": coverage,
    }


def bot_world(blocks: int, n_boot: int, seed: int) -> dict[str, Any]:
    """Part 2 of the module docstring."""
    games = balanced_schedule(list(BOT_FIELD), blocks, seed)
    bots = {name: make_bot(kind, params, name=name) for name, (kind, params) in BOT_FIELD.items()}
    rows = []
    for game in games:
        state = play_bots(
            WerewolfState(game.roles), [bots[p] for p in game.players], game.play_seed
        )
        rows += seat_records(state, game.players, game.game_id)
    fit = role_ratings(pd.DataFrame(rows), n_boot, np.random.default_rng([seed, 2]))
    skill = {
        (m, r): s
        for m, r, s in zip(
            fit.ratings["model"], fit.ratings["role"], fit.ratings["skill"], strict=True
        )
    }
    orders = {
        "seer: quiet-seer below sharp and lax-doctor": skill[("quiet-seer", "seer")]
        < min(skill[("sharp", "seer")], skill[("lax-doctor", "seer")]),
        "doctor: lax-doctor below sharp and quiet-seer": skill[("lax-doctor", "doctor")]
        < min(skill[("sharp", "doctor")], skill[("quiet-seer", "doctor")]),
        "werewolf: random below the rule bots": skill[("random", "werewolf")]
        < min(skill[(m, "werewolf")] for m in ("sharp", "quiet-seer", "lax-doctor")),
        "villager: random below the rule bots": skill[("random", "villager")]
        < min(skill[(m, "villager")] for m in ("sharp", "quiet-seer", "lax-doctor")),
    }
    return {"games": len(games), "fit": fit, "orders": orders}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=252, help="blocks of 8 games (model world)")
    parser.add_argument("--reps", type=int, default=100, help="tournaments for the coverage")
    parser.add_argument("--bootstrap", type=int, default=400)
    parser.add_argument("--bot-blocks", type=int, default=252, help="blocks of 8 games (bots)")
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    started = time.process_time()
    model = model_world(args.blocks, args.reps, args.bootstrap, args.seed)
    bots = bot_world(args.bot_blocks, args.bootstrap, args.seed)
    cpu = time.process_time() - started
    if args.json:
        out = {
            "model_world": {**model, "table": model["table"].to_dict(orient="records")},
            "bot_world": {
                "games": bots["games"],
                "ratings": bots["fit"].ratings.to_dict(orient="records"),
                "alpha": bots["fit"].alpha,
                "orders": bots["orders"],
            },
            "cpu_s": cpu,
        }
        print(json.dumps(out, indent=1, default=float))
        return 0
    pd.set_option("display.width", 120)
    print(f"1. The model's own world: {model['games']} games, B = {model['bootstrap']}")
    print(model["table"].round(3).to_string(index=False))
    a, lo, hi = model["alpha"]
    print(f"intercept: planted {PLANTED_ALPHA}, estimate {a:.3f} [{lo:.3f}, {hi:.3f}]")
    print(f"coverage of the 95% intervals over {model['reps']} tournaments (se over tournaments):")
    for key, value in model["coverage"].items():
        print(f"  {key:<10} {value['coverage']:.3f} ({value['se']:.3f})")
    fit = bots["fit"]
    print(f"\n2. Bots of set strengths: {bots['games']} games, B = {args.bootstrap}")
    print(fit.ratings.round(3).to_string(index=False))
    print(f"intercept {fit.alpha:.3f} [{fit.alpha_interval[0]:.3f}, {fit.alpha_interval[1]:.3f}]")
    print(fit.overall.round(3).to_string(index=False))
    print(fit.win_rates.round(3).to_string(index=False))
    for order, holds in bots["orders"].items():
        print(f"  {'holds' if holds else 'FAILS'}: {order}")
    print(f"\nCPU {cpu:.1f} s")
    return 0 if all(bots["orders"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
