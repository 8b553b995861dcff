"""Per model, what its play cost beside how strong it played, from a release's tables.

The release's figure (``plots/strength_cost``, drawn by ``releases.contents``) and the report's
"Strength and cost" section (``releases.report``) read the same frame from here.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd


def strength_cost_frame(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame | None:
    """Per model: usage (tokens, cost, calls, fallback and rethink rates) and strength, from the
    released match table and leaderboard; None when no model made a provider call (a roster of
    built-in bots: nothing on the cost side, the release unchanged)."""
    from engines.stats.usage import has_usage, model_usage, strength_cost

    matches = next((tables[n] for n in ("complete_pairs", "match_corpus") if n in tables), None)
    board = tables.get("leaderboards")
    if matches is None or board is None or matches.empty or "model" not in board.columns:
        return None
    if not {"alice", "bob"} <= set(matches.columns):
        return None
    usage = model_usage(matches, tables.get("match_moves"))
    if not has_usage(usage):
        return None
    return strength_cost(usage, board)
