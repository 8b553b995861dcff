"""The acceptance filter: is a generated game worth benchmarking? (paper, Section 3)

A draw is rejected, under uniform random play, if

1. ``moves``: random play takes more than ten moves per player on average;
2. ``seat_bias``: one seat wins more than 65% of the decided deals;
3. ``extreme_branches``: more than 40% of its branch conditions hold almost always or almost
   never (outside [cut, 1 - cut] of the times they are evaluated; a condition never evaluated
   counts as holding almost never);
4. ``rare_phases``: more than 20% of its phases fire in fewer than 5% of episodes;
5. ``dead_branch``: a branch never fires.  Sampling error is accounted for: a branch is judged
   dead only once it has been evaluated often enough (``n_min``) that a branch firing at the
   rate ``dead_rate`` would have fired with probability at least 1 - ``dead_alpha``; a branch
   with no fire and fewer evaluations is reported ``undetermined`` (its phase is then almost
   always rare, which criterion 4 judges).

Every verdict carries its reasons and the figures behind every criterion.
"""

from __future__ import annotations

import math
import random
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

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

    @property
    def n_min(self) -> int:
        """Evaluations after which zero fires is evidence of a dead branch."""
        return math.ceil(math.log(self.dead_alpha) / math.log(1.0 - self.dead_rate))


def evaluate(
    spec: GameSpec,
    settings: AcceptanceSettings | None = None,
    seed: int = 0,
    *,
    interpreted: bool = False,
) -> dict[str, Any]:
    """Simulate ``settings.deals`` uniform random deals; return the verdict and its figures.

    The deals are played by the compiled loop (``engines.gbg.batch_random``), the same deals
    as the interpreter's for the same seeds; ``interpreted=True``, or a game the loop hands
    back, plays them on the interpreter (the reference)."""
    settings = settings or AcceptanceSettings()
    n_phases = len(spec.phases)
    conditions = [
        (i, k)
        for i, p in enumerate(spec.phases)
        for k, e in enumerate(p.next)
        if e.when is not None
    ]
    played = None if interpreted else _play_batch(spec, settings.deals, seed)
    if played is None:
        played = _play_interpreted(spec, settings.deals, seed, conditions)
    decisions, alice_wins, bob_wins, fired, evaluated, held = played
    deals = settings.deals
    moves = decisions / (2 * deals)
    decided = alice_wins + bob_wins
    seat_share = max(alice_wins, bob_wins) / decided if decided else 1.0
    rates = [f / deals for f in fired]
    rare = [spec.phases[i].id for i, r in enumerate(rates) if r < settings.rare_phase_rate]
    cut = settings.extreme_cut
    branch_rows = []
    extreme = dead = 0
    for i, k in conditions:
        n, h = evaluated[(i, k)], held[(i, k)]
        rate = h / n if n else 0.0
        is_extreme = n == 0 or rate < cut or rate > 1 - cut
        status = "fires"
        if h == 0:
            status = "dead" if n >= settings.n_min else "undetermined"
        extreme += is_extreme
        dead += status == "dead"
        branch_rows.append(
            {
                "phase": spec.phases[i].id,
                "edge": k,
                "evaluated": n,
                "held": h,
                "rate": rate,
                "extreme": is_extreme,
                "status": status,
            }
        )
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
        },
    }


Counters = tuple[int, int, int, list[int], dict[tuple[int, int], int], dict[tuple[int, int], int]]
"""decisions, Alice's wins, Bob's wins, phase entries, evaluations and holds per condition."""


def _play_batch(spec: GameSpec, deals: int, seed: int) -> Counters | None:
    """The filter's deals on the compiled loop (None: play them on the interpreter)."""
    seeds = range(seed * 1_000_003, seed * 1_000_003 + deals)
    out = random_play(spec, seeds, random.Random(seed))
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
    spec: GameSpec, deals: int, seed: int, conditions: list[tuple[int, int]]
) -> Counters:
    """The filter's deals on the interpreter (the reference)."""
    draw = random.Random(seed).random
    fired = [0] * len(spec.phases)
    evaluated = dict.fromkeys(conditions, 0)
    held = dict.fromkeys(conditions, 0)
    decisions = alice_wins = bob_wins = 0
    for d in range(deals):
        state = new_deal(spec, seed * 1_000_003 + d, tree=False)
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
