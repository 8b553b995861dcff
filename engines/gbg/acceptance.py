"""The acceptance filter: is a generated game worth benchmarking? (paper, Section 3)

A draw is rejected, under uniform random play, if

1. ``moves``: random play takes more than ten moves per player on average;
2. ``seat_bias``: one seat wins more than 65% of the decided deals;
3. ``extreme_branches``: more than 40% of its branch conditions hold almost always or almost
   never (outside [cut, 1 - cut] of the times they are evaluated; a condition never evaluated
   counts as holding almost never);
4. ``rare_phases``: more than 20% of its phases fire in fewer than 5% of episodes;
5. ``dead_branch``: a branch can never fire.  Sampling error is accounted for: a branch is
   judged dead once it has been evaluated often enough (``n_min``, 688 by default) that a branch
   firing at the rate ``dead_rate`` would have fired with probability at least 1 -
   ``dead_alpha``, without firing once.

Criteria 1 to 4 are judged on the first ``deals`` deals.  Criterion 5 is decided on as many
deals as it takes: while a branch has not fired and has fewer than ``n_min`` evaluations, more
deals are played, in stages that double the deals played so far (600, 1,200, 2,400, ...: the
same play seeds and move stream continued), up to ``decide_max_deals`` (76,800 by default:
enough for every branch whose phase is entered in at least 0.9% of deals).  A branch still
short of evidence there is reported ``undetermined`` (its phase is then entered in fewer than
1% of deals, which criterion 4 judges).  The stages are fixed, so the verdict is a function of
the game and the seed alone.  The further deals are played only when they can change the
verdict, that is when criteria 1 to 4 accept the game (``decide_dead="needed"``, the
default): a game they reject keeps the reasons it had on the first deals, and the accepted
games and every rejection's reasons before criterion 5 could fire are unchanged.
``decide_dead="always"`` decides it for every game (every reason of every rejection, for a
table of the criteria).

Every verdict carries its reasons and the figures behind every criterion.
"""

from __future__ import annotations

import math
import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engines.backend import kernel_plays
from engines.gbg.batch_random import random_play
from engines.gbg.engine import new_deal
from engines.gbg.spec import GameSpec


class AcceptanceSettings(BaseModel):
    """The filter's thresholds (the paper's values by default) and its simulation budget."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    deals: int = Field(default=600, ge=50)
    max_moves_per_player: float = 10.0
    max_seat_win_share: float = 0.65
    extreme_cut: float = Field(default=0.05, gt=0.0, lt=0.5)
    max_extreme_branch_share: float = 0.40
    rare_phase_rate: float = 0.05
    max_rare_phase_share: float = 0.20
    dead_rate: float = Field(default=0.01, gt=0.0, lt=1.0)
    dead_alpha: float = Field(default=0.001, gt=0.0, lt=1.0)
    # The most deals played to decide whether a branch that has not fired is dead (criterion
    # 5); at ``deals`` or below, criterion 5 is judged on the first deals alone.
    decide_max_deals: int = Field(default=76_800, ge=0)
    decide_dead: Literal["needed", "always"] = "needed"

    @property
    def n_min(self) -> int:
        """Evaluations after which zero fires is evidence of a dead branch."""
        return math.ceil(math.log(self.dead_alpha) / math.log(1.0 - self.dead_rate))


def evaluate(
    spec: GameSpec,
    settings: AcceptanceSettings | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Simulate ``settings.deals`` uniform random deals (and more while a branch's life is
    undecided, see the module docstring); return the verdict and its figures.

    The deals are played by the kernel (``engines.gbg.batch_random``), the same deals as the
    interpreter's for the same seeds; the ``reference`` backend (``engines.backend``), or
    a game the kernel hands back, plays them on the interpreter."""
    settings = settings or AcceptanceSettings()
    n_phases = len(spec.phases)
    conditions = [
        (i, k)
        for i, p in enumerate(spec.phases)
        for k, e in enumerate(p.next)
        if e.when is not None
    ]
    player = _Player(spec, seed, conditions, not kernel_plays())
    played = player.play(settings.deals)
    decisions, alice_wins, bob_wins, fired, evaluated, held = played
    deals = settings.deals
    moves = decisions / (2 * deals)
    decided = alice_wins + bob_wins
    seat_share = max(alice_wins, bob_wins) / decided if decided else 1.0
    rates = [f / deals for f in fired]
    rare = [spec.phases[i].id for i, r in enumerate(rates) if r < settings.rare_phase_rate]
    cut = settings.extreme_cut
    extremes = {
        c: evaluated[c] == 0 or not cut <= held[c] / evaluated[c] <= 1 - cut for c in conditions
    }
    extreme = sum(extremes.values())
    extreme_share = extreme / len(conditions) if conditions else 0.0
    reasons = []
    if moves > settings.max_moves_per_player:
        reasons.append("moves")
    if seat_share > settings.max_seat_win_share:
        reasons.append("seat_bias")
    if extreme_share > settings.max_extreme_branch_share:
        reasons.append("extreme_branches")
    if len(rare) / n_phases > settings.max_rare_phase_share:
        reasons.append("rare_phases")
    if reasons and settings.decide_dead == "needed":
        decided_evaluated, decided_held, decided_deals = dict(evaluated), dict(held), deals
    else:
        decided_evaluated, decided_held, decided_deals = _decide_dead(
            player, settings, conditions, evaluated, held
        )
    branch_rows = []
    dead = undetermined = 0
    for i, k in conditions:
        n, h = evaluated[(i, k)], held[(i, k)]
        n_all, h_all = decided_evaluated[(i, k)], decided_held[(i, k)]
        status = "fires"
        if h_all == 0:
            status = "dead" if n_all >= settings.n_min else "undetermined"
        dead += status == "dead"
        undetermined += status == "undetermined"
        branch_rows.append(
            {
                "phase": spec.phases[i].id,
                "edge": k,
                "evaluated": n,
                "held": h,
                "rate": h / n if n else 0.0,
                "extreme": extremes[(i, k)],
                "status": status,
                "decided_on": {"deals": decided_deals, "evaluated": n_all, "held": h_all},
            }
        )
    if dead:
        reasons.append("dead_branch")
    return {
        "accepted": not reasons,
        "reasons": reasons,
        "figures": {
            "deals": deals,
            "moves_per_player": moves,
            "decided": decided,
            "seat_win_share": seat_share,
            "alice_win_share": alice_wins / decided if decided else 0.0,
            "branch_conditions": len(conditions),
            "extreme_branch_share": extreme_share,
            "rare_phases": rare,
            "rare_phase_share": len(rare) / n_phases,
            "phase_rates": {spec.phases[i].id: r for i, r in enumerate(rates)},
            "branches": branch_rows,
            "dead_n_min": settings.n_min,
            "dead_branches": dead,
            "undetermined_branches": undetermined,
            "dead_decision_deals": decided_deals,
        },
    }


