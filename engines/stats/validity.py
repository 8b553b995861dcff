"""Validity checks of Sections 6-7 and Appendices C and E that are not the main estimates.

- :func:`interaction_share`: the whole-strategy opponent check (Appendix C, "Opponent
  dependence"): the share of outcome variance in the interaction between the two seats'
  strategies, cross-fitted over two halves of the common deals (the paper: median 0.06%, and
  rho = 0.74 with the opponent axis over games);
- :func:`screening_agreement`: the composite complexity of the six screening axes against the
  five-axis composite (Appendix C, "Selection basis": rho = 0.80, seven of the eight hardest
  games shared);
- :func:`composite_alternatives`: the unweighted mean of the z-scored axes and the composite of
  the multivariate coefficients, each beside the slopes' composite (Appendix E: the mean's
  tertiles span 1.91, 3.69, 4.36 and its top eight 3.85; the multivariate score correlates at
  rho = 0.95 and widens the spread 1.80 times);
- :func:`late_block_models`: the models that joined in a later tournament block (Table 1's
  dagger);
- :func:`rethink_fallback_summary`: per model, the moves, fallbacks and rethinks of the corpus
  (Appendix A's fallback rule), from the match table's seat columns.

Every function is pure: arrays and tables in, numbers and tables out.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.stats import composite as comp
from engines.stats.leaderboard import RunSample, fit_leaderboard
from engines.stats.ranks import spearman_rho
from engines.stats.runs import RunTable

FloatArray = npt.NDArray[np.float64]

# The paper's figures, beside which ours are shown (source: papers/genstrat.txt).
# Appendix E, "Composite complexity": the unweighted mean's tertile spreads (chips/game).
PAPER_MEAN_TERTILE_SPREADS = (1.91, 3.69, 4.36)
PAPER: dict[str, float] = {
    "whole_strategy_median_share": 0.0006,  # Appendix C: "Its median over games is 0.06%"
    "whole_strategy_rho_with_axis": 0.74,  # Appendix C
    "screening_rho": 0.80,  # Appendix C, "Selection basis"
    "screening_shared_hardest": 7,  # "seven of the eight hardest games are the same"
    "mean_hardest_spread": 3.85,
    "multivariate_rho": 0.95,
    "multivariate_spread_ratio": 1.80,
    "slopes_spread_ratio": 5.6 / 3.3,  # Section 6: 3.3 -> 5.6 chips/game, 1.7 times
}


# --- the whole-strategy opponent check ------------------------------------------------------


def _interaction(cells: FloatArray) -> FloatArray:
    """Two-way interaction residuals of an A x B grid of cell means."""
    grand = cells.mean()
    rows = cells.mean(axis=1, keepdims=True)
    cols = cells.mean(axis=0, keepdims=True)
    out: FloatArray = cells - rows - cols + grand
    return out


def interaction_share(outcomes: FloatArray) -> float:
    """Share of outcome variance in the seat-strategy interaction, cross-fitted.

    ``outcomes[a, b, d]``: Alice's chip lead when her strategy ``a`` meets Bob's ``b`` on common
    deal ``d``.  The deals are split into two halves; the interaction residuals of the cell
    means of one half are multiplied by the other half's, so the deal noise, independent across
    halves, averages out of the product: E[r1 * r2] is the interaction variance with no noise
    term.  Divided by the total variance of the outcomes.  Needs at least two strategies per
    seat and two deals; a game whose outcomes never vary has share 0.
    """
    values = np.asarray(outcomes, dtype=np.float64)
    if values.ndim != 3 or min(values.shape[:2]) < 2 or values.shape[2] < 2:
        raise ValueError(
            "outcomes must be strategies(Alice) x strategies(Bob) x deals with at least 2 of "
            f"each, got shape {values.shape}"
        )
    half = values.shape[2] // 2
    first = _interaction(values[:, :, :half].mean(axis=2))
    second = _interaction(values[:, :, half : 2 * half].mean(axis=2))
    total = float(values.var())
    if total == 0.0:
        return 0.0
    return float((first * second).mean()) / total


def whole_strategy_rows(
    shares: dict[str, float], opponent_axis: dict[str, float]
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Per game the share beside the opponent axis; the median share and their Spearman rho."""
    games = sorted(shares)
    frame = pd.DataFrame(
        {
            "game": games,
            "interaction_share": [shares[g] for g in games],
            "opponent_axis": [opponent_axis.get(g, np.nan) for g in games],
        }
    )
    both = frame.dropna()
    rho = (
        spearman_rho(
            both["interaction_share"].to_numpy(np.float64),
            both["opponent_axis"].to_numpy(np.float64),
        )
        if len(both) >= 3
        else float("nan")
    )
    summary = {
        "median_share": float(frame["interaction_share"].median()) if len(frame) else np.nan,
        "rho_with_axis": rho,
    }
    return frame, summary


