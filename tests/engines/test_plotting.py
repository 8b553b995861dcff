"""The house style of the figures: PNG bytes that depend on the data only, no global state."""

from __future__ import annotations

import matplotlib as mpl
import pandas as pd
import pytest

from engines import plotting
from engines.ablations.plots import ablation_plot
from engines.gbg.plots import pool_plot
from engines.stats.bootstrap import Estimate
from engines.stats.plots import leaderboard_plot

PNG = b"\x89PNG\r\n\x1a\n"


def _pool() -> bytes:
    summary = {
        "sampled": 12,
        "accepted": 8,
        "rejections": {"seat_bias": 1, "extreme_branches": 3},
        "feature_frequencies": {"auction": 0.125, "draw": 0.25},
    }
    return pool_plot(summary)


def test_the_same_figure_gives_the_same_bytes_without_metadata() -> None:
    first, second = _pool(), _pool()
    assert first.startswith(PNG) and first == second
    assert b"tEXt" not in first and b"Matplotlib" not in first  # no Software entry


def test_drawing_leaves_matplotlib_as_it_found_it() -> None:
    before = dict(mpl.rcParams)
    estimates = {"all": Estimate(0.1, -0.1, 0.3), "p1": Estimate(0.2, 0.0, float("nan"))}
    thinking = pd.DataFrame(
        {"family": ["m"], "difference": [0.1], "ci_low": [-0.1], "ci_high": [0.3]}
    )
    assert ablation_plot(estimates, thinking).startswith(PNG)
    assert dict(mpl.rcParams) == before
    assert mpl.get_backend() == before["backend"]


def test_a_canvas_has_its_columns_of_axes() -> None:
    with plotting.canvas(4, 3, columns=3) as drawing:
        assert len(drawing.axes) == 3
        assert drawing.image == b""
    assert drawing.image.startswith(PNG)


def test_svg_is_drawn_on_request_and_is_deterministic() -> None:
    board = pd.DataFrame(
        {"model": ["a", "b"], "alpha": [0.5, -0.5], "ci_low": [0.1, -0.9], "ci_high": [0.9, -0.1]}
    )
    with plotting.image_format("svg"):
        first = leaderboard_plot(board)
        second = leaderboard_plot(board)
    assert first.startswith(b"<?xml") and b"<svg" in first[:400]
    assert first == second  # no date, no version, ids from a fixed salt
    assert b"Matplotlib v" not in first and b"<dc:date>" not in first
    assert leaderboard_plot(board).startswith(PNG)  # PNG again outside the block
    with pytest.raises(ValueError, match="image format"), plotting.image_format("gif"):  # type: ignore[arg-type]
        pass
