"""``search``: depth-limited search over sampled worlds (determinised expectimax).

A decision is made in four steps:

1. Sample ``worlds`` complete states consistent with what the seat has seen: the cards it has
   not been shown (the opponent's unseen cards, the deck, cards set aside face down) are
   shuffled among the same places, and an opponent's sealed choice in a simultaneous round or
   auction is redrawn uniformly from its menu.  Each world gets its own chance generator, so
   future cards differ between worlds.  (Approximation, as in any determinised search: a
   hidden position already assigned keeps its holder.)
2. In each world, value every legal action by expectimax down to ``depth`` decisions (this
   one included): the seat takes the best action at its own nodes, the opponent is modelled as
   uniform random, and chance follows the world's generator.  Every action of a world is
   searched from the same generator state (common random numbers).
3. Beyond the depth limit, a node is valued by ``rollouts`` uniformly random playouts to the
   end of the deal; the value of a terminal node is the seat's chip change.
4. Play the action with the best mean value over worlds (ties: the earlier action in the menu).

All draws (worlds, playouts) come from the generator the harness passes in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engines.gbg.engine import State
from engines.gbg.phases import SecretChoiceHandler
from engines.gbg.rng import DealRng


def interpreter_state(state: State) -> State:
    """The interpreter ``State`` behind ``state`` (a tree-compiled deal keeps one per node)."""
    interpreter = getattr(state, "interpreter", None)
    if callable(interpreter):
        base = interpreter()
        assert isinstance(base, State)
        return base
    return state


def sample_world(state: State, seat: int, rng: random.Random) -> State:
    """A copy of ``state`` with what ``seat`` has not seen redrawn (step 1 of the docstring)."""
    base = interpreter_state(state)
    world = base.clone()
    known = base.known_cards(seat)
    opp = 1 - seat
    hand_slots = [i for i, c in enumerate(world.hands[opp]) if c not in known]
    top_slots = [i for i, c in enumerate(world.top) if c not in known]
    pool = [world.hands[opp][i] for i in hand_slots] + [world.top[i] for i in top_slots]
    pool += world.deck
    rng.shuffle(pool)
    for i in hand_slots:
        world.hands[opp][i] = pool.pop()
    for i in top_slots:
        world.top[i] = pool.pop()
    world.deck = sorted(pool)
    handler: Any = world.g.handlers[world.phase] if world.phase >= 0 else None
    if (
        isinstance(handler, SecretChoiceHandler)
        and seat == 1
        and world.selection[0] is not None
        and world.current_player == 1
    ):
        options = handler.menu(world, 0)
        choice = options[rng.randrange(len(options))]
        world.selection[0] = choice
        world.choices[(handler.id, 0)] = choice
    world._rng = DealRng(rng.getrandbits(64))
    return world


@dataclass
class SearchAgent:
    """Depth-limited expectimax over sampled worlds (see the module docstring)."""

    name: str = "search"
    depth: int = 2
    worlds: int = 8
    rollouts: int = 1

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise ValueError(f"search depth must be at least 1, got {self.depth}")
        if self.worlds < 1:
            raise ValueError(f"search worlds must be at least 1, got {self.worlds}")
        if self.rollouts < 1:
            raise ValueError(f"search rollouts must be at least 1, got {self.rollouts}")

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        totals = [0.0] * len(legal)
        for _ in range(self.worlds):
            world = sample_world(state, seat, rng)
            for i, value in enumerate(self.action_values(world, seat, rng)):
                totals[i] += value
        best = max(range(len(legal)), key=lambda i: (totals[i], -i))
        return legal[best]

    def action_values(self, world: State, seat: int, rng: random.Random) -> list[float]:
        """The expectimax value of each legal action of ``world`` for ``seat``."""
        values = []
        for action in world.legal_actions():
            child = world.clone()
            child.apply(action)
            values.append(self._value(child, seat, self.depth - 1, rng))
        return values

    def _value(self, state: State, seat: int, depth: int, rng: random.Random) -> float:
        if state.current_player < 0:
            return float(state.returns()[seat])
        if depth <= 0:
            return self._rollout_value(state, seat, rng)
        values = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            values.append(self._value(child, seat, depth - 1, rng))
        if state.current_player == seat:
            return max(values)
        return sum(values) / len(values)

    def _rollout_value(self, state: State, seat: int, rng: random.Random) -> float:
        total = 0
        for _ in range(self.rollouts):
            playout = state.clone()
            if playout._rng is not None:
                playout._rng = DealRng(rng.getrandbits(64))
            while playout.current_player >= 0:
                legal = playout.legal_actions()
                playout.apply(legal[rng.randrange(len(legal))])
            total += playout.returns()[seat]
        return total / self.rollouts
