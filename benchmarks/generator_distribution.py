"""The paper configuration's distribution of games and its five rejection criteria (issue 40).

Usage: python benchmarks/generator_distribution.py [--seeds 6000] [--start 0] [--workers 2]
                                                   [--config paper] [--json]

Screens ``--seeds`` consecutive seeds with the generation configuration ``--config`` (the
paper's by default) as the ``seed_pool`` asset does (rulebooks in the paper's style), with the
dead-branch criterion decided for every game (``decide_dead="always"``) so that every rejection
lists all its reasons.  Prints:

1. the criteria table: for each of the paper's five criteria (Section 3) and the project's
   addition ``inert_phase``, the seeds it rejects and those it alone rejects; the acceptance
   rate with the five criteria alone and with ``inert_phase`` as well, beside the paper's
   2,000 of 12,351 (16.2%);
2. the distribution table, over the games generated and over the games accepted: phases,
   branch conditions, phase kinds, deck, hand, stack and ante, moves per player under random
   play and rulebook length, each beside the paper's figure (Section 3, Appendix B; the
   paper gives its example seed 4643 and the range of its benchmark's rulebooks, not a
   distribution);
3. how often games shaped like the paper's example occur: an 8-card deck, 3-card hands, a
   stack of 10, an ante of 3, 9 phases, 3 branch conditions, each alone and together.

Results are recorded in docs/NOTES.md ("The generator, the acceptance filter and the pool").
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from arena.parallel import process_pool
from engines.gbg.acceptance import AcceptanceSettings
from engines.gbg.generator import named_config
from engines.gbg.inertness import INERT_REASON
from engines.gbg.seed_pool import PAPER_POOL, screen

CRITERIA = ("moves", "seat_bias", "extreme_branches", "rare_phases", "dead_branch")
KINDS = (
    "betting",
    "simultaneous",
    "auction",
    "peek",
    "draw",
    "swap",
    "position",
    "side_bet",
    "reveal",
)
EXAMPLE = {  # seed 4643 (Section 3), as the preset example4643 renders it
    "deck": 8,
    "hand": 3,
    "stack": 10,
    "ante": 3,
    "phases": 9,
    "branches": 3,
}


def game_row(verdict: dict[str, Any]) -> dict[str, Any] | None:
    """The quantities of one screened game (None for a seed whose game did not generate)."""
    if "spec_json" not in verdict:
        return None
    spec = json.loads(verdict["spec_json"])
    kinds = Counter(p["kind"] for p in spec["phases"])
    return {
        "seed": verdict["seed"],
        "accepted": verdict["accepted"],
        "phases": len(spec["phases"]),
        "branches": verdict["branch_conditions"],
        "kinds": {k: kinds.get(k, 0) for k in KINDS},
        "deck": verdict["deck_size"],
        "hand": verdict["hand_size"],
        "stack": spec["stack"],
        "ante": spec["ante"],
        "moves": verdict["moves_per_player"],
        "rulebook": verdict["rulebook_chars"],
    }


def criteria_table(verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(verdicts)
    reasons = [v["reasons"] for v in verdicts]
    rows = []
    for criterion in (*CRITERIA, INERT_REASON, "rulebook_inconsistent", "generator_error"):
        any_ = sum(criterion in r for r in reasons)
        alone = sum(r == [criterion] for r in reasons)
        rows.append({"criterion": criterion, "rejects": any_, "alone": alone, "share": any_ / n})
    five = sum(not [x for x in r if x != INERT_REASON] for r in reasons)
    accepted = sum(v["accepted"] for v in verdicts)
    return {
        "seeds": n,
        "rows": rows,
        "accepted_five_criteria": five,
        "acceptance_five_criteria": five / n,
        "accepted_with_inert_phase": accepted,
        "acceptance_with_inert_phase": accepted / n,
        "paper": f"{PAPER_POOL['acceptance_rate']:.1%} (2,000 of 12,351), five criteria",
    }


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    q = statistics.quantiles(ordered, n=10) if len(ordered) > 1 else ordered * 9
    return {
        "min": ordered[0],
        "p10": q[0],
        "median": statistics.median(ordered),
        "p90": q[-1],
        "max": ordered[-1],
        "mean": statistics.fmean(ordered),
    }


def histogram(values: list[int]) -> dict[int, int]:
    return dict(sorted(Counter(values).items()))


def distribution(games: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"games": len(games)}
    for key in ("phases", "branches", "deck", "hand", "stack", "ante"):
        values = [g[key] for g in games]
        out[key] = {**summary(values), "histogram": histogram(values)}
    out["moves"] = summary([g["moves"] for g in games])
    out["moves"]["above_10"] = sum(g["moves"] > 10 for g in games)
    out["rulebook"] = summary([g["rulebook"] for g in games])
    out["kinds"] = {
        k: {
            "share_of_games": sum(g["kinds"][k] > 0 for g in games) / len(games),
            "mean_count": statistics.fmean(g["kinds"][k] for g in games),
        }
        for k in KINDS
    }
    return out


def example_shape(games: list[dict[str, Any]]) -> dict[str, Any]:
    """How many games match seed 4643's shape, attribute by attribute and together."""
    n = len(games)

    def count(test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        hits = sum(test(g) for g in games)
        return {"games": hits, "rate": hits / n if n else 0.0}

    def like(*keys: str) -> Callable[[dict[str, Any]], bool]:
        return lambda g: all(g[k] == EXAMPLE[k] for k in keys)

    out = {key: count(like(key)) for key in EXAMPLE}
    out["deck, hand, stack and ante"] = count(like("deck", "hand", "stack", "ante"))
    out["phases and branches"] = count(like("phases", "branches"))
    out["all six"] = count(like(*EXAMPLE))
    product = 1.0
    for key in EXAMPLE:
        product *= out[key]["rate"]
    out["all six, product of the six rates"] = {"games": product * n, "rate": product}
    return out


PAPER_FIGURES = {
    "phases": "varied; seed 4643 has 9 (the deal and 8 more)",
    "branches": "varied; seed 4643 has 3",
    "deck": "seed 4643: 8 (10 J Q K, two suits)",
    "hand": "seed 4643: 3",
    "stack": "seed 4643: 10",
    "ante": "seed 4643: 3",
    "moves": "at most 10 (a criterion)",
    "rulebook": "8,600 to just under 39,000 (the 50 benchmark games)",
}


def text(report: dict[str, Any]) -> str:
    c = report["criteria"]
    lines = [
        f"configuration {report['config']} ({report['config_hash'][:12]}), seeds "
        f"{report['start']}..{report['start'] + c['seeds'] - 1}, {report['seconds']:.0f} s",
        "",
        f"{'criterion':<24} {'rejects':>8} {'alone':>7} {'share of seeds':>15}",
    ]
    for row in c["rows"]:
        lines.append(
            f"{row['criterion']:<24} {row['rejects']:>8,} {row['alone']:>7,} {row['share']:>15.1%}"
        )
    lines += [
        f"accepted, the paper's five criteria: {c['accepted_five_criteria']:,} of "
        f"{c['seeds']:,} = {c['acceptance_five_criteria']:.1%} (paper: {c['paper']})",
        f"accepted, with inert_phase as well: {c['accepted_with_inert_phase']:,} of "
        f"{c['seeds']:,} = {c['acceptance_with_inert_phase']:.1%}",
        "",
    ]
    for name in ("generated", "accepted"):
        d = report[name]
        lines.append(f"{name} games: {d['games']:,}")
        for key in ("phases", "branches", "deck", "hand", "stack", "ante", "moves", "rulebook"):
            s = d[key]
            fmt = ".2f" if key == "moves" else ",.0f"
            extra = f", above 10: {s['above_10']}" if key == "moves" else ""
            lines.append(
                f"  {key:<9} min {s['min']:{fmt}} p10 {s['p10']:{fmt}} median "
                f"{s['median']:{fmt}} p90 {s['p90']:{fmt}} max {s['max']:{fmt}} mean "
                f"{s['mean']:.2f}{extra}   paper: {PAPER_FIGURES[key]}"
            )
            if "histogram" in s and key in ("phases", "branches", "hand", "deck"):
                hist = ", ".join(f"{k}: {v}" for k, v in s["histogram"].items())
                lines.append(f"            {hist}")
        kinds = ", ".join(
            f"{k} {v['share_of_games']:.0%} ({v['mean_count']:.2f})" for k, v in d["kinds"].items()
        )
        lines.append(f"  kinds (share of games with one, mean count): {kinds}")
        lines.append("  shaped like seed 4643:")
        for key, v in report[f"example_{name}"].items():
            lines.append(f"    {key:<36} {v['games']:>10,.2f} games  {v['rate']:.5%}")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=6000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--config", default="paper")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    config = named_config(args.config)
    settings = AcceptanceSettings(decide_dead="always")
    started = time.perf_counter()
    with process_pool(args.workers) as pool:
        verdicts = list(
            screen(
                args.start,
                args.seeds,  # a target no pool reaches: every seed is screened
                config,
                settings,
                pool=pool,
                max_seeds=args.seeds,
                style="paper",
            )
        )
    games = [g for g in map(game_row, verdicts) if g is not None]
    accepted = [g for g in games if g["accepted"]]
    report = {
        "config": config.label,
        "config_hash": config.config_hash,
        "start": args.start,
        "seconds": time.perf_counter() - started,
        "criteria": criteria_table(verdicts),
        "generated": distribution(games),
        "accepted": distribution(accepted),
        "example_generated": example_shape(games),
        "example_accepted": example_shape(accepted),
    }
    print(json.dumps(report, indent=2) if args.json else text(report))


if __name__ == "__main__":
    main()
