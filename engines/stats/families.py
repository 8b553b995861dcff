"""One metric per game family, never a fit across units (issue 46, item 1).

Why it exists: the Section 6 least squares fits chip margins, so a corpus that holds hold'em
(about ±38 chips a hand between our players) and chess (±1) weighs a poker hand as dozens of
chess games, and a poker specialist outranks the best chess engine. Game Arena uses a
domain-appropriate metric per game; so does this module:

- **win/draw/loss families** (unit ``result``: every deal ends +1, 0 or -1, as chess, Go, Hex,
  connect four, breakthrough and liar's dice do in OpenSpiel): a Bradley-Terry rating fitted to
  every deal of the family (a win 1 point, a draw 1/2, a loss 0), on the Elo scale
  (``elo = 400 / ln 10 * theta``), anchored as Game Arena anchors it: the lowest-rated player of
  the point estimate is 0 (``anchor``). The fit is a maximum a posteriori estimate with a normal
  prior of precision 0.25 per logit (GameBench 2's, Section 2 "Scores"), so that a player who
  won every deal has a finite rating; with few deals it pulls ratings towards each other.
  No first-mover term: every run plays both seats.
- **chip families** (unit ``chips``: hold'em): each player's net winnings per 100 deals in big
  blinds (``bb_per_100``, Game Arena's BB/100: ``100 * chips won / deals / big blind``), against
  the opponents it met (a round robin, every pairing both seats of the same cards).

Both carry 95% percentile intervals from a bootstrap that resamples the family's runs (a run:
the two seat-swapped deals of one deal pair; Game Arena's "block bootstrap over episodes"), and
a rank within the family. A run never mixes families, and no fit reads two families.

**The cross-family summary** (:func:`family_summary`) puts the families on one scale by
standardising each family's values across the players that played it: ``z = (value - mean) /
sd`` (the population sd of the family's point estimates; 0 when they are all equal), so a
player's ``z`` is how many of the family's own spreads it stands above the family's field. The
summary is each player's mean ``z`` over the families it played, every family weighing the
same. It says nothing about the distance between two players in any unit; a family with two
players gives them ±1 whatever their gap; a player missing a family is neither helped nor hurt
by it (``families`` says how many it played).

:func:`unit_problems` is the check: a fit that pools games of more than one unit is named.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.stats.bootstrap import percentile_interval

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

Unit = Literal["result", "chips"]
ELO_SCALE = 400.0 / math.log(10.0)
PRIOR_PRECISION = 0.25  # per logit (GameBench 2, Section 2)
LEVEL = 0.95

RATING_COLUMNS = (
    "family",
    "unit",
    "metric",
    "model",
    "value",
    "ci_low",
    "ci_high",
    "rank",
    "deals",
    "anchor",
    "z",
    "games",
)
SUMMARY_COLUMNS = ("model", "summary", "rank", "families", "family_list")


@dataclass(frozen=True)
class GameUnit:
    """What a game's results are counted in: its family, its unit, and for chips the big blind
    (the metric's divisor)."""

    family: str
    unit: Unit
    big_blind: int = 1


def unit_problems(fits: Mapping[str, Mapping[str, Unit]]) -> list[str]:
    """One line per fit (``{fit: {game: unit}}``) whose games are counted in more than one
    unit; none when every fit is within one unit."""
    problems = []
    for fit, games in fits.items():
        units = sorted(set(games.values()))
        if len(units) > 1:
            parts = "; ".join(
                f"{u}: {', '.join(sorted(g for g, v in games.items() if v == u))}" for u in units
            )
            problems.append(f"{fit} pools games counted in {len(units)} units ({parts})")
    return problems


@dataclass(frozen=True)
class FamilyRuns:
    """A family's complete runs: ``first < second`` index ``models``; ``points_first`` is the
    first model's points over the run's two deals (0 to 2), ``chips_first`` its chips."""

    models: tuple[str, ...]
    first: IntArray
    second: IntArray
    points_first: FloatArray
    chips_first: FloatArray


def family_runs(pairs: pd.DataFrame) -> FamilyRuns:
    """The runs of complete pairs (two deals per ``run_id``, seats swapped)."""
    models = tuple(sorted(set(pairs["alice"].astype(str)) | set(pairs["bob"].astype(str))))
    index = {m: k for k, m in enumerate(models)}
    first, second, points, chips = [], [], [], []
    for _, run in pairs.groupby("run_id", sort=True):
        if len(run) != 2:
            raise ValueError(f"run {run['run_id'].iloc[0]} has {len(run)} deals, not two")
        a, b = sorted({str(run["alice"].iloc[0]), str(run["bob"].iloc[0])})
        mine = np.where(
            run["alice"].astype(str) == a, run["alice_chip_delta"], run["bob_chip_delta"]
        )
        first.append(index[a])
        second.append(index[b])
        chips.append(float(np.sum(mine)))
        points.append(float(np.sum(np.where(mine > 0, 1.0, np.where(mine < 0, 0.0, 0.5)))))
    return FamilyRuns(
        models,
        np.asarray(first, dtype=np.int64),
        np.asarray(second, dtype=np.int64),
        np.asarray(points, dtype=np.float64),
        np.asarray(chips, dtype=np.float64),
    )


def bradley_terry_map(
    n_models: int,
    first: IntArray,
    second: IntArray,
    points_first: FloatArray,
    deals: FloatArray,
    precision: float = PRIOR_PRECISION,
) -> FloatArray:
    """The MAP Bradley-Terry logits: ``points_first[k]`` of ``deals[k]`` deals won by
    ``first[k]`` against ``second[k]`` (aggregated per pair or per run), a normal prior of
    ``precision`` per logit; Newton's method to convergence."""
    theta = np.zeros(n_models)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(theta[first] - theta[second])))
        residual = points_first - deals * p
        grad = -precision * theta
        np.add.at(grad, first, residual)
        np.add.at(grad, second, -residual)
        w = deals * p * (1.0 - p)
        hess = precision * np.eye(n_models)
        np.add.at(hess, (first, first), w)
        np.add.at(hess, (second, second), w)
        np.add.at(hess, (first, second), -w)
        np.add.at(hess, (second, first), -w)
        step = np.linalg.solve(hess, grad)
        theta = theta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    return theta


