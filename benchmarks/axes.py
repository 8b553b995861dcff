"""The axes at paper scale: screening time for the pool, axis time per game, rerun correlations.

Usage::

    python benchmarks/axes.py [--pool 2000] [--screen-sample N] [--games 12] [--budget paper]
                              [--out DIR] [--json]

Steps (each cached in ``--out``, default ``data/benchmarks/axes``, so an interrupted run resumes):

1. the seed pool: screen generator seeds from 0 until ``--pool`` games are accepted;
2. the six screening axes for every accepted game at the ``paper`` screening budget on both
   cores; timed in full, or (``--screen-sample N``) on the first N games and projected to the
   pool linearly;
3. the farthest-point selection of 50 games;
4. the five axes at ``--budget`` with the rerun diagnostic (two-thirds of the budget, an
   independent population draw) for the first ``--games`` selected games, timed per game;
5. the benchmark diagnostics over those games: rerun correlation and seat agreement per axis
   (Spearman), median sampling errors, pairwise correlations and variance inflation factors;
6. the paper profile up to ``benchmark_axes`` (issue 20): pool + screening + the 50 selected
   games' axes with reruns, the axes projected from the mean of the games scored.

Targets (issue: complexity axes): the five axes at the paper budget for one typical game in at
most 2 minutes; the screening axes for 2,000 accepted games in at most 20 minutes.  Timings are
wall-clock on this machine, shared with other work: the load average is reported with them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from arena.compiled_engine import enable

os.environ.setdefault("GENSTRAT_ENGINE", "compiled")  # the engine the product runs
ENGINE = enable()  # refused in one line while `make compiled` is not current

from arena.parallel import process_pool  # noqa: E402
from engines.axes.budgets import axis_budget, screening_budget  # noqa: E402
from engines.axes.compute import compute_with_rerun  # noqa: E402
from engines.axes.diagnostics import benchmark_diagnostics  # noqa: E402
from engines.axes.names import AXES  # noqa: E402
from engines.axes.screening import SCREENING_AXES, screen_games  # noqa: E402
from engines.axes.selection import farthest_point, normalise  # noqa: E402
from engines.gbg.seed_pool import run_pool  # noqa: E402
from engines.gbg.spec import GameSpec  # noqa: E402

SELECTED = 50


def _load(path: Path) -> Any:
    return json.loads(path.read_text()) if path.exists() else None


def _save(path: Path, data: Any) -> None:
    tmp = path.with_suffix(".part")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def pool_games(out: Path, target: int) -> tuple[list[tuple[int, str]], dict[str, Any]]:
    path = out / f"pool_{target}.json"
    cached = _load(path)
    if cached is None:
        started = time.perf_counter()
        with process_pool(2) as pool:
            verdicts, summary = run_pool(0, target, pool=pool)
        games = [(v["seed"], v["spec_json"]) for v in verdicts if v["accepted"]]
        cached = {
            "games": games,
            "sampled": summary["sampled"],
            "seconds": time.perf_counter() - started,
        }
        _save(path, cached)
    return [(int(s), str(j)) for s, j in cached["games"]], cached


def screening(out: Path, games: list[tuple[int, str]], sample: int | None) -> dict[str, Any]:
    budget = screening_budget("paper")
    name = f"screening_{len(games)}" + (f"_sample{sample}" if sample else "") + ".json"
    path = out / name
    cached = _load(path)
    if cached is None:
        chosen = games[:sample] if sample else games
        load = os.getloadavg()[0]
        started = time.perf_counter()
        last = [started]

        def progress(done: int, total: int) -> None:
            now = time.perf_counter()
            if now - last[0] > 30 or done == total:
                last[0] = now
                _log(f"screening {done}/{total} ({done / (now - started):.2f} games/s)")

        with process_pool(2) as pool:
            rows = list(screen_games(chosen, budget, 0, pool=pool, progress=progress))
        seconds = time.perf_counter() - started
        cached = {
            "rows": rows,
            "games_timed": len(chosen),
            "seconds": seconds,
            "seconds_for_pool": seconds * len(games) / len(chosen),
            "projected": bool(sample),
            "load_average_before": load,
            "load_average_after": os.getloadavg()[0],
        }
        _save(path, cached)
    return dict(cached)


def select(rows: list[dict[str, Any]], n: int) -> list[int]:
    rows = sorted(rows, key=lambda r: r["seed"])
    points = normalise({a: [r[a] for r in rows] for a in SCREENING_AXES})
    return [int(rows[i]["seed"]) for i, _ in farthest_point(points, min(n, len(rows)))]


def axes_for(out: Path, seeds: list[int], specs: dict[int, str], budget_name: str) -> list[dict]:
    path = out / f"axes_{budget_name}.jsonl"
    done: dict[int, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            done[row["seed"]] = row
    budget = axis_budget(budget_name)
    for k, seed in enumerate(seeds):
        if seed in done:
            continue
        load = os.getloadavg()[0]
        started = time.perf_counter()
        with process_pool() as pool:
            report = compute_with_rerun(GameSpec.from_json(specs[seed]), budget, 0, pool=pool)
        row = {
            "seed": seed,
            "wall_seconds": time.perf_counter() - started,
            "load_average": load,
            **report.to_dict(),
        }
        with path.open("a") as sink:
            sink.write(json.dumps(row) + "\n")
        done[seed] = row
        d = row["diagnostics"]
        _log(
            f"axes {k + 1}/{len(seeds)}: seed {seed} in {d['seconds']:.0f}s "
            f"(+ rerun {d.get('rerun_seconds', 0):.0f}s), load {load:.1f}"
        )
    return [done[s] for s in seeds]


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    axes = {a: [r["axes"][a] for r in rows] for a in AXES}
    alice = {a: [_num(r["seats"][a][0]) for r in rows] for a in AXES[1:]}
    bob = {a: [_num(r["seats"][a][1]) for r in rows] for a in AXES[1:]}
    rerun = {a: [r["rerun"][a] for r in rows] for a in AXES}
    found = benchmark_diagnostics(axes, alice, bob, rerun)
    seconds = [r["diagnostics"]["seconds"] for r in rows]
    found["median_sampling_error"] = {
        a: statistics.median(r["sampling_error"][a] for r in rows)
        for a in AXES
        if rows[0]["sampling_error"][a] is not None
    }
    found["seconds_per_game"] = {
        "median": statistics.median(seconds),
        "max": max(seconds),
        "min": min(seconds),
        "within_2_minutes": sum(s <= 120 for s in seconds),
        "games": len(seconds),
    }
    return found


def paper_profile(
    pool_info: dict[str, Any], screened: dict[str, Any], rows: list[dict[str, Any]]
) -> dict[str, Any]:
    """The paper profile up to ``benchmark_axes``: the pool, the screening of the pool, the
    selection (milliseconds, not counted) and the five axes with their rerun for the 50
    selected games, the axes projected from the mean of the games scored here (wall seconds
    of ``compute_with_rerun`` on both cores).  ``projected`` says which parts are not a
    measurement of the whole."""
    per_game = [r["wall_seconds"] for r in rows]
    axes = statistics.mean(per_game) * SELECTED if per_game else None
    parts = {
        "pool_seconds": pool_info["seconds"],
        "screening_seconds": screened["seconds_for_pool"],
        "axes_seconds": axes,
    }
    total = None if axes is None else sum(parts.values())
    return {
        **parts,
        "total_seconds": total,
        "axes_games_timed": len(per_game),
        "projected": {"screening": bool(screened["projected"]), "axes": len(per_game) < SELECTED},
    }


def _num(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pool", type=int, default=2000, help="accepted games in the pool")
    parser.add_argument("--screen-sample", type=int, default=None, metavar="N")
    parser.add_argument("--games", type=int, default=12, help="benchmark games to score")
    parser.add_argument("--budget", choices=("quick", "paper"), default="paper")
    parser.add_argument("--out", type=Path, default=Path("data/benchmarks/axes"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    _log(f"engine: {ENGINE}")
    _log(f"pool: screening seeds until {args.pool} games are accepted")
    games, pool_info = pool_games(args.out, args.pool)
    _log(f"pool: {len(games)} accepted of {pool_info['sampled']} seeds")
    screened = screening(args.out, games, args.screen_sample)
    _log(f"screening: {screened['seconds']:.0f}s for {screened['games_timed']} games")
    specs = dict(games)
    selected = select(screened["rows"], SELECTED)
    rows = axes_for(args.out, selected[: args.games], specs, args.budget)
    report = {
        "engine": ENGINE,
        "pool": {"accepted": len(games), "sampled": pool_info["sampled"]},
        "screening": {k: v for k, v in screened.items() if k != "rows"},
        "selected": selected,
        "scored": [r["seed"] for r in rows],
        "diagnostics": summarise(rows) if len(rows) >= 3 else {},
        "paper_profile": paper_profile(pool_info, screened, rows),
        "per_game": [
            {
                "seed": r["seed"],
                "seconds": r["diagnostics"]["seconds"],
                "rerun_seconds": r["diagnostics"].get("rerun_seconds"),
                "load_average": r["load_average"],
                "axes": r["axes"],
                "rerun": r["rerun"],
            }
            for r in rows
        ],
    }
    _save(args.out / f"report_{args.budget}.json", report)
    print(json.dumps(report, indent=2) if args.json else _text(report))


def _text(report: dict[str, Any]) -> str:
    lines = [
        f"pool: {report['pool']['accepted']} accepted of {report['pool']['sampled']} seeds",
    ]
    s = report["screening"]
    how = "projected from" if s["projected"] else "measured on"
    lines.append(
        f"screening axes: {s['seconds_for_pool'] / 60:.1f} min for the pool ({how} "
        f"{s['games_timed']} games; load {s['load_average_before']:.1f})"
    )
    p = report["paper_profile"]
    if p["total_seconds"] is not None:
        lines.append(
            f"paper profile to benchmark_axes: {p['total_seconds'] / 60:.1f} min (pool "
            f"{p['pool_seconds']:.0f}s, screening {p['screening_seconds']:.0f}s, axes with "
            f"reruns {p['axes_seconds']:.0f}s projected from {p['axes_games_timed']} games)"
        )
    d = report["diagnostics"]
    if d:
        t = d["seconds_per_game"]
        lines.append(
            f"five axes per game: median {t['median']:.0f}s, max {t['max']:.0f}s "
            f"({t['within_2_minutes']}/{t['games']} within 2 minutes)"
        )
        for a in AXES:
            lines.append(
                f"  {a:<12} rerun rho {d['rerun_correlation'][a]:+.2f}  "
                f"seat rho {d['seat_agreement'].get(a, float('nan')):+.2f}  "
                f"VIF {d['variance_inflation'][a]:.2f}"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
