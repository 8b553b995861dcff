"""The compiled engine against the interpreted one, side by side, on the axes at paper budget.

Usage: python benchmarks/compiled_engine.py [--games 3200,177,971,2785,446,3886] [--rounds 2]
                                            [--budget paper] [--json]

``make compiled`` (``tools/build_engine.py``) must have built the engine.  Each measurement is a
fresh process that runs one arm: ``compiled`` (``arena.compiled_engine.enable()``, which must
load the build) or ``interpreted`` (``interpret()``, the sources); it computes the five axes
with their rerun for every game in turn (``compute_with_rerun`` on a pool of two workers, the
body of an ``axis_scores`` partition) and reports each game's wall time, the process's CPU
(its own and its workers') and the axes.  The arms alternate within each round.  Reported: per
game, the median wall time of each arm and their ratio; the total CPU of each arm; and whether
both arms computed the same numbers for every game (they must: the code is the same).  The
games are seeds of the generator (the defaults are among the paper profile's first benchmark
games, small and large).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ARMS = ("compiled", "interpreted")

CHILD = """
import json, os, resource, sys, time
from arena.compiled_engine import enable, interpret, running
arm, budget_name, seeds = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split(",")]
os.environ["GENSTRAT_ENGINE"] = "compiled" if arm == "compiled" else "kernel"
decided = enable() if arm == "compiled" else interpret()
if (decided == "compiled") != (arm == "compiled"):
    sys.exit(f"compiled_engine: the {arm} arm runs {decided}")
from arena.parallel import ProcessPool
from engines.axes.budgets import axis_budget
from engines.axes.compute import compute_with_rerun
from engines.gbg.generator import generate

def cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool's workers, once joined
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

budget = axis_budget(budget_name)
rows = []
for seed in seeds:
    spec = generate(seed)
    started, used = time.perf_counter(), cpu()
    pool = ProcessPool(2)
    try:
        report = compute_with_rerun(spec, budget, 0, pool=pool)
    finally:
        pool.close()
    rows.append({"seed": seed, "wall": time.perf_counter() - started, "cpu": cpu() - used,
                 "axes": report.axes, "rerun": report.rerun, "seats": report.seats})
print(json.dumps({"engine": running(), "rows": rows}))
"""


def measure(arm: str, seeds: list[int], budget: str) -> dict[str, Any]:
    argv = [sys.executable, "-c", CHILD, arm, budget, ",".join(map(str, seeds))]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr.strip().splitlines()[-1] if done.stderr else "child failed")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if found["engine"] != arm:
        raise SystemExit(f"compiled_engine: the {arm} arm ran the {found['engine']} engine")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="3200,177,971,2785,446,3886")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--budget", choices=("quick", "paper"), default="paper")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seeds = [int(s) for s in args.games.split(",")]
    runs: dict[str, list[dict[str, Any]]] = {arm: [] for arm in ARMS}
    for round_ in range(args.rounds):
        for arm in ARMS if round_ % 2 == 0 else reversed(ARMS):
            runs[arm].append(measure(arm, seeds, args.budget))
            print(
                f"round {round_ + 1}, {arm}: {sum(r['wall'] for r in runs[arm][-1]['rows']):.1f} s",
                file=sys.stderr,
            )
    numbers = {
        arm: [
            [(r["seed"], r["axes"], r["rerun"], r["seats"]) for r in run["rows"]] for run in found
        ]
        for arm, found in runs.items()
    }
    same = all(n == numbers["interpreted"][0] for arm in ARMS for n in numbers[arm])
    games = []
    for i, seed in enumerate(seeds):
        wall = {arm: statistics.median(run["rows"][i]["wall"] for run in runs[arm]) for arm in ARMS}
        games.append({"seed": seed, **wall, "ratio": wall["interpreted"] / wall["compiled"]})
    cpu = {
        arm: statistics.median(sum(r["cpu"] for r in run["rows"]) for run in runs[arm])
        for arm in ARMS
    }
    wall_total = {
        arm: statistics.median(sum(r["wall"] for r in run["rows"]) for run in runs[arm])
        for arm in ARMS
    }
    report = {
        "budget": args.budget,
        "rounds": args.rounds,
        "games": games,
        "cpu": cpu,
        "wall": wall_total,
        "cpu_ratio": cpu["interpreted"] / cpu["compiled"],
        "wall_ratio": wall_total["interpreted"] / wall_total["compiled"],
        "same_numbers": same,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for g in games:
        print(
            f"game {g['seed']}: compiled {g['compiled']:.2f} s, interpreted "
            f"{g['interpreted']:.2f} s, {g['ratio']:.2f}x"
        )
    print(
        f"all games: wall {wall_total['compiled']:.1f} s against {wall_total['interpreted']:.1f} s "
        f"({report['wall_ratio']:.2f}x); CPU {cpu['compiled']:.1f} s against "
        f"{cpu['interpreted']:.1f} s ({report['cpu_ratio']:.2f}x); same numbers: {same}"
    )


if __name__ == "__main__":
    main()
