"""The benchmark's tables: from the accepted pool to the five axes of every benchmark game
(paper, Section 3.1, Section 4, Table 3, Appendices C and D).

Why it exists: the axes stage publishes four tables (the screening axes of the pool, the
farthest-point selection, one row of axes per benchmark game, and every game's row with
z-scores) and reports diagnostics of them. Building those tables is science, so it lives here,
with unit tests; the Dagster assets (``assets/axes.py``) read their inputs, call these
functions and attach metadata.

- :func:`screening_table`: the six screening axes of every accepted game (Appendix C).
- :func:`select_benchmark`: the farthest-point selection on the min-max normalised screening
  axes, in selection order (Section 4, ``engines.axes.selection``).
- :func:`axis_row` / :data:`AXIS_SCORE_COLUMNS`: one game's axes, sampling errors, both seats'
  values, the rerun and the per-game diagnostics (Appendix C, "Estimation").
- :func:`benchmark_table`: every game's row with each axis z-scored over the games (sample
  standard deviation, see ``engines.numeric.zscores``).
- :func:`diagnostics_tables`: Table 3 per axis and Appendix D's pairwise correlations and
  variance inflation factors.
- :func:`with_game_seed`: the rows keyed by ``game_seed``, as the statistics join them.
- :func:`axis_score_problems`: what makes a row unsound (non-finite axes, temporal outside
  [0, 1], STD_g of 0, too many worlds that fell back to the true cards).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from engines.axes.budgets import ScreeningBudget
from engines.axes.compute import AXES_VERSION
from engines.axes.diagnostics import benchmark_diagnostics
from engines.axes.names import AXES, SEAT_AXES
from engines.axes.plots import benchmark_plot, selection_plot
from engines.axes.screening import SCREENING_AXES, screen_games
from engines.axes.selection import farthest_point, normalise
from engines.gbg import ENGINE_VERSION, GameSpec
from engines.numeric.zscores import zscores
from engines.tasks import TaskPool

MAX_WORLD_FALLBACK_SHARE = 0.10
"""The largest share of sampled worlds that may fall back to the true cards in a sound row."""

DIAGNOSTIC_COLUMNS: tuple[str, ...] = (
    "std_g",
    "decisions_alice",
    "decisions_bob",
    "replays",
    "world_fallback_share",
    "search_world_fallback_share",
    "budget",
    "seed",
    "seconds",
    "rerun_seconds",
    "engine_version",
    "axes_version",
)

AXIS_SCORE_COLUMNS: tuple[str, ...] = (
    "game",
    "name",
    "spec_hash",
    "selected",
    *AXES,
    *(f"se_{a}" for a in AXES),
    *(f"{seat}_{a}" for a in SEAT_AXES for seat in ("alice", "bob")),
    *(f"rerun_{a}" for a in AXES),
    *DIAGNOSTIC_COLUMNS,
    "rulebook_chars",
)
"""The columns of an ``axis_scores`` row, in order (``rulebook_chars``: the length of the
rulebook the players are served, the regressor of the verbosity check, Appendix E)."""


def screening_table(
    accepted: pd.DataFrame,
    budget: ScreeningBudget,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    *,
    pool: TaskPool | None = None,
) -> pd.DataFrame:
    """The six screening axes of every accepted game (``seed``, ``spec_hash``, the axes,
    ``budget``), in the order of ``accepted``; tasks run on ``pool`` (``engines.tasks``)."""
    games = [
        (int(s), str(spec_json))
        for s, spec_json in zip(accepted["seed"], accepted["spec_json"], strict=True)
    ]
    rows = list(screen_games(games, budget, seed, pool=pool, progress=progress))
    frame = pd.DataFrame(rows, columns=["seed", *SCREENING_AXES])
    frame.insert(1, "spec_hash", list(accepted["spec_hash"]))
    frame["budget"] = budget.name
    return frame


def select_benchmark(screening: pd.DataFrame, accepted: pd.DataFrame, n: int) -> pd.DataFrame:
    """The farthest-point selection of ``n`` games (or the whole pool if smaller), in selection
    order, with their specs, screening axes and normalised axes."""
    pool = screening.sort_values("seed").reset_index(drop=True)
    points = normalise({a: pool[a].tolist() for a in SCREENING_AXES})
    chosen = farthest_point(points, min(n, len(pool)))
    specs = accepted.set_index("seed")["spec_json"]
    rows = []
    for order, (index, distance) in enumerate(chosen):
        game = pool.iloc[index]
        seed = int(game["seed"])
        rows.append(
            {
                "order": order,
                "game": str(seed),
                "seed": seed,
                "spec_hash": game["spec_hash"],
                "spec_json": specs[seed],
                "distance": distance,
                **{a: float(game[a]) for a in SCREENING_AXES},
                **{f"norm_{a}": float(points[index, j]) for j, a in enumerate(SCREENING_AXES)},
            }
        )
    return pd.DataFrame(rows)


def with_private_games(
    selected: pd.DataFrame, screening: pd.DataFrame, accepted: pd.DataFrame
) -> pd.DataFrame:
    """``selected`` (a public selection, ``private`` false) followed by the accepted games
    marked ``private`` (an edition's held-out games: drawn from secret seeds, not selected by
    distance, which stays NaN), in seed order, numbered on from the selection."""
    public = selected.assign(private=False)
    if "private" not in accepted.columns or not accepted["private"].any():
        return public
    hidden = accepted.loc[accepted["private"].astype(bool)].sort_values("seed")
    axes = screening.set_index("seed")
    rows = []
    for k, game in enumerate(hidden.itertuples(index=False)):
        seed = int(game.seed)
        rows.append(
            {
                "order": len(public) + k,
                "game": str(seed),
                "seed": seed,
                "spec_hash": game.spec_hash,
                "spec_json": game.spec_json,
                "distance": float("nan"),
                **{a: float(axes.loc[seed, a]) for a in SCREENING_AXES},
                **{f"norm_{a}": float("nan") for a in SCREENING_AXES},
                "private": True,
            }
        )
    return pd.concat([public, pd.DataFrame(rows)], ignore_index=True)


def selection_figure(screening: pd.DataFrame, selected: pd.DataFrame) -> bytes:
    """PNG: the pool and the selected games on the first two normalised screening axes."""
    points = normalise({a: screening[a].tolist() for a in SCREENING_AXES})
    first, second = SCREENING_AXES[0], SCREENING_AXES[1]
    return selection_plot(
        points[:, 0].tolist(),
        points[:, 1].tolist(),
        selected[f"norm_{first}"].tolist(),
        selected[f"norm_{second}"].tolist(),
        first,
        second,
    )


def axis_row(
    token: str,
    spec: GameSpec,
    selected: bool,
    report_data: Mapping[str, Any],
    rulebook_chars: int | None = None,
) -> dict[str, Any]:
    """One ``axis_scores`` row (:data:`AXIS_SCORE_COLUMNS`) from an ``AxisReport.to_dict()``."""
    axes, errors = report_data["axes"], report_data["sampling_error"]
    seats, diagnostics = report_data["seats"], report_data["diagnostics"]
    rerun = report_data.get("rerun") or {}
    row: dict[str, Any] = {
        "game": token,
        "name": spec.name,
        "spec_hash": spec.spec_hash,
        "selected": selected,
    }
    row.update({a: axes[a] for a in AXES})
    row.update({f"se_{a}": errors[a] for a in AXES})
    for a in SEAT_AXES:
        row[f"alice_{a}"], row[f"bob_{a}"] = seats[a]
    row.update({f"rerun_{a}": rerun.get(a) for a in AXES})
    row.update(
        {
            "std_g": diagnostics["std_g"],
            "decisions_alice": diagnostics["decisions"][0],
            "decisions_bob": diagnostics["decisions"][1],
            "replays": diagnostics["replays"],
            "world_fallback_share": diagnostics["world_fallback_share"],
            "search_world_fallback_share": diagnostics["search_world_fallback_share"],
            "budget": diagnostics["budget"],
            "seed": diagnostics["seed"],
            "seconds": diagnostics["seconds"],
            "rerun_seconds": diagnostics.get("rerun_seconds"),
            "engine_version": ENGINE_VERSION,
            "axes_version": AXES_VERSION,
            "rulebook_chars": rulebook_chars,
        }
    )
    return row


def axis_summary(report_data: Mapping[str, Any]) -> pd.DataFrame:
    """One game's axes as a small table: value, sampling error, each seat, the rerun."""
    rerun = report_data.get("rerun") or {}
    seats = report_data["seats"]
    return pd.DataFrame(
        {
            "axis": list(AXES),
            "value": [report_data["axes"][a] for a in AXES],
            "sampling error": [report_data["sampling_error"][a] for a in AXES],
            "alice": [None, *(seats[a][0] for a in SEAT_AXES)],
            "bob": [None, *(seats[a][1] for a in SEAT_AXES)],
            "rerun": [rerun.get(a) for a in AXES],
        }
    )


