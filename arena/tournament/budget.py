"""Spending limits of a tournament: ``max_usd`` per LLM player and for the whole run.

The spend starts from the ``cost_usd`` of the matches already recorded in the folder (counted
per player from the seat columns of the match rows) and grows, as the run goes, by every
reply the LLM players use: a request sent now is settled at its actual cost, a reply read back
from the response cache at the cost it records.  Limits hold at any concurrency because they
are kept per request, not per match:

1. before an LLM player sends a request it reserves the request's worst-case cost
   (``arena.llm.player.LLMPlayer.worst_case_usd``) with ``Budget.reserve``; the request may go
   when the player's spend plus its reservations, and the run's spend plus every reservation,
   are below their limits; while they are not but reservations are outstanding, it waits for
   them to settle (they may cost less than reserved); once the spend alone reaches a limit, it
   is refused and the player stops (``stopped: budget``);
2. after the request, ``Budget.settle`` replaces the reservation by the actual cost.

So the spend passes a limit by at most one request's worst-case cost (the last request let
through while the spend and reservations were still below it), whatever ``--parallel`` is.
Before a match starts, ``Budget.refusal`` refuses it when a player's spend has reached its
limit, or the run's its own (matches of built-in agents included).

A player stopped by a budget leaves its match in flight unrecorded (the replies it got are in
the response cache) and its remaining matches unplayed; it is reported as ``stopped: budget``
(and in the folder's ``budget.json``, ``record_state``), so the same command with a raised
budget plays exactly them, reading the replies already paid for from the cache: the corpus then
equals that of a run that never had a budget.  Budgets are kept in one process (``workers=1``).
"""

from __future__ import annotations

import asyncio
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
        self.reserved: dict[str, float] = defaultdict(float)
        self.in_flight: dict[str, int] = defaultdict(int)  # reservations not settled yet
        self.requests = 0  # requests let through by ``reserve``
        self.worst_request_usd = 0.0  # the largest reservation made
        self._settled: asyncio.Event | None = None

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
        """{player: message} for the players whose spend has reached a limit (empty: none)."""
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

    def _fits(self, player: str) -> bool:
        """Whether the spend and the reservations are below both of ``player``'s limits."""
        limit = self.player_limits.get(player)
        if limit is not None and self.spent[player] + self.reserved[player] >= limit:
            return False
        committed = self.total + sum(self.reserved.values())
        return self.run_limit is None or committed < self.run_limit

    async def reserve(self, player: str, usd: float) -> str | None:
        """Reserve ``usd`` for one request of ``player`` (step 1 of the module docstring): None
        once reserved, or the message stopping the player."""
        while True:
            refused = self.refusal([player])
            if refused:
                return refused[player]
            if self._fits(player) or not any(self.in_flight.values()):
                self.reserved[player] += usd
                self.in_flight[player] += 1
                self.requests += 1
                self.worst_request_usd = max(self.worst_request_usd, usd)
                return None
            if self._settled is None:
                self._settled = asyncio.Event()
            await self._settled.wait()

    def settle(self, player: str, reserved: float, usd: float) -> None:
        """Replace a reservation of ``reserved`` by ``usd``, the request's actual cost."""
        self.in_flight[player] -= 1
        left = self.reserved[player] - reserved
        self.reserved[player] = left if self.in_flight[player] > 0 else 0.0
        self.charge(player, usd)

    def charge(self, player: str, usd: float) -> None:
        """Count ``usd`` as spent by ``player`` (a settled request, or a reply read back from
        the response cache, which needs no reservation)."""
        self.spent[player] += usd
        if self._settled is not None:
            self._settled.set()  # wake every waiting request to look again
            self._settled = None

    def as_dict(self) -> dict[str, object]:
        return {
            "spent_usd": {k: round(v, 6) for k, v in sorted(self.spent.items()) if v},
            "total_usd": round(self.total, 6),
            "max_usd": self.run_limit,
            "player_max_usd": dict(sorted(self.player_limits.items())),
            "worst_request_usd": round(self.worst_request_usd, 6),
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
