"""The names of the five complexity axes (paper, Section 3.1), in the paper's order.

Why a module of its own: the axes (``engines.axes``), the statistics (``engines.stats``), the
assets and the tests all key their tables by these names, so they are defined once, here.
Importing this module pulls in nothing else (``engines.axes.diagnostics`` imports SciPy and
``engines.axes.compute`` the game engine), so ``engines.stats`` stays light.
"""

from __future__ import annotations

AXES: tuple[str, ...] = ("state_space", "temporal", "opponent", "information", "precision")
"""State space, temporal contingency, opponent modelling, private information, precision."""

SEAT_AXES: tuple[str, ...] = AXES[1:]
"""The axes measured for each seat and averaged over both (every axis but state space)."""
