"""Pictures of the axes as PNG bytes: the benchmark on two axes (the paper's Figure 1) and the
selection on two screening axes.  Drawn in the house style of ``engines.plotting``; the caller
decides where the bytes go (asset metadata, a release bundle).
"""

from __future__ import annotations

from collections.abc import Sequence

from engines import plotting

LABELS = {
    "state_space": "state space (log10 states)",
    "temporal": "temporal contingency (share of variance)",
    "opponent": "opponent dependence (/ STD_g)",
    "information": "information (chip lead / STD_g)",
    "precision": "precision (loss / STD_g)",
}


def benchmark_plot(
    x: Sequence[float],
    y: Sequence[float],
    names: Sequence[str],
    x_axis: str = "state_space",
    y_axis: str = "temporal",
    highlight: str | None = None,
) -> bytes:
    """The benchmark games on two of the five axes (Figure 1), each labelled by its game."""
    with plotting.canvas(6.4, 4.8) as drawing:
        (ax,) = drawing.axes
        ax.scatter(x, y, s=28, color=plotting.PRIMARY, zorder=2)
        for xi, yi, name in zip(x, y, names, strict=True):
            bold = name == highlight
            ax.annotate(
                name,
                (xi, yi),
                xytext=(3, 3),
                textcoords="offset points",
                fontsize=8 if bold else 6,
                fontweight="bold" if bold else "normal",
            )
        ax.set_xlabel(LABELS.get(x_axis, x_axis))
        ax.set_ylabel(LABELS.get(y_axis, y_axis))
        ax.set_title(f"{len(names)} benchmark games")
        ax.grid(True)
    return drawing.image


def selection_plot(
    pool_x: Sequence[float],
    pool_y: Sequence[float],
    chosen_x: Sequence[float],
    chosen_y: Sequence[float],
    x_axis: str,
    y_axis: str,
) -> bytes:
    """The pool (grey) and the farthest-point selection (red) on two normalised screening axes."""
    with plotting.canvas(6.0, 4.5) as drawing:
        (ax,) = drawing.axes
        ax.scatter(pool_x, pool_y, s=8, color=plotting.MUTED, label=f"pool ({len(pool_x)})")
        ax.scatter(
            chosen_x, chosen_y, s=30, color=plotting.ACCENT, label=f"selected ({len(chosen_x)})"
        )
        ax.set_xlabel(f"{x_axis} (min-max normalised)")
        ax.set_ylabel(f"{y_axis} (min-max normalised)")
        ax.legend(loc="best")
        ax.grid(True)
    return drawing.image
