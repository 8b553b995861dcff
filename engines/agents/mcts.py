"""``mcts``: OpenSpiel's Monte Carlo tree search bot as a built-in agent (OpenSpiel games only).

Each decision runs OpenSpiel's C++ ``MCTSBot`` (UCT with exploration constant ``uct_c``,
``simulations`` simulations, ``rollouts`` random rollouts per leaf to the end of the game,
MCTS-Solver on) seeded from the seat's generator, so a match is reproducible.  In an imperfect-
information game the bot must not see hidden information: it searches ``worlds`` worlds drawn
consistent with what the seat knows (``engines.openspiel.determinize``), ``simulations //
worlds`` simulations each, and plays the move most of them choose (ties: the first in menu
order).  A perfect-information game is searched once on the real position.

``VERSION`` names the algorithm and OpenSpiel's version; the roster fingerprint includes it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from engines.openspiel.spec import OPEN_SPIEL_VERSION


@dataclass
class MCTSAgent:
    """UCT search with random rollouts (see the module docstring)."""

    name: str = "mcts"
    simulations: int = 100
    rollouts: int = 1
    uct_c: float = 2.0
    worlds: int = 4

    VERSION: ClassVar[str] = f"mcts-1/open_spiel-{OPEN_SPIEL_VERSION}"

    def __post_init__(self) -> None:
        if self.simulations < 1 or self.rollouts < 1 or self.worlds < 1:
            raise ValueError("mcts: simulations, rollouts and worlds must be at least 1")
        if self.uct_c <= 0:
            raise ValueError("mcts: uct_c must be positive")

    def _search(self, game: Any, ps: Any, simulations: int, seed: int) -> int:
        import pyspiel

        evaluator = pyspiel.RandomRolloutEvaluator(self.rollouts, seed)
        bot = pyspiel.MCTSBot(game, evaluator, self.uct_c, simulations, 64, True, seed, False)
        return int(bot.step(ps))

    def act(self, state: Any, seat: int, rng: random.Random) -> str:
        from engines.openspiel.determinize import determinize
        from engines.openspiel.state import OpenSpielState

        if not isinstance(state, OpenSpielState):
            raise ValueError("the mcts agent plays OpenSpiel games (openspiel:...) only")
        names, ids = state.legal_actions(), state.action_ids()
        if len(ids) == 1:
            return names[0]
        game = state.spec.game
        if state.spec.perfect_information:
            return names[
                ids.index(
                    self._search(game, state.ps.clone(), self.simulations, rng.getrandbits(31))
                )
            ]
        history = list(state.ps.history())
        per_world = max(1, self.simulations // self.worlds)
        votes: Counter[int] = Counter()
        for _ in range(self.worlds):
            world = determinize(game, history, seat, rng)
            votes[self._search(game, world, per_world, rng.getrandbits(31))] += 1
        best = max(votes.values())
        return next(n for n, a in zip(names, ids, strict=True) if votes.get(a, 0) == best)
