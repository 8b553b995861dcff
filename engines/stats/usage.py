"""The cost side of the leaderboard: tokens, cost, calls and answer quality per model, and
strength against cost (GameBench 2's cost per point).

``model_usage(matches)`` sums each model's seat columns of the match table (DESIGN match
schema): matches, moves, provider calls, fallbacks and rethinks (as rates per move), input and
output tokens, cost in US dollars and the cost per match; with the move table it adds the
cached input tokens and the mean latency per move (the release leaves latency out, so the
report's table has none).  ``strength_cost`` joins the leaderboard's strength (alpha) and
gives the dollars per match beside it; ``strength_cost_plot`` draws strength against cost per
match (log scale when the costs span a decade or more).  Models that cost nothing (built-in
bots, strategy programs) are kept with cost 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engines import plotting

SEAT_SUMS = ("moves", "calls", "fallbacks", "rethinks", "input_tokens", "output_tokens", "cost_usd")
USAGE_COLUMNS: tuple[str, ...] = (
    "model",
    "matches",
    "moves",
    "calls",
    "fallback_rate",
    "rethink_rate",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "cost_usd",
    "usd_per_match",
    "latency_s_per_move",
)


def model_usage(matches: pd.DataFrame, moves: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per model (see the module docstring), sorted by model name."""
    parts = []
    for seat in ("alice", "bob"):
        columns = {f"{k}_{seat}": k for k in SEAT_SUMS if f"{k}_{seat}" in matches.columns}
        part = matches[[seat, *columns]].rename(columns={seat: "model", **columns})
        parts.append(part.assign(matches=1))
    seats = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["model"])
    for key in SEAT_SUMS:
        if key not in seats.columns:
            seats[key] = 0
    seats[list(SEAT_SUMS)] = seats[list(SEAT_SUMS)].fillna(0)
    out = seats.groupby("model", sort=True)[["matches", *SEAT_SUMS]].sum().reset_index()
    n_moves = out["moves"].where(out["moves"] > 0)
    out["fallback_rate"] = (out["fallbacks"] / n_moves).fillna(0.0)
    out["rethink_rate"] = (out["rethinks"] / n_moves).fillna(0.0)
    out["usd_per_match"] = out["cost_usd"] / out["matches"].where(out["matches"] > 0)
    out["cached_input_tokens"] = np.nan
    out["latency_s_per_move"] = np.nan
    if moves is not None and not moves.empty and "player" in moves.columns:
        grouped = moves.groupby("player")
        if "cached_input_tokens" in moves.columns:
            cached = grouped["cached_input_tokens"].sum()
            out["cached_input_tokens"] = out["model"].map(cached).fillna(0)
        if "latency_s" in moves.columns:
            out["latency_s_per_move"] = out["model"].map(grouped["latency_s"].mean())
    for key in ("matches", "moves", "calls", "input_tokens", "output_tokens"):
        out[key] = out[key].astype("int64")
    return out.loc[:, list(USAGE_COLUMNS)]


def strength_cost(usage: pd.DataFrame, leaderboard: pd.DataFrame) -> pd.DataFrame:
    """``usage`` with the leaderboard's ``alpha`` (models on both), strongest first."""
    board = leaderboard[["model", "alpha"]].astype({"model": str})
    joined = usage.astype({"model": str}).merge(board, on="model", how="inner")
    return joined.sort_values(["alpha", "model"], ascending=[False, True]).reset_index(drop=True)


def strength_cost_plot(frame: pd.DataFrame) -> bytes:
    """Strength (alpha, chips/game) against cost per match (US dollars), one labelled point per
    model."""
    with plotting.canvas(6.4, 4.0) as drawing:
        (ax,) = drawing.axes
        cost = frame["usd_per_match"].astype(float).fillna(0.0).to_numpy()
        alpha = frame["alpha"].astype(float).to_numpy()
        ax.scatter(cost, alpha)
        for x, y, name in zip(cost, alpha, frame["model"], strict=True):
            ax.annotate(str(name), (x, y), textcoords="offset points", xytext=(4, 3))
        positive = cost[cost > 0]
        if len(positive) >= 2 and positive.max() / positive.min() >= 10 and (cost > 0).all():
            ax.set_xscale("log")
        ax.set_xlabel("cost per match (US$)")
        ax.set_ylabel("strength alpha (chips/game)")
        ax.set_title("strength against cost")
    return drawing.image


def has_usage(usage: pd.DataFrame) -> bool:
    """Whether any model made a provider call or spent anything (a roster of built-in bots
    and programs has nothing to show on the cost side)."""
    columns = [c for c in ("calls", "input_tokens", "output_tokens", "cost_usd") if c in usage]
    return bool(len(usage)) and bool((usage[columns].fillna(0) > 0).any().any())
