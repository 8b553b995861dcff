"""The six screening axes (Section 4; Appendix C, "Selection basis").

Before computing the five axes, the benchmark is selected by farthest-point sampling on six
cheap preliminary axes computed for every accepted game: state space, temporal depth,
information sensitivity, opponent modelling, risk and brittleness.  They are different
quantities from the five axes even where the names are alike, and serve only the selection.
The paper defines them no further than their names and two facts about the state space; the
definitions below are our choices, each cheap (well under a second of one core per game at
the ``paper`` screening budget) and each a function of random play only:

- ``state_space``: log10 of the distinct coarse information states both seats reach in
  ``random_deals`` uniformly random deals.  A coarse state is the phase, the menu, the number
  of own cards, the last three own decisions, the events seen with the identity of every card
  dropped, and the positions; decisions whose menu offers two or more amounts are not
  counted (as in the paper: amounts not counted, seen cards not told apart).
- ``temporal_depth``: the mean, over decisions with two or more legal actions, of the number
  of such decisions (either seat) still to come in the same deal.
- ``information_sensitivity``: the share of the variance of Alice's chip lead under random
  play that is due to the cards: ``card_deals`` card orders, each played
  ``plays_per_card_deal`` times with fresh random moves; the between-card-order variance
  component over the total (one-way random effects, floored at 0).
- ``opponent_modelling``: the share of the variance of an L0 seat's chip lead due to which of
  ``opponents`` unranked Dirichlet(1) strategies it meets, each on the same
  ``deals_per_opponent`` deals (two-way layout, opponent variance component over the total).
- ``risk``: the standard deviation of the chip lead under random play divided by the chips
  in play (twice the stack).
- ``brittleness``: the mean absolute change of the chip lead when one uniformly chosen
  decision of a random deal is replaced by another legal action, the cards and later random
  moves unchanged, divided by the standard deviation of the chip lead.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from engines.axes.budgets import ScreeningBudget
from engines.axes.menus import amount_of, coarse_action, reduce_menu
from engines.axes.play import (
    ACTION,
    CARD,
    Chance,
    Policy,
    Stream,
    chip_lead,
    draw_chance,
    fixed_chance_tree,
    node_lead,
    play_out,
    play_traced,
    play_tree,
    resolve_chance,
    stream_length,
)
from engines.axes.population import L0, strategy, strategy_seeds
from engines.axes.worlds import replay_steps
from engines.backend import kernel_plays
from engines.gbg.batch_random import coarse_random_play, l0_rollouts
from engines.gbg.engine import CARD_EVENTS, CHANCE, PAIR_EVENTS, PUBLIC, State, new_deal
from engines.gbg.rng import derive_seed, derive_seeds
from engines.gbg.spec import GameSpec
from engines.tasks import InlinePool, TaskPool, TaskResult, cycle_collection_paused

SCREENING_AXES = (
    "state_space",
    "temporal_depth",
    "information_sensitivity",
    "opponent_modelling",
    "risk",
    "brittleness",
)
MAX_AMOUNTS = 10**6  # screening plays over the full menu


_CARDISH = CARD_EVENTS | PAIR_EVENTS | {"show"}


def coarse_state(state: State, seat: int) -> tuple[Any, ...]:
    """The screening run's state of ``seat`` (see the module docstring); the reference that
    ``_random_play_incremental`` (and ``engines.axes.keys.DealKeys``) build incrementally."""
    cardish = _CARDISH
    events = tuple(
        (kind, who) if kind in cardish else (kind, who, data)
        for vis, kind, who, data in state.events
        if vis in (PUBLIC, seat)
    )
    own = tuple(coarse_action(m.action) for m in state.history if m.seat == seat)[-3:]
    return (
        state.phase_id,
        state.legal_actions(),
        len(state.hands[seat]),
        own,
        events,
        tuple(sorted(state.known_positions(seat).items())),
    )


@lru_cache(maxsize=65_536)
def _offers_amounts(menu: tuple[str, ...]) -> bool:
    return sum(amount_of(a) is not None for a in menu) >= 2


def _random_play(spec: GameSpec, deals: int, seed: int) -> dict[str, float]:
    """State space, temporal depth and risk from uniformly random deals: on the kernel
    (``batch_random.coarse_random_play``: the same deals, moves and states), or on the
    interpreter (the ``reference`` backend, and the path of a game the kernel hands back
    because the interpreter raises on it)."""
    rng = random.Random(derive_seed(seed, 0x5C1))
    if kernel_plays():
        played = coarse_random_play(spec, derive_seeds(seed, 0x5C2, count=deals), rng)
        if played is not None:
            multi = played.multi
            # Each deal's later choices, c - 1 down to 0, in the reference's order.
            counts = np.repeat(multi, multi)
            firsts = np.repeat(np.cumsum(multi) - multi, multi)
            later = counts - 1 - (np.arange(len(counts)) - firsts)
            total = played.distinct[0] + played.distinct[1]
            return _random_play_axes(spec, total, later, 2 * played.returns)
    seen: tuple[set[Any], set[Any]] = (set(), set())
    later_list: list[int] = []
    leads: list[int] = []
    for k in range(deals):
        state = new_deal(spec, derive_seed(seed, 0x5C2, k), tree=False)
        choices = 0
        while state.current_player >= 0:
            seat = state.current_player
            menu = state.legal_actions()
            if not _offers_amounts(menu):
                seen[seat].add(coarse_state(state, seat))  # the reference: the whole deal
            if len(menu) > 1:
                choices += 1
            state.apply(rng.choice(menu))
        later_list.extend(range(choices - 1, -1, -1))
        leads.append(chip_lead(state, 0))
    return _random_play_axes(spec, len(seen[0]) + len(seen[1]), later_list, leads)


def _random_play_axes(
    spec: GameSpec,
    states: int,
    later: Sequence[int] | np.ndarray,
    leads: Sequence[int] | np.ndarray,
) -> dict[str, float]:
    """The three figures from the states counted, each choice's later choices and Alice's
    chip leads (the same floats from a list or an array of the same integers)."""
    return {
        "state_space": math.log10(states) if states else 0.0,
        "temporal_depth": float(np.mean(later)) if len(later) else 0.0,
        "risk": float(np.std(leads)) / (2 * spec.stack),
    }


def _variance_share(groups: np.ndarray) -> float:
    """One-way random effects: the between-group variance component over the total
    (rows are groups, columns replicates), floored at 0."""
    g, r = groups.shape
    means = groups.mean(axis=1)
    within = float(((groups - means[:, None]) ** 2).sum()) / (g * (r - 1))
    between = float(((means - means.mean()) ** 2).sum()) / (g - 1)
    component = max(0.0, between - within / r)
    total = component + within
    return component / total if total > 0 else 0.0


def _rotated(values: list[float], start: int) -> list[float]:
    """``values`` read from ``start`` on, cyclically (what a ``Stream`` at ``start`` reads)."""
    start %= len(values)
    return values[start:] + values[:start]


def _l0_leads(
    spec: GameSpec,
    starts: list[State],
    futures: list[tuple[list[int], list[float], list[float]]],
    jobs: list[tuple[int, str]],
) -> list[int] | None:
    """Alice's chip lead in each job's deal finished with both seats L0 over the full menu
    (``batch_random.l0_rollouts``: ``play_out`` from the start, its action played first);
    None when a deal needs the interpreter."""
    if not jobs:
        return []
    returns = l0_rollouts(spec, starts, futures, jobs, MAX_AMOUNTS)
    # Zero-sum: Bob's return is minus Alice's, so her lead is twice her return.
    return None if returns is None else [2 * int(r) for r in returns.tolist()]


def _information_sensitivity(spec: GameSpec, budget: ScreeningBudget, seed: int) -> float:
    rng = np.random.default_rng(derive_seed(seed, 0x5C3))
    length = stream_length(spec)
    plays = budget.plays_per_card_deal
    draws = []
    for _ in range(budget.card_deals):
        chance = draw_chance(spec, rng)
        draws.append((chance, [rng.random(length).tolist() for _ in range(plays)]))
    leads = np.empty((budget.card_deals, plays))
    interpreted = not kernel_plays()  # the reference: interpret every play
    if not interpreted and _information_on_kernel(spec, draws, leads):
        return _variance_share(leads)
    for i, (chance, moves) in enumerate(draws):
        # The plays of one card order walk one fixed-chance tree (engines.gbg.fixed_chance).
        tree = fixed_chance_tree(new_deal(spec, explicit_chance=True), chance.rank, chance.aux)
        for j, uniforms in enumerate(moves):
            if interpreted:
                state = new_deal(spec, explicit_chance=True)
                moves_j = Stream(uniforms)
                play_out(state, (L0, L0), chance.rank, chance.stream(), moves_j, MAX_AMOUNTS)
                leads[i, j] = chip_lead(state, 0)
                continue
            end = play_tree(tree, tree.root, (L0, L0), uniforms, MAX_AMOUNTS)
            leads[i, j] = node_lead(end, 0)
        tree.release()
    return _variance_share(leads)


def _information_on_kernel(
    spec: GameSpec, draws: list[tuple[Chance, list[list[float]]]], leads: np.ndarray
) -> bool:
    """Fill ``leads`` with the plays ``play_out`` would play, on the kernel: each card
    order is interpreted to its first decision with two or more actions (chance and forced
    moves draw no move uniform), the first move is chosen there, and the kernel plays
    the rest of every play in one call.  False (``leads`` to be refilled) when a deal needs
    the interpreter."""
    starts: list[State] = []
    futures: list[tuple[list[int], list[float], list[float]]] = []
    jobs: list[tuple[int, str]] = []
    cells: list[tuple[int, int]] = []
    for i, (chance, moves) in enumerate(draws):
        state = new_deal(spec, explicit_chance=True)
        aux = chance.stream()
        while True:
            seat = state.current_player
            if seat == CHANCE:
                resolve_chance(state, chance.rank, aux)
            elif seat >= 0 and len(state.legal_actions()) == 1:
                state.apply(state.legal_actions()[0])
            else:
                break
        if state.current_player < 0:  # no choice in this card order
            leads[i, :] = chip_lead(state, 0)
            continue
        menu = reduce_menu(state.legal_actions(), MAX_AMOUNTS)
        rest = _rotated(chance.aux, aux.index)
        for j, uniforms in enumerate(moves):
            starts.append(state)
            futures.append((chance.rank, rest, _rotated(uniforms, 1)))
            jobs.append((len(starts) - 1, L0.choose_blind(menu, uniforms[0])))
            cells.append((i, j))
    found = _l0_leads(spec, starts, futures, jobs)
    if found is None:
        return False
    for (i, j), lead in zip(cells, found, strict=True):
        leads[i, j] = lead
    return True


def _opponent_modelling(spec: GameSpec, budget: ScreeningBudget, seed: int) -> float:
    rng = np.random.default_rng(derive_seed(seed, 0x5C4))
    interpreted = not kernel_plays()  # the reference: interpret every play
    length = stream_length(spec)
    opponents = [strategy(s) for s in strategy_seeds(derive_seed(seed, 0x5C5), budget.opponents)]
    deals = [
        (draw_chance(spec, rng), rng.random(length).tolist())
        for _ in range(budget.deals_per_opponent)
    ]
    leads = np.empty((len(opponents), len(deals)))
    for d, (chance, uniforms) in enumerate(deals):
        # Every opponent meets this deal: one fixed-chance tree (engines.gbg.fixed_chance).
        tree = fixed_chance_tree(new_deal(spec, explicit_chance=True), chance.rank, chance.aux)
        seat = d % 2
        for o, opponent in enumerate(opponents):
            policies: list[Policy] = [L0, L0]
            policies[1 - seat] = opponent
            if interpreted:
                state = new_deal(spec, explicit_chance=True)
                moves = Stream(uniforms)
                play_out(state, policies, chance.rank, chance.stream(), moves, MAX_AMOUNTS)
                leads[o, d] = chip_lead(state, seat)
                continue
            end = play_tree(tree, tree.root, policies, uniforms, MAX_AMOUNTS)
            leads[o, d] = node_lead(end, seat)
        tree.release()
    # Two-way layout (opponent x deal, common deals): the opponent variance component.
    n_o, n_d = leads.shape
    grand = leads.mean()
    by_opponent = leads.mean(axis=1)
    by_deal = leads.mean(axis=0)
    residual = leads - by_opponent[:, None] - by_deal[None, :] + grand
    ms_res = float((residual**2).sum()) / ((n_o - 1) * (n_d - 1))
    ms_opp = n_d * float(((by_opponent - grand) ** 2).sum()) / (n_o - 1)
    ms_deal = n_o * float(((by_deal - grand) ** 2).sum()) / (n_d - 1)
    var_opp = max(0.0, (ms_opp - ms_res) / n_d)
    var_deal = max(0.0, (ms_deal - ms_res) / n_o)
    total = var_opp + var_deal + ms_res
    return var_opp / total if total > 0 else 0.0


def _brittleness(spec: GameSpec, budget: ScreeningBudget, seed: int) -> float:
    rng = np.random.default_rng(derive_seed(seed, 0x5C6))
    length = stream_length(spec)
    changes, leads = [], []
    for _ in range(budget.brittleness_deals):
        chance = draw_chance(spec, rng)
        uniforms = rng.random(length).tolist()
        state, trace = play_traced(spec, (L0, L0), chance, Stream(uniforms), MAX_AMOUNTS)
        lead = chip_lead(state, 0)
        leads.append(lead)
        options = [
            i
            for i, kind in enumerate(trace.kinds)
            if kind == ACTION and len(trace.menus[i] or ()) > 1
        ]
        if not options:
            changes.append(0.0)
            continue
        at = options[int(rng.integers(len(options)))]
        menu = trace.menus[at] or ()
        others = [a for a in menu if a != trace.steps[at][1]]
        flipped = others[int(rng.integers(len(others)))]
        replay = replay_steps(spec, trace.steps[:at])
        assert replay is not None
        replay.apply(flipped)
        moves = Stream(uniforms)
        moves.index = sum(1 for i in options if i <= at)
        aux = chance.stream()
        aux.index = sum(1 for i in range(at) if trace.kinds[i] not in (ACTION, CARD))
        play_out(replay, (L0, L0), chance.rank, aux, moves, MAX_AMOUNTS)
        changes.append(abs(chip_lead(replay, 0) - lead))
    sd = float(np.std(leads))
    return float(np.mean(changes)) / sd if sd > 0 else 0.0


def screening_axes(spec: GameSpec, budget: ScreeningBudget, seed: int = 0) -> dict[str, float]:
    """The six screening axes of ``spec`` (see the module docstring).

    Information sensitivity and opponent modelling play many deals under one card order:
    they walk fixed-chance trees (``engines.gbg.fixed_chance``), the same deals move for move as
    interpreting them; the random-play count builds its coarse states incrementally
    (``_random_play_incremental``).  The ``reference`` backend does neither."""
    out = _random_play(spec, budget.random_deals, seed)
    out["information_sensitivity"] = _information_sensitivity(spec, budget, seed)
    out["opponent_modelling"] = _opponent_modelling(spec, budget, seed)
    out["brittleness"] = _brittleness(spec, budget, seed)
    return {name: out[name] for name in SCREENING_AXES}


def _screen_chunk(
    games: list[tuple[int, str]], budget_json: str, seed: int
) -> list[dict[str, Any]]:
    budget = ScreeningBudget.model_validate_json(budget_json)
    rows = []
    for game_seed, spec_json in games:
        spec = GameSpec.from_json(spec_json)
        with cycle_collection_paused():
            axes = screening_axes(spec, budget, derive_seed(seed, game_seed))
        rows.append({"seed": game_seed, **axes})
    return rows


def screen_games(
    games: Sequence[tuple[int, str]],
    budget: ScreeningBudget,
    seed: int = 0,
    *,
    pool: TaskPool | None = None,
    chunk: int = 8,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Screening axes for (game seed, spec JSON) pairs, yielded in input order.  Game ``g``
    draws from ``derive_seed(seed, g)``, so a row does not depend on the rest of the pool."""
    pool = pool or InlinePool()
    chunks = [list(games[i : i + chunk]) for i in range(0, len(games), chunk)]
    text = budget.model_dump_json()
    window = 4 * pool.workers if pool.workers > 1 else 1  # in this process: one chunk at a time
    pending = iter(chunks)
    in_flight: list[TaskResult[list[dict[str, Any]]]] = []
    done = 0
    while True:
        while len(in_flight) < window and (part := next(pending, None)) is not None:
            in_flight.append(pool.submit(_screen_chunk, part, text, seed))
        if not in_flight:
            return
        for row in in_flight.pop(0).result():
            done += 1
            if progress:
                progress(done, len(games))
            yield row