def _elo(runs: FamilyRuns, weights: FloatArray) -> FloatArray:
    """Elo (unanchored) of a weighting of the runs (a bootstrap replicate's counts)."""
    m = len(runs.models)
    key = runs.first * m + runs.second
    cells, inverse = np.unique(key, return_inverse=True)
    deals = np.bincount(inverse, weights=2.0 * weights, minlength=len(cells)).astype(np.float64)
    won = np.bincount(inverse, weights=runs.points_first * weights, minlength=len(cells))
    keep = deals > 0
    first = np.asarray(cells[keep] // m, dtype=np.int64)
    second = np.asarray(cells[keep] % m, dtype=np.int64)
    theta = bradley_terry_map(m, first, second, won[keep].astype(np.float64), deals[keep])
    return ELO_SCALE * theta


def _bb_per_100(runs: FamilyRuns, weights: FloatArray, big_blind: int) -> FloatArray:
    """Each model's chips per deal over 100 deals, in big blinds (NaN: no deal drawn)."""
    m = len(runs.models)
    chips = np.bincount(runs.first, weights=runs.chips_first * weights, minlength=m)
    chips -= np.bincount(runs.second, weights=runs.chips_first * weights, minlength=m)
    deals = np.bincount(runs.first, weights=2.0 * weights, minlength=m)
    deals += np.bincount(runs.second, weights=2.0 * weights, minlength=m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(100.0 * chips / deals / big_blind, dtype=np.float64)


def _ranks(values: FloatArray) -> IntArray:
    """1 for the highest value (ties share the better rank)."""
    return np.asarray(
        pd.Series(values).rank(ascending=False, method="min").astype("int64"), dtype=np.int64
    )


def family_table(
    family: str,
    pairs: pd.DataFrame,
    unit: GameUnit,
    n_boot: int,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """One family's ratings (:data:`RATING_COLUMNS`; module docstring), its runs resampled
    ``n_boot`` times from ``rng``."""
    runs = family_runs(pairs)

    def metric(weights: FloatArray) -> FloatArray:
        if unit.unit == "result":
            return _elo(runs, weights)
        return _bb_per_100(runs, weights, unit.big_blind)

    ones = np.ones(len(runs.first))
    point = metric(ones)
    anchor = int(np.argmin(point)) if unit.unit == "result" else None
    counts = rng.multinomial(len(ones), np.full(len(ones), 1.0 / len(ones)), size=n_boot)
    replicates = np.empty((n_boot, len(runs.models)))
    for k, drawn in enumerate(counts.astype(np.float64)):
        replicates[k] = metric(drawn)
    if anchor is not None:
        point = point - point[anchor]
        replicates = replicates - replicates[:, [anchor]]
    low, high = percentile_interval(replicates, LEVEL)
    deals = np.bincount(runs.first, minlength=len(runs.models)) * 2
    deals += np.bincount(runs.second, minlength=len(runs.models)) * 2
    sd = float(np.std(point))
    z = (point - point.mean()) / sd if sd > 0 else np.zeros_like(point)
    return pd.DataFrame(
        {
            "family": family,
            "unit": unit.unit,
            "metric": "elo" if unit.unit == "result" else "bb_per_100",
            "model": list(runs.models),
            "value": point,
            "ci_low": low,
            "ci_high": high,
            "rank": _ranks(point),
            "deals": deals.astype(np.int64),
            # one dtype whether or not the family has an anchor (a chip family has none)
            "anchor": pd.Series(
                [runs.models[anchor] if anchor is not None else None] * len(runs.models),
                dtype=object,
            ),
            "z": z,
            "games": ", ".join(sorted(pairs["game"].astype(str).unique())),
        },
        columns=list(RATING_COLUMNS),
    )


def family_generator(seed: int, family: str) -> np.random.Generator:
    """The bootstrap's generator of one family: from ``seed`` and the family's name alone, so a
    family's intervals do not depend on which other families are fitted beside it."""
    return np.random.default_rng([seed, zlib.crc32(family.encode("utf-8"))])


def family_ratings(
    pairs: pd.DataFrame,
    units: Mapping[str, GameUnit],
    n_boot: int,
    seed: int,
) -> pd.DataFrame:
    """Every family's ratings, families in name order (module docstring): ``pairs`` the complete
    pairs of any games, ``units`` each game's family and unit, ``n_boot`` replicates per family
    from :func:`family_generator`. ``ValueError`` (one line) for a game without a unit, or a
    family whose games are counted in two units."""
    games = sorted(pairs["game"].astype(str).unique())
    missing = [g for g in games if g not in units]
    if missing:
        raise ValueError(f"no unit for game(s) {', '.join(missing)}")
    by_family: dict[str, list[str]] = {}
    for g in games:
        by_family.setdefault(units[g].family, []).append(g)
    problems = unit_problems(
        {f"family {f}": {g: units[g].unit for g in gs} for f, gs in by_family.items()}
    )
    if problems:
        raise ValueError(problems[0])
    tables = []
    for family, members in sorted(by_family.items()):
        blinds = {units[g].big_blind for g in members}
        if len(blinds) > 1:
            raise ValueError(f"family {family} has games with big blinds {sorted(blinds)}")
        subset = pairs.loc[pairs["game"].astype(str).isin(members)]
        rng = family_generator(seed, family)
        tables.append(family_table(family, subset, units[members[0]], n_boot, rng))
    return pd.concat(tables, ignore_index=True)


def family_summary(ratings: pd.DataFrame) -> pd.DataFrame:
    """Per model: its mean standardised value over the families it played (module docstring),
    its rank by that, how many families and which (:data:`SUMMARY_COLUMNS`)."""
    grouped = ratings.groupby("model", sort=True)
    summary = grouped["z"].mean()
    families = grouped["family"].agg(lambda f: ", ".join(sorted(f)))
    count = grouped["family"].nunique()
    frame = pd.DataFrame(
        {
            "model": summary.index.astype(str),
            "summary": summary.to_numpy(dtype=np.float64),
            "rank": _ranks(summary.to_numpy(dtype=np.float64)),
            "families": count.to_numpy(dtype=np.int64),
            "family_list": families.to_numpy(),
        },
        columns=list(SUMMARY_COLUMNS),
    )
    return frame.sort_values(["rank", "model"], kind="stable").reset_index(drop=True)
