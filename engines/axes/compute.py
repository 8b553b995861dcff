"""The five axes of one game, with their per-game diagnostics (Section 3.1, Appendix C).

``compute_axes(spec, budget, seed)`` runs, in order:

1. the state-space count (one task) and the ranking of the population against L0 (the
   strategies split into chunks), in parallel;
2. STD_g and the decision distribution mu_i by self-play (in this process), while the
   workers start on the information axis's search deals (one task per seat and opponent:
   they need only the population);
3. the replays of every recorded decision (chunks of decisions), in parallel with the
   search deals still running;
4. the axes (temporal, opponent and precision as means over decisions, information as a mean
   over deals; chip-valued scores divided by STD_g; the four averaged over seats) and their
   diagnostics.

Tasks go to the ``TaskPool`` the caller hands in (``arena.parallel.process_pool``: both cores by
default) or run in this process (no pool); every
task draws only from seeds derived from ``seed`` and its own identity, so the numbers do not
depend on the number of workers or on scheduling.  ``compute_with_rerun`` adds the rerun
diagnostic: the axes again at about two-thirds of the budget from an independent seed (a new
population draw).  When STD_g is 0 (every deal between population members is a tie) the
chip-valued axes are 0 and ``diagnostics["std_g_zero"]`` is true.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.axes.budgets import AxisBudget
from engines.axes.decisions import Decision, decision_distribution
from engines.axes.diagnostics import combine_seats, mean_and_error
from engines.axes.information import SearchStats, information_differences
from engines.axes.names import AXES, SEAT_AXES
from engines.axes.opponent import opponent_variance
from engines.axes.play import DealTrace
from engines.axes.population import (
    Population,
    build_population,
    forget_strategies,
    ranking_deals,
    scores_against_l0,
    std_g,
    strategy_seeds,
)
from engines.axes.precision import precision_loss
from engines.axes.replay import action_values
from engines.axes.state_space import StateSpace, state_space
from engines.axes.temporal import temporal_share
from engines.gbg.rng import derive_seed
from engines.gbg.spec import GameSpec
from engines.tasks import InlinePool, TaskPool, TaskResult, cycle_collection_paused

AXES_VERSION = "2"
"""Bumped whenever a change to this package changes the numbers the axes produce."""

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``, called as tasks finish."""

_SPECS: dict[str, GameSpec] = {}


def _spec(spec_json: str) -> GameSpec:
    found = _SPECS.get(spec_json)
    if found is None:
        if len(_SPECS) > 64:
            _SPECS.clear()
            forget_strategies()
        found = _SPECS[spec_json] = GameSpec.from_json(spec_json)
    return found


@dataclass(frozen=True)
class DecisionScore:
    """The three replay-based scores of one decision (chips where chip-valued)."""

    seat: int
    actions: int
    temporal: float
    opponent: float
    precision: float
    replays: int
    fallbacks: int
    world_attempts: int


