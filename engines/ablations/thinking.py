"""The thinking budget (paper, Section 8): sibling variants of a family on identical deals.

The variants of a family (roster ``family``/``variant``; for built-ins, e.g. ``search`` at two
depths) play the same program opponents on the same deals (``arena.ablations.matches``).
Within each sibling pair (the two variants on the same deal and opponent) the difference in
chip margin is attributed to the budget.  A family's ``low`` and ``high`` variants are named
``low``/``high`` when they are so called, else the first and last variant in name order.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from engines.ablations.arms import DEAL
from engines.stats.bootstrap import weighted_bootstrap, weighted_mean


def budget_pair(variants: list[str]) -> tuple[str, str]:
    """(low, high) among a family's variant names (see the module docstring)."""
    if len(variants) < 2:
        raise ValueError(f"a family needs two variants to compare, got {variants}")
    if "low" in variants and "high" in variants:
        return "low", "high"
    ordered = sorted(variants)
    return ordered[0], ordered[-1]


def thinking_budget(
    runs: pd.DataFrame,
    families: Mapping[str, Mapping[str, str]],
    n_boot: int,
    rng: np.random.Generator,
    arm: str = "hidden",
) -> pd.DataFrame:
    """Per family (``families[family][variant] = player``): mean high - low margin over the
    sibling pairs of ``arm``, with an interval over deals."""
    rows = []
    keys = ["game", "program", "run_index"]
    for family, members in sorted(families.items()):
        low, high = budget_pair(list(members))
        part = runs[(runs["arm"] == arm) & runs["player"].isin([members[low], members[high]])]
        wide = part.pivot_table(index=keys, columns="player", values="margin", aggfunc="first")
        if members[low] not in wide.columns or members[high] not in wide.columns:
            continue
        wide = wide.dropna().reset_index()
        wide["difference"] = wide[members[high]] - wide[members[low]]

        def statistic(frame: pd.DataFrame, w: np.ndarray) -> dict[str, float]:
            return {"difference": weighted_mean(frame["difference"].to_numpy(np.float64), w)}

        found = weighted_bootstrap(wide, DEAL, statistic, n_boot, rng)
        if not found:
            continue
        rows.append(
            {
                "family": family, "low": members[low], "high": members[high],
                "sibling_pairs": len(wide),
                "margin_low": float(wide[members[low]].mean()),
                "margin_high": float(wide[members[high]].mean()),
                "difference": found["difference"].value,
                "ci_low": found["difference"].low, "ci_high": found["difference"].high,
            }
        )  # fmt: skip
    columns = ["family", "low", "high", "sibling_pairs", "margin_low", "margin_high"]
    return pd.DataFrame(rows, columns=[*columns, "difference", "ci_low", "ci_high"])
