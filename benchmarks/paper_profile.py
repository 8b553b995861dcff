"""The paper profile up to ``benchmark_axes``, this checkout against an anchor revision.

Usage: python benchmarks/paper_profile.py [--anchor 048f9e6] [--rounds 1] [--pool 2000]
                                          [--games 50] [--json]

Each measurement is a fresh process that runs the paper profile's compute before any model is
called, on both cores, in one of two trees: ``current`` (this checkout, on the engine the product
runs: ``GENSTRAT_ENGINE``, ``compiled`` unless set, which needs ``make compiled``) or ``anchor``
(``--anchor``, a git revision checked out into a temporary worktree; the default is the last
revision before the kernel and the compiled engine of issue 20).  An anchor that has the compiled
engine (``tools/build_engine.py``) gets its own build first, in its worktree, so that both arms
run the engine their product runs.  The steps are those of the graph: the seed pool (generator
seeds from 0 until ``--pool`` games are accepted, one pool of two workers), the six screening
axes of every accepted game at the paper screening budget (one pool), the farthest-point
selection of 50 games, and the five axes at the paper budget with their rerun for the first
``--games`` selected games (a pool per game, as each ``axis_scores`` partition opens its own).
The arms alternate within each round (anchor first in odd rounds), so a slower or faster spell
of the machine falls on both.

Reported: per step the median wall time of each arm and their ratio (anchor / current), the
median and the slowest axes time per game (the five axes without the rerun, and the slowest of
the first 12 selected games), the process CPU of each arm (its own and its workers'), the
targets of issue 20 for the current arm, and whether both arms computed the same numbers: the
same accepted seeds, the same screening values, the same selection and the same five axes,
per-seat values and rerun for every game scored.  Progress goes to stderr; the report is also
appended to ``benchmarks/results.jsonl`` (``benchmarks/results.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from anchor import ANCHOR, ARMS, REPO, alternate, run_arm  # benchmarks/anchor.py
from results import record  # benchmarks/results.py

STEPS = ("pool", "screening", "axes")
TARGETS = {  # issue 20, seconds on this machine
    "pool": 20.0,
    "screening": 90.0,
    "median_axes_per_game": 4.0,
    "slowest_of_first_12": 30.0,
    "total": 360.0,
}

CHILD = r"""
import json, resource, time
engine = compiled_engine()
from arena.parallel import process_pool
from engines.axes.budgets import axis_budget, screening_budget
from engines.axes.compute import compute_with_rerun
from engines.axes.screening import SCREENING_AXES, screen_games
from engines.axes.selection import farthest_point, normalise
from engines.gbg.seed_pool import run_pool
from engines.gbg.spec import GameSpec

arm, target, n_games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
only_this_tree(arm)

def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {arm}: {message}", file=sys.stderr, flush=True)

def cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pools' workers, once joined
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

log(f"engine: {engine}")
used = cpu()
started = time.perf_counter()
with process_pool(2) as pool:
    verdicts, summary = run_pool(0, target, pool=pool)
pool_seconds = time.perf_counter() - started
games = [(v["seed"], v["spec_json"]) for v in verdicts if v["accepted"]]
log(f"pool: {len(games)} accepted of {summary['sampled']} seeds in {pool_seconds:.1f} s")

started = time.perf_counter()
with process_pool(2) as pool:
    rows = list(screen_games(games, screening_budget("paper"), 0, pool=pool))
screening_seconds = time.perf_counter() - started
log(f"screening: {len(rows)} games in {screening_seconds:.1f} s")

rows.sort(key=lambda r: r["seed"])
points = normalise({a: [r[a] for r in rows] for a in SCREENING_AXES})
selected = [int(rows[i]["seed"]) for i, _ in farthest_point(points, min(50, len(rows)))]
specs = dict(games)
budget = axis_budget("paper")
scored = []
for k, seed in enumerate(selected[:n_games]):
    started = time.perf_counter()
    with process_pool() as pool:
        report = compute_with_rerun(GameSpec.from_json(specs[seed]), budget, 0, pool=pool)
    wall = time.perf_counter() - started
    d = report.diagnostics
    scored.append({"seed": seed, "wall": wall, "seconds": d["seconds"],
                   "axes": report.axes, "seats": report.seats, "rerun": report.rerun})
    log(f"axes {k + 1}/{n_games}: seed {seed} in {d['seconds']:.1f} s "
        f"(+ rerun {d.get('rerun_seconds', 0.0):.1f} s)")
