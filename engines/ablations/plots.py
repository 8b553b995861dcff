"""The figure of the ablations as PNG bytes (paper, Section 8): the disclosure effect per
player beside the thinking-budget difference per family, each with its bootstrap interval.
Drawn in the house style of ``engines.plotting`` from the ablations' estimates.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from engines import plotting
from engines.stats.bootstrap import Estimate


def ablation_plot(disclosure: Mapping[str, Estimate], thinking: pd.DataFrame) -> bytes:
    """Margins by arm per player (the disclosure effect; the pooled ``all`` left out) beside
    the thinking budget's high - low differences per family (``thinking_budget``'s table)."""
    with plotting.canvas(9, 3.6, columns=2) as drawing:
        left, right = drawing.axes
        effects = [(k, e) for k, e in disclosure.items() if k != "all"]
        for i, (_, e) in enumerate(effects):
            left.errorbar([e.value], [i], xerr=_span(e.value, e.low, e.high), fmt="o")
        left.set_yticks(range(len(effects)), [k for k, _ in effects])
        plotting.reference_line(left)
        left.set_title("disclosure effect (chips/deal)")
        for i, r in enumerate(thinking.itertuples()):
            right.errorbar(
                [r.difference], [i], xerr=_span(r.difference, r.ci_low, r.ci_high), fmt="s"
            )
        right.set_yticks(range(len(thinking)), list(thinking["family"]))
        plotting.reference_line(right)
        right.set_title("thinking budget: high - low")
    return drawing.image


def _span(value: float, low: float, high: float) -> list[list[float]]:
    """Error-bar lengths (non-negative; zero where the interval is missing)."""
    below = value - low if np.isfinite(low) else 0.0
    above = high - value if np.isfinite(high) else 0.0
    return [[max(0.0, below)], [max(0.0, above)]]
