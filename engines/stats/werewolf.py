"""Werewolf ratings that separate a model's skill from the luck of its role (issue 47, item 3).

Why it exists: in Werewolf "raw win rates conflate individual skill with role-assignment luck
because the game is team-based and asymmetric" (Game Arena report, "Evaluation"); the report
decomposes each model's skill into role-specific contributions (Werewolf, Seer, Doctor,
Villager) estimated from the outcomes of many games, with bootstrap intervals, through its GTE
framework (Liu et al. 2025; the formulation is the report's Appendix A.7, which our copy does
not include).  We do not reproduce that formulation; we fit the model below and say so.

**The model** (a team-outcome logistic model: Bradley-Terry for teams with additive member
strengths, as in Huang, Weng and Lin 2006, "Generalized Bradley-Terry Models and Multi-class
Probability Estimates", JMLR 7, and TrueSkill's additive team performance, Herbrich, Minka and
Graepel 2007).  Game ``g`` has eight seats; seat ``s`` is held by model ``m(s)`` in role
``r(s)``.  With ``y_g = 1`` when the village wins,

    logit P(y_g = 1) = alpha + sum over village seats theta[m(s), r(s)]
                             - sum over Werewolf seats theta[m(s), Werewolf]

so ``theta[m, r]`` is what model ``m`` adds, in log-odds of its own team's win, when it holds
role ``r``, and ``alpha`` is the role-side intercept: the village's log-odds in a game of
average players (the balance of the rules themselves).  Each game deals the same roles, so a
shift of every model's skill in one role is indistinguishable from a shift of ``alpha``; a
normal prior of precision ``PRIOR_PRECISION`` (0.25 per logit, GameBench 2's, as in
``engines.stats.families``) on every ``theta`` and none on ``alpha`` resolves it: at the
maximum a posteriori estimate each role's skills sum to zero over the models (the stationarity
of the posterior along that shift), so a skill reads "better or worse than the average model in
this role".  With thousands of games the prior's pull is a fraction of a percent.  A model that
never held a role has no skill there (NaN).  ``overall`` is a model's role-weighted skill,
``sum_r (n_r / 8) theta[m, r]`` with the deck's counts ``n_r`` (2, 1, 1, 4): its expected
contribution per seat when roles are dealt at random.

Fitting: Newton's method on the penalised log-likelihood (games may be weighted: a bootstrap
replicate's draw counts).  Intervals: the percentile bootstrap over games (``B`` replicates,
each game drawn with replacement, ``engines.stats.bootstrap``), every replicate refitted from
the point estimate.  The plain win rates per team and per (model, role) are reported beside.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines.stats.bootstrap import draws, percentile_interval
from engines.stats.families import PRIOR_PRECISION
from engines.werewolf.roles import ROLE_COUNTS, ROLE_ORDER, SEATS, Role
from engines.werewolf.schedule import ScheduledGame

FloatArray = npt.NDArray[np.float64]
LEVEL = 0.95
ROLES = tuple(r.value for r in ROLE_ORDER)
ROLE_WEIGHTS = {r.value: n / SEATS for r, n in ROLE_COUNTS.items()}
SEAT_COLUMNS = ("game_id", "player", "role", "won")
RATING_COLUMNS = ("model", "role", "skill", "ci_low", "ci_high", "seats", "win_rate")
OVERALL_COLUMNS = ("model", "overall", "ci_low", "ci_high", "seats", "win_rate", "rank")


@dataclass(frozen=True)
class Design:
    """The games as the model sees them: ``x[g, k]`` is the signed count of seats of
    parameter ``k`` (model ``k // 4``, role ``ROLES[k % 4]``: +1 per village seat, -1 per
    Werewolf seat), ``y[g]`` 1 when the village won."""

    models: tuple[str, ...]
    games: tuple[str, ...]
    x: FloatArray
    y: FloatArray
    seats: FloatArray  # per parameter: how many seats of that model and role

    def index(self, model: str, role: str) -> int:
        return self.models.index(model) * len(ROLES) + ROLES.index(role)


def design(seats: pd.DataFrame) -> Design:
    """The design of a seat table (one row per seat: ``SEAT_COLUMNS``); ``ValueError`` for a
    game without the deck's eight roles or whose seats disagree on who won."""
    missing = [c for c in SEAT_COLUMNS if c not in seats.columns]
    if missing:
        raise ValueError(f"the seat table has no column(s) {', '.join(missing)}")
    player = seats["player"].astype(str).to_numpy()
    role = seats["role"].astype(str).to_numpy()
    game = seats["game_id"].astype(str).to_numpy()
    won = seats["won"].astype(bool).to_numpy()
    unknown = sorted(set(role) - set(ROLES))
    if unknown:
        raise ValueError(f"unknown role(s) {', '.join(unknown)}; roles are {', '.join(ROLES)}")
    models_arr, m = np.unique(player, return_inverse=True)
    games_arr, g = np.unique(game, return_inverse=True)
    lookup = {x: i for i, x in enumerate(ROLES)}
    r = np.array([lookup[x] for x in role], dtype=np.int64)
    n_games = len(games_arr)
    wolf = r == ROLES.index(Role.WEREWOLF.value)
    # every game holds the deck: per game and role, the seat count of the deck
    held = np.zeros((n_games, len(ROLES)), dtype=np.int64)
    np.add.at(held, (g, r), 1)
    deck = np.array([ROLE_COUNTS[Role(x)] for x in ROLES])
    bad = np.flatnonzero((held != deck).any(axis=1))
    if bad.size:
        k = int(bad[0])
        got = {x: int(held[k, i]) for i, x in enumerate(ROLES) if held[k, i]}
        want = {x: int(n) for x, n in zip(ROLES, deck, strict=True)}
        raise ValueError(f"game {games_arr[k]} has roles {got}, not the deck's {want}")
    # every seat agrees on the winner: a village seat won exactly when the village won
    village_won = won != wolf
    agree = np.zeros(n_games, dtype=np.int64)
    np.add.at(agree, g, village_won.astype(np.int64))
    split = np.flatnonzero((agree != 0) & (agree != SEATS))
    if split.size:
        raise ValueError(f"game {games_arr[int(split[0])]}: its seats disagree on which team won")
    x = np.zeros((n_games, len(models_arr) * len(ROLES)))
    np.add.at(x, (g, m * len(ROLES) + r), np.where(wolf, -1.0, 1.0))
    y = (agree == SEATS).astype(np.float64)
    models = tuple(str(v) for v in models_arr)
    games = tuple(str(v) for v in games_arr)
    return Design(models, games, x, y, np.abs(x).sum(axis=0))


