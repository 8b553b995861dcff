"""Duplicate against plain dealing in Game Arena's poker format, at equal hands (issue 46, item 3).

Usage: python benchmarks/poker_duplicate_variance.py [--pairs N] [--hands H] [--simulations S]
                                                    [--matchup M] [--seed K] [--json]

Two built-in players (``--matchup mcts-random``, the default: OpenSpiel's MCTS at
``--simulations`` against uniform random; ``random-random``: two uniform random players, where
every chip is luck of the cards or of the draws) play ``--pairs``
episode pairs of ``--hands`` hands each on ``openspiel:hunl`` (blinds 1-2, 100 big blinds, stacks
reset, hole cards revealed), in two arms through ``arena.tournament.poker_episodes``:

- **duplicate**: the pair's two episodes deal the same pre-shuffled decks with the seats and
  cards swapped (Game Arena's format);
- **plain**: the two episodes deal independent decks (the same seats alternation).

Each pair gives one estimate of the first player's win rate, BB/100 over its ``2 x hands``
hands; the figure is the variance of that estimate across pairs in each arm, and the ratio
duplicate / plain with a 95% bootstrap interval over pairs (2,000 replicates). Equal hands:
both arms play the same number of hands per estimate. The game seed of each pair differs
(``--seed`` + pair index), so the arms meet the same first-episode decks (plain's first
episode is duplicate's).

Appends its figures to ``benchmarks/results.jsonl`` (``benchmarks/results.py``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from typing import Any

import numpy as np
from results import record  # benchmarks/results.py

from arena.games import resolve_games
from arena.reference_engines import make_builtin
from arena.tournament.poker_episodes import (
    PokerFormat,
    bb_per_100,
    first_chips_per_pair,
    play_builtin_poker_episode,
    poker_schedule,
)
from engines.agents.base import BuiltinPlayer, Player

FIRST, SECOND = "first", "second"  # the pair's first player (by name) and the other


def players_of(matchup: str, simulations: int) -> dict[str, Player]:
    """The matchup's two players (module docstring)."""
    first = (
        make_builtin("mcts", {"simulations": simulations})
        if matchup == "mcts-random"
        else make_builtin("random")
    )
    return {
        FIRST: BuiltinPlayer(FIRST, first),
        SECOND: BuiltinPlayer(SECOND, make_builtin("random")),
    }


def estimates(
    pairs: int, hands: int, duplicate: bool, simulations: int, seed: int, matchup: str
) -> list[float]:
    """The first player's BB/100 in each of ``pairs`` episode pairs of the arm."""
    game = resolve_games(["openspiel:hunl"])[0]
    fmt = PokerFormat(hands=hands, duplicate=duplicate)
    out = []
    for k in range(pairs):
        players = players_of(matchup, simulations)
        seeded = dataclasses.replace(game, game_seed=seed + k)
        rows = [
            row
            for episode in poker_schedule([(FIRST, SECOND)], seeded, 1, fmt)
            for row in play_builtin_poker_episode(episode, players, fmt)
        ]
        [chips] = first_chips_per_pair(rows).values()
        out.append(bb_per_100(chips, 2 * hands))
    return out


def variance_ratio(
    dup: list[float], plain: list[float], rng: np.random.Generator
) -> tuple[float, float, float]:
    """var(duplicate) / var(plain) and its 95% percentile interval over pairs resampled."""
    a, b = np.asarray(dup), np.asarray(plain)
    ratio = float(np.var(a, ddof=1) / np.var(b, ddof=1))
    draws = []
    for _ in range(2000):
        ra = a[rng.integers(0, len(a), len(a))]
        rb = b[rng.integers(0, len(b), len(b))]
        if np.var(rb) > 0:  # a replicate of identical plain estimates has no ratio
            draws.append(float(np.var(ra, ddof=1) / np.var(rb, ddof=1)))
    low, high = np.percentile(draws, [2.5, 97.5])
    return ratio, float(low), float(high)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pairs", type=int, default=30)
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--simulations", type=int, default=10)
    parser.add_argument(
        "--matchup", choices=("mcts-random", "random-random"), default="mcts-random"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.pairs < 2 or not 1 <= args.hands <= 1000 or args.simulations < 1:
        parser.error("--pairs must be at least 2, --hands 1 to 1000, --simulations at least 1")
    load = os.getloadavg()[0]
    started = time.process_time()
    dup = estimates(args.pairs, args.hands, True, args.simulations, args.seed, args.matchup)
    plain = estimates(args.pairs, args.hands, False, args.simulations, args.seed, args.matchup)
    ratio, low, high = variance_ratio(dup, plain, np.random.default_rng(args.seed))
    figures: dict[str, Any] = {
        "pairs": args.pairs,
        "hands_per_episode": args.hands,
        "hands_per_estimate": 2 * args.hands,
        "players": (
            f"mcts ({args.simulations} simulations) v random"
            if args.matchup == "mcts-random"
            else "random v random"
        ),
        "duplicate_mean_bb100": round(statistics.fmean(dup), 2),
        "plain_mean_bb100": round(statistics.fmean(plain), 2),
        "duplicate_sd_bb100": round(statistics.stdev(dup), 2),
        "plain_sd_bb100": round(statistics.stdev(plain), 2),
        "variance_ratio": round(ratio, 3),
        "variance_ratio_ci95": [round(low, 3), round(high, 3)],
        "cpu_s": round(time.process_time() - started, 1),
    }
    record("poker_duplicate_variance", figures, load)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:>22}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
