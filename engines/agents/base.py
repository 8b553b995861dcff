"""The agent protocol: given a deal and a seat to move, return one of the legal actions.

Chance is explicit: an agent draws only from the generator it is handed, so a match is
reproducible from its seeds.
"""

from __future__ import annotations

import random
from typing import Protocol

from engines.gbg.engine import State


class Agent(Protocol):
    """Chooses a legal action for ``seat`` in ``state`` using only ``rng`` for chance."""

    name: str

    def act(self, state: State, seat: int, rng: random.Random) -> str: ...
