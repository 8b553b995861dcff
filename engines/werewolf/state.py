"""The moderator: one game of Werewolf, from the deal to the last announcement.

Why it exists: the mover of the game (``engines.werewolf.rules`` holds its static facts).  It
alternates nights and days (docs/WEREWOLF.md states the rules; Game Arena report, "Werewolf";
Appendix A.4 of the report, which fixes its rule set, is not in our copy, so where the report
is silent we follow Werewolf Arena, Bailis et al. 2024, whose code is google/werewolf_arena):

1. **Deal.**  Each seat is told its role (private); the two Werewolves are told the pack.
2. **Night d** (public: "night d").  Each living Werewolf, in seat order, nominates a living
   non-Werewolf or passes, seeing the earlier nominations (the pack's private channel); then
   the Doctor, if alive, protects any living player (itself included, the same player on
   consecutive nights allowed) or passes; then the Seer, if alive, inspects another living
   player or passes, and learns privately whether that player is a Werewolf.  The victim is
   the *last* nomination made (a later wolf, having seen its partner's choice, settles a
   disagreement); no nomination, no attack.  The victim dies unless the Doctor protected it.
   Dawn (public) names who died, or no one; a dead player's role is not revealed.
3. **Day d.**  ``discussion_rounds`` rounds of statements: each living player speaks once a
   round, in a circle that starts at the first living seat at or after seat ``(d - 1) mod 8``
   (text through the moderator's filter, ``engines.werewolf.filter``; empty is silence).
   Then each living player votes, in seat order, for another living player or abstains; a
   ballot is private until every ballot is in (simultaneous voting), then all are announced.
   A player is exiled when it holds a strict majority of the living players' votes (more than
   half; abstentions count against), as in Werewolf Arena; otherwise, ties included, no one is.
4. **End.**  After every death: the village wins when no Werewolf lives; the Werewolves win
   when the living Werewolves are at least as many as the other living players.  If neither
   holds after day ``max_days``'s vote, the Werewolves win (they survived the village).  The
   end is public and reveals every role.

Moves follow the verify / can / do triad (``verify_act`` raises ``ValueError`` with the
reason, ``can_act`` answers, ``act`` applies and returns the ``Move`` record); the history of
records and the deal replay the game (``replay``).  Chance is the deal only, from the seed's
generator, so a seed and the players' moves fix the game.

``public_facts`` is what every player may know, recorded from the moderator's own variables
(not from the log): deaths, statements, ballots, exiles.  The leak tests hold the views to it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engines.gbg.rng import DealRng
from engines.werewolf.events import Audience, Ballot, EndReason, Event
from engines.werewolf.filter import filter_statement
from engines.werewolf.roles import (
    SEATS,
    Role,
    Team,
    check_roles,
    deal_roles,
    name_of,
    team_of,
)
from engines.werewolf.rules import WerewolfRules
from engines.werewolf.view import PASS, PlayerView, Request, RequestKind, derive_view


class Move(NamedTuple):
    """One decision as recorded: ``action`` is a choice (a seat's name or ``pass``) or, for
    ``speak``, the statement as the player gave it (the log holds the filtered text)."""

    ply: int
    seat: int
    kind: RequestKind
    day: int
    action: str


PublicFact = tuple[Any, ...]


class WerewolfState:
    """One game (module docstring)."""

    def __init__(self, roles: tuple[Role, ...], rules: WerewolfRules | None = None) -> None:
        check_roles(roles)
        self.rules = rules or WerewolfRules()
        self.roles = tuple(roles)
        self.wolves = tuple(s for s in range(SEATS) if roles[s] is Role.WEREWOLF)
        self.alive = [True] * SEATS
        self.day = 0
        self.events: list[Event] = []
        self.history: list[Move] = []
        self.public_facts: list[PublicFact] = []
        self.winner: Team | None = None
        self.end_reason: EndReason | None = None
        self._queue: list[tuple[RequestKind, int]] = []
        self._nominations: list[int] = []
        self._protected: int | None = None
        self._ballots: list[Ballot] = []
        for seat in range(SEATS):
            self._log("role", frozenset({seat}), actor=seat, role=roles[seat])
        self._log("pack", frozenset(self.wolves), seats=self.wolves)
        self._begin_night()

    # -- what is asked ------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def request(self) -> Request | None:
        """The pending decision (None once the game is over)."""
        if not self._queue:
            return None
        kind, seat = self._queue[0]
        return Request(seat, kind, self.day, self._options(kind, seat))

    def living(self) -> tuple[int, ...]:
        return tuple(s for s in range(SEATS) if self.alive[s])

    def _options(self, kind: RequestKind, seat: int) -> tuple[str, ...]:
        living = self.living()
        if kind == "speak":
            return ()
        if kind == "nominate":
            picks = [s for s in living if self.roles[s] is not Role.WEREWOLF]
        elif kind == "protect":
            picks = list(living)
        else:  # inspect, vote: another living player
            picks = [s for s in living if s != seat]
        return (*(name_of(s) for s in picks), PASS)

    # -- verify / can / do ----------------------------------------------------------------

    def verify_act(self, action: str) -> None:
        """``ValueError`` naming why ``action`` cannot be played now."""
        request = self.request
        if request is None:
            raise ValueError("the game is over: no one is to move")
        if not isinstance(action, str):
            raise ValueError(f"an action is text, got {type(action).__name__}")
        if not request.free_text and action not in request.options:
            raise ValueError(
                f"{action!r} is not a legal {request.kind} for {name_of(request.seat)}; "
                f"legal: {list(request.options)}"
            )

    def can_act(self, action: str) -> bool:
        try:
            self.verify_act(action)
        except ValueError:
            return False
        return True

    def act(self, action: str) -> Move:
        """Verify and play ``action`` for the seat to move; return its record."""
        self.verify_act(action)
        kind, seat = self._queue.pop(0)
        move = Move(len(self.history), seat, kind, self.day, action)
        self.history.append(move)
        target = None if kind == "speak" or action == PASS else _seat(action)
        if kind == "nominate":
            if target is not None:
                self._nominations.append(target)
            self._log("nominate", frozenset(self.wolves), actor=seat, target=target)
        elif kind == "protect":
            self._protected = target
            self._log("protect", frozenset({seat}), actor=seat, target=target)
        elif kind == "inspect":
            found = None if target is None else self.roles[target] is Role.WEREWOLF
            self._log("inspect", frozenset({seat}), actor=seat, target=target, werewolf=found)
        elif kind == "speak":
            text = filter_statement(action, self.rules.statement_chars)
            self.public_facts.append(("statement", self.day, seat, text))
            self._log("statement", None, actor=seat, text=text)
        else:
            self._ballots.append((seat, target))
            self._log("ballot", frozenset({seat}), actor=seat, target=target)
        if not self._queue:
            if kind in ("nominate", "protect", "inspect"):
                self._end_night()
            else:
                self._end_day()
        return move

    # -- views ------------------------------------------------------------------------------

    def visible_events(self, seat: int) -> tuple[Event, ...]:
        return tuple(e for e in self.events if e.visible_to(seat))

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` knows now (``engines.werewolf.view.derive_view`` of its events)."""
        request = self.request
        mine = request if request is not None and request.seat == seat else None
        return derive_view(seat, self.visible_events(seat), mine)

    def information_state(self, seat: int) -> str:
        return self.view(seat).key()

    def returns(self) -> tuple[float, ...]:
        """1 for each member of the winning team, 0 for the others (a general-sum team game)."""
        if self.winner is None:
            raise ValueError("the game is not over")
        return tuple(1.0 if team_of(r) is self.winner else 0.0 for r in self.roles)

    # -- the moderator's phases -----------------------------------------------------------

    def _log(self, kind: Any, audience: Audience, **fields: Any) -> None:
        self.events.append(Event(kind, audience, day=self.day, **fields))

    def _begin_night(self) -> None:
        self.day += 1
        self._nominations, self._protected = [], None
        self.public_facts.append(("night", self.day))
        self._log("night", None)
        queue: list[tuple[RequestKind, int]] = [
            ("nominate", w) for w in self.wolves if self.alive[w]
        ]
        for role, kind in ((Role.DOCTOR, "protect"), (Role.SEER, "inspect")):
            holder = self.roles.index(role)
            if self.alive[holder]:
                queue.append((kind, holder))  # type: ignore[arg-type]
        self._queue = queue

    def _end_night(self) -> None:
        victim = self._nominations[-1] if self._nominations else None
        died = victim if victim is not None and victim != self._protected else None
        if died is not None:
            self.alive[died] = False
        self.public_facts.append(("dawn", self.day, died))
        self._log("dawn", None, target=died)
        if not self._check_end():
            self._begin_day()

    def _begin_day(self) -> None:
        start = (self.day - 1) % SEATS
        circle = sorted(self.living(), key=lambda s: (s - start) % SEATS)
        speeches: list[tuple[RequestKind, int]] = [
            ("speak", s) for _ in range(self.rules.discussion_rounds) for s in circle
        ]
        self._ballots = []
        self._queue = [*speeches, *(("vote", s) for s in self.living())]

    def _end_day(self) -> None:
        ballots = tuple(self._ballots)
        self.public_facts.append(("votes", self.day, ballots))
        self._log("votes", None, ballots=ballots)
        living = len(self.living())
        needed = living // 2 + 1
        counts: dict[int, int] = {}
        for _, target in ballots:
            if target is not None:
                counts[target] = counts.get(target, 0) + 1
        top = max(counts, key=lambda s: (counts[s], -s)) if counts else None
        count = counts[top] if top is not None else 0
        exiled = top if top is not None and count >= needed else None
        if exiled is not None:
            self.alive[exiled] = False
        self.public_facts.append(("exile", self.day, exiled))
        self._log("exile", None, target=exiled, count=count, needed=needed)
        if self._check_end():
            return
        if self.day >= self.rules.max_days:
            self._finish(Team.WEREWOLVES, "day_limit")
        else:
            self._begin_night()

    def _check_end(self) -> bool:
        wolves = sum(1 for w in self.wolves if self.alive[w])
        others = len(self.living()) - wolves
        if wolves == 0:
            self._finish(Team.VILLAGE, "werewolves_dead")
        elif wolves >= others:
            self._finish(Team.WEREWOLVES, "parity")
        return self.winner is not None

    def _finish(self, winner: Team, reason: EndReason) -> None:
        self.winner, self.end_reason = winner, reason
        self._queue = []
        self._log("game_over", None, winner=winner, roles=self.roles, reason=reason)


def _seat(name: str) -> int:
    return int(name[1:]) - 1


def new_game(seed: int, rules: WerewolfRules | None = None) -> WerewolfState:
    """A game whose roles are dealt by ``seed`` (``engines.werewolf.roles.deal_roles``)."""
    return WerewolfState(deal_roles(DealRng(seed)), rules)


def replay(
    roles: tuple[Role, ...],
    moves: list[Move] | tuple[Move, ...],
    rules: WerewolfRules | None = None,
) -> WerewolfState:
    """The game of ``roles`` after ``moves`` (``ValueError`` at the first move that does not
    fit: another seat or kind than the one asked, or an illegal action)."""
    state = WerewolfState(roles, rules)
    for move in moves:
        request = state.request
        if request is None or (request.seat, request.kind) != (move.seat, move.kind):
            asked = "nothing" if request is None else f"{request.kind} of seat {request.seat}"
            raise ValueError(
                f"move {move.ply} is a {move.kind} of seat {move.seat}; {asked} was asked"
            )
        state.act(move.action)
    return state