def fit(
    d: Design,
    weights: FloatArray | None = None,
    precision: float = PRIOR_PRECISION,
    start: FloatArray | None = None,
) -> FloatArray:
    """The MAP estimate ``[alpha, theta...]`` (module docstring) for games weighted by
    ``weights`` (default: each once), by Newton's method to a step below 1e-10."""
    w = np.ones(len(d.y)) if weights is None else weights
    x = np.hstack([np.ones((len(d.y), 1)), d.x])
    prior = np.full(x.shape[1], precision)
    prior[0] = 0.0
    beta = np.zeros(x.shape[1]) if start is None else start.copy()
    for _ in range(100):
        eta = x @ beta
        p = 1.0 / (1.0 + np.exp(-eta))
        grad = x.T @ (w * (d.y - p)) - prior * beta
        hess = (x.T * (w * p * (1.0 - p))) @ x + np.diag(prior)
        hess[0, 0] += 1e-9  # a replicate with one outcome only: keep alpha finite
        step = np.linalg.solve(hess, grad)
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    return np.asarray(beta, dtype=np.float64)


def _overall(d: Design, theta: FloatArray) -> FloatArray:
    """Each model's role-weighted skill from a ``theta`` (parameters after alpha)."""
    grid = theta.reshape(len(d.models), len(ROLES))
    weights = np.array([ROLE_WEIGHTS[r] for r in ROLES])
    return np.asarray(grid @ weights, dtype=np.float64)


@dataclass(frozen=True)
class RoleRatings:
    """The fit (module docstring): ``ratings`` per (model, role) (``RATING_COLUMNS``),
    ``overall`` per model (``OVERALL_COLUMNS``), the intercept ``alpha`` with its interval,
    the plain ``win_rates`` and the number of games and replicates."""

    ratings: pd.DataFrame
    overall: pd.DataFrame
    alpha: float
    alpha_interval: tuple[float, float]
    win_rates: pd.DataFrame
    games: int
    n_boot: int


