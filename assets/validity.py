"""Stage: ``validity_checks``, the checks of Sections 6-7 and Appendices C and E that need more
than the analysis of the corpus (issue 17).

- the whole-strategy opponent check (Appendix C): L0 and tier-1 members of each seat on common
  deals, per benchmark game (``engines.stats.opponent_check``), and the interaction share
  (``engines.stats.validity.interaction_share``) beside the opponent axis;
- screening-vs-final agreement (Appendix C, "Selection basis"): the composite of the six
  screening axes against the five-axis composite, Spearman's rho and the shared hardest games.

The asset's value is one row per figure: the check, the figure, ours and the paper's (the paper
gives a number for each); the per-game shares are metadata.  The other checks of the issue are
tables of the analysis (``composite_alternatives``, ``late_block``, ``rethink_fallback``,
``verbosity``, ``jaggedness``) and ship with it.
"""

from typing import Any

import dagster as dg
import numpy as np
import pandas as pd

from assets.capability_profiles import as_frame
from assets.metadata import markdown_table
from assets.resources import RunProfile
from engines.axes.budgets import axis_budget
from engines.axes.screening import SCREENING_AXES
from engines.gbg import GameSpec
from engines.stats.composite import regressor_zscores, zscore_axes
from engines.stats.leaderboard import RunSample
from engines.stats.opponent_check import CHECK_SIZES, whole_strategy_outcomes
from engines.stats.pergame import per_game_alpha
from engines.stats.runs import run_table
from engines.stats.validity import (
    PAPER,
    interaction_share,
    screening_agreement,
    whole_strategy_rows,
)

GROUP_NAME = "validity"
VALIDITY_COLUMNS = ("check", "figure", "ours", "paper")


def whole_strategy_check(
    benchmark_games: pd.DataFrame, axis_frame: pd.DataFrame, budget_name: str, seed: int = 0
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Per benchmark game the interaction share beside its opponent axis, and the summary."""
    per_seat, deals = CHECK_SIZES[budget_name]
    budget = axis_budget(budget_name)
    shares = {}
    for row in benchmark_games.itertuples(index=False):
        spec = GameSpec.from_json(row.spec_json)
        outcomes = whole_strategy_outcomes(spec, budget, seed + int(row.seed), per_seat, deals)
        shares[str(row.game)] = interaction_share(outcomes)
    axis = {
        str(g): float(v) for g, v in zip(axis_frame["game"], axis_frame["opponent"], strict=True)
    }
    frame, summary = whole_strategy_rows(shares, axis)
    summary.update({"per_seat": per_seat, "deals": deals})
    return frame, summary


def screening_check(
    complete_pairs: pd.DataFrame, axis_frame: pd.DataFrame, benchmark_games: pd.DataFrame
) -> dict[str, Any]:
    """The screening composite against the five-axis composite, on the games played that are
    benchmark games (a preset played beside them has no screening axes)."""
    screened = complete_pairs["game_seed"].isin(benchmark_games["seed"])
    runs = run_table(complete_pairs.loc[screened])
    sample = RunSample.draw(runs, 1, np.random.default_rng(0))
    alpha = per_game_alpha(runs, sample.observed)[0]
    z_final = zscore_axes(axis_frame, runs.game_seeds)
    screening = benchmark_games.set_index("seed").loc[list(runs.game_seeds), list(SCREENING_AXES)]
    z_screening = regressor_zscores(screening.to_numpy(dtype=np.float64))
    return screening_agreement(
        alpha, z_final, z_screening, SCREENING_AXES.index("temporal_depth"), k=8
    )


def validity_rows(whole: dict[str, Any], screening: dict[str, Any]) -> pd.DataFrame:
    """One row per figure: ours beside the paper's."""
    rows = [
        ("whole-strategy opponent check", "median interaction share over games",
         f"{whole['median_share']:.4%}", f"{PAPER['whole_strategy_median_share']:.2%}"),
        ("whole-strategy opponent check", "Spearman rho with the opponent axis",
         f"{whole['rho_with_axis']:.2f}", f"{PAPER['whole_strategy_rho_with_axis']:.2f}"),
        ("screening vs final composite", "Spearman rho of the composites",
         f"{screening['rho']:.2f}", f"{PAPER['screening_rho']:.2f}"),
        ("screening vs final composite", f"hardest {screening['k']} games shared",
         f"{screening['shared_hardest']} of {screening['k']}",
         f"{PAPER['screening_shared_hardest']} of 8"),
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=list(VALIDITY_COLUMNS))


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    description="Validity checks beside the paper's figures: the whole-strategy opponent check "
    "and the screening-vs-final composite agreement (Appendix C).",
)
def validity_checks(
    profile: RunProfile,
    complete_pairs: pd.DataFrame,
    axis_scores: Any,
    benchmark_games: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    axis_frame = as_frame(axis_scores)
    played = set(axis_frame["game"].astype(str))
    games = benchmark_games[benchmark_games["game"].astype(str).isin(played)]
    whole_frame, whole = whole_strategy_check(games, axis_frame, profile.get().axis_budget)
    screening = screening_check(complete_pairs, axis_frame, games)
    table = validity_rows(whole, screening)
    return dg.Output(
        table,
        metadata={
            "dagster/row_count": len(table),
            "checks": dg.MetadataValue.md(markdown_table(table)),
            "whole_strategy_per_game": dg.MetadataValue.md(markdown_table(whole_frame, digits=5)),
            "whole_strategy_sizes": f"L0 + {whole['per_seat']} tier-1 members per seat, "
            f"{whole['deals']} common deals",
        },
    )


ASSETS = [validity_checks]
CHECKS: list[dg.AssetChecksDefinition] = []