# --- composite scores -------------------------------------------------------------------------


def _top_overlap(a: FloatArray, b: FloatArray, k: int) -> int:
    return len(set(comp.top_games(a, k).tolist()) & set(comp.top_games(b, k).tolist()))


def pc_scores(alpha_game: FloatArray, z: FloatArray, temporal_index: int) -> FloatArray:
    """The learned discrimination score on any set of z-scored axes: the first principal
    component of the column-centred slope matrix, unit absolute sum, the weight of column
    ``temporal_index`` positive (``engines.stats.composite`` for the five axes)."""
    slopes = comp.axis_slopes(alpha_game, z)
    centred = slopes - slopes.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    weights = vt[0] / np.abs(vt[0]).sum()
    if weights[temporal_index] < 0:
        weights = -weights
    scores: FloatArray = z @ weights
    return scores


def screening_agreement(
    alpha_game: FloatArray,
    z_final: FloatArray,
    z_screening: FloatArray,
    screening_temporal: int,
    k: int = 8,
) -> dict[str, Any]:
    """The composite of the screening axes against the composite of the five axes.

    Both composites are the paper's learned discrimination score (the first principal component
    of the models' slopes), each on its own axes, the sign set by its temporal axis (column
    ``screening_temporal`` of the screening axes: temporal depth); returns their Spearman rho
    over games and how many of the ``k`` hardest games they share.
    """
    k = min(k, alpha_game.shape[1])
    final = comp.composite(alpha_game, z_final).scores
    screening = pc_scores(alpha_game, z_screening, screening_temporal)
    return {
        "rho": spearman_rho(final, screening),
        "shared_hardest": _top_overlap(final, screening, k),
        "k": k,
        "final_scores": final,
        "screening_scores": screening,
    }


def multivariate_weights(alpha_game: FloatArray, z: FloatArray) -> FloatArray:
    """Weights from the multivariate coefficients (every axis in one regression per model)
    in place of the per-axis slopes: the same principal component, scaling and sign."""
    design = np.column_stack([np.ones(z.shape[0]), z])
    rows = []
    for m in range(alpha_game.shape[0]):
        y = alpha_game[m]
        keep = np.isfinite(y)
        coef, *_ = np.linalg.lstsq(design[keep], y[keep], rcond=None)
        rows.append(coef[1:])
    weights, _ = comp.composite_weights(np.asarray(rows, dtype=np.float64))
    return weights


