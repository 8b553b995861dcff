"""Figures of Sections 6-7 as PNG bytes: leaderboard, per-game heatmap, profiles, axis map.

Why it exists: a release bundle and the Dagster asset metadata carry the paper's figures as files.
Each function draws on its own ``matplotlib.figure.Figure`` (the Agg canvas; no pyplot state, no
display) and returns PNG bytes, so callers decide where the bytes go.
"""

from __future__ import annotations

import io

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

FloatArray = npt.NDArray[np.float64]

_DPI = 110


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI, bbox_inches="tight")
    return buffer.getvalue()


def leaderboard_plot(table: pd.DataFrame, title: str = "Overall leaderboard") -> bytes:
    """Table 1 as a dot-and-interval chart, best at the top (chips/game)."""
    fig = Figure(figsize=(6.0, 0.35 * len(table) + 1.2))
    ax = fig.add_subplot()
    y = np.arange(len(table))[::-1]
    alpha = table["alpha"].to_numpy(dtype=np.float64)
    err = np.vstack([alpha - table["ci_low"].to_numpy(dtype=np.float64), table["ci_high"] - alpha])
    ax.errorbar(alpha, y, xerr=err, fmt="o", color="tab:blue", ecolor="tab:gray", capsize=3)
    ax.set_yticks(y, labels=list(table["model"]))
    ax.axvline(0.0, color="black", linewidth=0.6)
    ax.set_xlabel("alpha (chips/game), 95% bootstrap interval")
    ax.set_title(title)
    return _png(fig)


def heatmap(
    values: pd.DataFrame,
    title: str,
    marks: pd.DataFrame | None = None,
    label: str = "chips/game",
) -> bytes:
    """A diverging heatmap of a table (rows x columns); ``marks`` (same shape, bool) get a star."""
    data = values.to_numpy(dtype=np.float64)
    limit = float(np.nanmax(np.abs(data))) if np.isfinite(data).any() else 1.0
    fig = Figure(figsize=(0.45 * data.shape[1] + 2.5, 0.18 * data.shape[0] + 1.8))
    ax = fig.add_subplot()
    image = ax.imshow(data, cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
    ax.set_xticks(np.arange(data.shape[1]), labels=[str(c) for c in values.columns], rotation=60)
    ax.set_yticks(np.arange(data.shape[0]), labels=[str(r) for r in values.index], fontsize=6)
    if marks is not None:
        for r, c in zip(*np.nonzero(marks.to_numpy(dtype=bool)), strict=True):
            ax.text(c, r, "*", ha="center", va="center", color="black", fontsize=10)
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(title)
    return _png(fig)


def per_game_heatmap(per_game: pd.DataFrame, order: list[str]) -> bytes:
    """Table 12 as a heatmap: games (rows) by models (columns, leaderboard order)."""
    return heatmap(per_game.loc[:, order], "Per-game strength alpha_{m,g}")


def profile_heatmap(profile: pd.DataFrame, order: list[str], axes: tuple[str, ...]) -> bytes:
    """Figure 2: models x axes slopes; a star marks cells significant after BH."""
    slopes = profile.loc[profile["term"].isin(axes)]
    values = slopes.pivot(index="model", columns="term", values="coef").loc[order, list(axes)]
    marks = slopes.pivot(index="model", columns="term", values="significant").loc[order, list(axes)]
    return heatmap(values, "Capability profiles (* BH-significant)", marks.astype(bool))


def axes_map(
    z: FloatArray, scores: FloatArray, x_axis: str, y_axis: str, axes: tuple[str, ...]
) -> bytes:
    """The benchmark on two axes: each game a point, coloured by its composite complexity."""
    fig = Figure(figsize=(5.5, 4.5))
    ax = fig.add_subplot()
    points = ax.scatter(
        z[:, axes.index(x_axis)], z[:, axes.index(y_axis)], c=scores, cmap="viridis", s=28
    )
    fig.colorbar(points, ax=ax, label="composite complexity")
    ax.set_xlabel(f"{x_axis} (z)")
    ax.set_ylabel(f"{y_axis} (z)")
    ax.set_title("Benchmark games on two axes")
    return _png(fig)
