"""What one player knows: a view derived from the events it can see, and nothing else.

Why it exists: Game Arena's event bus hands each model only the events its access allows; here
``derive_view`` is that filter's reader.  It takes the events visible to one seat (in order)
and, when that seat is to move, its pending request, and builds every field from them: the
seat's role from its ``role`` event, its pack from ``pack``, the living players from the
public ``dawn`` and ``exile`` announcements, the Seer's findings from its ``inspect`` events,
the day and phase from the public ``night``/``dawn``/``game_over`` markers.  A field that no
visible event supports cannot appear, which is what the leak tests check from the other side.

A request names its seat, kind, day and options.  Choices are the names of the seats a player
may pick (seat order) and ``pass``: the abstention that is always legal (no nomination, no
protection, no inspection, an abstained vote).  A ``speak`` request has no options: any text
is a statement, and the empty text is silence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engines.werewolf.events import Event
from engines.werewolf.roles import SEATS, Role, Team, name_of

RequestKind = Literal["nominate", "protect", "inspect", "speak", "vote"]
Phase = Literal["night", "day", "over"]
PASS = "pass"
CHOICE_KINDS: tuple[RequestKind, ...] = ("nominate", "protect", "inspect", "vote")


@dataclass(frozen=True)
class Request:
    """A decision the moderator asks of ``seat``: ``options`` are the legal choices (names of
    seats, then ``pass``), empty for ``speak`` (any text)."""

    seat: int
    kind: RequestKind
    day: int
    options: tuple[str, ...] = ()

    @property
    def free_text(self) -> bool:
        return self.kind == "speak"


@dataclass(frozen=True)
class PlayerView:
    """One seat's knowledge (module docstring).  ``pack`` is empty for a non-Werewolf;
    ``inspections`` is the Seer's own (target, is a Werewolf) findings."""

    seat: int
    role: Role
    pack: tuple[int, ...]
    day: int
    phase: Phase
    alive: tuple[int, ...]
    events: tuple[Event, ...]
    inspections: tuple[tuple[int, bool], ...]
    request: Request | None
    winner: Team | None

    @property
    def name(self) -> str:
        return name_of(self.seat)

    @property
    def is_alive(self) -> bool:
        return self.seat in self.alive

    def key(self) -> str:
        """The perfect-recall information state: the whole view, as a string."""
        return repr(self)


def derive_view(seat: int, visible: tuple[Event, ...], request: Request | None) -> PlayerView:
    """The view of ``seat`` from the events it can see and its own pending request
    (``ValueError`` if an event is not visible to it, or the request is another seat's)."""
    if request is not None and request.seat != seat:
        raise ValueError(f"seat {seat} was handed the request of seat {request.seat}")
    role: Role | None = None
    pack: tuple[int, ...] = ()
    alive = set(range(SEATS))
    inspections: list[tuple[int, bool]] = []
    day = 0
    phase: Phase = "night"
    winner: Team | None = None
    for event in visible:
        if not event.visible_to(seat):
            raise ValueError(f"seat {seat} was handed an event it cannot see: {event}")
        if event.kind == "role" and event.actor == seat:
            role = event.role
        elif event.kind == "pack":
            pack = event.seats
        elif event.kind == "night":
            day, phase = event.day, "night"
        elif event.kind == "dawn":
            day, phase = event.day, "day"
            if event.target is not None:
                alive.discard(event.target)
        elif event.kind == "exile" and event.target is not None:
            alive.discard(event.target)
        elif event.kind == "inspect" and event.actor == seat and event.target is not None:
            inspections.append((event.target, bool(event.werewolf)))
        elif event.kind == "game_over":
            phase, winner = "over", event.winner
    if role is None:
        raise ValueError(f"seat {seat} has no role event among the events it can see")
    return PlayerView(
        seat=seat,
        role=role,
        pack=pack,
        day=day,
        phase=phase,
        alive=tuple(sorted(alive)),
        events=visible,
        inspections=tuple(inspections),
        request=request,
        winner=winner,
    )
