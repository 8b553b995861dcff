"""Figures of Sections 6-7 as PNG bytes: leaderboard, per-game heatmap, profiles, axis map.

Why it exists: a release bundle and the Dagster asset metadata carry the paper's figures as files.
Each function draws in the house style of ``engines.plotting`` and returns PNG bytes (SVG inside
``engines.plotting.image_format("svg")``), so callers decide where the bytes go.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from engines import plotting

FloatArray = npt.NDArray[np.float64]


def leaderboard_plot(table: pd.DataFrame, title: str = "Overall leaderboard") -> bytes:
    """Table 1 as a dot-and-interval chart, best at the top (chips/game)."""
    with plotting.canvas(6.0, 0.35 * len(table) + 1.2) as drawing:
        (ax,) = drawing.axes
        y = np.arange(len(table))[::-1]
        alpha = table["alpha"].to_numpy(dtype=np.float64)
        low = alpha - table["ci_low"].to_numpy(dtype=np.float64)
        err = np.vstack([low, table["ci_high"] - alpha])
        ax.errorbar(
            alpha, y, xerr=err, fmt="o", color=plotting.PRIMARY, ecolor=plotting.INTERVAL, capsize=3
        )
        ax.set_yticks(y, labels=list(table["model"]))
        plotting.reference_line(ax)
        ax.set_xlabel("alpha (chips/game), 95% bootstrap interval")
        ax.set_title(title)
    return drawing.image


def heatmap(
    values: pd.DataFrame,
    title: str,
    marks: pd.DataFrame | None = None,
    label: str = "chips/game",
) -> bytes:
    """A diverging heatmap of a table (rows x columns); ``marks`` (same shape, bool) get a star."""
    data = values.to_numpy(dtype=np.float64)
    limit = float(np.nanmax(np.abs(data))) if np.isfinite(data).any() else 1.0
    with plotting.canvas(0.45 * data.shape[1] + 2.5, 0.18 * data.shape[0] + 1.8) as drawing:
        (ax,) = drawing.axes
        image = ax.imshow(data, cmap=plotting.DIVERGING, vmin=-limit, vmax=limit, aspect="auto")
        columns = [str(c) for c in values.columns]
        ax.set_xticks(np.arange(data.shape[1]), labels=columns, rotation=60)
        ax.set_yticks(np.arange(data.shape[0]), labels=[str(r) for r in values.index], fontsize=6)
        if marks is not None:
            for r, c in zip(*np.nonzero(marks.to_numpy(dtype=bool)), strict=True):
                ax.text(c, r, "*", ha="center", va="center", color="black", fontsize=10)
        drawing.figure.colorbar(image, ax=ax, label=label)
        ax.set_title(title)
    return drawing.image


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
    with plotting.canvas(5.5, 4.5) as drawing:
        (ax,) = drawing.axes
        x, y = z[:, axes.index(x_axis)], z[:, axes.index(y_axis)]
        points = ax.scatter(x, y, c=scores, cmap=plotting.SEQUENTIAL, s=28)
        drawing.figure.colorbar(points, ax=ax, label="composite complexity")
        ax.set_xlabel(f"{x_axis} (z)")
        ax.set_ylabel(f"{y_axis} (z)")
        ax.set_title("Benchmark games on two axes")
    return drawing.image
