"""The generic conformance test every game must pass (OpenSpiel's habit, applied to GBGs).

Random play must end within the spec's maximum number of decisions; a player to move always
has a legal action; chance outcomes are a probability distribution; chips are conserved at
every step; returns sum to zero and stay within the stacks.  And no leak: what a seat observes
is identical across deals that differ only in the opponent's cards the seat has not been
shown.  Presets run it in the tests; the generator's pool runs it on every accepted game.

It is a harness over the engine, above it: it plays deals through ``engines.gbg.engine`` and
replays them with ``engines.gbg.steps``, and no production module imports it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from engines.gbg.engine import CHANCE, State, new_deal
from engines.gbg.spec import GameSpec
from engines.gbg.steps import Step, replay
from engines.gbg.structure import max_decisions


@dataclass
class ConformanceReport:
    """What a conformance run found: failures (empty when the game conforms) and counts."""

    deals: int = 0
    decisions: int = 0
    leak_comparisons: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def random_playout(spec: GameSpec, rng: random.Random) -> tuple[State, list[Step]]:
    """Play one deal with explicit chance, every choice uniform from ``rng``; return the final
    state and the steps that replay it."""
    state = new_deal(spec, explicit_chance=True)
    steps: list[Step] = []
    while not state.is_terminal():
        if state.current_player == CHANCE:
            outcomes = state.chance_outcomes()
            outcome = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
            state.apply_chance(outcome)
            steps.append(("chance", outcome))
        else:
            action = rng.choice(state.legal_actions())
            state.apply(action)
            steps.append(("action", action))
    return state, steps


def _check_deal(spec: GameSpec, rng: random.Random, report: ConformanceReport) -> list[Step]:
    bound = max_decisions(spec)
    total = 2 * spec.stack
    state = new_deal(spec, explicit_chance=True)
    steps: list[Step] = []
    decisions = 0
    while not state.is_terminal():
        if state.chips_in_play() != total:
            report.failures.append(f"chips not conserved after {steps}")
            return steps
        if state.current_player == CHANCE:
            outcomes = state.chance_outcomes()
            mass = sum(p for _, p in outcomes)
            if not outcomes or abs(mass - 1.0) > 1e-9:
                report.failures.append(f"chance outcomes sum to {mass} after {steps}")
                return steps
            outcome = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
            state.apply_chance(outcome)
            steps.append(("chance", outcome))
            continue
        legal = state.legal_actions()
        if not legal:
            report.failures.append(f"no legal action for a player to move after {steps}")
            return steps
        decisions += 1
        if decisions > bound:
            report.failures.append(f"deal exceeds the maximum of {bound} decisions: {steps}")
            return steps
        action = rng.choice(legal)
        state.apply(action)
        steps.append(("action", action))
    report.decisions += decisions
    a, b = state.returns()
    if a + b != 0:
        report.failures.append(f"returns {a, b} are not zero-sum after {steps}")
    if not (-spec.stack <= a <= spec.stack):
        report.failures.append(f"returns {a, b} exceed the stacks after {steps}")
    if sum(state.stacks) != total:
        report.failures.append(f"chips not conserved at the end: {state.stacks}")
    return steps


def _leak_check(
    spec: GameSpec, steps: list[Step], rng: random.Random, report: ConformanceReport
) -> None:
    """At each decision of each seat, swap the opponent's unseen cards for cards never dealt,
    replay the same steps, and require an identical observation."""
    state = new_deal(spec, explicit_chance=True)
    dealt: set[int] = set()
    card_steps = set()
    for i, (kind, value) in enumerate(steps):
        if kind == "chance" and state.chance_kind() == "card":
            dealt.add(value)
            card_steps.add(i)
        if kind == "chance":
            state.apply_chance(value)
        else:
            seat = state.current_player
            _compare_at(spec, steps[:i], seat, state, dealt, card_steps, rng, report)
            state.apply(value)


# Events through which a rule legitimately lets a seat learn something about the opponent's
# unseen cards without seeing them: the phases a branch leads to, a position assigned from the
# hands, a side bet's verdict, the winner.
DERIVED_KINDS = frozenset({"phase", "position", "side_settle", "settle"})


def _derived(state: State, seat: int) -> tuple[Any, ...]:
    """What the rules derived from the hands, as ``seat`` sees it: the flow of phases, who
    acted in which order (a position's holder may act first), positions, verdicts."""
    visible = [
        ev[1:] if ev[1] in DERIVED_KINDS else (ev[1], ev[2])
        for ev in state.events
        if ev[0] in (2, seat) and (ev[1] in DERIVED_KINDS or ev[1] == "act")
    ]
    return (state.phase, state.current_player, state.legal_actions(), tuple(visible))


def _compare_at(
    spec: GameSpec,
    prefix: list[Step],
    seat: int,
    state: State,
    dealt: set[int],
    card_steps: set[int],
    rng: random.Random,
    report: ConformanceReport,
    attempts: int = 4,
) -> None:
    """Compare ``seat``'s observation with that of deals whose unseen opponent cards differ.

    A swap that changes what the rules derive from the hands (the phase reached, the menu, a
    position, a side bet's verdict) is not a leak; such swaps are redrawn up to ``attempts``
    times and otherwise skipped.
    """
    known = state.known_cards(seat)
    hidden = [c for c in state.hands[1 - seat] if c not in known]
    spare = [c for c in range(state.g.n_cards) if c not in dealt and c not in known]
    if not hidden or not spare:
        return
    for _ in range(attempts):
        rng.shuffle(spare)
        mapping: dict[int, int] = {}
        for old, new in zip(hidden, spare, strict=False):
            mapping[old], mapping[new] = new, old
        swapped = [
            ("chance", mapping.get(v, v)) if (k == "chance" and i in card_steps) else (k, v)
            for i, (k, v) in enumerate(prefix)
        ]
        try:
            other = replay(spec, swapped)
        except ValueError:
            continue  # the changed cards changed the flow: a rule revealed something
        if _derived(other, seat) != _derived(state, seat):
            continue
        report.leak_comparisons += 1
        if state.observation(seat) != other.observation(seat) or state.information_state(
            seat
        ) != other.information_state(seat):
            report.failures.append(
                f"leak: seat {seat}'s observation depends on unseen opponent cards {hidden} "
                f"(steps {prefix})"
            )
        return


def check_conformance(spec: GameSpec, deals: int = 200, seed: int = 0) -> ConformanceReport:
    """Run the conformance test on ``deals`` random deals of ``spec``."""
    rng = random.Random(seed)
    report = ConformanceReport()
    for _ in range(deals):
        steps = _check_deal(spec, rng, report)
        report.deals += 1
        if report.failures:
            break
        _leak_check(spec, steps, rng, report)
        if report.failures:
            break
    return report