print(json.dumps({
    "engine": engine, "cpu": cpu() - used,
    "seconds": {"pool": pool_seconds, "screening": screening_seconds,
                "axes": sum(g["wall"] for g in scored)},
    "accepted": [s for s, _ in games],
    "screening": [{a: r[a] for a in ("seed", *SCREENING_AXES)} for r in rows],
    "selected": selected, "games": scored,
}))
"""


_BUILT: set[Path] = set()


def build_anchor(tree: Path) -> None:
    """Build the compiled engine of an anchor that has one, and load its kernel into numba's
    cache (once per worktree): without them the anchor would run its sources, or compile its
    kernel inside the timed run, not the engine its product ran."""
    if tree in _BUILT:
        return
    _BUILT.add(tree)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    for tool in ("build_engine.py", "warm_jit.py"):
        if not (tree / "tools" / tool).exists():
            continue
        done = subprocess.run(
            [sys.executable, f"tools/{tool}"], cwd=tree, env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise SystemExit(f"paper_profile: the anchor's tools/{tool} failed: {last}")


def _head(tree: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or str(tree)


def measure(arm: str, tree: Path, target: int, games: int) -> dict[str, Any]:
    """One run of the profile in ``tree``, in a fresh process."""
    if arm == "anchor":
        build_anchor(tree)
    return run_arm("paper_profile", CHILD, arm, tree, [str(target), str(games)])


def numbers(run: dict[str, Any]) -> str:
    """Everything the run computed (not its timings), as canonical JSON (NaN compares equal)."""
    computed = (
        run["accepted"],
        run["screening"],
        run["selected"],
        [(g["seed"], g["axes"], g["seats"], g["rerun"]) for g in run["games"]],
    )
    return json.dumps(computed, sort_keys=True)


def summary(runs: dict[str, list[dict[str, Any]]], rounds: int) -> dict[str, Any]:
    steps = {
        step: {arm: statistics.median(r["seconds"][step] for r in runs[arm]) for arm in ARMS}
        for step in STEPS
    }
    total = {arm: sum(steps[step][arm] for step in STEPS) for arm in ARMS}
    per_game: dict[str, dict[str, float]] = {}
    for arm in ARMS:
        by_run = [[g["seconds"] for g in r["games"]] for r in runs[arm]]
        seconds = [statistics.median(game) for game in zip(*by_run, strict=True)]
        per_game[arm] = {  # --games is at least 1
            "median": statistics.median(seconds),
            "slowest_of_first_12": max(seconds[:12]),
            "max": max(seconds),
        }
    reference = numbers(runs["anchor"][0])
    same = all(numbers(r) == reference for arm in ARMS for r in runs[arm])
    current = {
        "pool": steps["pool"]["current"],
        "screening": steps["screening"]["current"],
        "median_axes_per_game": per_game["current"]["median"],
        "slowest_of_first_12": per_game["current"]["slowest_of_first_12"],
        "total": total["current"],
    }
    return {
        "rounds": rounds,
        "engines": {arm: runs[arm][0]["engine"] for arm in ARMS},
        "games_scored": len(runs["current"][0]["games"]),
        "steps": {s: {**v, "ratio": v["anchor"] / v["current"]} for s, v in steps.items()},
        "total": {**total, "ratio": total["anchor"] / total["current"]},
        "axes_per_game": per_game,
        "cpu": {arm: statistics.median(r["cpu"] for r in runs[arm]) for arm in ARMS},
        "targets": {
            name: {"limit": limit, "measured": current[name], "met": current[name] <= limit}
            for name, limit in TARGETS.items()
        },
        "same_numbers": same,
    }


def text(report: dict[str, Any]) -> str:
    lines = [
        f"engines: anchor {report['engines']['anchor']}; current {report['engines']['current']}",
        f"median of {report['rounds']} alternating round(s), {report['games_scored']} games scored",
    ]
    for step, v in [*report["steps"].items(), ("total", report["total"])]:
        lines.append(
            f"{step:>10}: anchor {v['anchor']:7.1f} s  current {v['current']:7.1f} s  "
            f"{v['ratio']:.2f}x"
        )
    for arm in ARMS:
        g = report["axes_per_game"][arm]
        lines.append(
            f"axes per game, {arm}: median {g['median']:.2f} s, slowest of the first 12 "
            f"{g['slowest_of_first_12']:.1f} s, max {g['max']:.1f} s; "
            f"CPU {report['cpu'][arm]:.0f} s"
        )
    if not report["full_profile"]:
        lines.append("(the targets below are for the whole profile: --pool 2000 --games 50)")
    for name, t in report["targets"].items():
        verdict = "met" if t["met"] else "NOT MET"
        lines.append(f"target {name}: {t['measured']:.2f} s <= {t['limit']:.0f} s: {verdict}")
    lines.append(f"same numbers in both arms: {report['same_numbers']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--anchor", default=ANCHOR, help="the git revision to compare with")
    parser.add_argument(
        "--anchor-tree",
        type=Path,
        help="a checkout of the anchor already built (make compiled, tools/warm_jit.py) to use "
        "instead of a fresh worktree of --anchor",
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pool", type=int, default=2000, help="accepted games in the pool")
    parser.add_argument("--games", type=int, default=50, help="selected games to score")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.rounds < 1 or args.pool < 2 or not 1 <= args.games <= 50:
        raise SystemExit("paper_profile: --rounds >= 1, --pool >= 2 and 1 <= --games <= 50")
    os.environ.setdefault("GENSTRAT_ENGINE", "compiled")  # the engine the product runs
    load = os.getloadavg()[0]
    if args.anchor_tree is not None:
        _BUILT.add(args.anchor_tree)  # built by whoever prepared it
        trees = {"anchor": args.anchor_tree, "current": REPO}
        runs: dict[str, list[dict[str, Any]]] = {arm: [] for arm in ARMS}
        for round_ in range(args.rounds):  # as anchor.alternate, in the given tree
            for arm in ARMS if round_ % 2 == 0 else tuple(reversed(ARMS)):
                runs[arm].append(measure(arm, trees[arm], args.pool, args.games))
    else:
        runs = alternate(
            args.anchor,
            "paper_profile",
            args.rounds,
            lambda arm, tree: measure(arm, tree, args.pool, args.games),
        )
    report = summary(runs, args.rounds)
    report["anchor_revision"] = args.anchor if args.anchor_tree is None else _head(args.anchor_tree)
    report["full_profile"] = args.pool == 2000 and args.games == 50
    record("paper_profile", report, load)
    print(json.dumps(report, indent=2) if args.json else text(report))


if __name__ == "__main__":
    main()
