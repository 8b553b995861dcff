"""Statistics of multi-hand episodes: per episode, per hand, and opponent adaptation.

Why it exists: an episode (``engines.tournament.episodes``) is the unit in which a player can
learn its opponent, so its statistics are read per episode and per hand, and the question "does
this player adapt?" becomes a number: the **change of margin over the hands**, the least-squares
slope of the player's per-hand chip margin on the hand index times (hands - 1), i.e. the fitted
margin of the last hand minus that of the first. Against a fixed exploitable opponent a player
that learns shows a positive change; one that does not shows none. The early and late halves'
mean margins are reported beside it.

Intervals are percentile intervals of a clustered bootstrap over episode pairs (the two mirrored
episodes on the same hand seeds are one unit, as a run is for single deals), through
``engines.stats.bootstrap.weighted_bootstrap``. Only decided hands (complete or forfeit) enter.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.stats.bootstrap import Estimate, weighted_bootstrap
from engines.tournament.records import DECIDED_STATUSES

FloatArray = npt.NDArray[np.float64]

EPISODE_COLUMNS: tuple[str, ...] = (
    "episode_id",
    "pair_id",
    "mirror",
    "game",
    "first",
    "second",
    "hands",
    "margin_first",
    "margin_per_hand",
)
ADAPTATION_COLUMNS: tuple[str, ...] = (
    "game",
    "player",
    "opponent",
    "quantity",
    "estimate",
    "ci_low",
    "ci_high",
    "episode_pairs",
    "hands",
)
ADAPTATION_QUANTITIES = ("change", "early", "late", "late_minus_early")


def decided(hands: pd.DataFrame) -> pd.DataFrame:
    return hands.loc[hands["status"].isin(DECIDED_STATUSES)]


def per_episode(hands: pd.DataFrame) -> pd.DataFrame:
    """One row per episode: hands played and the first player's total and mean margin."""
    grouped = decided(hands).groupby(
        ["episode_id", "pair_id", "mirror", "game", "first", "second"], sort=True
    )
    out = grouped.agg(hands=("hand", "size"), margin_first=("margin_first", "sum")).reset_index()
    out["margin_per_hand"] = out["margin_first"] / out["hands"]
    return out.loc[:, list(EPISODE_COLUMNS)]


def player_view(hands: pd.DataFrame, player: str, opponent: str) -> pd.DataFrame:
    """The decided hands between ``player`` and ``opponent`` with ``player``'s margin."""
    frame = decided(hands)
    between = ((frame["first"] == player) & (frame["second"] == opponent)) | (
        (frame["first"] == opponent) & (frame["second"] == player)
    )
    frame = frame.loc[between]
    sign = np.where(frame["first"] == player, 1.0, -1.0)
    return frame.assign(margin=sign * frame["margin_first"].to_numpy(dtype=np.float64))


def _statistic(frame: pd.DataFrame, weights: FloatArray) -> dict[str, float]:
    x = frame["hand"].to_numpy(dtype=np.float64)
    y = frame["margin"].to_numpy(dtype=np.float64)
    total = weights.sum()
    if total <= 0:
        return {}
    xm = (weights * x).sum() / total
    ym = (weights * y).sum() / total
    sxx = (weights * (x - xm) ** 2).sum()
    span = x.max() - x.min()
    slope = (weights * (x - xm) * (y - ym)).sum() / sxx if sxx > 0 else float("nan")
    middle = (x.max() + x.min()) / 2.0
    early, late = x < middle, x > middle
    w_early, w_late = (weights * early).sum(), (weights * late).sum()
    mean_early = (weights * y * early).sum() / w_early if w_early > 0 else float("nan")
    mean_late = (weights * y * late).sum() / w_late if w_late > 0 else float("nan")
    return {
        "change": float(slope * span),
        "early": float(mean_early),
        "late": float(mean_late),
        "late_minus_early": float(mean_late - mean_early),
    }


def adaptation(
    hands: pd.DataFrame,
    player: str,
    opponent: str,
    n_boot: int,
    rng: np.random.Generator,
    level: float = 0.95,
) -> dict[str, Estimate]:
    """The change of ``player``'s margin over the hands against ``opponent`` (module
    docstring), its early and late means, with intervals over episode pairs."""
    frame = player_view(hands, player, opponent)
    if frame.empty:
        raise ValueError(f"no decided hands between {player!r} and {opponent!r}")
    if frame["hand"].nunique() < 2:
        raise ValueError("the change over the hands needs episodes of at least two hands")
    return weighted_bootstrap(frame, ("pair_id",), _statistic, n_boot, rng, level)


def adaptation_table(
    hands: pd.DataFrame, n_boot: int, rng: np.random.Generator, level: float = 0.95
) -> pd.DataFrame:
    """Per game, every player against every opponent it met (both directions), long form."""
    rows = []
    for game, on_game in decided(hands).groupby("game", sort=True):
        pairs = on_game.loc[:, ["first", "second"]].drop_duplicates()
        for first, second in sorted(pairs.itertuples(index=False, name=None)):
            for player, opponent in ((first, second), (second, first)):
                frame = player_view(on_game, player, opponent)
                if frame["hand"].nunique() < 2:
                    continue
                result = adaptation(on_game, player, opponent, n_boot, rng, level)
                for quantity in ADAPTATION_QUANTITIES:
                    est = result[quantity]
                    rows.append(
                        (game, player, opponent, quantity, est.value, est.low, est.high,
                         int(frame["pair_id"].nunique()), len(frame))
                    )  # fmt: skip
    return pd.DataFrame(rows, columns=list(ADAPTATION_COLUMNS))


def per_hand(hands: pd.DataFrame, player: str, opponent: str) -> pd.DataFrame:
    """``player``'s mean margin at each hand index against ``opponent`` (over episodes)."""
    frame = player_view(hands, player, opponent)
    out = frame.groupby("hand").agg(mean_margin=("margin", "mean"), episodes=("margin", "size"))
    return out.reset_index()