@dataclass
class AxisReport:
    """A game's five axes, per-seat values, sampling errors and diagnostics."""

    axes: dict[str, float]
    seats: dict[str, list[float]]
    sampling_error: dict[str, float]
    diagnostics: dict[str, Any] = field(default_factory=dict)
    rerun: dict[str, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (NaN becomes None)."""

        def clean(x: Any) -> Any:
            if isinstance(x, float) and math.isnan(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, list | tuple):
                return [clean(v) for v in x]
            return x

        out: dict[str, Any] = {
            "axes": clean(self.axes),
            "seats": clean(self.seats),
            "sampling_error": clean(self.sampling_error),
            "diagnostics": clean(self.diagnostics),
        }
        if self.rerun is not None:
            out["rerun"] = clean(self.rerun)
        return out


# --- tasks (module-level so that a process pool can run them) ---------------------------------


def _rank_task(
    spec_json: str, seeds: list[int], deals: list[tuple[int, int]], amounts: int
) -> list[float]:
    with cycle_collection_paused():
        return scores_against_l0(_spec(spec_json), seeds, deals, amounts)


def _state_space_task(spec_json: str, deals: int, seed: int) -> StateSpace:
    with cycle_collection_paused():
        return state_space(_spec(spec_json), deals, seed)


def _replay_task(
    spec_json: str,
    traces: dict[int, DealTrace],
    decisions: list[Decision],
    population: Population,
    budget: AxisBudget,
    seed: int,
) -> list[DecisionScore]:
    spec = _spec(spec_json)
    out = []
    for d in decisions:
        with cycle_collection_paused():
            table = action_values(spec, traces[d.deal], d, population, budget, seed)
        values = table.values
        out.append(
            DecisionScore(
                seat=d.seat,
                actions=len(d.menu),
                temporal=temporal_share(values),
                opponent=opponent_variance(values, budget.opponent_cross_fit),
                precision=precision_loss(
                    values, d.menu, table.legal, table.extra, table.extra_values
                ),
                replays=table.replays,
                fallbacks=table.fallbacks,
                world_attempts=table.world_attempts,
            )
        )
    return out


def _info_task(
    spec_json: str, population: Population, budget: AxisBudget, seed: int, seat: int, index: int
) -> tuple[int, list[float], SearchStats]:
    stats = SearchStats()
    with cycle_collection_paused():
        spec = _spec(spec_json)
        diffs = information_differences(spec, population, budget, seed, seat, index, stats)
    return seat, diffs, stats


def compute_axes(
    spec: GameSpec,
    budget: AxisBudget,
    seed: int = 0,
    *,
    pool: TaskPool | None = None,
    progress: Progress | None = None,
) -> AxisReport:
    """The five axes of ``spec`` at ``budget`` (see the module docstring)."""
    started = time.perf_counter()
    runner = pool or InlinePool()
    spec_json = spec.canonical_json()
    n_workers = runner.workers

    # 1. State space and the ranking of the population.
    space_future = runner.submit(
        _state_space_task, spec_json, budget.state_space_deals, derive_seed(seed, 0x55A0)
    )
    population_seed = derive_seed(seed, 0x9090)
    seeds = strategy_seeds(population_seed, budget.population_size)
    deals = ranking_deals(spec, population_seed, budget.ranking_deals)
    chunks = _split(seeds, 4 * n_workers)
    rank_futures = [
        runner.submit(_rank_task, spec_json, chunk, deals, budget.max_amounts) for chunk in chunks
    ]
    scores = [s for f in rank_futures for s in f.result()]
    population = build_population(spec, budget, population_seed, scores)
    if progress:
        progress("population", 1, 1)

    # The search deals need only the population: submitted now, a pool's workers play them
    # while this process plays stage 2 (inline, they run here first; every task draws from
    # its own seeds, so the order changes no number).
    info_seed = derive_seed(seed, 0x1F00)
    info_futures = [
        runner.submit(_info_task, spec_json, population, budget, info_seed, seat, index)
        for index in range(budget.info_opponents)
        for seat in (0, 1)
    ]

    # 2. STD_g and the decision distribution.
    std = std_g(spec, population, budget, derive_seed(seed, 0x57D0))
    selfplay = decision_distribution(spec, population, budget, derive_seed(seed, 0x5E1F0))

    # 3. Replays (and the search deals submitted above).
    replay_seed = derive_seed(seed, 0xAC70)
    futures: list[TaskResult[Any]] = []
    futures.extend(info_futures)
    replay_futures = []
    for chunk in _split(selfplay.decisions, max(1, len(selfplay.decisions) // 4)):
        traces = {d.deal: selfplay.traces[d.deal] for d in chunk}
        replay_futures.append(
            runner.submit(_replay_task, spec_json, traces, chunk, population, budget, replay_seed)
        )
    futures.extend(replay_futures)
    if progress:
        for done, future in enumerate(futures, start=1):
            future.result()
            progress("replays and search", done, len(futures))
    decision_scores: list[DecisionScore] = [s for f in replay_futures for s in f.result()]
    info_diffs: list[list[float]] = [[], []]
    search = SearchStats()
    for f in info_futures:
        seat, diffs, stats = f.result()
        info_diffs[seat].extend(diffs)
        search.decisions += stats.decisions
        search.worlds += stats.worlds
        search.fallbacks += stats.fallbacks
    space: StateSpace = space_future.result()

    # 4. Axes and diagnostics.
    report = _assemble(space, decision_scores, info_diffs, std)
    replays = sum(s.replays for s in decision_scores)
    worlds = len(decision_scores) * budget.worlds
    report.diagnostics = {
        "std_g": std,
        "std_g_zero": std == 0.0,
        "decisions": [sum(s.seat == seat for s in decision_scores) for seat in (0, 1)],
        "mean_actions": (
            sum(s.actions for s in decision_scores) / len(decision_scores)
            if decision_scores
            else 0.0
        ),
        "selfplay_deals": len(selfplay.traces),
        "replays": replays,
        "world_fallback_share": (
            sum(s.fallbacks for s in decision_scores) / worlds if worlds else 0.0
        ),
        "world_attempts_per_world": (
            sum(s.world_attempts for s in decision_scores) / worlds if worlds else 0.0
        ),
        "information_deals": [len(info_diffs[0]), len(info_diffs[1])],
        "search_decisions": search.decisions,
        "search_world_fallback_share": (search.fallbacks / search.worlds if search.worlds else 0.0),
        "states": list(space.states),
        "tier1_mean_lead_vs_l0": (
            sum(population.scores[population.members.index(s)] for s in population.tier1)
            / len(population.tier1)
        ),
        "budget": budget.name,
        "seed": seed,
        "seconds": time.perf_counter() - started,
    }
    forget_strategies()  # memoised mixtures of this game are no use to the next
    return report


def _assemble(
    space: StateSpace,
    decisions: Sequence[DecisionScore],
    info_diffs: Sequence[Sequence[float]],
    std: float,
) -> AxisReport:
    scale = 1.0 / std if std > 0 else 0.0
    seats: dict[str, list[float]] = {}
    errors: dict[str, list[float]] = {}
    for name in ("temporal", "opponent", "precision"):
        seats[name], errors[name] = [], []
        for seat in (0, 1):
            values = [getattr(s, name) for s in decisions if s.seat == seat]
            # A seat that never decides faces nothing that depends on later play, the
            # opponent or precision: it scores 0, as it does on information (where the two
            # search players are then the same player), and both seats are averaged.
            mean, error = mean_and_error(values) if values else (0.0, 0.0)
            if name == "opponent":
                root = math.sqrt(max(mean, 0.0))
                error = error / (2 * root) if root > 0 else math.sqrt(error)
                mean = root
            if name != "temporal":
                mean, error = mean * scale, error * scale
            seats[name].append(mean)
            errors[name].append(error)
    seats["information"], errors["information"] = [], []
    for seat in (0, 1):
        mean, error = mean_and_error(info_diffs[seat])
        if math.isnan(mean):
            mean, error = 0.0, 0.0
        seats["information"].append(mean * scale)
        errors["information"].append(error * scale)
    axes = {"state_space": space.log10_states}
    sampling_error = {"state_space": math.nan}
    for name in SEAT_AXES:
        axes[name], sampling_error[name] = combine_seats(seats[name], errors[name])
    return AxisReport(
        axes={name: axes[name] for name in AXES},
        seats=seats,
        sampling_error={name: sampling_error[name] for name in AXES},
    )


def rerun_seed(seed: int) -> int:
    """The seed of the rerun diagnostic (an independent population draw)."""
    return derive_seed(seed, 0x2E2)


def compute_with_rerun(
    spec: GameSpec,
    budget: AxisBudget,
    seed: int = 0,
    *,
    pool: TaskPool | None = None,
    progress: Progress | None = None,
) -> AxisReport:
    """``compute_axes`` plus, if ``budget.rerun``, the rerun at ``budget.rerun_fraction``."""
    report = compute_axes(spec, budget, seed, pool=pool, progress=progress)
    if budget.rerun:
        again = compute_axes(
            spec,
            budget.scaled(budget.rerun_fraction),
            rerun_seed(seed),
            pool=pool,
            progress=progress,
        )
        report.rerun = dict(again.axes)
        report.diagnostics["rerun_seconds"] = again.diagnostics["seconds"]
    return report


def _split(items: Sequence[Any], parts: int) -> list[list[Any]]:
    """``items`` in ``parts`` contiguous chunks of near-equal size (no empty chunk)."""
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(list(items[start:end]))
        start = end
    return [c for c in out if c]
