"""Anchored scales: ratings that mean the same in every release that plays one reference field.

Why it exists: the Section 6 leaderboard sums to zero over the corpus's models, so its numbers
move whenever the roster does. Here every entrant is scored against a fixed, versioned reference
field (``engines.stats.reference_field``), in three ways, each with clustered-bootstrap
intervals over runs (the same resampling core as the leaderboard, ``engines.stats.bootstrap``):

(a) **anchored rating** (chips/game, the leaderboard's margin scale, anchor = its
    ``anchor_rating``, uniform random = 0). Stage 1 fits the field alone, by the Section 6 least
    squares on the runs *between members* only, shifted so the anchor has its value. Stage 2 rates
    each entrant from its runs *against members* only, with the members' stage-1 ratings held
    fixed: ``rating_e = sum_c (s_c m_c + 2 n_c rating_r(c)) / sum_c 2 n_c`` over the entrant's
    cells c against member r(c) (n_c runs, margin sum m_c, s_c the sign that makes it the
    entrant's). Entrant-versus-entrant runs do not enter, so adding or removing a model never
    moves another model's number: two corpora that share only the field land on one scale.
(b) **0-100 score against the field** (GameBench 2, Section 2 "Scores"): a Bradley-Terry
    rating with a first-mover term (points per deal: win 1, tie 1/2, loss 0; prior precision
    0.25 per logit, fitted to convergence), converted to the expected share of points against the
    field, averaged over both seats and over the members (a member meets itself at 1/2):
    ``score_e = 100 / |F| sum_r (sig(theta_e - theta_r + h) + sig(theta_e - theta_r - h)) / 2``
    (``sig`` the logistic function).
    It has a top: an entrant that takes nearly every point against the field scores near 100
    however much stronger it becomes (the ratings keep separating such entrants).
(c) **calibrated Elo**: the same Bradley-Terry logits on the Elo scale,
    ``elo = a + (400 / ln 10) (theta - theta_anchor)``, with ``a`` the anchor's declared Elo;
    when two or more members declare an Elo (as Game Arena's Stockfish levels), ``a`` and the
    slope are fitted to them by least squares instead (interpolation between calibrated members,
    less reliable outside their range). ``h`` on the Elo scale is the first mover's advantage.

The Bradley-Terry fit follows the same two stages (members jointly, then each entrant against
the fixed members and ``h``), so (b) and (c) share (a)'s property. Every stage is vectorised over
the bootstrap replicates (batched Newton steps), which keeps coverage studies over many
simulated corpora fast.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.numeric.special import expit
from engines.stats.bootstrap import DEFAULT_BOOTSTRAP, draws, percentile_interval, replicate_counts
from engines.stats.leaderboard import solve_sum_to_zero
from engines.stats.provisional import ProvisionalRules, provisional_flags
from engines.stats.reference_field import ReferenceField
from engines.stats.runs import complete_runs, run_table

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

ELO_SCALE = 400.0 / math.log(10.0)
PRIOR_PRECISION = 0.25  # per logit, as GameBench 2
_NEWTON_TOL = 1e-9
_NEWTON_ITER = 100


@dataclass(frozen=True)
class SeatRuns:
    """Complete runs (paired deals), reduced to what the three scales need.

    ``first < second`` index ``models``; ``margin`` is the first model's chip margin summed over
    the run's two deals; ``points_alice`` / ``points_bob`` are the first model's points (1, 1/2,
    0) in the deal where it sat Alice / Bob. Cells are (game, pair).
    """

    models: tuple[str, ...]
    game: IntArray
    first: IntArray
    second: IntArray
    margin: FloatArray
    points_alice: FloatArray
    points_bob: FloatArray
    cell: IntArray
    cell_game: IntArray
    cell_first: IntArray
    cell_second: IntArray

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_runs(self) -> int:
        return len(self.first)

    @property
    def n_cells(self) -> int:
        return len(self.cell_first)


def points(margin: FloatArray) -> FloatArray:
    """Points of a deal from its margin: 1 for a win, 1/2 for a tie, 0 for a loss."""
    return np.where(margin > 0, 1.0, np.where(margin < 0, 0.0, 0.5))


def seat_runs_from_arrays(
    models: Sequence[str],
    game: IntArray,
    first: IntArray,
    second: IntArray,
    margin: FloatArray,
    points_alice: FloatArray,
    points_bob: FloatArray,
) -> SeatRuns:
    """Index the runs' cells (game, pair); ``first < second`` is required."""
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    game = np.asarray(game, dtype=np.int64)
    if len(first) == 0:
        raise ValueError("the corpus has no complete runs")
    if (first >= second).any():
        raise ValueError("each run's first model index must be below its second's")
    m = len(models)
    key = game * m * m + first * m + second
    keys, cell = np.unique(key, return_inverse=True)
    return SeatRuns(
        models=tuple(models),
        game=game,
        first=first,
        second=second,
        margin=np.asarray(margin, dtype=np.float64),
        points_alice=np.asarray(points_alice, dtype=np.float64),
        points_bob=np.asarray(points_bob, dtype=np.float64),
        cell=cell.astype(np.int64),
        cell_game=(keys // (m * m)).astype(np.int64),
        cell_first=((keys % (m * m)) // m).astype(np.int64),
        cell_second=(keys % m).astype(np.int64),
    )


def seat_runs(matches: pd.DataFrame) -> SeatRuns:
    """The complete runs of a match table (DESIGN schema), as ``SeatRuns``.

    Margins come from ``engines.stats.runs.run_table`` (which refuses a corpus whose chips do
    not add up); the seat points are read from the same complete runs in the same order.
    """
    table = run_table(matches)
    frame = complete_runs(matches)
    index = {name: k for k, name in enumerate(table.models)}
    alice = frame["alice"].map(index).to_numpy(dtype=np.int64)
    margin = pd.to_numeric(frame["margin_alice"]).to_numpy(dtype=np.float64)
    first_sits_alice = alice[0::2] == table.first
    sign = np.where(first_sits_alice, 1.0, -1.0)
    first_deal1 = points(sign * margin[0::2])  # the first model's points in the run's deal 1
    first_deal2 = points(-sign * margin[1::2])
    return seat_runs_from_arrays(
        table.models,
        table.game,
        table.first,
        table.second,
        table.margin,
        np.where(first_sits_alice, first_deal1, first_deal2),
        np.where(first_sits_alice, first_deal2, first_deal1),
    )


@dataclass(frozen=True)
class SeatCells:
    """Per replicate (row) and cell: runs drawn, margin sum, the first model's points as Alice
    and as Bob. One row for the data itself."""

    counts: FloatArray
    margins: FloatArray
    points_alice: FloatArray
    points_bob: FloatArray


def observed_seat_cells(runs: SeatRuns) -> SeatCells:
    def total(weights: FloatArray | None) -> FloatArray:
        out = np.bincount(runs.cell, weights=weights, minlength=runs.n_cells)
        return out.astype(np.float64)[None, :]

    return SeatCells(
        total(None), total(runs.margin), total(runs.points_alice), total(runs.points_bob)
    )


def resample_seat_cells(runs: SeatRuns, n_boot: int, rng: np.random.Generator) -> SeatCells:
    """Clustered bootstrap over runs (``bootstrap.draws``), reduced to per-cell sums."""
    out = [np.empty((n_boot, runs.n_cells)) for _ in range(4)]
    start = 0
    for drawn in draws(runs.n_runs, n_boot, rng):
        rows = slice(start, start + drawn.shape[0])
        out[0][rows] = replicate_counts(drawn, runs.cell, runs.n_cells)
        for k, weights in enumerate((runs.margin, runs.points_alice, runs.points_bob), start=1):
            out[k][rows] = replicate_counts(drawn, runs.cell, runs.n_cells, weights)
        start = rows.stop
    return SeatCells(*out)


@dataclass(frozen=True)
class FieldCells:
    """Which cells are between members, which are entrant-against-member, and who is who."""

    member: BoolArray  # per model
    within: BoolArray  # per cell: both players are members
    against: BoolArray  # per cell: exactly one is a member
    entrant: IntArray  # per cell: the entrant's index (against cells), else -1
    opponent: IntArray  # per cell: the member's index (against cells), else -1
    sign: FloatArray  # per cell: +1 when the entrant is the cell's first model


def field_cells(runs: SeatRuns, members: Sequence[int]) -> FieldCells:
    member = np.zeros(runs.n_models, dtype=np.bool_)
    member[list(members)] = True
    f_in = member[runs.cell_first]
    s_in = member[runs.cell_second]
    against = f_in != s_in
    entrant = np.where(against, np.where(f_in, runs.cell_second, runs.cell_first), -1)
    opponent = np.where(against, np.where(f_in, runs.cell_first, runs.cell_second), -1)
    sign = np.where(f_in, -1.0, 1.0)
    return FieldCells(member, f_in & s_in, against, entrant, opponent, sign)


def _gather(values: FloatArray, index: IntArray) -> FloatArray:
    """``values[:, index]`` with index -1 giving 0."""
    safe = np.where(index >= 0, index, 0)
    return np.where(index >= 0, values[:, safe], 0.0)


def _by_entrant(values: FloatArray, fc: FieldCells, n_models: int) -> FloatArray:
    """Sum the against-cells' columns of ``values`` (R, cells) per entrant: (R, models)."""
    onehot = np.zeros((len(fc.entrant), n_models))
    rows = np.flatnonzero(fc.against)
    onehot[rows, fc.entrant[rows]] = 1.0
    out: FloatArray = values @ onehot
    return out


def anchored_ratings(
    runs: SeatRuns, cells: SeatCells, fc: FieldCells, anchor: int, anchor_rating: float
) -> FloatArray:
    """(a) per replicate row: ratings in chips/game (NaN for a model without evidence)."""
    m, k = runs.n_models, runs.n_cells
    diff = np.zeros((k, m))
    diff[np.arange(k), runs.cell_first] = 1.0
    diff[np.arange(k), runs.cell_second] = -1.0
    outer = 2.0 * (diff[:, :, None] * diff[:, None, :]).reshape(k, m * m)
    w = fc.within
    lap = (cells.counts[:, w] @ outer[w]).reshape(-1, m, m)
    rhs = cells.margins[:, w] @ diff[w]
    present = fc.member.copy()
    field = solve_sum_to_zero(lap, rhs, present)
    field = field - field[:, [anchor]] + anchor_rating
    field = np.where(fc.member, field, 0.0)
    member_rating = _gather(field, fc.opponent)
    num = _by_entrant(fc.sign * cells.margins + 2.0 * cells.counts * member_rating, fc, m)
    den = _by_entrant(2.0 * cells.counts, fc, m)
    with np.errstate(invalid="ignore", divide="ignore"):
        entrants = np.where(den > 0, num / den, np.nan)
    out: FloatArray = np.where(fc.member, field, entrants)
    return out


@dataclass(frozen=True)
class BradleyTerry:
    """Logits per replicate row and model (anchor = 0), and the first-mover term ``h``."""

    theta: FloatArray
    h: FloatArray


def _field_bradley_terry(
    runs: SeatRuns, cells: SeatCells, fc: FieldCells, members: IntArray
) -> tuple[FloatArray, FloatArray]:
    """Stage 1: members' logits and h by batched Newton on the MAP objective.

    Steps: each within-cell gives two binomial observations of the first model's points, as
    Alice (logit theta_f - theta_s + h) and as Bob (theta_f - theta_s - h), each over the cell's
    runs; the prior adds precision 0.25 to every parameter; Newton steps on all replicates at
    once until the largest step is below 1e-9.
    """
    n_mem = len(members)
    position = {int(model): j for j, model in enumerate(members)}
    w = np.flatnonzero(fc.within)
    design = np.zeros((2 * len(w), n_mem + 1))
    for row, c in enumerate(w):
        f, s = position[int(runs.cell_first[c])], position[int(runs.cell_second[c])]
        for half, seat_sign in ((0, 1.0), (len(w), -1.0)):
            design[row + half, f] = 1.0
            design[row + half, s] = -1.0
            design[row + half, n_mem] = seat_sign
    n = np.concatenate([cells.counts[:, w], cells.counts[:, w]], axis=1)
    y = np.concatenate([cells.points_alice[:, w], cells.points_bob[:, w]], axis=1)
    params = np.zeros((n.shape[0], n_mem + 1))
    prior = PRIOR_PRECISION * np.eye(n_mem + 1)
    for _ in range(_NEWTON_ITER):
        p = expit(params @ design.T)
        grad = (y - n * p) @ design - PRIOR_PRECISION * params
        weight = n * p * (1.0 - p)
        hessian = np.einsum("rc,ci,cj->rij", weight, design, design) + prior
        step = np.linalg.solve(hessian, grad[..., None])[..., 0]
        params += step
        if np.abs(step).max() < _NEWTON_TOL:
            break
    return params[:, :n_mem], params[:, n_mem]


def bradley_terry_scale(
    runs: SeatRuns, cells: SeatCells, fc: FieldCells, anchor: int
) -> BradleyTerry:
    """(b, c) per replicate row: members jointly (stage 1), then each entrant against the fixed
    members and h (stage 2, a one-parameter Newton per entrant and replicate)."""
    m = runs.n_models
    members = np.flatnonzero(fc.member)
    theta_members, h = _field_bradley_terry(runs, cells, fc, members)
    theta = np.zeros((cells.counts.shape[0], m))
    theta[:, members] = theta_members
    theta -= theta[:, [anchor]]
    # stage 2: the entrant's points as Alice / Bob in each against-cell
    entrant_alice = np.where(fc.sign > 0, cells.points_alice, cells.counts - cells.points_bob)
    entrant_bob = np.where(fc.sign > 0, cells.points_bob, cells.counts - cells.points_alice)
    opponent_theta = _gather(theta, fc.opponent)
    counts = np.where(fc.against, cells.counts, 0.0)
    evidence = _by_entrant(counts, fc, m) > 0
    own = np.zeros_like(theta)
    cell_entrant = np.where(fc.entrant >= 0, fc.entrant, 0)
    for _ in range(_NEWTON_ITER):
        d = own[:, cell_entrant] - opponent_theta
        pa, pb = expit(d + h[:, None]), expit(d - h[:, None])
        grad = _by_entrant(entrant_alice - counts * pa + entrant_bob - counts * pb, fc, m)
        curve = _by_entrant(counts * (pa * (1 - pa) + pb * (1 - pb)), fc, m)
        step = np.where(evidence, (grad - PRIOR_PRECISION * own) / (curve + PRIOR_PRECISION), 0.0)
        own += step
        if np.abs(step).max() < _NEWTON_TOL:
            break
    theta = np.where(fc.member, theta, np.where(evidence, own, np.nan))
    return BradleyTerry(theta=theta, h=h)


def field_scores(bt: BradleyTerry, fc: FieldCells) -> FloatArray:
    """(b) 0-100: expected share of points against the field, both seats, members averaged."""
    members = np.flatnonzero(fc.member)
    d = bt.theta[:, :, None] - bt.theta[:, None, members]
    h = bt.h[:, None, None]
    share = 0.5 * (expit(d + h) + expit(d - h))
    out: FloatArray = 100.0 * share.mean(axis=2)
    return out


def calibrated_elo(
    bt: BradleyTerry, models: Sequence[str], calibration: dict[str, float]
) -> tuple[FloatArray, FloatArray]:
    """(c) Elo per replicate row and model, and the first mover's advantage in Elo points.

    One calibrated member (the anchor): a shift at the standard slope 400 / ln 10. Two or more:
    intercept and slope fitted per replicate by least squares on the calibrated members.
    """
    index = [models.index(name) for name in calibration if name in models]
    target = np.array([calibration[models[i]] for i in index])
    if len(index) == 0:
        raise ValueError("no calibrated reference member is in the corpus")
    if len(index) == 1 or np.ptp(target) == 0:
        slope = np.full(bt.theta.shape[0], ELO_SCALE)
        intercept = target[0] - slope * bt.theta[:, index[0]]
    else:
        x = bt.theta[:, index]
        xm = x.mean(axis=1, keepdims=True)
        slope = ((x - xm) * (target - target.mean())).sum(axis=1) / ((x - xm) ** 2).sum(axis=1)
        intercept = target.mean() - slope * xm[:, 0]
    elo: FloatArray = intercept[:, None] + slope[:, None] * bt.theta
    first_mover: FloatArray = slope * bt.h
    return elo, first_mover


@dataclass(frozen=True)
class Scales:
    """The three scales: point estimates (model order) and replicates (B, models)."""

    models: tuple[str, ...]
    rating: FloatArray
    score: FloatArray
    elo: FloatArray
    first_mover_elo: float
    rating_boot: FloatArray
    score_boot: FloatArray
    elo_boot: FloatArray
    first_mover_boot: FloatArray

    def interval(self, which: str, level: float = 0.95) -> tuple[FloatArray, FloatArray]:
        boot = {"rating": self.rating_boot, "score": self.score_boot, "elo": self.elo_boot}[which]
        return percentile_interval(boot, level)


def scales_from_cells(
    runs: SeatRuns, cells: SeatCells, field: ReferenceField
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Rating, score, Elo (R, models) and first-mover Elo (R) for every row of ``cells``."""
    missing = [name for name in field.members if name not in runs.models]
    if missing:
        raise ValueError(
            f"the corpus lacks reference member(s) {', '.join(missing)} of field {field.key}"
        )
    members = [runs.models.index(name) for name in field.members]
    anchor = runs.models.index(field.anchor)
    fc = field_cells(runs, members)
    check_field_connected(runs, fc, field)
    rating = anchored_ratings(runs, cells, fc, anchor, field.anchor_rating)
    bt = bradley_terry_scale(runs, cells, fc, anchor)
    score = np.where(np.isfinite(bt.theta), field_scores(bt, fc), np.nan)
    elo, first_mover = calibrated_elo(bt, list(runs.models), field.calibration())
    return rating, score, elo, first_mover


def check_field_connected(runs: SeatRuns, fc: FieldCells, field: ReferenceField) -> None:
    """``ValueError`` unless the members' runs among themselves connect every member."""
    members = np.flatnonzero(fc.member)
    reach = {int(members[0])}
    edges = {(int(runs.cell_first[c]), int(runs.cell_second[c])) for c in np.flatnonzero(fc.within)}
    grew = True
    while grew:
        grew = False
        for a, b in edges:
            if (a in reach) != (b in reach):
                reach |= {a, b}
                grew = True
    unreached = [runs.models[int(i)] for i in members if int(i) not in reach]
    if unreached:
        raise ValueError(
            f"reference field {field.key}: member(s) {', '.join(unreached)} have no complete "
            "runs linking them to the other members; the field cannot be fitted"
        )


def fit_scales(
    runs: SeatRuns, field: ReferenceField, n_boot: int, rng: np.random.Generator
) -> Scales:
    """The three scales with their clustered-bootstrap replicates (one draw shared by all)."""
    observed = scales_from_cells(runs, observed_seat_cells(runs), field)
    boot = scales_from_cells(runs, resample_seat_cells(runs, n_boot, rng), field)
    return Scales(
        models=runs.models,
        rating=observed[0][0],
        score=observed[1][0],
        elo=observed[2][0],
        first_mover_elo=float(observed[3][0]),
        rating_boot=boot[0],
        score_boot=boot[1],
        elo_boot=boot[2],
        first_mover_boot=boot[3],
    )


def anchored_scales(
    matches: pd.DataFrame,
    field: ReferenceField,
    rng: np.random.Generator,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> Scales:
    """The three scales of a match table (complete runs only) against ``field``."""
    return fit_scales(seat_runs(matches), field, n_boot, rng)


ANCHORED_COLUMNS: tuple[str, ...] = (
    "field",
    "model",
    "role",
    "status",
    "rank",
    "rating",
    "rating_low",
    "rating_high",
    "score",
    "score_low",
    "score_high",
    "elo",
    "elo_low",
    "elo_high",
    "complete_pairs",
    "missing_blocks",
    "reason",
)


def anchored_table(
    scales: Scales, flags: pd.DataFrame, field: ReferenceField, level: float = 0.95
) -> pd.DataFrame:
    """One row per player: the three scales with intervals and the provisional flags.

    Ranked entrants are ranked by score (then rating); provisional entrants and members carry
    no rank. Players without any complete run against the field have no scales (NaN) but keep
    their row and reason.
    """
    index = {name: k for k, name in enumerate(scales.models)}
    bounds = {which: scales.interval(which, level) for which in ("rating", "score", "elo")}
    rows = []
    for flag in flags.itertuples(index=False):
        k = index.get(str(flag.model))

        def value(array: FloatArray, k: int | None = k) -> float:
            return float(array[k]) if k is not None else float("nan")

        row = {
            "field": field.key,
            "model": flag.model,
            "role": flag.role,
            "status": flag.status,
            "complete_pairs": int(flag.complete_pairs),
            "missing_blocks": int(flag.missing_blocks),
            "reason": flag.reason,
        }
        for which, point in (
            ("rating", scales.rating),
            ("score", scales.score),
            ("elo", scales.elo),
        ):
            low, high = bounds[which]
            row[which] = value(point)
            row[f"{which}_low"] = value(low)
            row[f"{which}_high"] = value(high)
        if flag.status == "ranked" and not np.isfinite(row["score"]):
            row["status"] = "provisional"
            row["reason"] = "no complete run against the field"
        rows.append(row)
    table = pd.DataFrame(rows, columns=[c for c in ANCHORED_COLUMNS if c != "rank"])
    ranked = table["status"] == "ranked"
    order = table[ranked].sort_values(["score", "rating", "model"], ascending=[False, False, True])
    table["rank"] = pd.array([pd.NA] * len(table), dtype="Int64")
    table.loc[order.index, "rank"] = np.arange(1, len(order) + 1)
    role_order = table["role"].map({"entrant": 0, "reference": 1})
    table = table.assign(_ranked=~ranked, _role=role_order).sort_values(
        ["_ranked", "_role", "score", "model"], ascending=[True, True, False, True], kind="stable"
    )
    return table.loc[:, list(ANCHORED_COLUMNS)].reset_index(drop=True)


def scales_with_flags(
    matches: pd.DataFrame,
    field: ReferenceField,
    rng: np.random.Generator,
    n_boot: int = DEFAULT_BOOTSTRAP,
    rules: ProvisionalRules | None = None,
    level: float = 0.95,
) -> tuple[pd.DataFrame, str]:
    """The release table of the anchored scales from a whole match corpus (every status), and
    a note: empty, or why no scale could be fitted (then every entrant is provisional with that
    reason and the scales are empty), e.g. a roster without the field's members."""
    flags = provisional_flags(matches, field, rules=rules)
    try:
        scales = anchored_scales(matches, field, rng, n_boot)
    except ValueError as exc:
        note = str(exc)
        entrants = flags["role"] == "entrant"
        flags = flags.assign(
            status=np.where(entrants, "provisional", flags["status"]),
            reason=np.where(
                entrants,
                flags["reason"].where(flags["reason"] == "", flags["reason"] + "; ") + note,
                flags["reason"],
            ),
        )
        empty = np.full(0, np.nan)
        none = Scales((), empty, empty, empty, float("nan"), *(np.empty((1, 0)),) * 3, empty)
        return anchored_table(none, flags, field, level), note
    return anchored_table(scales, flags, field, level), ""
