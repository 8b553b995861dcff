"""Action values by replays with common random numbers (Appendix C, "Estimation").

At a decision of seat i (a visit drawn from mu_i) every action of A(I) is replayed under the
same contexts: ``continuations`` policies for the seat's own later decisions (drawn from P_K),
``opponents`` (drawn from P_Theta) and ``worlds`` (re-deals of the unseen cards,
``engines.axes.worlds``), all combinations, 4 x 9 x 10 = 360 in the paper.  In context
(k, theta, w) the replay of action a starts from world w's state, plays a, then lets policy k
play the seat and theta its opponent; chance after the decision comes from world w's own card
order and stream, and the players' random choices from a stream drawn for the context.  Every
action therefore meets the same cards and the same uniforms, and the table of chip leads
``values[a, k, theta, w]`` is the input of the temporal, opponent and precision axes.  When
A(I) cut an amount menu, the amounts it left out that neighbour a kept amount on the wager
grid (``engines.axes.menus.grid_extras``: at most four) are replayed under the same contexts
too, in ``extra_values``, for the precision axis alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.axes.budgets import AxisBudget
from engines.axes.decisions import Decision
from engines.axes.menus import grid_extras
from engines.axes.play import (
    DealTrace,
    InfoKeys,
    Policy,
    Stream,
    chip_lead,
    fixed_chance_tree,
    node_lead,
    play_out,
    play_trees,
    stream_length,
)
from engines.axes.population import Population
from engines.axes.worlds import World, WorldSampler, replay_steps
from engines.backend import kernel_plays
from engines.gbg.rng import derive_seed
from engines.gbg.spec import GameSpec


@dataclass
class ActionTable:
    """Chip leads of the deciding seat, ``values[a, k, theta, w]`` (float64)."""

    seat: int
    menu: tuple[str, ...]
    values: np.ndarray
    fallbacks: int
    world_attempts: int
    legal: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    extra_values: np.ndarray | None = None

    @property
    def replays(self) -> int:
        extra = 0 if self.extra_values is None else int(self.extra_values.size)
        return int(self.values.size) + extra


def decision_seed(seed: int, decision: Decision) -> int:
    """The seed of one decision's contexts: a function of the run seed and the visit."""
    return derive_seed(seed, 0xAC7, decision.seat, decision.deal, decision.upto)


def action_values(
    spec: GameSpec,
    trace: DealTrace,
    decision: Decision,
    population: Population,
    budget: AxisBudget,
    seed: int,
) -> ActionTable:
    """Replay every action of ``decision`` under the common contexts (module docstring).

    The replays of a world walk one ``FixedChanceTree`` (``engines.gbg.fixed_chance``): the same
    deals, move for move, as interpreting each from the world's state, which the
    ``reference`` backend of ``engines.backend`` does (the tests compare the two)."""
    rng = np.random.default_rng(decision_seed(seed, decision))
    seat = decision.seat
    n_k, n_t, n_w = budget.continuations, budget.opponents, budget.worlds
    continuations = [population.continuation(float(u)) for u in rng.random(n_k)]
    opponents = [population.opponent(float(u)) for u in rng.random(n_t)]
    reference = replay_steps(spec, trace.steps[: decision.upto])
    if reference is None:
        raise ValueError("a recorded decision does not replay")
    menu = decision.menu
    legal = tuple(reference.legal_actions())
    extra = grid_extras(menu, legal)
    actions = menu + extra
    sampler = WorldSampler(
        spec,
        trace,
        decision.upto,
        seat,
        attempts=budget.world_attempts,
        reference=reference,
        menu=actions,
    )
    worlds = [sampler.draw(rng) for _ in range(n_w)]
    moves = rng.random((n_k, n_t, n_w, stream_length(spec)))
    values = np.empty((len(actions), n_k, n_t, n_w))
    max_amounts = budget.max_amounts
    replay = _replay_memoised if kernel_plays() else _replay_interpreted
    for w, world in enumerate(worlds):
        renamed = [world.actions[a] for a in actions]
        contexts = moves[:, :, w]
        replay(
            world, renamed, continuations, opponents, seat, contexts, max_amounts, values[..., w]
        )
    return ActionTable(
        seat=seat,
        menu=menu,
        values=values[: len(menu)],
        fallbacks=sum(w.fallback for w in worlds),
        world_attempts=sum(w.attempts for w in worlds),
        legal=legal,
        extra=extra,
        extra_values=values[len(menu) :],
    )


def _replay_memoised(
    world: World,
    renamed: list[str],
    continuations: list[Policy],
    opponents: list[Policy],
    seat: int,
    moves: np.ndarray,
    max_amounts: int,
    out: np.ndarray,
) -> None:
    """Fill ``out[a, k, t]`` for one world by walking its fixed-chance tree."""
    tree = fixed_chance_tree(world.state, world.chance.rank, world.chance.aux)
    roots = [tree.child(tree.root, action) for action in renamed]
    for k, continuation in enumerate(continuations):
        for t, opponent in enumerate(opponents):
            policies: list[Policy] = [continuation, opponent]
            if seat == 1:
                policies.reverse()
            ends = play_trees(tree, roots, policies, moves[k, t].tolist(), max_amounts)
            out[:, k, t] = [node_lead(end, seat) for end in ends]
    tree.release()


def _replay_interpreted(
    world: World,
    renamed: list[str],
    continuations: list[Policy],
    opponents: list[Policy],
    seat: int,
    moves: np.ndarray,
    max_amounts: int,
    out: np.ndarray,
) -> None:
    """Fill ``out[a, k, t]`` for one world by interpreting every replay (the reference)."""
    start = world.state
    rank, aux = world.chance.rank, world.chance.aux
    keys = InfoKeys(start.g.label_of)  # the world's history, named once for all replays
    keys.key(start, 0)
    keys.key(start, 1)
    for k, continuation in enumerate(continuations):
        for t, opponent in enumerate(opponents):
            policies: list[Policy] = [continuation, opponent]
            if seat == 1:
                policies.reverse()
            uniforms = moves[k, t].tolist()
            for a, action in enumerate(renamed):
                state = start.clone()
                state.apply(action)
                play_out(
                    state, policies, rank, Stream(aux), Stream(uniforms), max_amounts, keys.copy()
                )
                out[a, k, t] = chip_lead(state, seat)