def role_ratings(
    seats: pd.DataFrame, n_boot: int, rng: np.random.Generator, level: float = LEVEL
) -> RoleRatings:
    """Fit the model to a seat table and bootstrap it over games (module docstring)."""
    d = design(seats)
    point = fit(d)
    replicates = np.empty((n_boot, len(point)))
    start = 0
    for drawn in draws(len(d.games), n_boot, rng):
        for row in drawn:
            weights = np.bincount(row, minlength=len(d.games)).astype(np.float64)
            replicates[start] = fit(d, weights, start=point)
            start += 1
    low, high = percentile_interval(replicates, level)
    never = d.seats == 0
    skill = np.where(never, np.nan, point[1:])
    plain = seats.assign(player=seats["player"].astype(str), role=seats["role"].astype(str))
    rate = plain.groupby(["player", "role"])["won"].mean()
    ratings = pd.DataFrame(
        {
            "model": [m for m in d.models for _ in ROLES],
            "role": list(ROLES) * len(d.models),
            "skill": skill,
            "ci_low": np.where(never, np.nan, low[1:]),
            "ci_high": np.where(never, np.nan, high[1:]),
            "seats": d.seats.astype(np.int64),
            "win_rate": [rate.get((m, r), np.nan) for m in d.models for r in ROLES],
        },
        columns=list(RATING_COLUMNS),
    )
    overall_point = _overall(d, point[1:])
    overall_reps = np.array([_overall(d, rep[1:]) for rep in replicates])
    o_low, o_high = percentile_interval(overall_reps, level)
    by_model = plain.groupby("player")["won"]
    overall = pd.DataFrame(
        {
            "model": list(d.models),
            "overall": overall_point,
            "ci_low": o_low,
            "ci_high": o_high,
            "seats": [int(by_model.size()[m]) for m in d.models],
            "win_rate": [float(by_model.mean()[m]) for m in d.models],
            "rank": pd.Series(overall_point).rank(ascending=False, method="min").astype("int64"),
        },
        columns=list(OVERALL_COLUMNS),
    )
    return RoleRatings(
        ratings=ratings,
        overall=overall.sort_values(["rank", "model"], kind="stable").reset_index(drop=True),
        alpha=float(point[0]),
        alpha_interval=(float(low[0]), float(high[0])),
        win_rates=win_rates(seats),
        games=len(d.games),
        n_boot=n_boot,
    )


def win_rates(seats: pd.DataFrame) -> pd.DataFrame:
    """The plain win rates: per team and per role, over every seat (``team`` is the
    Werewolves for a Werewolf seat, else the village), with the seats counted."""
    role = seats["role"].astype(str)
    team = np.where(role == Role.WEREWOLF.value, "werewolves", "village")
    frame = pd.DataFrame({"team": team, "role": role, "won": seats["won"].astype(bool)})
    rows = []
    for (t, r), group in frame.groupby(["team", "role"], sort=True):
        rows.append({"team": t, "role": r, "seats": len(group), "win_rate": group["won"].mean()})
    for t, group in frame.groupby("team", sort=True):
        rows.append(
            {"team": t, "role": "all", "seats": len(group), "win_rate": group["won"].mean()}
        )
    return pd.DataFrame(rows, columns=["team", "role", "seats", "win_rate"])


def planted_seats(
    games: Sequence[ScheduledGame],
    alpha: float,
    skills: Mapping[str, Mapping[str, float]],
    rng: np.random.Generator,
) -> pd.DataFrame:
    """A seat table (``SEAT_COLUMNS``) of the scheduled ``games`` whose outcomes are drawn from
    the model itself, with the planted intercept ``alpha`` and ``skills[model][role]``: the
    planted check's simulated tournament.  Village wins are drawn game by game in order."""
    rows = [
        {"game_id": g.game_id, "player": p, "role": r.value, "won": r is not Role.WEREWOLF}
        for g in games
        for p, r in zip(g.players, g.roles, strict=True)
    ]
    seats = pd.DataFrame(rows, columns=list(SEAT_COLUMNS))
    d = design(seats)
    theta = np.array([skills[m][r] for m in d.models for r in ROLES], dtype=np.float64)
    p = 1.0 / (1.0 + np.exp(-(alpha + d.x @ theta)))
    village_won = dict(zip(d.games, rng.random(len(p)) < p, strict=True))
    wolf = seats["role"] == Role.WEREWOLF.value
    won = np.array([village_won[g] for g in seats["game_id"]]) != wolf.to_numpy()
    return seats.assign(won=won)
