"""Disclosed and hidden program opponents: the fit, the disclosure effect and efficiency
(paper, Section 8 and Appendix I).

- ``run_margins``: one row per complete run (both seat-swapped deals complete): the player's
  mean margin over the two deals (chips: its gain minus the program's) and its chips per seat.
- ``fit_lambda``: margin = lambda_arm * alpha_player - gamma_(group, game, arm), by least squares
  with the fixed effects absorbed (margins and ratings centred within each (author group, game,
  arm) cell); players without a tournament rating are left out of the fit.
- ``disclosure_effect``: mean disclosed minus hidden margin over runs played in both arms on the
  same deal (game, program, play seed), overall and per player.
- ``efficiency_table``: on games small enough to solve, the player's mean chips per seat against
  the program placed between the exact worst (0) and best (1) response values against the
  program's estimated policy (``arena.ablations.opponents.estimate_policy``), averaged over the
  two seats.  The player's value is its observed mean over the played deals (sampling error lets
  it fall outside [0, 1]); the anchors are exact.

Every interval is a percentile bootstrap over deals
(``engines.stats.bootstrap.weighted_bootstrap``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from engines.stats.bootstrap import Estimate, weighted_bootstrap, weighted_mean
from engines.tournament.records import DECIDED_STATUSES

DEAL = ("game", "program", "run_index")


def run_margins(rows: pd.DataFrame) -> pd.DataFrame:
    """Complete runs: ``arm, game, program, author, player, run_index, margin, chips_alice,
    chips_bob`` (chips of the player in each seat)."""
    keys = ["arm", "game", "program", "author", "player", "run_index"]
    if rows.empty:
        return pd.DataFrame(columns=[*keys, "margin", "chips_alice", "chips_bob"])
    ok = rows.groupby(keys)["status"].transform(lambda s: bool(s.isin(DECIDED_STATUSES).all()))
    done = rows[ok.astype(bool)]
    wide = done.pivot_table(
        index=keys, columns="player_seat", values="player_chips", aggfunc="first"
    ).reset_index()
    wide = wide.dropna(subset=[c for c in ("alice", "bob") if c in wide.columns])
    wide = wide.rename(columns={"alice": "chips_alice", "bob": "chips_bob"})
    for column in ("chips_alice", "chips_bob"):
        if column not in wide.columns:
            wide[column] = np.nan
    wide["margin"] = wide["chips_alice"] + wide["chips_bob"]  # mean of the two deals' margins
    wide.columns.name = None
    return wide[[*keys, "margin", "chips_alice", "chips_bob"]].reset_index(drop=True)


def _lambda(frame: pd.DataFrame, weights: np.ndarray) -> float:
    w = pd.Series(weights, index=frame.index)
    cells = ["author", "game", "arm"]
    sw = w.groupby([frame[c] for c in cells]).transform("sum")
    m_bar = (frame["margin"] * w).groupby([frame[c] for c in cells]).transform("sum") / sw
    a_bar = (frame["alpha"] * w).groupby([frame[c] for c in cells]).transform("sum") / sw
    m, a = frame["margin"] - m_bar, frame["alpha"] - a_bar
    denominator = float((w * a * a).sum())
    return float((w * a * m).sum()) / denominator if denominator > 1e-12 else float("nan")


def fit_lambda(
    runs: pd.DataFrame, alpha: Mapping[str, float], n_boot: int, rng: np.random.Generator
) -> dict[str, Estimate]:
    """lambda per arm and their difference (disclosed - hidden), with intervals over deals."""
    rated = runs[runs["player"].isin(list(alpha))].copy()
    rated["alpha"] = rated["player"].map(dict(alpha)).astype(float)
    arms = sorted(rated["arm"].unique())

    def statistic(frame: pd.DataFrame, weights: np.ndarray) -> dict[str, float]:
        out: dict[str, float] = {}
        for arm in arms:
            mask = (frame["arm"] == arm).to_numpy()
            out[f"lambda_{arm}"] = _lambda(frame[mask], weights[mask])
        if {"disclosed", "hidden"} <= set(arms):
            out["lambda_difference"] = out["lambda_disclosed"] - out["lambda_hidden"]
        return out

    return weighted_bootstrap(rated, DEAL, statistic, n_boot, rng)


def paired_arms(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs played in both arms on the same deal: their margins and the difference."""
    keys = ["game", "program", "author", "player", "run_index"]
    wide = runs.pivot_table(index=keys, columns="arm", values="margin", aggfunc="first")
    wide = wide.reset_index()
    wide.columns.name = None
    if not {"disclosed", "hidden"} <= set(wide.columns):
        return pd.DataFrame(columns=[*keys, "disclosed", "hidden", "difference"])
    wide = wide.dropna(subset=["disclosed", "hidden"])
    wide["difference"] = wide["disclosed"] - wide["hidden"]
    return wide.reset_index(drop=True)


def disclosure_effect(
    runs: pd.DataFrame, n_boot: int, rng: np.random.Generator
) -> dict[str, Estimate]:
    """Mean disclosed - hidden margin: ``all`` and one entry per player."""
    pairs = paired_arms(runs)
    players = sorted(pairs["player"].unique())

    def statistic(frame: pd.DataFrame, weights: np.ndarray) -> dict[str, float]:
        d = frame["difference"].to_numpy(dtype=np.float64)
        out = {"all": weighted_mean(d, weights)}
        for player in players:
            mask = (frame["player"] == player).to_numpy()
            out[player] = weighted_mean(d[mask], weights[mask])
        return out

    return weighted_bootstrap(pairs, DEAL, statistic, n_boot, rng)


def efficiency_table(
    runs: pd.DataFrame,
    anchors: Mapping[tuple[str, str], tuple[float, float]],
    n_boot: int,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """Efficiency per (game, program, player, arm) where ``anchors[(game, program)]`` gives the
    (best, worst) response values averaged over the two seats."""
    rows = []
    for (game, program, player, arm), part in runs.groupby(["game", "program", "player", "arm"]):
        if (game, program) not in anchors:
            continue
        best, worst = anchors[(game, program)]
        span = best - worst

        def statistic(frame: pd.DataFrame, w: np.ndarray, b: float = best, s: float = span,
                      lo: float = worst) -> dict[str, float]:  # fmt: skip
            value = 0.5 * (
                weighted_mean(frame["chips_alice"].to_numpy(np.float64), w)
                + weighted_mean(frame["chips_bob"].to_numpy(np.float64), w)
            )
            return {"value": value, "efficiency": (value - lo) / s if s > 0 else 1.0}

        found = weighted_bootstrap(part, DEAL, statistic, n_boot, rng)
        rows.append(
            {
                "game": game, "program": program, "player": player, "arm": arm,
                "runs": len(part), "value": found["value"].value, "best": best, "worst": worst,
                "efficiency": found["efficiency"].value, "ci_low": found["efficiency"].low,
                "ci_high": found["efficiency"].high,
            }
        )  # fmt: skip
    columns = ["game", "program", "player", "arm", "runs", "value", "best", "worst"]
    return pd.DataFrame(rows, columns=[*columns, "efficiency", "ci_low", "ci_high"])
