"""A deal's history, replayed: the explicit-chance steps of a deal rebuild its exact state.

A deal is the sequence of its chance outcomes and actions; replaying that sequence from the
start on the interpreter, in explicit-chance mode, gives back the state it reached.  The
memoised game tree (``engines.gbg.tree``) rebuilds a node's state this way, and the
conformance test (``engines.gbg.conformance``) replays deals with swapped cards to look for
leaks; both import it from here, below them.
"""

from __future__ import annotations

from typing import Any

from engines.gbg.rules import game_rules
from engines.gbg.spec import GameSpec
from engines.gbg.state import State, initial_state

Step = tuple[str, Any]
"""("chance", outcome) or ("action", action string): a deal in explicit-chance form."""


def replay(spec: GameSpec, steps: list[Step]) -> State:
    """Replay explicit-chance steps from the start; raises ``ValueError`` if one is illegal."""
    state = initial_state(game_rules(spec), None)
    for kind, value in steps:
        if kind == "chance":
            state.apply_chance(value)
        else:
            state.apply(value)
    return state
