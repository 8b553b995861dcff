"""The moderator's event log: one record per thing that happened, each with its audience.

Why it exists: as in the GBG core (``engines.gbg.state``) and Game Arena's Werewolf (an
append-only log of Event records, each defining its own visibility, filtered per player by an
event bus), the log is the single source of what a player knows.  A player's view
(``engines.werewolf.view``) reads only the events whose audience includes its seat.

An event carries no position in the global log: a player who saw events 0, 3 and 7 would
learn that four hidden events happened in between (how many night roles still act).  Its
audience is ``None`` (public) or a set of seats (one seat, or the Werewolves' pack).

Kinds and their fields (``actor``/``target`` are seats; ``None`` target: a pass):

==============  =============================================  ====================
kind            fields                                         audience
==============  =============================================  ====================
``role``        actor, role                                    the actor
``pack``        seats (the Werewolves)                         the Werewolves
``night``       day                                            public
``nominate``    actor (a Werewolf), target                     the Werewolves
``protect``     actor (the Doctor), target                     the Doctor
``inspect``     actor (the Seer), target, werewolf (bool)      the Seer
``dawn``        day, target (who died; None: no one)           public
``statement``   day, actor, text (filtered)                    public
``ballot``      day, actor, target (None: abstained)           the voter
``votes``       day, ballots ((voter, target), ...)            public
``exile``       day, target (None: no majority), count, needed public
``game_over``   winner, roles (every seat's), reason           public
==============  =============================================  ====================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engines.werewolf.roles import Role, Team

Audience = frozenset[int] | None
EventKind = Literal[
    "role",
    "pack",
    "night",
    "nominate",
    "protect",
    "inspect",
    "dawn",
    "statement",
    "ballot",
    "votes",
    "exile",
    "game_over",
]
EndReason = Literal["werewolves_dead", "parity", "day_limit"]
Ballot = tuple[int, int | None]


@dataclass(frozen=True)
class Event:
    """One entry of the log (module docstring: which fields each kind sets)."""

    kind: EventKind
    audience: Audience
    day: int = 0
    actor: int | None = None
    target: int | None = None
    role: Role | None = None
    werewolf: bool | None = None
    text: str = ""
    seats: tuple[int, ...] = ()
    ballots: tuple[Ballot, ...] = ()
    count: int = 0
    needed: int = 0
    winner: Team | None = None
    roles: tuple[Role, ...] = ()
    reason: EndReason | None = None

    @property
    def public(self) -> bool:
        return self.audience is None

    def visible_to(self, seat: int) -> bool:
        return self.audience is None or seat in self.audience
