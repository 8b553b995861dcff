"""Partial and provisional results: an entrant whose evidence is incomplete is flagged with the
reason, never silently ranked.

Why it exists: GameBench 2 (Section 3) marks models "Partial" and gives the reason beside each
rank. Against a reference field, an entrant's evidence is its complete runs against the members
on the games of the field's game set. Reasons, each with its figures:

- ``too few complete pairs``: fewer complete runs against the field than ``min_pairs``;
- ``budget``: matches the tournament stopped because the player's budget ran out (a ``status``
  of ``budget``, or ``stopped`` with ``budget`` in ``error``, when the corpus records them);
- ``missing block``: (member, game) matchups of the design with no complete run;
- ``incomplete runs``: runs with a deal that did not complete (timeout, error), when they are
  more than ``max_incomplete_share`` of the entrant's runs.

An entrant without any of these is ``ranked``; with one or more it is ``provisional`` and gets no
rank; a member is ``reference``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from engines.stats.reference_field import ReferenceField
from engines.stats.runs import check_columns
from engines.tournament.pairs import RUN_KEY
from engines.tournament.records import DECIDED_STATUSES

BUDGET_STATUS = "budget"


@dataclass(frozen=True)
class ProvisionalRules:
    """When an entrant is provisional (see the module docstring)."""

    min_pairs: int = 10
    max_incomplete_share: float = 0.2

    def __post_init__(self) -> None:
        if self.min_pairs < 1:
            raise ValueError(f"min_pairs must be at least 1, got {self.min_pairs}")
        if not 0.0 <= self.max_incomplete_share <= 1.0:
            raise ValueError("max_incomplete_share must lie in [0, 1]")


PROVISIONAL_COLUMNS: tuple[str, ...] = (
    "model",
    "role",
    "status",
    "reason",
    "complete_pairs",
    "incomplete_runs",
    "budget_matches",
    "missing_blocks",
)


def _budget_rows(matches: pd.DataFrame) -> pd.Series:
    status = matches["status"].astype(str)
    budget = status == BUDGET_STATUS
    if "error" in matches.columns:
        error = matches["error"].fillna("").astype(str).str.contains(BUDGET_STATUS)
        budget |= (status == "stopped") & error
    return budget


def provisional_flags(
    matches: pd.DataFrame,
    field: ReferenceField,
    games: Sequence[int] | None = None,
    rules: ProvisionalRules | None = None,
) -> pd.DataFrame:
    """One row per player of the corpus: role, status and the reasons (``; ``-joined).

    ``games`` are the game seeds of the design (default: the games the field's members played
    among themselves).
    """
    rules = rules or ProvisionalRules()
    check_columns(matches)
    members = set(field.members)
    frame = matches.copy()
    if frame.empty:
        return pd.DataFrame(columns=list(PROVISIONAL_COLUMNS))
    frame["status"] = frame["status"].astype(str)
    budget = _budget_rows(frame)
    decided = frame["status"].isin(DECIDED_STATUSES)
    runs = frame.assign(_complete=decided).groupby(list(RUN_KEY), sort=False)
    summary = runs.agg(
        alice=("alice", "first"),
        bob=("bob", "first"),
        game_seed=("game_seed", "first"),
        deals=("status", "size"),
        complete=("_complete", "sum"),
    ).reset_index(drop=True)
    summary["is_complete"] = (summary["deals"] == 2) & (summary["complete"] == 2)
    if games is None:
        within = summary[summary["alice"].isin(members) & summary["bob"].isin(members)]
        games = sorted(set(within["game_seed"].astype(int)))
    design_games = [int(g) for g in games]
    players = sorted(set(frame["alice"].astype(str)) | set(frame["bob"].astype(str)))
    rows = []
    for player in players:
        if player in members:
            rows.append((player, "reference", "reference", "", 0, 0, 0, 0))
            continue
        mine = summary[(summary["alice"] == player) | (summary["bob"] == player)]
        other = mine["bob"].where(mine["alice"] == player, mine["alice"])
        against = mine[other.isin(members)]
        opponents = other[other.isin(members)]
        done = against[against["is_complete"]]
        pairs = len(done)
        incomplete = int((~against["is_complete"]).sum())
        seen = set(
            zip(opponents[against["is_complete"]], done["game_seed"].astype(int), strict=True)
        )
        missing = [(r, g) for r in field.members for g in design_games if (r, g) not in seen]
        n_budget = int((budget & ((frame["alice"] == player) | (frame["bob"] == player))).sum())
        reasons = []
        if pairs < rules.min_pairs:
            reasons.append(
                f"too few complete pairs against the field ({pairs} < {rules.min_pairs})"
            )
        if n_budget:
            reasons.append(f"budget: {n_budget} match(es) stopped when the budget ran out")
        if missing:
            shown = ", ".join(f"{r}@{g}" for r, g in missing[:3])
            more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            reasons.append(f"missing block: no complete run against {shown}{more}")
        total = pairs + incomplete
        if total and incomplete / total > rules.max_incomplete_share:
            reasons.append(f"incomplete runs: {incomplete} of {total}")
        status = "provisional" if reasons else "ranked"
        rows.append(
            (
                player,
                "entrant",
                status,
                "; ".join(reasons),
                pairs,
                incomplete,
                n_budget,
                len(missing),
            )
        )
    return pd.DataFrame(rows, columns=list(PROVISIONAL_COLUMNS))
