"""Calibrated Elo against a ladder of engine levels (issue 46, item 2).

Why it exists: a Bradley-Terry Elo anchored at the lowest player (``engines.stats.families``)
says how far apart the players of one corpus are, not how strong they are: add a weaker
player and every number moves. Game Arena calibrates chess "by matching models against multiple
Stockfish skill levels and interpolating against reference CCRL Elo mappings; this calibration
is less reliable outside the engine calibration range". This module is that calibration:

1. **The ladder.** Engine levels in the order of their strength settings, weakest first (for
   Stockfish, the documented ``(skill, nodes)`` pairs of ``arena.reference_engines``). Their
   deals among themselves alone are fitted by the MAP Bradley-Terry model of
   ``engines.stats.families`` (draws 1/2, prior precision 0.25 per logit), on the Elo scale
   (``400 / ln 10`` per logit), the weakest level at 0: the **measured ladder**.
2. **The reference.** Each level's reference Elo: declared values from a published source when
   one rates exactly these settings (``reference`` with its ``source``), else the measured
   ladder itself, stated as such. No published list rates Stockfish's weakening at a node limit
   (CCRL rates full-strength engines at fixed time controls), so the chess field's ladder is a
   measured one.
3. **Entrants.** Every other player is rated against the fixed ladder only (a one-parameter
   MAP Newton fit of its deals against the levels, the prior centred on the levels' mean), so
   its number does not depend on the other entrants; its measured Elo is mapped onto the
   reference by piecewise-linear interpolation between the levels (beyond the end levels, the
   end segment's line: extrapolated).
4. **Where it holds.** ``calibration`` says ``inside the ladder`` when the measured Elo lies
   between the weakest and the strongest level, else ``below the ladder (extrapolated)`` or
   ``above the ladder (extrapolated)``; ``interval_inside`` whether the whole interval does.
   ``monotone`` (and :func:`ladder_monotone`) whether the measured ladder rises with the
   settings; interpolation onto declared values needs it.
5. **Intervals.** 95% percentile intervals from a bootstrap that resamples the family's runs
   (the two seat-swapped deals of one deal pair) and repeats steps 1 to 3 on each replicate.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.stats.bootstrap import percentile_interval
from engines.stats.families import (
    ELO_SCALE,
    LEVEL,
    PRIOR_PRECISION,
    FamilyRuns,
    bradley_terry_map,
    family_runs,
)

FloatArray = npt.NDArray[np.float64]
IntIndex = tuple[int, ...]  # models' indices in ``FamilyRuns.models``, ladder order

CALIBRATION_COLUMNS = (
    "model",
    "role",
    "level",
    "elo",
    "ci_low",
    "ci_high",
    "rank",
    "measured_elo",
    "deals_vs_ladder",
    "calibration",
    "interval_inside",
    "reference",
)
INSIDE = "inside the ladder"
BELOW = "below the ladder (extrapolated)"
ABOVE = "above the ladder (extrapolated)"
NO_DEALS = "no deals against the ladder"


@dataclass(frozen=True)
class Ladder:
    """Engine levels, weakest setting first, with their reference: declared Elo per level from
    ``source``, or (``reference`` empty) the measured ladder."""

    levels: tuple[str, ...]
    reference: tuple[tuple[str, float], ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        if len(self.levels) < 2 or len(set(self.levels)) != len(self.levels):
            raise ValueError(f"a ladder needs two or more distinct levels, got {self.levels}")
        if self.reference:
            named = dict(self.reference)
            if set(named) != set(self.levels):
                raise ValueError("a declared reference must give every level of the ladder")
            if not self.source:
                raise ValueError("a declared reference must name its source")
            values = [named[level] for level in self.levels]
            if any(b <= a for a, b in itertools.pairwise(values)):
                raise ValueError("declared reference Elo must rise from level to level")

    def statement(self) -> str:
        """What the calibrated numbers are relative to, in one line."""
        if self.reference:
            return f"declared Elo of the levels ({self.source}), interpolated"
        return (
            "measured ladder: Bradley-Terry among the levels "
            f"{', '.join(self.levels)}; {self.levels[0]} = 0 (no published rating of these "
            "settings)"
        )


def _fit_ladder(runs: FamilyRuns, ladder: IntIndex, weights: FloatArray) -> FloatArray:
    """Logits of the levels (in ladder order) from their deals among themselves."""
    position = {m: k for k, m in enumerate(ladder)}
    inside = np.isin(runs.first, ladder) & np.isin(runs.second, ladder) & (weights > 0)
    first = np.array([position[int(m)] for m in runs.first[inside]], dtype=np.int64)
    second = np.array([position[int(m)] for m in runs.second[inside]], dtype=np.int64)
    return bradley_terry_map(
        len(ladder),
        first,
        second,
        runs.points_first[inside] * weights[inside],
        2.0 * weights[inside],
    )


def _fit_entrant(
    runs: FamilyRuns, entrant: int, ladder: IntIndex, theta: FloatArray, weights: FloatArray
) -> float:
    """The entrant's logit against the fixed levels (NaN: no deal against them)."""
    level_of = {m: k for k, m in enumerate(ladder)}
    opponents, won, deals = [], [], []
    for k in np.flatnonzero(((runs.first == entrant) | (runs.second == entrant)) & (weights > 0)):
        other = int(runs.second[k] if runs.first[k] == entrant else runs.first[k])
        if other not in level_of:
            continue
        mine = runs.points_first[k] if runs.first[k] == entrant else 2.0 - runs.points_first[k]
        opponents.append(theta[level_of[other]])
        won.append(mine * weights[k])
        deals.append(2.0 * weights[k])
    if not opponents:
        return float("nan")
    opp, y, n = np.array(opponents), np.array(won), np.array(deals)
    centre = float(theta.mean())
    t = centre
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(t - opp)))
        grad = float(np.sum(y - n * p)) - PRIOR_PRECISION * (t - centre)
        hess = float(np.sum(n * p * (1.0 - p))) + PRIOR_PRECISION
        step = grad / hess
        t += step
        if abs(step) < 1e-10:
            break
    return t


