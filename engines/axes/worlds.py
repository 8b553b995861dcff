"""Worlds: re-dealing the cards a seat has not seen, consistently with what it knows.

A world (Appendix C, "Estimation") keeps everything a seat has observed and re-deals the rest.
Given a recorded deal (``DealTrace``) up to one of the seat's decisions, ``resample_world``

1. takes the cards the seat has not been shown, U (the opponent's unseen cards, the deck,
   unseen discards and cards set aside; with ``condition_on_own_hand=False`` also the seat's
   own private cards, for the information axis's uninformed player);
2. draws a uniformly random permutation of U and replays the deal with every card outcome
   mapped through it, with each random pick whose result the seat did not see (which of its
   cards an opponent peeked at) redrawn, and with each swap action renamed after the card it
   now gives away (the mechanism of ``engines.gbg.conformance._compare_at``);
3. accepts the replay if it is legal and the seat's information state in it is identical to
   the real one (or, for the uninformed player, identical once the identities of U's cards are
   masked, and with the same menu up to the renaming of swaps); otherwise tries again;
4. after ``attempts`` failures falls back to the true cards (``World.fallback``; counted in
   the diagnostics).

Rejection sampling from a uniform permutation gives the uniform distribution over the
re-deals consistent with the seat's information (opponents' earlier choices are kept as they
were, not re-weighted by how likely they were under the new cards: worlds condition on what
the seat knows, not on a model of the opponent).  Coin outcomes are public and are kept.  The
world also carries its own future (``World.chance``): a fresh card order and uniform stream.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np

from engines.axes.play import ACTION, CARD, PICK, Chance, DealTrace, InfoKeys, Step, draw_chance
from engines.gbg.engine import CARD_EVENTS, PAIR_EVENTS, PUBLIC, State, new_deal
from engines.gbg.spec import GameSpec


@dataclass
class World:
    """A decision of ``seat`` with the unseen cards re-dealt.

    ``actions`` maps each action of the real menu to its name in this world (a swap names its
    card, which the uninformed player's world may have renamed).  ``state`` may be shared
    with other worlds of the same decision that re-dealt the same cards: read it, and clone
    it before moving it (``FixedChanceTree`` and the kernel's rollouts only read it).
    """

    state: State
    actions: dict[str, str]
    chance: Chance
    fallback: bool
    attempts: int


def public_cards(state: State) -> set[int]:
    """Cards that some public event has shown."""
    cards: set[int] = set()
    for vis, kind, _, data in state.events:
        if vis != PUBLIC:
            continue
        if kind in CARD_EVENTS:
            cards.add(data)
        elif kind == "show":
            cards.update(data[0])
            cards.update(data[1])
        elif kind in PAIR_EVENTS:
            cards.update(data)
    return cards


def unseen_cards(state: State, seat: int, condition_on_own_hand: bool = True) -> list[int]:
    """U: the cards a world re-deals for ``seat`` (sorted)."""
    known = state.known_cards(seat)
    if not condition_on_own_hand:
        known -= set(state.hands[seat]) - public_cards(state)
    return sorted(set(range(state.g.n_cards)) - known)


def masked_view(state: State, seat: int, masked: Collection[int]) -> list[tuple[Any, ...]]:
    """The events ``seat`` has seen, with the identity of every card in ``masked`` hidden."""

    def hide(card: int) -> int:
        return -1 if card in masked else card

    out: list[tuple[Any, ...]] = []
    for vis, kind, who, data in state.events:
        if vis != PUBLIC and vis != seat:
            continue
        if kind in CARD_EVENTS:
            data = hide(data)
        elif kind == "show":
            data = (tuple(map(hide, data[0])), tuple(map(hide, data[1])))
        elif kind in PAIR_EVENTS:
            data = tuple(map(hide, data))
        out.append((kind, who, data))
    return out


def _signature(state: State, seat: int, masked: Collection[int] | None) -> Any:
    if masked is None:  # state.information_state(seat), each event named once per game
        return InfoKeys(state.g.label_of).key(state, seat)
    return masked_view(state, seat, masked)


def replay_steps(spec: GameSpec, steps: list[Step]) -> State | None:
    """Replay explicit-chance steps; ``None`` if one of them is impossible."""
    state = new_deal(spec, explicit_chance=True)
    try:
        for kind, value in steps:
            if kind == "chance":
                state.apply_chance(value)
            else:
                state.apply(value)
    except ValueError:
        return None
    return state


def _rename(action: str, hand: list[int], labels: list[str], mapping: dict[int, int]) -> str:
    """A swap of the card labelled as in ``action``, named after the card it maps to."""
    if not action.startswith("swap "):
        return action
    label = action[5:]
    for card in hand:
        if labels[card] == label:
            return "swap " + labels[mapping.get(card, card)]
    return action


def resample_world(
    spec: GameSpec,
    trace: DealTrace,
    upto: int,
    seat: int,
    rng: np.random.Generator,
    *,
    condition_on_own_hand: bool = True,
    attempts: int = 24,
    reference: State | None = None,
    menu: tuple[str, ...] | None = None,
) -> World:
    """A world at the decision reached after ``trace.steps[:upto]`` (see the module docstring).

    ``reference`` (the real state at the decision) and ``menu`` (the actions to map; default
    the legal actions) may be passed to save a replay.  Several worlds of one decision:
    ``WorldSampler``, which prepares what they share once.
    """
    sampler = WorldSampler(
        spec,
        trace,
        upto,
        seat,
        condition_on_own_hand=condition_on_own_hand,
        attempts=attempts,
        reference=reference,
        menu=menu,
    )
    return sampler.draw(rng)


class WorldSampler:
    """``resample_world`` for one decision, its worlds drawn one by one: the unseen cards, the
    seat's information state and the menu are found once; ``draw(rng)`` then makes the same
    draws from ``rng``, and returns the same world, as ``resample_world`` with that ``rng``."""

    def __init__(
        self,
        spec: GameSpec,
        trace: DealTrace,
        upto: int,
        seat: int,
        *,
        condition_on_own_hand: bool = True,
        attempts: int = 24,
        reference: State | None = None,
        menu: tuple[str, ...] | None = None,
    ) -> None:
        if reference is None:
            replayed = replay_steps(spec, trace.steps[:upto])
            if replayed is None:
                raise ValueError("the trace does not replay")
            reference = replayed
        if reference.current_player != seat:
            raise ValueError(f"the state after {upto} steps is not a decision of seat {seat}")
        self.spec, self.trace, self.upto, self.seat = spec, trace, upto, seat
        self.attempts = attempts
        self.reference = reference
        self.menu = menu if menu is not None else reference.legal_actions()
        self.unseen = unseen_cards(reference, seat, condition_on_own_hand)
        self.masked = None if condition_on_own_hand else frozenset(self.unseen)
        self.target = _signature(reference, seat, self.masked)
        self.labels = reference.g.label_of
        self.hand = list(reference.hands[seat])
        # Each re-deal judged once: its replay is a function of its mapped steps alone, and a
        # small U has few re-deals (the attempts of a decision's worlds repeat them often).
        self.judged: dict[tuple[Step, ...], tuple[State, tuple[str, ...]] | None] = {}
        # The steps a re-deal changes, in order: (index, kind, the card dealt, the outcomes of
        # a pick the seat did not see, or the card a swap gave away); the others are kept.
        self.steps = list(trace.steps[:upto])
        self.patches: list[tuple[int, str, Any]] = []
        for i in range(upto):
            k = trace.kinds[i]
            if k == CARD:
                self.patches.append((i, k, trace.steps[i][1]))
            elif k == PICK and seat not in trace.pick_seen[i]:
                self.patches.append((i, k, trace.pick_sizes[i]))
            elif k == ACTION and trace.discards[i] >= 0:
                self.patches.append((i, k, trace.discards[i]))

    def _judge(self, mapped: list[Step]) -> tuple[State, tuple[str, ...]] | None:
        """The replay of ``mapped`` and its legal actions, or None when it is impossible, is
        not a decision of the seat or shows the seat another information state."""
        world = replay_steps(self.spec, mapped)
        if world is None or world.current_player != self.seat:
            return None
        if _signature(world, self.seat, self.masked) != self.target:
            return None
        return world, world.legal_actions()

    def draw(self, rng: np.random.Generator) -> World:
        """One world (see the module docstring).  Its state is shared with the other worlds
        of this sampler that re-deal the same way: read it, clone it before moving it."""
        spec, unseen, labels, menu = self.spec, self.unseen, self.labels, self.menu
        judged, patches = self.judged, self.patches
        for attempt in range(1, self.attempts + 1):
            if not unseen:
                break
            permuted = rng.permutation(len(unseen)).tolist()
            mapping = {card: unseen[j] for card, j in zip(unseen, permuted, strict=True)}
            mapped = self.steps[:]
            for i, k, value in patches:  # in step order: the picks draw as the steps come
                if k == CARD:
                    mapped[i] = ("chance", mapping.get(value, value))
                elif k == PICK:
                    mapped[i] = ("chance", int(rng.integers(value)))
                else:  # a swap, renamed after the card it now gives away
                    mapped[i] = ("action", "swap " + labels[mapping.get(value, value)])
            key = tuple(mapped)
            if key in judged:
                found = judged[key]
            else:
                found = judged[key] = self._judge(mapped)
            if found is None:
                continue
            world, legal = found
            actions = {a: _rename(a, self.hand, labels, mapping) for a in menu}
            if any(a not in legal for a in actions.values()):
                continue
            return World(world, actions, draw_chance(spec, rng), False, attempt)
        return World(
            self.reference.clone(),
            {a: a for a in menu},
            draw_chance(spec, rng),
            fallback=bool(unseen),
            attempts=self.attempts if unseen else 0,
        )