Counters = tuple[int, int, int, list[int], dict[tuple[int, int], int], dict[tuple[int, int], int]]
"""decisions, Alice's wins, Bob's wins, phase entries, evaluations and holds per condition."""


def _decide_dead(
    player: _Player,
    settings: AcceptanceSettings,
    conditions: list[tuple[int, int]],
    evaluated: dict[tuple[int, int], int],
    held: dict[tuple[int, int], int],
) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int], int]:
    """Criterion 5's evidence: the evaluations and holds of every condition over the first
    deals and, while a condition that has not held has fewer than ``n_min`` evaluations, over
    further stages that double the deals played (up to ``decide_max_deals``).  Returns the
    evaluations, the holds and the deals they were counted on."""
    evaluated, held = dict(evaluated), dict(held)
    played = settings.deals

    def open_() -> bool:
        return any(held[c] == 0 and evaluated[c] < settings.n_min for c in conditions)

    while open_() and played < settings.decide_max_deals:
        more = min(played, settings.decide_max_deals - played)
        _, _, _, _, e, h = player.play(more)
        for c in conditions:
            evaluated[c] += e[c]
            held[c] += h[c]
        played += more
    return evaluated, held, played


class _Player:
    """The filter's deals, in order: play seeds ``seed * 1_000_003 + d`` for d = 0, 1, ...
    and one move stream (``random.Random(seed)``), on the kernel or the interpreter;
    each call to ``play`` continues where the last one stopped."""

    def __init__(
        self, spec: GameSpec, seed: int, conditions: list[tuple[int, int]], interpreted: bool
    ) -> None:
        self.spec = spec
        self.seed = seed
        self.conditions = conditions
        self.interpreted = interpreted
        self.moves = random.Random(seed)
        self.next_deal = 0

    def play(self, deals: int) -> Counters:
        first = self.seed * 1_000_003 + self.next_deal
        self.next_deal += deals
        seeds = range(first, first + deals)
        played = None if self.interpreted else _play_batch(self.spec, seeds, self.moves)
        if played is None:
            self.interpreted = True  # the loop hands a game back whole, at its first call
            played = _play_interpreted(self.spec, seeds, self.moves, self.conditions)
        return played


def _play_batch(spec: GameSpec, seeds: range, moves: random.Random) -> Counters | None:
    """Deals on the kernel (None: play them on the interpreter; ``moves`` is then left
    as it was)."""
    out = random_play(spec, seeds, moves)
    if out is None:
        return None
    evaluated, held = {}, {}
    for i, p in enumerate(spec.phases):
        for k, e in enumerate(p.next):
            if e.when is not None:
                evaluated[(i, k)] = int(out.evaluated[i, k])
                held[(i, k)] = int(out.held[i, k])
    return (
        int(out.decisions.sum()),
        int((out.returns > 0).sum()),
        int((out.returns < 0).sum()),
        [int(f) for f in out.fired],
        evaluated,
        held,
    )


def _play_interpreted(
    spec: GameSpec, seeds: range, moves: random.Random, conditions: list[tuple[int, int]]
) -> Counters:
    """Deals on the interpreter (the reference)."""
    draw = moves.random
    fired = [0] * len(spec.phases)
    evaluated = dict.fromkeys(conditions, 0)
    held = dict.fromkeys(conditions, 0)
    decisions = alice_wins = bob_wins = 0
    for play_seed in seeds:
        state = new_deal(spec, play_seed, tree=False)
        while state.current_player >= 0:
            legal = state.legal_actions()
            state.apply(legal[int(draw() * len(legal))])
            decisions += 1
        for ev in state.events:
            if ev[1] == "phase":
                fired[ev[3]] += 1
        for phase, taken in state.branches:
            for k in range(taken + 1):
                key = (phase, k)
                if key in evaluated:
                    evaluated[key] += 1
                    held[key] += k == taken
        a, _ = state.returns()
        alice_wins += a > 0
        bob_wins += a < 0
    return decisions, alice_wins, bob_wins, fired, evaluated, held
