"""The OpenSpiel adapter's overhead: random play through it against OpenSpiel's own Python loop.

Usage: python benchmarks/openspiel_overhead.py [--games N] [--repeats R] [--json]

For ``openspiel:chess`` and ``openspiel:go(board_size=9)``, two ways of playing uniformly random
games, alternated ``--repeats`` times in one process so that machine load hits both alike:

- ``openspiel``: OpenSpiel's Python loop, ``while not state.is_terminal():
  state.apply_action(rng.choice(state.legal_actions()))``;
- ``adapter``: the harness's path, ``while state.current_player >= 0:
  state.apply(rng.choice(state.legal_actions()))`` on ``OpenSpielSpec.new_deal(seed)`` (named
  moves, seeded chance, the move cap), with a warm name cache, as in a tournament.

The figure is the ratio of the median CPU time per move (``time.process_time``: the machine is
shared, and wall-clock time would count the other processes' turns), adapter / OpenSpiel
(issue 18's target: at most 1.5 on chess).  Games differ between the two loops (the adapter
caps chess at 400 moves), so the comparison is per move, not per game.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

from engines.openspiel import parse_openspiel

TOKENS = ("openspiel:chess", "openspiel:go(board_size=9)")


def openspiel_loop(game: Any, games: int, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    moves = 0
    started = time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
    return moves, time.process_time() - started


def adapter_loop(spec: Any, games: int, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    moves = 0
    started = time.process_time()
    for i in range(games):
        state = spec.new_deal(seed + i)
        while state.current_player >= 0:
            state.apply(rng.choice(state.legal_actions()))
            moves += 1
    return moves, time.process_time() - started


def measure(token: str, games: int, repeats: int) -> dict[str, Any]:
    spec = parse_openspiel(token)
    adapter_loop(spec, 2, 10**6)  # warm the name cache and the code paths
    openspiel_loop(spec.game, 1, 10**6)
    per_move: dict[str, list[float]] = {"openspiel": [], "adapter": []}
    for r in range(repeats):
        moves, took = openspiel_loop(spec.game, games, r)
        per_move["openspiel"].append(took / moves)
        moves, took = adapter_loop(spec, games, r)
        per_move["adapter"].append(took / moves)
    native = statistics.median(per_move["openspiel"])
    adapted = statistics.median(per_move["adapter"])
    return {
        "game": token,
        "games_per_repeat": games,
        "repeats": repeats,
        "openspiel_us_per_move": round(native * 1e6, 2),
        "adapter_us_per_move": round(adapted * 1e6, 2),
        "ratio": round(adapted / native, 3),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="random games per repeat")
    parser.add_argument("--repeats", type=int, default=7, help="alternating repeats")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeats < 1:
        print("--games and --repeats must be at least 1", file=sys.stderr)
        return 2
    rows = [measure(token, args.games, args.repeats) for token in TOKENS]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        print(
            f"{row['game']:<30} OpenSpiel {row['openspiel_us_per_move']:>7.2f} us/move  "
            f"adapter {row['adapter_us_per_move']:>7.2f} us/move  ratio {row['ratio']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
