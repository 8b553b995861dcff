"""The one style of GENSTRAT's figures, and the PNG writer every figure goes through.

Why it exists: figures go into asset metadata and into release bundles, whose files are
hashed, so every figure must look alike and come out byte-for-byte the same for the same data.
Each concern draws its own figures beside its science (``engines.gbg.plots``,
``engines.axes.plots``, ``engines.stats.plots``, ``engines.ablations.plots``); this module gives
them the canvas, the fonts and the colours, and turns the figure into bytes:

- :func:`canvas` is a context manager: it applies :data:`STYLE` (through
  ``matplotlib.rc_context``, restored on exit), makes a ``Figure`` with its own Agg canvas and
  a row of axes (no pyplot, no backend switch, no global figure registry), lets the caller
  draw, and on exit writes the image into ``Canvas.image``: PNG, or SVG inside
  :func:`image_format` ``("svg")`` (a release ships both; every figure function returns
  ``Canvas.image``, so it draws in either format unchanged);
- neither format carries metadata (matplotlib's ``Software``/``Creator`` entries name its
  version, SVG's ``Date`` is the clock) and SVG element ids come from a fixed salt, so the bytes
  depend on the data and the style only.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with the stage modules
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

DPI = 100
# Colours by role: one hue for what is measured, one for what is picked out, grey for context.
PRIMARY = "tab:blue"
ACCENT = "tab:red"
MUTED = "0.7"
INTERVAL = "tab:gray"
REFERENCE = "black"
DIVERGING = "RdBu"
SEQUENTIAL = "viridis"
GRID_ALPHA = 0.3
REFERENCE_WIDTH = 0.6

STYLE: dict[RcKeyType, Any] = {
    "font.family": "DejaVu Sans",  # ships with matplotlib: the same glyphs on every machine
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "grid.alpha": GRID_ALPHA,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.hashsalt": "genstrat",  # SVG ids from a fixed salt, not from random numbers
    "svg.fonttype": "path",  # glyphs as paths: the same drawing without the fonts installed
}

ImageFormat = Literal["png", "svg"]
_FORMAT: ContextVar[ImageFormat] = ContextVar("genstrat_image_format", default="png")
_METADATA: dict[ImageFormat, dict[str, Any]] = {
    "png": {"Software": None},
    "svg": {"Creator": None, "Date": None},
}


@contextmanager
def image_format(name: ImageFormat) -> Iterator[None]:
    """Figures drawn inside this block are written as ``name`` (``"png"``, the default, or
    ``"svg"``)."""
    if name not in _METADATA:
        raise ValueError(f"image format must be one of {', '.join(_METADATA)}, got {name!r}")
    token = _FORMAT.set(name)
    try:
        yield
    finally:
        _FORMAT.reset(token)


@dataclass
class Canvas:
    """A figure being drawn, its axes (left to right), and its image (PNG or SVG bytes) once
    drawing is done."""

    figure: Figure
    axes: list[Axes]
    image: bytes = field(default=b"")


@contextmanager
def canvas(width: float, height: float, columns: int = 1) -> Iterator[Canvas]:
    """A ``width`` x ``height`` inch figure with ``columns`` axes in the house style; its image
    (in the format of :func:`image_format`, PNG by default) is in ``Canvas.image`` after the
    ``with`` block."""
    import matplotlib as mpl
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    kind = _FORMAT.get()
    with mpl.rc_context(STYLE):
        figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
        FigureCanvasAgg(figure)
        axes = [figure.add_subplot(1, columns, k + 1) for k in range(columns)]
        drawing = Canvas(figure, axes)
        yield drawing
        buffer = io.BytesIO()
        figure.savefig(buffer, format=kind, dpi=DPI, metadata=_METADATA[kind])
        drawing.image = buffer.getvalue()


def reference_line(ax: Axes, x: float = 0.0) -> None:
    """The vertical line at ``x`` (no effect, equal strength) that intervals are read against."""
    ax.axvline(x, color=REFERENCE, linewidth=REFERENCE_WIDTH)
