"""A deal's information-state keys for counting, built incrementally.

Two counts walk random deals and collect the states each seat reaches: the screening's
state space (``engines.axes.screening.coarse_state``: events with card identities dropped,
coarse own decisions) and the state-space axis (``State.abstract_state``: events by label,
own decisions, chips, board).  Both keys end in the seat's whole history of seen events, so
rebuilding a key from the state at every decision costs the whole deal in Python.
``DealKeys`` walks a deal once per seat, naming only the events and moves added since its
last call; ``key(state, seat)`` equals ``coarse_state`` or ``abstract_state`` (the tests
check it at every decision, for both seats, of many deals).

(Replacing the event history by an id in a prefix table shared by a count's deals gives the
same count, but measured 13% slower on pool games: their histories are short, and a Python
dict lookup per event costs more than the tuple copy and hash it saves.)
"""

from __future__ import annotations

from typing import Any

from engines.axes.menus import amount_of
from engines.axes.play import named_event
from engines.gbg.engine import CARD_EVENTS, PAIR_EVENTS, PUBLIC, State
from engines.gbg.state import position_as_known

_CARDISH = CARD_EVENTS | PAIR_EVENTS | {"show"}


def coarse_action(action: str) -> str:
    """A decision with its amount dropped (``raise 40`` -> ``raise``)."""
    parsed = amount_of(action)
    return parsed[0] if parsed is not None else action


class DealKeys:
    """The keys of one deal: ``coarse=True`` the screening's coarse states, ``coarse=False``
    the engine's abstracted states (see the module docstring)."""

    __slots__ = ("coarse", "counts", "events", "moves", "own", "positions")

    def __init__(self, coarse: bool) -> None:
        self.coarse = coarse
        self.counts = [0, 0]
        self.moves = [0, 0]
        self.events: list[list[tuple[Any, ...]]] = [[], []]
        self.own: list[list[str]] = [[], []]
        self.positions: list[dict[str, str]] = [{}, {}]

    def key(self, state: State, seat: int) -> tuple[Any, ...]:
        """The key of ``seat`` (``coarse_state`` or ``State.abstract_state``)."""
        # One method, loops written out: a key is asked at every decision of every deal.
        events = state.events
        done = self.counts[seat]
        if done < len(events):
            mine = self.events[seat]
            known = self.positions[seat]
            if self.coarse:
                cardish = _CARDISH
                for vis, kind, who, data in events[done:]:
                    if vis != PUBLIC and vis != seat:
                        continue
                    mine.append((kind, who) if kind in cardish else (kind, who, data))
                    if kind == "position":  # as State.known_positions reads it
                        name, holder = data
                        known[name] = position_as_known(holder, seat, vis)
            else:
                labels = state.g.label_of
                for event in events[done:]:
                    vis, kind, who, data = event
                    if vis != PUBLIC and vis != seat:
                        continue
                    if kind != "act" or who != seat:  # own decisions: read from the moves
                        mine.append(named_event(event, labels))
                    if kind == "position":
                        name, holder = data
                        known[name] = position_as_known(holder, seat, vis)
            self.counts[seat] = len(events)
        history = state.history
        start = self.moves[seat]
        if start < len(history):
            own = self.own[seat]
            coarse = self.coarse
            for move in history[start:]:
                if move.seat == seat:
                    own.append(coarse_action(move.action) if coarse else move.action)
            self.moves[seat] = len(history)
        if self.coarse:
            return (
                state.phase_id,
                state.legal_actions(),
                len(state.hands[seat]),
                tuple(self.own[seat][-3:]),
                tuple(self.events[seat]),
                tuple(sorted(self.positions[seat].items())),
            )
        label = state.g.label_of
        stacks = state.stacks
        return (
            state.phase_id,
            state.legal_actions() if state.current_player == seat else (),
            tuple(sorted(label[c] for c in state.hands[seat])),
            tuple(self.own[seat][-3:]),
            stacks[seat],
            stacks[1 - seat],
            state.pot(),
            tuple(label[c] for c in state.board),
            tuple(self.events[seat]),
            tuple(sorted(self.positions[seat].items())),
        )
