"""Complete pairs: the runs whose two seat-swapped deals both completed (paper, Section 5).

``complete_pairs(matches)`` keeps the runs whose two seat-swapped deals both completed, and
says what it dropped and why: a deal that timed out, a deal that failed with an error, a
complete deal whose partner timed out or failed, a deal whose partner is missing.  The paper's
corpus is what is left "after removing time-outs and other failed or defective matches, and
keeping only complete pairs".  A run is the deals sharing ``RUN_KEY``; :func:`run_sizes` counts
them, for this filter and for the check that every kept run is a seat-swapped pair
(``engines.tournament.corpus_checks.paired_runs``).
"""

from __future__ import annotations

import pandas as pd

from engines.tournament.records import DECIDED_STATUSES

RUN_KEY = ("game_seed", "run_id", "play_seed")


def run_sizes(frame: pd.DataFrame) -> tuple[pd.Series, pd.Series, pd.Series]:
    """Per deal: whether it was decided, how many deals its run has, how many were decided."""
    decided = frame["status"].isin(DECIDED_STATUSES)
    keys = [frame[k] for k in RUN_KEY]
    deals = frame.groupby(keys, sort=False, dropna=False)["status"].transform("size")
    n_decided = decided.groupby(keys, sort=False, dropna=False).transform("sum")
    return decided, deals, n_decided


def complete_pairs(matches: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """(the deals of complete runs, counts of dropped deals by reason)."""
    if matches.empty:
        return matches.copy(), {}
    frame = matches.copy()
    complete, deals, n_complete = run_sizes(frame)
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
