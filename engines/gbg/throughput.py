"""Side-by-side throughput of the engine against OpenSpiel (issue: engine speed).

Random-play deals per second through our public ``State`` API on a spec, and through the
batch kernel (``engines.gbg.batch_random``: the same deals, many at once), against
OpenSpiel's built-in game driven by the same kind of Python loop (chance sampled from its
listed outcomes, uniform legal actions), and against ``pyspiel.evaluate_bots`` with uniform
random bots (its C++ loop).  The measurements alternate in one process and the ratio is the
median over repetitions, so machine load affects both sides alike.  Never used as a
wall-clock assertion.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from engines.gbg.batch_random import random_play
from engines.gbg.engine import new_deal
from engines.gbg.spec import GameSpec


def ours(spec: GameSpec, deals: int, seed: int = 0) -> float:
    """Deals per second of uniform random play through ``new_deal``/``apply``."""
    draw = random.Random(seed).random
    start = time.perf_counter()
    for i in range(deals):
        state = new_deal(spec, seed + i)
        while state.current_player >= 0:
            legal = state.legal_actions()
            state.apply(legal[int(draw() * len(legal))])
        state.returns()
    return deals / (time.perf_counter() - start)


def batch(spec: GameSpec, deals: int, seed: int = 0) -> float:
    """Deals per second of the same random play on the batch kernel (``ours``' deals
    for the same seed: the moves are drawn from the same ``random.Random``)."""
    start = time.perf_counter()
    out = random_play(spec, range(seed, seed + deals), random.Random(seed))
    if out is None:
        raise ValueError(f"{spec.name}: the batch loop hands this game back to the interpreter")
    return deals / (time.perf_counter() - start)


def openspiel_loop(game: Any, deals: int, seed: int = 0) -> float:
    """Deals per second of the same random play on a pyspiel game from a Python loop."""
    rng = random.Random(seed)
    draw = rng.random
    start = time.perf_counter()
    for _ in range(deals):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                r, acc = draw(), 0.0
                choice = outcomes[-1][0]
                for outcome, p in outcomes:
                    acc += p
                    if r < acc:
                        choice = outcome
                        break
                state.apply_action(choice)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(draw() * len(legal))])
        state.returns()
    return deals / (time.perf_counter() - start)


def openspiel_evaluate_bots(game: Any, deals: int, seed: int = 0) -> float:
    """Deals per second of ``pyspiel.evaluate_bots`` with uniform random bots (C++ loop)."""
    import pyspiel

    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(2)]
    start = time.perf_counter()
    for i in range(deals):
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i)
    return deals / (time.perf_counter() - start)


def median_accepted_game(accepted: int = 101) -> GameSpec:
    """The median accepted generated game: of the first ``accepted`` games the acceptance
    filter accepts under the default config (seeds from 0), the one whose random play takes
    the median number of moves per player (ties: the lower seed)."""
    from engines.gbg.acceptance import evaluate
    from engines.gbg.generator import generate

    found: list[tuple[float, int, GameSpec]] = []
    seed = 0
    while len(found) < accepted:
        spec = generate(seed)
        verdict = evaluate(spec, seed=seed)
        if verdict["accepted"]:
            found.append((verdict["figures"]["moves_per_player"], seed, spec))
        seed += 1
    found.sort(key=lambda row: (row[0], row[1]))
    return found[len(found) // 2][2]


def _median_rates(runs: dict[str, Callable[[], float]], repeats: int) -> dict[str, list[float]]:
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():  # alternate, so load drifts hit every side alike
            rates[name].append(run())
    return rates


def compare(
    spec: GameSpec, openspiel_name: str, deals: int = 20_000, repeats: int = 5
) -> dict[str, Any]:
    """Alternate our engine with OpenSpiel's ``openspiel_name``; report rates and ratios."""
    import pyspiel

    game = pyspiel.load_game(openspiel_name)
    ours(spec, deals // 10)  # build the game's rules
    batch(spec, 100)  # load the kernel
    runs: dict[str, Callable[[], float]] = {
        "ours": lambda: ours(spec, deals),
        "batch": lambda: batch(spec, deals),
        "openspiel_python": lambda: openspiel_loop(game, deals),
        "openspiel_evaluate_bots": lambda: openspiel_evaluate_bots(game, deals),
    }
    rates = _median_rates(runs, repeats)
    ratio_py = [a / b for a, b in zip(rates["ours"], rates["openspiel_python"], strict=True)]
    ratio_cpp = [
        a / b for a, b in zip(rates["ours"], rates["openspiel_evaluate_bots"], strict=True)
    ]
    batch_cpp = [
        a / b for a, b in zip(rates["batch"], rates["openspiel_evaluate_bots"], strict=True)
    ]
    batch_ours = [a / b for a, b in zip(rates["batch"], rates["ours"], strict=True)]
    return {
        "game": spec.name,
        "openspiel_game": openspiel_name,
        "deals_per_run": deals,
        "repeats": repeats,
        "deals_per_second": {k: statistics.median(v) for k, v in rates.items()},
        "ratio_vs_openspiel_python": statistics.median(ratio_py),
        "ratio_vs_evaluate_bots": statistics.median(ratio_cpp),
        "batch_ratio_vs_evaluate_bots": statistics.median(batch_cpp),
        "batch_ratio_vs_ours": statistics.median(batch_ours),
    }


def solo(spec: GameSpec, deals: int = 2_000, repeats: int = 3) -> dict[str, Any]:
    """Our rates alone (State API and batch, alternating), for specs OpenSpiel has no
    counterpart of; the batch runs ten times the deals, so that both runs last alike."""
    ours(spec, max(1, deals // 10))
    batch(spec, 100)
    rates: dict[str, list[float]] = {"ours": [], "batch": []}
    for _ in range(repeats):
        rates["ours"].append(ours(spec, deals))
        rates["batch"].append(batch(spec, 10 * deals))
    ratio = [a / b for a, b in zip(rates["batch"], rates["ours"], strict=True)]
    return {
        "game": spec.name,
        "deals_per_second": statistics.median(rates["ours"]),
        "batch_deals_per_second": statistics.median(rates["batch"]),
        "batch_ratio_vs_ours": statistics.median(ratio),
        "repeats": repeats,
    }