def benchmark_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Every game's row with ``z_<axis>``: each axis z-scored over the games with the sample
    standard deviation (``ddof=1``, Section 3.1; a constant axis, or a single game, gives 0)."""
    return rows.assign(
        **{f"z_{a}": zscores(rows[a].to_numpy(dtype=np.float64), ddof=1) for a in AXES}
    )


def benchmark_figure(frame: pd.DataFrame) -> bytes:
    """PNG: the benchmark games on state space x temporal contingency (Figure 1)."""
    return benchmark_plot(
        frame["state_space"].tolist(),
        frame["temporal"].tolist(),
        frame["game"].tolist(),
        "state_space",
        "temporal",
    )


def diagnostics_tables(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Table 3 (per axis) and Appendix D (pairwise correlations, VIF) as small tables."""
    has_rerun = frame[[f"rerun_{a}" for a in AXES]].notna().all().all()
    found = benchmark_diagnostics(
        {a: frame[a].astype(float).tolist() for a in AXES},
        {a: frame[f"alice_{a}"].astype(float).tolist() for a in SEAT_AXES},
        {a: frame[f"bob_{a}"].astype(float).tolist() for a in SEAT_AXES},
        {a: frame[f"rerun_{a}"].astype(float).tolist() for a in AXES} if has_rerun else None,
    )
    per_axis = pd.DataFrame(
        {
            "axis": list(AXES),
            "median sampling error": [float(frame[f"se_{a}"].astype(float).median()) for a in AXES],
            "seat agreement (rho)": [found["seat_agreement"].get(a) for a in AXES],
            "rerun correlation (rho)": [found["rerun_correlation"].get(a) for a in AXES],
            "VIF": [found["variance_inflation"][a] for a in AXES],
        }
    )
    pairs = pd.DataFrame(
        {
            "pair": list(found["pairwise_correlation"]),
            "rho": list(found["pairwise_correlation"].values()),
        }
    )
    return {"per_axis": per_axis, "pairs": pairs}