def interpolate(measured: FloatArray, reference: FloatArray, x: FloatArray) -> FloatArray:
    """Piecewise-linear map of ``x`` through the points (``measured``, ``reference``), sorted by
    ``measured``; beyond the ends the end segment's line."""
    order = np.argsort(measured, kind="stable")
    mx, ry = measured[order], reference[order]
    out = np.interp(x, mx, ry)
    if mx[-1] > mx[0]:
        low_slope = (ry[1] - ry[0]) / (mx[1] - mx[0]) if mx[1] > mx[0] else 1.0
        high_slope = (ry[-1] - ry[-2]) / (mx[-1] - mx[-2]) if mx[-1] > mx[-2] else 1.0
        out = np.where(x < mx[0], ry[0] + low_slope * (x - mx[0]), out)
        out = np.where(x > mx[-1], ry[-1] + high_slope * (x - mx[-1]), out)
    return np.asarray(out, dtype=np.float64)


def _calibrate(
    runs: FamilyRuns, ladder: IntIndex, declared: FloatArray | None, weights: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """(measured Elo, calibrated Elo) of every model of ``runs`` under ``weights``."""
    theta = _fit_ladder(runs, ladder, weights)
    base = theta[0]
    measured = np.full(len(runs.models), np.nan)
    for k, m in enumerate(ladder):
        measured[m] = ELO_SCALE * (theta[k] - base)
    for m in range(len(runs.models)):
        if m not in ladder:
            measured[m] = ELO_SCALE * (_fit_entrant(runs, m, ladder, theta, weights) - base)
    levels = measured[list(ladder)]
    if declared is None:
        return measured, measured.copy()
    calibrated = interpolate(levels, declared, measured)
    return measured, calibrated


def ladder_monotone(table: pd.DataFrame) -> bool:
    """Whether the levels' calibrated Elo (point estimates) rise strictly with their settings."""
    levels = table.loc[table["role"] == "level"].sort_values("level")
    values = levels["measured_elo"].to_numpy(dtype=np.float64)
    return bool(np.all(np.diff(values) > 0))


def calibration_table(
    pairs: pd.DataFrame, ladder: Ladder, n_boot: int, rng: np.random.Generator
) -> pd.DataFrame:
    """Every player of ``pairs`` (complete pairs of one win/draw/loss family) on the ladder's
    scale (:data:`CALIBRATION_COLUMNS`; module docstring). ``ValueError`` (one line) when a level
    did not play or the levels' deals do not connect them."""
    runs = family_runs(pairs)
    index = {m: k for k, m in enumerate(runs.models)}
    missing = [level for level in ladder.levels if level not in index]
    if missing:
        raise ValueError(f"ladder level(s) {', '.join(missing)} played no complete run")
    rungs: IntIndex = tuple(index[level] for level in ladder.levels)
    _check_connected(runs, rungs, ladder.levels)
    declared = (
        np.array([dict(ladder.reference)[level] for level in ladder.levels], dtype=np.float64)
        if ladder.reference
        else None
    )
    ones = np.ones(len(runs.first))
    measured, point = _calibrate(runs, rungs, declared, ones)
    counts = rng.multinomial(len(ones), np.full(len(ones), 1.0 / len(ones)), size=n_boot)
    replicates = np.empty((n_boot, len(runs.models)))
    for k, drawn in enumerate(counts.astype(np.float64)):
        replicates[k] = _calibrate(runs, rungs, declared, drawn)[1]
    low, high = percentile_interval(replicates, LEVEL)  # NaN replicates ignored
    lowest = float(measured[list(rungs)].min())
    highest = float(measured[list(rungs)].max())
    level_of = {m: k for k, m in enumerate(rungs)}
    rows = []
    for m, model in enumerate(runs.models):
        versus = _deals_against(runs, m, rungs)
        value = measured[m]
        if not np.isfinite(value):
            where = NO_DEALS
        elif m in level_of or lowest <= value <= highest:
            where = INSIDE
        else:
            where = BELOW if value < lowest else ABOVE
        inside = bool(
            np.isfinite(low[m]) and lowest <= _to_measured(low[m], measured, rungs, declared)
        ) and bool(
            np.isfinite(high[m]) and _to_measured(high[m], measured, rungs, declared) <= highest
        )
        rows.append(
            {
                "model": model,
                "role": "level" if m in level_of else "entrant",
                "level": level_of.get(m, pd.NA),
                "elo": point[m],
                "ci_low": low[m],
                "ci_high": high[m],
                "measured_elo": value,
                "deals_vs_ladder": versus,
                "calibration": where,
                "interval_inside": inside if m not in level_of else True,
                "reference": ladder.statement(),
            }
        )
    table = pd.DataFrame(rows)
    table["level"] = table["level"].astype("Int64")
    rated = table["elo"].notna()
    table["rank"] = pd.array([pd.NA] * len(table), dtype="Int64")
    table.loc[rated, "rank"] = (
        table.loc[rated, "elo"].rank(ascending=False, method="min").astype("int64")
    )
    table = table.sort_values(["rank", "model"], kind="stable", na_position="last")
    return table.loc[:, list(CALIBRATION_COLUMNS)].reset_index(drop=True)


def _to_measured(
    value: float, measured: FloatArray, rungs: IntIndex, declared: FloatArray | None
) -> float:
    """A calibrated value back on the measured scale (the inverse of the interpolation)."""
    if declared is None:
        return value
    return float(interpolate(declared, measured[list(rungs)], np.array([value]))[0])


def _deals_against(runs: FamilyRuns, m: int, rungs: IntIndex) -> int:
    others = set(rungs) - {m}
    mine = ((runs.first == m) & np.isin(runs.second, list(others))) | (
        (runs.second == m) & np.isin(runs.first, list(others))
    )
    return int(2 * np.sum(mine))


def _check_connected(runs: FamilyRuns, rungs: IntIndex, names: Sequence[str]) -> None:
    """``ValueError`` unless the levels' deals among themselves connect every level."""
    linked = {rungs[0]}
    edges = [
        (int(a), int(b))
        for a, b in zip(runs.first, runs.second, strict=True)
        if a in rungs and b in rungs
    ]
    grew = True
    while grew:
        grew = False
        for a, b in edges:
            if (a in linked) != (b in linked):
                linked |= {a, b}
                grew = True
    apart = [n for n, m in zip(names, rungs, strict=True) if m not in linked]
    if apart:
        raise ValueError(
            f"ladder level(s) {', '.join(apart)} played no deal linking them to {names[0]}"
        )


def calibration_summary(table: pd.DataFrame) -> Mapping[str, object]:
    """The table's reference, whether the ladder is monotone, and the entrants outside it."""
    outside = table.loc[
        (table["role"] == "entrant") & (table["calibration"] != INSIDE), "model"
    ].tolist()
    return {
        "reference": str(table["reference"].iloc[0]) if len(table) else "",
        "monotone": ladder_monotone(table),
        "outside": outside,
    }
