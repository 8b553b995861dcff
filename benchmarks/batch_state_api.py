"""The batch play loop against the State API of an anchor revision: issue 20's play-rate targets.

Usage: python benchmarks/batch_state_api.py [--anchor 048f9e6] [--rounds 5] [--deals 100000]
                                            [--json]

Issue 20 asks the compiled batch path for at least five times "today's State-API rate" on
``example4643`` and on the median accepted generated game, "today" being the engine before the
change.  ``genstrat bench engine`` compares the two paths of one tree; this script compares this
checkout's batch loop (``engines.gbg.throughput.batch``) with the State API of the anchor
revision (its ``engines.gbg.throughput.ours``: ``new_deal``, ``legal_actions``, ``apply``), each
in a fresh process in its own tree (``benchmarks/anchor.py``), on the same specs: Kuhn, Leduc,
``example4643``, ``holdem-limit`` and the median accepted generated game
(``throughput.median_accepted_game``, found in this checkout and handed to both arms as JSON).
Both play uniform random deals from the same seeds with moves from the same ``random.Random``.

Each round runs both arms (anchor first in odd rounds); an arm plays each game's ``--deals``
deals twice and the second time counts.  The warm-up is the same deals on purpose: the State
API's rate climbs as it meets what it has seen (the anchor's, on gbg-125 in 20,000-deal runs
from seed 0: 24,582 deals/s, then 107,729, 144,796, and about 153,000 from the fourth run on,
2026-12-06), so the anchor is measured at its best, and the ratio is the smaller for it.

Reported per game: the median deals per second of each arm over the rounds, their ratio
(batch / anchor State API) and, where the issue sets one, its target.  Progress goes to
stderr.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any

from anchor import ANCHOR, ARMS, REPO, alternate, run_arm  # benchmarks/anchor.py

TARGETS = {"example4643": 5.0, "median accepted game": 5.0}  # issue 20: batch / State API

CHILD = r"""
import json, time
engine = compiled_engine()
from engines.gbg import throughput
from engines.gbg.spec import GameSpec

arm, deals = sys.argv[1], int(sys.argv[2])
only_this_tree(arm)
games = json.loads(sys.stdin.read())
play = throughput.ours if arm == "anchor" else throughput.batch
rates = {}
for name, text in games.items():
    spec = GameSpec.from_json(text)
    play(spec, deals)  # warm up on the same deals (see the docstring)
    rates[name] = play(spec, deals)
    print(f"[{time.strftime('%H:%M:%S')}] {arm}: {name} {rates[name]:,.0f} deals/s",
          file=sys.stderr, flush=True)
print(json.dumps({"engine": engine, "rates": rates}))
"""


def games() -> tuple[dict[str, str], str]:
    """The specs both arms play, as canonical JSON, by the name the report gives them; and the
    median accepted game's own name."""
    sys.path.insert(0, str(REPO))
    from engines.gbg import presets
    from engines.gbg.throughput import median_accepted_game

    median = median_accepted_game()
    return {
        "kuhn": presets.kuhn().canonical_json(),
        "leduc": presets.leduc().canonical_json(),
        "example4643": presets.example4643().canonical_json(),
        "holdem-limit": presets.holdem_limit().canonical_json(),
        "median accepted game": median.canonical_json(),
    }, median.name


def summary(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    rows = {}
    for name in runs["current"][0]["rates"]:
        rate = {arm: statistics.median(r["rates"][name] for r in runs[arm]) for arm in ARMS}
        ratio = rate["current"] / rate["anchor"]
        row: dict[str, Any] = {"anchor_state_api": rate["anchor"], "batch": rate["current"]}
        row["ratio"] = ratio
        if name in TARGETS:
            row["target"] = TARGETS[name]
            row["met"] = ratio >= TARGETS[name]
        rows[name] = row
    return {
        "engines": {arm: runs[arm][0]["engine"] for arm in ARMS},
        "rounds": len(runs["current"]),
        "games": rows,
    }


def text(report: dict[str, Any]) -> str:
    lines = [
        f"anchor {report['anchor_revision']}: {report['engines']['anchor']}",
        f"current: {report['engines']['current']}",
        f"{'game':<31}{'anchor State API':>18}{'batch':>12}{'ratio':>8}  target",
    ]
    for name, row in report["games"].items():
        label = f"{name} ({report['median_name']})" if name == "median accepted game" else name
        target = ""
        if "target" in row:
            target = f">= {row['target']:.0f}x: {'met' if row['met'] else 'NOT MET'}"
        lines.append(
            f"{label:<31}{row['anchor_state_api']:>18,.0f}{row['batch']:>12,.0f}"
            f"{row['ratio']:>7.2f}x  {target}"
        )
    lines.append(f"(deals per second; median of {report['rounds']} alternating rounds)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--anchor", default=ANCHOR, help="the git revision to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--deals", type=int, default=100_000, help="per game and round")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.rounds < 1 or args.deals < 100:
        raise SystemExit("batch_state_api: --rounds >= 1 and --deals >= 100")
    specs, median_name = games()
    stdin = json.dumps(specs)
    runs = alternate(
        args.anchor,
        "batch_state_api",
        args.rounds,
        lambda arm, tree: run_arm("batch_state_api", CHILD, arm, tree, [str(args.deals)], stdin),
    )
    report = summary(runs)
    report["anchor_revision"] = args.anchor
    report["median_name"] = median_name
    print(json.dumps(report, indent=2) if args.json else text(report))


if __name__ == "__main__":
    main()
