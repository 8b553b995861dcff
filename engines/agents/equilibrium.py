"""``equilibrium``: an approximate Nash equilibrium strategy, by CFR through OpenSpiel.

For small games only.  Steps:

1. refuse games whose tree (explicit chance, every history) exceeds ``max_histories`` nodes,
   counted by a bounded traversal of the engine before any solving;
2. register the spec with OpenSpiel (``engines.solve.openspiel_bridge.as_pyspiel_game``) and run
   ``iterations`` iterations of CFR+ (OpenSpiel's ``CFRPlusSolver``; Tammelin 2014);
3. keep the average policy as a table: information-state string -> {action: probability}; the
   bridge's information state is the engine's ``State.information_state``, so the table is
   looked up directly during play (cached per spec hash and settings, for the process);
4. at a decision, sample from the table with the harness's generator; an information state the
   table lacks (it cannot happen on the solved game) is played uniformly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engines.gbg.engine import State, new_deal
from engines.gbg.spec import GameSpec

Policy = dict[str, dict[str, float]]

MAX_HISTORIES = 50_000


def count_histories(spec: GameSpec, limit: int) -> int:
    """Nodes of the explicit-chance game tree, or ``limit + 1`` as soon as it has more."""
    stack = [new_deal(spec, explicit_chance=True)]
    count = 0
    while stack:
        state = stack.pop()
        count += 1
        if count > limit:
            return count
        if state.is_terminal():
            continue
        if state.is_chance_node():
            for outcome, _ in state.chance_outcomes():
                child = state.clone()
                child.apply_chance(outcome)
                stack.append(child)
        else:
            for action in state.legal_actions():
                child = state.clone()
                child.apply(action)
                stack.append(child)
    return count


def solve_policy(spec: GameSpec, iterations: int, max_histories: int = MAX_HISTORIES) -> Policy:
    """The CFR+ average policy of ``spec`` as a table (steps 1-3 of the module docstring)."""
    size = count_histories(spec, max_histories)
    if size > max_histories:
        raise ValueError(
            f"game {spec.name!r} is too large for the equilibrium agent (more than "
            f"{max_histories:,} histories); use it on small games such as kuhn"
        )
    from open_spiel.python.algorithms import cfr

    from engines.solve.openspiel_bridge import action_vocabulary, as_pyspiel_game

    game = as_pyspiel_game(spec)
    vocabulary = action_vocabulary(spec)
    solver = cfr.CFRPlusSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    table: Policy = {}
    for info_state, row in average.state_lookup.items():
        probs = average.action_probability_array[row]
        mask = average.legal_actions_mask[row]
        table[str(info_state)] = {
            vocabulary[a]: float(probs[a]) for a in range(len(probs)) if mask[a]
        }
    return table


_POLICIES: dict[tuple[str, int, int], Policy] = {}


def equilibrium_policy(
    spec: GameSpec, iterations: int, max_histories: int = MAX_HISTORIES
) -> Policy:
    """``solve_policy``, cached per (spec hash, iterations, size limit) for the process."""
    key = (spec.spec_hash, iterations, max_histories)
    found = _POLICIES.get(key)
    if found is None:
        found = _POLICIES[key] = solve_policy(spec, iterations, max_histories)
    return found


@dataclass
class EquilibriumAgent:
    """Plays the CFR+ average strategy of the game (see the module docstring)."""

    name: str = "equilibrium"
    iterations: int = 300
    max_histories: int = MAX_HISTORIES
    _tables: dict[str, Policy] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.iterations < 1:
            raise ValueError(f"equilibrium iterations must be positive, got {self.iterations}")
        if self.max_histories < 1:
            raise ValueError(
                f"equilibrium max_histories must be positive, got {self.max_histories}"
            )

    def policy(self, spec: GameSpec) -> Policy:
        table = self._tables.get(spec.spec_hash)
        if table is None:
            table = equilibrium_policy(spec, self.iterations, self.max_histories)
            self._tables[spec.spec_hash] = table
        return table

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        mixture = self.policy(state.spec).get(state.information_state(seat))
        if not mixture:
            return legal[rng.randrange(len(legal))]
        weights = [mixture.get(a, 0.0) for a in legal]
        total = sum(weights)
        if total <= 0:
            return legal[rng.randrange(len(legal))]
        u = rng.random() * total
        acc = 0.0
        for action, w in zip(legal, weights, strict=True):
            acc += w
            if u < acc:
                return action
        return legal[-1]
