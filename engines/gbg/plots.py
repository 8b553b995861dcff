"""The picture of a seed pool as PNG bytes (paper, Section 3): why seeds were rejected, and
which features the accepted games have.  Drawn from ``engines.gbg.seed_pool.summarise``'s
summary in the house style of ``engines.plotting``; kept out of ``seed_pool`` so that its
worker processes never import matplotlib.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines import plotting


def pool_plot(summary: Mapping[str, Any]) -> bytes:
    """Rejection reasons (left) and feature frequencies among the accepted games (right)."""
    with plotting.canvas(11, 4, columns=2) as drawing:
        left, right = drawing.axes
        reasons = summary["rejections"] or {"(none)": 0}
        left.barh(list(reasons), list(reasons.values()), color=plotting.ACCENT)
        rejected = summary["sampled"] - summary["accepted"]
        left.set_title(f"Rejections ({rejected} of {summary['sampled']} seeds)")
        left.set_xlabel("seeds")
        freq = summary["feature_frequencies"]
        right.barh(list(freq), [100 * v for v in freq.values()], color=plotting.PRIMARY)
        right.set_title(f"Features among {summary['accepted']} accepted games")
        right.set_xlabel("% of accepted games")
        right.set_xlim(0, 100)
    return drawing.image
