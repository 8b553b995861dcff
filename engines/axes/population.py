"""The population of simple policies the axes simulate with (Appendix C, "Population").

``L0`` is the uniform random policy over A(I).  Strategy ``j`` of the population has one
Dirichlet(1) mixture over A(I) per information state, drawn lazily the first time the state is
met from a generator seeded by (strategy seed, information state): the mixture is a pure
function of those two and of the menu, identical in every process whatever order states are
visited in.  The mixture is ``engines.agents.dirichlet.DirichletStrategy``'s (A independent
Exp(1) draws from ``random.Random(derive_seed(seed, sha256(state)[:8]))``, normalised), so a
strategy seed means the same strategy to the axes and to the tournament's population agent;
the axes apply it to A(I), the reduced menu, where that agent uses the full menu (they differ
only on menus of more than six amounts), and sample it with an injected uniform (common random
numbers across replays) instead of a generator.

Ranking: the ``population_size`` strategies play ``ranking_deals`` deals each against L0, seats
alternating, every strategy on the same deals (the same card orders and the same L0 uniforms);
the ``tier1_size`` best by mean chip lead are tier 1 (ties keep population order).  Opponents
are drawn from P_Theta (L0 with weight 1/3, else a uniform tier-1 member) and a seat's own
later play from P_K (L0 with weight 1/4, else a uniform tier-1 member).

``STD_g`` (Appendix C, "Objects") is the standard deviation of the chip lead in a deal between
two members of the population, averaged over random pairs.  Choice: both members of a pair are
drawn from P_Theta, and each pair plays ``std_deals`` deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engines.agents.dirichlet import DirichletStrategy
from engines.axes.budgets import AxisBudget
from engines.axes.play import (
    Policy,
    Stream,
    chip_lead,
    draw_chance,
    fixed_chance_tree,
    node_lead,
    pick_from,
    play_out,
    play_tree,
    stream_length,
)
from engines.backend import kernel_plays
from engines.gbg.engine import State, new_deal
from engines.gbg.rng import derive_seed
from engines.gbg.spec import GameSpec


class Uniform:
    """L0: every action of A(I) equally likely."""

    name = "L0"

    def choose(self, state: State, seat: int, menu: tuple[str, ...], u: float) -> str:
        return menu[int(u * len(menu))]

    def choose_blind(self, menu: tuple[str, ...], u: float) -> str:
        """The same choice, which needs no state."""
        return menu[int(u * len(menu))]


L0 = Uniform()


class Dirichlet:
    """Population strategy ``seed``: a Dirichlet(1) mixture per information state, drawn by
    ``engines.agents.dirichlet.DirichletStrategy`` and sampled with an injected uniform."""

    __slots__ = ("_strategy", "name", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.name = f"dirichlet-{seed:016x}"
        self._strategy = DirichletStrategy(seed)

    def mixture(self, info_state: str, menu: Sequence[str]) -> tuple[float, ...]:
        """The probabilities over ``menu`` at ``info_state`` (drawn on first use, memoised)."""
        return self._strategy.mixture(info_state, menu)

    def choose(self, state: State, seat: int, menu: tuple[str, ...], u: float) -> str:
        return self.choose_keyed(state.information_state(seat), menu, u)

    def choose_keyed(self, info_state: str, menu: tuple[str, ...], u: float) -> str:
        """The action the uniform ``u`` picks from the mixture at ``info_state``."""
        return pick_from(menu, self._strategy.mixture(info_state, menu), u)


_STRATEGIES: dict[int, Dirichlet] = {}


def strategy(seed: int) -> Dirichlet:
    """Population strategy ``seed`` (one object per process, so its memo is shared)."""
    found = _STRATEGIES.get(seed)
    if found is None:
        if len(_STRATEGIES) > 4_096:
            _STRATEGIES.clear()
        found = _STRATEGIES[seed] = Dirichlet(seed)
    return found


def forget_strategies() -> None:
    """Drop every memoised mixture (between games, to bound memory)."""
    _STRATEGIES.clear()


def strategy_seeds(population_seed: int, size: int) -> list[int]:
    """The seeds of the ``size`` strategies of population ``population_seed``."""
    return [derive_seed(population_seed, 0x5EED, j) for j in range(size)]


@dataclass(frozen=True)
class Population:
    """A ranked population: every member's seed and score, and tier 1 (best first)."""

    seed: int
    members: tuple[int, ...]
    scores: tuple[float, ...]
    tier1: tuple[int, ...]
    opponent_l0_weight: float
    continuation_l0_weight: float

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt through the constructor: compiled (arena/compiled_engine.py), a frozen
        # dataclass cannot be unpickled by setting its fields one by one.
        return (
            Population,
            (
                self.seed,
                self.members,
                self.scores,
                self.tier1,
                self.opponent_l0_weight,
                self.continuation_l0_weight,
            ),
        )

    def _draw(self, l0_weight: float, u: float) -> Policy:
        if u < l0_weight:
            return L0
        v = (u - l0_weight) / (1.0 - l0_weight)
        return strategy(self.tier1[min(int(v * len(self.tier1)), len(self.tier1) - 1)])

    def opponent(self, u: float) -> Policy:
        """A draw from P_Theta given a uniform ``u``."""
        return self._draw(self.opponent_l0_weight, u)

    def continuation(self, u: float) -> Policy:
        """A draw from P_K given a uniform ``u``."""
        return self._draw(self.continuation_l0_weight, u)


