"""Information (Section 3.1): how much a searching player gains from its own cards.

Two depth-limited search players play the same deals against the same opponents.  At each of
its decisions with two or more actions in A(I), a search player

1. samples ``search_worlds`` worlds (``engines.axes.worlds.WorldSampler``): the informed
   player re-deals only the cards it has not seen; the uninformed player also re-deals its own
   private cards (it does not condition its simulated deals on its own hand, but it still
   conditions on everything else it has seen, e.g. a position the rules gave it);
2. values every action of A(I) in every world by playing it and then the rest of the deal with
   L0 for both seats (search depth one decision, then random rollouts: a choice, the paper
   says only "limited-depth search, which chooses each action by simulating the rest of the
   deal"); all actions of a world share its cards and its rollout uniforms;
3. plays the action with the best mean (ties: the earlier action).

The cards of the actual deal are the same for both players, and so are the opponent's uniforms
(common random numbers).  Per seat, ``info_opponents`` opponents are drawn from P_Theta (a
choice: the paper gives 40 deals per opponent but not the number of opponents) and each plays
``info_deals`` deals against both players.  The seat's score is the mean over deals of the
informed player's chip lead minus the uninformed player's, divided by STD_g; seats are
averaged.  Its sampling error is the standard error of the mean paired difference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.axes.budgets import AxisBudget
from engines.axes.menus import reduce_menu
from engines.axes.play import (
    Chance,
    DealTrace,
    InfoKeys,
    Policy,
    Stream,
    chance_outcome,
    chip_lead,
    draw_chance,
    play_out,
    stream_length,
)
from engines.axes.population import L0, Population
from engines.axes.worlds import WorldSampler
from engines.backend import kernel_plays
from engines.gbg.batch_random import l0_rollouts
from engines.gbg.engine import CHANCE, State, new_deal
from engines.gbg.rng import derive_seed
from engines.gbg.spec import GameSpec


@dataclass
class SearchStats:
    """What the search players did: decisions searched, worlds sampled, fallbacks."""

    decisions: int = 0
    worlds: int = 0
    fallbacks: int = 0


def search_choice(
    spec: GameSpec,
    trace: DealTrace,
    state: State,
    seat: int,
    menu: tuple[str, ...],
    rng: np.random.Generator,
    budget: AxisBudget,
    informed: bool,
    stats: SearchStats | None = None,
) -> str:
    """The search player's action at ``state`` (steps 1 to 3 of the module docstring).

    The rollouts of all worlds and actions are played in one call of the kernel
    (``engines.gbg.batch_random.l0_rollouts``: ``play_out``'s deals, move for move); the
    ``reference`` backend of ``engines.backend`` interprets each (the tests compare)."""
    upto = len(trace)
    sampler = WorldSampler(
        spec,
        trace,
        upto,
        seat,
        condition_on_own_hand=informed,
        attempts=budget.world_attempts,
        reference=state,
        menu=menu,
    )
    worlds = [sampler.draw(rng) for _ in range(budget.search_worlds)]
    uniforms = rng.random((len(worlds), stream_length(spec)))
    if stats is not None:
        stats.decisions += 1
        stats.worlds += len(worlds)
        stats.fallbacks += sum(w.fallback for w in worlds)
    if kernel_plays():
        returns = l0_rollouts(
            spec,
            [world.state for world in worlds],
            [(world.chance.rank, world.chance.aux, uniforms[w]) for w, world in enumerate(worlds)],
            [(w, world.actions[action]) for w, world in enumerate(worlds) for action in menu],
            budget.max_amounts,
        )
        if returns is not None:
            # Alice's returns (zero-sum): her chip lead is twice her return, Bob's minus it.
            leads = (2 if seat == 0 else -2) * returns.reshape(len(worlds), len(menu))
            return menu[int(np.argmax(leads.sum(axis=0)))]
    totals = np.zeros(len(menu))
    rollout: list[Policy] = [L0, L0]
    for w, world in enumerate(worlds):  # the reference (or a deal the loop cannot play)
        moves = uniforms[w].tolist()
        for a, action in enumerate(menu):
            replay = world.state.clone()
            replay.apply(world.actions[action])
            play_out(
                replay,
                rollout,
                world.chance.rank,
                world.chance.stream(),
                Stream(moves),
                budget.max_amounts,
            )
            totals[a] += chip_lead(replay, seat)
    return menu[int(np.argmax(totals))]


def search_deal(
    spec: GameSpec,
    seat: int,
    opponent: Policy,
    chance: Chance,
    opponent_uniforms: list[float],
    search_seed: int,
    budget: AxisBudget,
    informed: bool,
    stats: SearchStats | None = None,
) -> int:
    """One deal of a search player in ``seat`` against ``opponent``; its chip lead."""
    state = new_deal(spec, explicit_chance=True)
    trace = DealTrace()
    aux = chance.stream()
    moves = Stream(opponent_uniforms)
    keys = InfoKeys(state.g.label_of)
    keyed = getattr(opponent, "choose_keyed", None)
    searched = 0
    while True:
        player = state.current_player
        if player >= 0:
            legal = state.legal_actions()
            if len(legal) == 1:
                trace.action(state, legal[0])
                continue
            menu = reduce_menu(legal, budget.max_amounts)
            if player == seat:
                rng = np.random.default_rng(derive_seed(search_seed, searched))
                searched += 1
                action = search_choice(
                    spec,
                    trace,
                    state,
                    seat,
                    menu,
                    rng,
                    budget,
                    informed,
                    stats,
                )
            elif keyed is not None:
                action = keyed(keys.key(state, player), menu, moves.next())
            else:
                action = opponent.choose(state, player, menu, moves.next())
            trace.action(state, action)
        elif player == CHANCE:
            trace.chance(state, chance_outcome(state, chance.rank, aux))
        else:
            return chip_lead(state, seat)


def information_opponent(seed: int, seat: int, index: int) -> int:
    """The seed that draws opponent ``index`` of ``seat`` and its deals."""
    return derive_seed(seed, 0x1F0, seat, index)


def information_differences(
    spec: GameSpec,
    population: Population,
    budget: AxisBudget,
    seed: int,
    seat: int,
    index: int,
    stats: SearchStats | None = None,
) -> list[float]:
    """Informed minus uninformed chip lead per deal, against opponent ``index`` of ``seat``
    (the ``reference`` backend: every rollout interpreted)."""
    rng = np.random.default_rng(information_opponent(seed, seat, index))
    opponent = population.opponent(float(rng.random()))
    length = stream_length(spec)
    out = []
    for deal in range(budget.info_deals):
        chance = draw_chance(spec, rng)
        uniforms = rng.random(length).tolist()
        search_seed = derive_seed(seed, 0x5EA, seat, index, deal)
        leads = [
            search_deal(
                spec,
                seat,
                opponent,
                chance,
                uniforms,
                search_seed,
                budget,
                informed,
                stats,
            )
            for informed in (True, False)
        ]
        out.append(float(leads[0] - leads[1]))
    return out
