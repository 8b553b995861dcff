"""State space (Section 3.1; Appendix C, "State space").

log10 of the summed number of distinct information states the two players reach in
``state_space_deals`` deals (3,000 in the paper) in which both move uniformly at random over
all legal actions, every legal amount included.  A state is the engine's abstracted state
(``State.abstract_state``): the decision (phase and menu), the player's own hand, its last
three decisions, its chips, everything it has been shown (events, board, pot) and the
positions.  Choice: every node where the player is to move counts, forced moves included.  The
count is a lower bound on the number of reachable states.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from engines.axes.play import named_event
from engines.gbg.engine import PUBLIC, State, new_deal
from engines.gbg.rng import derive_seed
from engines.gbg.spec import GameSpec
from engines.gbg.state import position_as_known


@dataclass(frozen=True)
class StateSpace:
    """The axis value and the distinct states found per seat."""

    log10_states: float
    states: tuple[int, int]
    deals: int


class AbstractKeys:
    """``State.abstract_state`` of one deal, built incrementally: each call names only the
    events and moves added since the last one (equal to ``abstract_state``, which the tests
    check)."""

    __slots__ = ("counts", "moves", "own", "positions", "shown")

    def __init__(self) -> None:
        self.counts = [0, 0]
        self.moves = [0, 0]
        self.shown: list[list[tuple[Any, ...]]] = [[], []]
        self.own: list[list[str]] = [[], []]
        self.positions: list[dict[str, str]] = [{}, {}]

    def key(self, state: State, seat: int) -> tuple[Any, ...]:
        label = state.g.label_of
        events = state.events
        done = self.counts[seat]
        if done < len(events):
            shown = self.shown[seat]
            known = self.positions[seat]
            for event in events[done:]:
                vis, kind, who, data = event
                if vis != PUBLIC and vis != seat:
                    continue
                if not (kind == "act" and who == seat):
                    shown.append(named_event(event, label))
                if kind == "position":  # as State.known_positions reads it
                    name, holder = data
                    known[name] = position_as_known(holder, seat, vis)
            self.counts[seat] = len(events)
        history = state.history
        start = self.moves[seat]
        if start < len(history):
            own = self.own[seat]
            own.extend(m.action for m in history[start:] if m.seat == seat)
            self.moves[seat] = len(history)
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
            tuple(self.shown[seat]),
            tuple(sorted(self.positions[seat].items())),
        )


def state_space(spec: GameSpec, deals: int, seed: int, *, interpreted: bool = False) -> StateSpace:
    """Count abstracted information states over ``deals`` uniformly random deals (the keys
    built incrementally; ``interpreted=True`` asks the state for each, the reference)."""
    rng = random.Random(derive_seed(seed, 0x55A))
    seen: tuple[set[Any], set[Any]] = (set(), set())
    for k in range(deals):
        state = new_deal(spec, derive_seed(seed, 0x55B, k), tree=False)
        keys = AbstractKeys()
        while state.current_player >= 0:
            seat = state.current_player
            seen[seat].add(state.abstract_state(seat) if interpreted else keys.key(state, seat))
            state.apply(rng.choice(state.legal_actions()))
    counts = (len(seen[0]), len(seen[1]))
    total = counts[0] + counts[1]
    return StateSpace(math.log10(total) if total else 0.0, counts, deals)
