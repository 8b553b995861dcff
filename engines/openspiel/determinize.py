"""A world consistent with what one seat knows: hidden chance outcomes drawn afresh.

For a search that must not see the opponent's cards or dice, ``determinize`` replays the
deal's history on a fresh OpenSpiel state.  At each chance node it keeps the seat's information
state as it was: among the outcomes whose resulting information state (for ``seat``) equals the
real one, it draws one with OpenSpiel's probabilities, so an outcome the seat saw (its own
cards, the board) is kept and one it did not see (the opponent's hole cards) is redrawn.  Player
moves are replayed as they were; a world in which one of them is not legal (a redrawn card that
a later public card needs) is thrown away and drawn again.
"""

from __future__ import annotations

import random
from typing import Any

ATTEMPTS = 200


def determinize(game: Any, history: list[int], seat: int, rng: random.Random) -> Any:
    """A pyspiel state with ``history``'s public and ``seat``'s private information."""
    for _ in range(ATTEMPTS):
        real = game.new_initial_state()
        world = game.new_initial_state()
        for action in history:
            if real.is_chance_node():
                real.apply_action(action)
                target = real.information_state_string(seat)
                choices = []
                for outcome, probability in world.chance_outcomes():
                    child = world.child(outcome)
                    if child.information_state_string(seat) == target:
                        choices.append((outcome, probability))
                if not choices:
                    break
                u = rng.random() * sum(p for _, p in choices)
                pick = choices[-1][0]
                for outcome, probability in choices:
                    u -= probability
                    if u < 0:
                        pick = outcome
                        break
                world.apply_action(pick)
            else:
                real.apply_action(action)
                if action not in world.legal_actions():
                    break
                world.apply_action(action)
        else:
            return world
    raise RuntimeError(f"no world consistent with seat {seat}'s information in {ATTEMPTS} draws")
