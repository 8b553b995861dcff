"""The population of random behaviour strategies (paper, Appendix C, "Population").

Strategy ``j`` has one mixture over the legal actions at each information state, drawn once from
a Dirichlet(1) distribution.  A game has far too many information states to draw them all up
front, so a strategy draws each mixture lazily, the first time it is asked, from a generator
seeded by the strategy's seed and the information-state string: the mixture is a pure function
of (strategy seed, information state, menu), identical in every process, whatever order states
are visited in.  Dirichlet(1) over A actions is A independent Exp(1) draws, normalised.

The 200 strategies are ranked by mean chip lead against L0 (the uniform random policy) over 40
deals; the better half is tier 1.  ``tier1(spec)`` returns the seeds of tier 1 (cached per
spec), and ``PopulationAgent`` plays one member of it.  The axes stage uses the same functions.

API: ``DirichletStrategy(seed).mixture(info_state, legal)``, ``.act(state, seat, rng)``;
``rank_strategies(spec, seeds, deals)``; ``tier1(spec, size, keep, deals, pool_seed)``;
``PopulationAgent(member, ...)``.
"""

from __future__ import annotations

import _random
import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from engines.gbg.engine import State, new_deal
from engines.gbg.rng import derive_seed, splitmix64
from engines.gbg.spec import GameSpec

POPULATION_SIZE = 200
TIER1_SIZE = 100
RANKING_DEALS = 40


@lru_cache(maxsize=65_536)
def _state_key(info_state: str) -> int:
    # Cached: the population's strategies all key the same information states.
    return int.from_bytes(hashlib.sha256(info_state.encode("utf-8")).digest()[:8], "big")


_C_SEED = _random.Random.seed


def _seeded(seed: int) -> random.Random:
    """A generator in the state of ``random.Random(seed)`` for an int ``seed``, without the
    constructor's Python layers (``random.Random.seed`` only checks an int's type before it
    calls the C seed): a mixture is drawn per information state, hundreds of thousands of
    times in one game's axes.  The tests hold it to ``random.Random(seed)``."""
    draw = random.Random.__new__(random.Random)
    _C_SEED(draw, seed)
    return draw


@dataclass
class DirichletStrategy:
    """A behaviour strategy whose mixture at each information state is Dirichlet(1)."""

    seed: int
    name: str = "dirichlet"
    _memo: dict[tuple[str, tuple[str, ...]], tuple[float, ...]] = field(
        default_factory=dict, repr=False
    )
    # derive_seed(seed, k) is splitmix64(stem ^ k) with this stem, computed once
    _stem: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._stem = derive_seed(self.seed)

    def mixture(self, info_state: str, legal: Sequence[str]) -> tuple[float, ...]:
        """The strategy's probabilities over ``legal`` at ``info_state`` (drawn on first use)."""
        key = (info_state, tuple(legal))
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        # derive_seed(self.seed, _state_key(info_state)), its first step done once
        draw = _seeded(splitmix64(self._stem ^ _state_key(info_state)))
        weights = [-math.log(1.0 - draw.random()) for _ in legal]
        total = sum(weights)
        probs = tuple(w / total for w in weights)
        self._memo[key] = probs
        return probs

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        """Sample an action from the mixture at ``seat``'s information state with ``rng``."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        probs = self.mixture(state.information_state(seat), legal)
        u = rng.random()
        acc = 0.0
        for action, p in zip(legal, probs, strict=True):
            acc += p
            if u < acc:
                return action
        return legal[-1]


def strategy_seeds(pool_seed: int, size: int = POPULATION_SIZE) -> list[int]:
    """The seeds of the ``size`` strategies of population ``pool_seed``."""
    return [derive_seed(pool_seed, j) for j in range(size)]


def chip_lead_against_uniform(
    spec: GameSpec, strategy: DirichletStrategy, deals: int, deal_seed: int
) -> float:
    """Mean chip lead of ``strategy`` against L0 over ``deals`` deals, seats alternating.

    The chip lead of a seat is its chip change minus its opponent's.  Deal ``k`` uses play seed
    ``derive_seed(deal_seed, k)`` and the strategy sits Alice on even ``k``; both sides draw
    their moves from one generator seeded by that play seed (common random numbers across
    strategies).
    """
    total = 0
    for k in range(deals):
        play_seed = derive_seed(deal_seed, k)
        rng = random.Random(play_seed)
        seat = k % 2
        state = new_deal(spec, play_seed)
        while state.current_player >= 0:
            if state.current_player == seat:
                action = strategy.act(state, seat, rng)
            else:
                action = rng.choice(state.legal_actions())
            state.apply(action)
        returns = state.returns()
        total += returns[seat] - returns[1 - seat]
    return total / deals if deals else 0.0


def rank_strategies(
    spec: GameSpec, seeds: Sequence[int], deals: int = RANKING_DEALS, deal_seed: int = 0
) -> list[tuple[int, float]]:
    """(seed, mean chip lead against L0), best first; ties keep population order."""
    scored = [
        (seed, chip_lead_against_uniform(spec, DirichletStrategy(seed), deals, deal_seed))
        for seed in seeds
    ]
    order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], i))
    return [scored[i] for i in order]


_TIER1: dict[tuple[str, int, int, int, int], tuple[int, ...]] = {}


def tier1(
    spec: GameSpec,
    size: int = POPULATION_SIZE,
    keep: int = TIER1_SIZE,
    deals: int = RANKING_DEALS,
    pool_seed: int = 0,
) -> tuple[int, ...]:
    """Seeds of the best ``keep`` of ``size`` strategies against L0 (cached per spec hash)."""
    if not 0 < keep <= size:
        raise ValueError(f"tier 1 keeps between 1 and size={size} strategies, got {keep}")
    key = (spec.spec_hash, size, keep, deals, pool_seed)
    cached = _TIER1.get(key)
    if cached is None:
        ranked = rank_strategies(spec, strategy_seeds(pool_seed, size), deals, pool_seed)
        cached = tuple(seed for seed, _ in ranked[:keep])
        _TIER1[key] = cached
    return cached


@dataclass
class PopulationAgent:
    """Plays member ``member`` of the game's tier 1 (ranked on first use for each game)."""

    name: str = "population"
    member: int = 0
    size: int = POPULATION_SIZE
    keep: int = TIER1_SIZE
    deals: int = RANKING_DEALS
    pool_seed: int = 0
    _strategies: dict[str, DirichletStrategy] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not 0 <= self.member < self.keep:
            raise ValueError(f"population member must be in 0..{self.keep - 1}, got {self.member}")
        if not 0 < self.keep <= self.size:
            raise ValueError(f"population keep must be in 1..size={self.size}, got {self.keep}")
        if self.deals < 1:
            raise ValueError(f"population deals must be positive, got {self.deals}")

    def strategy(self, spec: GameSpec) -> DirichletStrategy:
        found = self._strategies.get(spec.spec_hash)
        if found is None:
            seeds = tier1(spec, self.size, self.keep, self.deals, self.pool_seed)
            found = self._strategies[spec.spec_hash] = DirichletStrategy(seeds[self.member])
        return found

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        return self.strategy(state.spec).act(state, seat, rng)