def composite_alternatives(
    sample: RunSample, alpha_game: FloatArray, z: FloatArray, k: int = 8
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The slopes' composite, the unweighted mean of the z-scored axes and the multivariate
    composite: for each, Spearman rho with the slopes' score, the leaderboard spread on its ``k``
    highest games and that spread over the spread on every game, and the spread by tertile."""
    k = min(k, z.shape[0])
    slopes = comp.composite(alpha_game, z).scores
    scores = {
        "slopes": slopes,
        "unweighted_mean": z.mean(axis=1),
        "multivariate": z @ multivariate_weights(alpha_game, z),
    }
    overall = fit_leaderboard(sample).spread()
    rows = []
    for name, score in scores.items():
        top = comp.games_leaderboard(sample, comp.top_games(score, k)).spread()
        tertiles = [b.spread() for b in comp.tertile_leaderboards(sample, score)]
        rows.append(
            {
                "score": name,
                "rho_with_slopes": spearman_rho(score, slopes),
                "hardest_spread": top,
                "spread_ratio": top / overall if overall > 0 else np.nan,
                "tertile_1_spread": tertiles[0],
                "tertile_2_spread": tertiles[1],
                "tertile_3_spread": tertiles[2],
            }
        )
    return pd.DataFrame(rows), {"overall_spread": overall, "k": k}


def alternatives_beside_paper(table: pd.DataFrame) -> pd.DataFrame:
    """The composite alternatives' figures that the paper reports, ours beside the paper's
    (Appendix E, "Composite complexity"; Section 6 for the slopes' spread ratio)."""
    rows = table.set_index("score")
    mean, multi, slopes = rows.loc["unweighted_mean"], rows.loc["multivariate"], rows.loc["slopes"]
    lines = [
        ("slopes: hardest-games spread / all-games spread", slopes["spread_ratio"],
         PAPER["slopes_spread_ratio"]),
        ("unweighted mean: hardest-games spread", mean["hardest_spread"],
         PAPER["mean_hardest_spread"]),
        *((f"unweighted mean: tertile {t} spread", mean[f"tertile_{t}_spread"],
           PAPER_MEAN_TERTILE_SPREADS[t - 1]) for t in (1, 2, 3)),
        ("multivariate: rho with the slopes' score", multi["rho_with_slopes"],
         PAPER["multivariate_rho"]),
        ("multivariate: hardest-games spread / all-games spread", multi["spread_ratio"],
         PAPER["multivariate_spread_ratio"]),
    ]  # fmt: skip
    return pd.DataFrame([{"figure": f, "ours": float(o), "paper": float(p)} for f, o, p in lines])


# --- the corpus -------------------------------------------------------------------------------


def late_block_models(matches: pd.DataFrame) -> pd.DataFrame:
    """Each model's first block and whether it joined after the first block of the corpus
    (blocks order as text, e.g. ``2026-04`` < ``2026-09``; Table 1's dagger)."""
    if "block" not in matches.columns or matches.empty:
        return pd.DataFrame({"model": [], "first_block": [], "late": []})
    seats = pd.concat(
        [
            matches[["alice", "block"]].rename(columns={"alice": "model"}),
            matches[["bob", "block"]].rename(columns={"bob": "model"}),
        ]
    )
    seats["block"] = seats["block"].fillna("").astype(str)
    first = seats.groupby("model")["block"].min().sort_index()
    earliest = first.min()
    return pd.DataFrame(
        {"model": first.index, "first_block": first.to_numpy(), "late": first.to_numpy() > earliest}
    ).reset_index(drop=True)


def late_block_from_runs(runs: RunTable) -> pd.DataFrame:
    """:func:`late_block_models` from a run table (models, first block, late)."""
    rows = []
    for m, model in enumerate(runs.models):
        mine = (runs.first == m) | (runs.second == m)
        first = min(runs.blocks[b] for b in runs.block[mine]) if mine.any() else ""
        rows.append({"model": model, "first_block": first})
    frame = pd.DataFrame(rows, columns=["model", "first_block"])
    earliest = frame["first_block"].min() if len(frame) else ""
    frame["late"] = frame["first_block"] > earliest
    return frame


def has_seat_columns(matches: pd.DataFrame) -> bool:
    """Whether the corpus has the seat columns the rethink/fallback summary reads."""
    return all(
        f"{c}_{seat}" in matches.columns and seat in matches.columns
        for c in ("moves", "fallbacks", "rethinks")
        for seat in ("alice", "bob")
    )


def mark_late(board: pd.DataFrame, late: pd.DataFrame, mark: str = "\u2020") -> pd.DataFrame:
    """The leaderboard with ``mark`` after every model that joined in a later block."""
    names = set(late.loc[late["late"].astype(bool), "model"])
    out = board.copy()
    out["model"] = [f"{m} {mark}" if m in names else m for m in out["model"]]
    return out


def rethink_fallback_summary(matches: pd.DataFrame) -> pd.DataFrame:
    """Per model: matches, moves, fallbacks and rethinks summed over its seats, with the
    fallback share of moves and rethinks per move (models without moves: shares empty)."""
    columns = ("moves", "fallbacks", "rethinks")
    parts = []
    for seat in ("alice", "bob"):
        need = [seat, *(f"{c}_{seat}" for c in columns)]
        if not set(need) <= set(matches.columns):
            raise ValueError(f"the corpus lacks the seat columns {', '.join(need)}")
        part = matches[need].rename(columns={seat: "model", **{f"{c}_{seat}": c for c in columns}})
        parts.append(part.assign(matches=1))
    seats = pd.concat(parts, ignore_index=True)
    for c in columns:
        seats[c] = pd.to_numeric(seats[c], errors="coerce").fillna(0).astype(np.int64)
    table = seats.groupby("model", sort=True)[["matches", *columns]].sum().reset_index()
    moves = table["moves"].to_numpy(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        table["fallback_share"] = np.where(moves > 0, table["fallbacks"] / moves, np.nan)
        table["rethinks_per_move"] = np.where(moves > 0, table["rethinks"] / moves, np.nan)
    return table