def ranking_deals(spec: GameSpec, population_seed: int, deals: int) -> list[tuple[int, int]]:
    """The common deals of the ranking: (chance seed, L0 move seed) per deal."""
    return [
        (derive_seed(population_seed, 0xDEA1, k), derive_seed(population_seed, 0x10, k))
        for k in range(deals)
    ]


def score_against_l0(
    spec: GameSpec, seed: int, deals: Sequence[tuple[int, int]], max_amounts: int
) -> float:
    """Mean chip lead of strategy ``seed`` against L0 over ``deals``, seats alternating."""
    return scores_against_l0(spec, [seed], deals, max_amounts)[0]


def scores_against_l0(
    spec: GameSpec,
    seeds: Sequence[int],
    deals: Sequence[tuple[int, int]],
    max_amounts: int,
) -> list[float]:
    """``score_against_l0`` of every strategy in ``seeds``.  Every member plays the same deals,
    so each deal is a ``FixedChanceTree`` (``engines.gbg.fixed_chance``) the members walk in turn:
    the same deals, move for move, as interpreting each (the ``reference`` backend of
    ``engines.backend``, which the tests compare with)."""
    members = [strategy(s) for s in seeds]
    length = stream_length(spec)
    totals = [0] * len(members)
    memoised = kernel_plays()
    for k, (chance_seed, move_seed) in enumerate(deals):
        chance = draw_chance(spec, np.random.default_rng(chance_seed))
        uniforms = np.random.default_rng(move_seed).random(length).tolist()
        seat = k % 2
        start = new_deal(spec, explicit_chance=True)
        tree = fixed_chance_tree(start, chance.rank, chance.aux) if memoised else None
        for j, member in enumerate(members):
            policies: list[Policy] = [L0, L0]
            policies[seat] = member
            if tree is None:
                state = start.clone()
                play_out(
                    state, policies, chance.rank, chance.stream(), Stream(uniforms), max_amounts
                )
                totals[j] += chip_lead(state, seat)
            else:
                end = play_tree(tree, tree.root, policies, uniforms, max_amounts)
                totals[j] += node_lead(end, seat)
        if tree is not None:
            tree.release()
    return [t / len(deals) if deals else 0.0 for t in totals]


def rank(
    seeds: Sequence[int], scores: Sequence[float], keep: int
) -> tuple[tuple[int, ...], tuple[float, ...], tuple[int, ...]]:
    """Members, scores and the ``keep`` best seeds (ties keep population order)."""
    order = sorted(range(len(seeds)), key=lambda i: (-scores[i], i))
    return tuple(seeds), tuple(scores), tuple(seeds[i] for i in order[:keep])


def build_population(
    spec: GameSpec, budget: AxisBudget, population_seed: int, scores: Sequence[float] | None = None
) -> Population:
    """Draw and rank the population (``scores`` may be precomputed, e.g. in parallel)."""
    if not 0 < budget.tier1_size <= budget.population_size:
        raise ValueError(
            f"tier 1 keeps between 1 and {budget.population_size} strategies, "
            f"got {budget.tier1_size}"
        )
    seeds = strategy_seeds(population_seed, budget.population_size)
    if scores is None:
        deals = ranking_deals(spec, population_seed, budget.ranking_deals)
        scores = scores_against_l0(spec, seeds, deals, budget.max_amounts)
    members, ranked_scores, tier1 = rank(seeds, scores, budget.tier1_size)
    return Population(
        seed=population_seed,
        members=members,
        scores=ranked_scores,
        tier1=tier1,
        opponent_l0_weight=budget.opponent_l0_weight,
        continuation_l0_weight=budget.continuation_l0_weight,
    )


def std_g(spec: GameSpec, population: Population, budget: AxisBudget, seed: int) -> float:
    """STD_g: the mean over random pairs (both from P_Theta) of the standard deviation of the
    chip lead over ``std_deals`` deals of the pair (see the module docstring)."""
    rng = np.random.default_rng(derive_seed(seed, 0x57D))
    length = stream_length(spec)
    sds = []
    for _ in range(budget.std_pairs):
        pair = [population.opponent(float(rng.random())), population.opponent(float(rng.random()))]
        leads = []
        for _ in range(budget.std_deals):
            chance = draw_chance(spec, rng)
            moves = Stream(rng.random(length).tolist())
            state = new_deal(spec, explicit_chance=True)
            play_out(state, pair, chance.rank, chance.stream(), moves, budget.max_amounts)
            leads.append(chip_lead(state, 0))
        sds.append(float(np.std(leads, ddof=1)))
    return float(np.mean(sds))
