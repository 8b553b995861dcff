"""Pictures of the axes as PNG bytes: the benchmark on two axes (the paper's Figure 1) and the
selection on two screening axes.  Each draws on its own Agg ``Figure`` (no pyplot state) and
returns bytes, so the caller decides where they go (asset metadata, a release bundle).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

LABELS = {
    "state_space": "state space (log10 states)",
    "temporal": "temporal contingency (share of variance)",
    "opponent": "opponent dependence (/ STD_g)",
    "information": "information (chip lead / STD_g)",
    "precision": "precision (loss / STD_g)",
}


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return buffer.getvalue()


def benchmark_plot(
    x: Sequence[float],
    y: Sequence[float],
    names: Sequence[str],
    x_axis: str = "state_space",
    y_axis: str = "temporal",
    highlight: str | None = None,
) -> bytes:
    """The benchmark games on two of the five axes (Figure 1), each labelled by its game."""
    fig = Figure(figsize=(6.4, 4.8))
    ax = fig.add_subplot()
    ax.scatter(x, y, s=28, color="tab:blue", zorder=2)
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
    ax.grid(alpha=0.3)
    return _png(fig)


def selection_plot(
    pool_x: Sequence[float],
    pool_y: Sequence[float],
    chosen_x: Sequence[float],
    chosen_y: Sequence[float],
    x_axis: str,
    y_axis: str,
) -> bytes:
    """The pool (grey) and the farthest-point selection (red) on two normalised screening axes."""
    fig = Figure(figsize=(6.0, 4.5))
    ax = fig.add_subplot()
    ax.scatter(pool_x, pool_y, s=8, color="0.7", label=f"pool ({len(pool_x)})")
    ax.scatter(chosen_x, chosen_y, s=30, color="tab:red", label=f"selected ({len(chosen_x)})")
    ax.set_xlabel(f"{x_axis} (min-max normalised)")
    ax.set_ylabel(f"{y_axis} (min-max normalised)")
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)