def with_game_seed(frame: pd.DataFrame) -> pd.DataFrame:
    """Axis scores keyed by ``game_seed``, the key the statistics join on: the axes stage names
    a game by its token (``game``, a generator seed as text), and a row whose token is not a
    seed (a preset) is left out. A table that has ``game_seed`` already is returned as it is."""
    if "game_seed" in frame.columns or "game" not in frame.columns:
        return frame
    seeds = pd.to_numeric(frame["game"], errors="coerce")
    return frame.loc[seeds.notna()].assign(game_seed=seeds.dropna().astype("int64"))


def axis_score_problems(frame: pd.DataFrame) -> list[str]:
    """What is wrong with ``axis_scores`` rows, one line each (empty when sound)."""
    problems = []
    for row in frame.itertuples(index=False):
        values = {a: float(getattr(row, a)) for a in AXES}
        bad = [a for a, v in values.items() if not np.isfinite(v)]
        if bad:
            problems.append(f"{row.game}: non-finite {', '.join(bad)}")
        if not 0.0 <= values["temporal"] <= 1.0:
            problems.append(f"{row.game}: temporal {values['temporal']} outside [0, 1]")
        if float(row.std_g) <= 0.0:
            problems.append(f"{row.game}: STD_g is 0 (every population deal ties)")
        if float(row.world_fallback_share) > MAX_WORLD_FALLBACK_SHARE:
            problems.append(
                f"{row.game}: {float(row.world_fallback_share):.0%} of worlds fell back to the "
                "true cards"
            )
    return problems
