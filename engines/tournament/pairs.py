"""Complete pairs and the corpus checks (paper, Section 5 "Prompting and corpus"; Appendix J).

``complete_pairs(matches)`` keeps the runs whose two seat-swapped deals both completed, and
says what it dropped and why: a deal that timed out, a deal that failed with an error, a
complete deal whose partner timed out or failed, a deal whose partner is missing.  The paper's
corpus is what is left "after removing time-outs and other failed or defective matches, and
keeping only complete pairs".

The checks are plain functions returning readable problems (empty when the corpus is sound):
zero-sum per match, every match's spec hash equal to its game's, no duplicate match ids, both
seats of every run present (and swapped), and each model's parse-fallback rate within a bound
(the paper's worst model fell back on 0.33% of its moves).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from engines.gbg.spec import SEATS
from engines.tournament.records import DECIDED_STATUSES

RUN_KEY = ["game_seed", "run_id", "play_seed"]
PAPER_WORST_FALLBACK_RATE = 0.0033


def complete_pairs(matches: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """(the deals of complete runs, counts of dropped deals by reason)."""
    if matches.empty:
        return matches.copy(), {}
    frame = matches.copy()
    complete = frame["status"].isin(DECIDED_STATUSES)
    group = [frame[k] for k in RUN_KEY]
    deals = frame.groupby(group, sort=False)["match_id"].transform("size")
    n_complete = complete.groupby(group, sort=False).transform("sum")
    keep = complete & deals.eq(2) & n_complete.eq(2)
    reasons: dict[str, int] = {}
    for status in sorted(set(frame.loc[~complete, "status"])):
        reasons[str(status)] = int((frame["status"] == status).sum())
    partner_failed = complete & deals.eq(2) & n_complete.lt(2)
    if partner_failed.any():
        reasons["partner not complete"] = int(partner_failed.sum())
    alone = complete & deals.eq(1)
    if alone.any():
        reasons["partner missing"] = int(alone.sum())
    extra = complete & deals.gt(2)
    if extra.any():
        reasons["more than two deals in the run"] = int(extra.sum())
    return frame.loc[keep].reset_index(drop=True), reasons


def zero_sum_problems(matches: pd.DataFrame) -> list[str]:
    """Complete matches whose chip deltas do not sum to zero or disagree with the margin."""
    done = matches.loc[matches["status"].isin(DECIDED_STATUSES)]
    problems = []
    for row in done.itertuples(index=False):
        a, b, margin = row.alice_chip_delta, row.bob_chip_delta, row.margin_alice
        if pd.isna(a) or pd.isna(b) or a + b != 0:
            problems.append(f"{row.match_id}: chip deltas {a} and {b} do not sum to zero")
        elif pd.isna(margin) or margin != a - b:
            problems.append(f"{row.match_id}: margin_alice {margin} is not {a - b}")
    return problems


def spec_hash_problems(matches: pd.DataFrame, expected: Mapping[str, str]) -> list[str]:
    """Matches whose spec hash differs from their game's (``expected``: game token -> hash)."""
    problems = []
    for game, hashes in matches.groupby("game")["spec_hash"]:
        want = expected.get(str(game))
        if want is None:
            problems.append(f"game {game!r} is not a benchmark game")
            continue
        wrong = int((hashes != want).sum())
        if wrong:
            problems.append(f"game {game!r}: {wrong} matches have a spec hash other than {want}")
    return problems


def duplicate_id_problems(matches: pd.DataFrame) -> list[str]:
    repeated = matches.loc[matches["match_id"].duplicated(), "match_id"]
    return [f"match id {m} appears more than once" for m in sorted(set(repeated))]


def both_seats_problems(pairs: pd.DataFrame) -> list[str]:
    """Runs of ``pairs`` that are not exactly two deals with the players' seats swapped."""
    problems = []
    for run_id, run in pairs.groupby("run_id", sort=False):
        if len(run) != 2:
            problems.append(f"{run_id}: {len(run)} deals instead of 2")
            continue
        one, two = run.iloc[0], run.iloc[1]
        if not (one["alice"] == two["bob"] and one["bob"] == two["alice"]):
            problems.append(f"{run_id}: the two deals do not swap the seats")
        elif one["play_seed"] != two["play_seed"]:
            problems.append(f"{run_id}: the two deals do not share a play seed")
    return problems


def fallback_rates(matches: pd.DataFrame) -> pd.DataFrame:
    """Per model: moves, fallbacks and the fallback rate, over every recorded match."""
    rows = []
    for seat in SEATS:
        part = matches[[seat, f"moves_{seat}", f"fallbacks_{seat}", f"rethinks_{seat}"]]
        rows.append(
            part.set_axis(["model", "moves", "fallbacks", "rethinks"], axis=1).astype(
                {"moves": "int64", "fallbacks": "int64", "rethinks": "int64"}
            )
        )
    table = pd.concat(rows).groupby("model", as_index=False)[["moves", "fallbacks", "rethinks"]]
    summed = table.sum()
    moves = summed["moves"].where(summed["moves"] > 0)
    summed["fallback_rate"] = (summed["fallbacks"] / moves).fillna(0.0)
    summed["rethink_rate"] = (summed["rethinks"] / moves).fillna(0.0)
    return summed


def fallback_problems(matches: pd.DataFrame, max_rate: float) -> list[str]:
    """Models whose fallback rate exceeds ``max_rate``."""
    rates = fallback_rates(matches)
    return [
        f"{row.model}: fallback on {row.fallback_rate:.2%} of {row.moves} moves "
        f"(bound {max_rate:.2%})"
        for row in rates.itertuples(index=False)
        if row.fallback_rate > max_rate
    ]
