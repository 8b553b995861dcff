"""Spending limits of a tournament: ``max_usd`` per LLM player and for the whole run.

The spend is the ``cost_usd`` of the recorded matches (those of earlier runs of the same folder
included), counted per player from the seat columns of the match rows.  Before a match starts,
``Budget.refusal`` names the first limit it would go past: a player that has spent its
``max_usd`` starts no new match, and once the run's total reaches the roster's ``max_usd`` no
match starts at all.  Matches already in flight finish (a limit bounds what is started, so the
spend may pass it by the matches in flight; ``parallel=1`` keeps that to one match).  The
players stopped this way are reported as ``stopped: budget`` (and in the folder's
``budget.json``, ``record_state``) and their matches are neither
played nor recorded, so the same command with a raised budget plays exactly them: the corpus
then equals that of a run that never had a budget.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from arena.files import atomic_write_text
from arena.roster import ApiEntry, Roster
from engines.tournament.records import Record

BUDGET_REASON = "budget"
STATE_FILE = "budget.json"


class Budget:
    def __init__(self, roster: Roster) -> None:
        self.player_limits = {
            e.name: e.max_usd
            for e in roster.players
            if isinstance(e, ApiEntry) and e.max_usd is not None
        }
        self.run_limit = roster.max_usd
        self.spent: dict[str, float] = defaultdict(float)

    @property
    def active(self) -> bool:
        return bool(self.player_limits) or self.run_limit is not None

    @property
    def total(self) -> float:
        return sum(self.spent.values())

    def record(self, match: Record) -> None:
        for seat in ("alice", "bob"):
            cost = match.get(f"cost_usd_{seat}") or 0.0
            self.spent[str(match[seat])] += float(cost)

    def record_all(self, matches: Iterable[Record]) -> None:
        for match in matches:
            self.record(match)

    def refusal(self, players: Iterable[str]) -> dict[str, str]:
        """{player: message} for the players of a match that may not start (empty: it may)."""
        if self.run_limit is not None and self.total >= self.run_limit:
            return {
                name: f"player {name!r} stopped: {BUDGET_REASON} (the run has spent "
                f"${self.total:.4f} of its max_usd ${self.run_limit:.4f})"
                for name in players
            }
        out = {}
        for name in players:
            limit = self.player_limits.get(name)
            if limit is not None and self.spent[name] >= limit:
                out[name] = (
                    f"player {name!r} stopped: {BUDGET_REASON} (spent ${self.spent[name]:.4f} "
                    f"of its max_usd ${limit:.4f})"
                )
        return out

    def as_dict(self) -> dict[str, object]:
        return {
            "spent_usd": {k: round(v, 6) for k, v in sorted(self.spent.items()) if v},
            "total_usd": round(self.total, 6),
            "max_usd": self.run_limit,
            "player_max_usd": dict(sorted(self.player_limits.items())),
        }


def record_state(folder: Path, budget: Budget, stopped: dict[str, str]) -> None:
    """``budget.json`` in the tournament folder: the spend, the limits and the players stopped
    by a budget (``{"stopped": {player: "budget"}, "messages": ...}``); removed once no budget
    stops anyone, so its presence means the corpus is incomplete for those players."""
    path = folder / STATE_FILE
    by_budget = {k: v for k, v in stopped.items() if f"stopped: {BUDGET_REASON}" in v}
    if not by_budget:
        path.unlink(missing_ok=True)
        return
    state = budget.as_dict() | {
        "stopped": {name: BUDGET_REASON for name in sorted(by_budget)},
        "messages": dict(sorted(by_budget.items())),
    }
    atomic_write_text(path, json.dumps(state, indent=2, sort_keys=True) + "\n")
