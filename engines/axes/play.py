"""Playing deals for the axes: explicit chance from a card order, moves from uniform streams.

Every deal the axes simulate runs on the interpreter in explicit-chance mode, and its chance
comes from a ``Chance``: a card order (a card chance event deals the first card of the order
still in the deck, which is a uniform draw when the order is a uniform permutation) and a
stream of uniform numbers for the other chance events (which opponent card a peek shows, risk
coins).  Players' random choices come from a second stream.  A world, a context or a deal is
then just a few arrays drawn from a seeded numpy generator, and replaying every action of a
decision under the same arrays gives common random numbers: after any action, the deck holds
the same cards in the same order and the players draw the same uniforms.

``DealTrace`` records a deal as explicit-chance steps, with what ``engines.axes.worlds`` needs
to re-deal the cards a seat has not seen: which steps dealt cards, which random picks each seat
saw the result of, and which card each swap discarded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from engines.axes.menus import reduce_menu
from engines.gbg.engine import CARD_EVENTS, CHANCE, PAIR_EVENTS, PUBLIC, TERMINAL, State, new_deal
from engines.gbg.fixed_chance import FixedChanceTree, Node, Resolver
from engines.gbg.spec import SEATS, GameSpec
from engines.gbg.structure import max_decisions

Step = tuple[str, Any]
"""("chance", outcome) or ("action", action string), as in ``engines.gbg.conformance``."""

CARD, PICK, COIN, ACTION = "card", "pick", "coin", "action"


class Stream:
    """Uniform numbers in [0, 1), read in order (a slice of a seeded generator's output)."""

    __slots__ = ("index", "values")

    def __init__(self, values: list[float]) -> None:
        self.values = values
        self.index = 0

    def next(self) -> float:
        i = self.index
        self.index = i + 1
        values = self.values
        return values[i % len(values)]  # never wraps when sized by ``stream_length``


class Policy(Protocol):
    """A behaviour strategy: an action of ``menu`` (an A(I)) for ``seat``, given a uniform.

    A policy that depends on the information state only may also offer
    ``choose_keyed(info_state, menu, u)``; the playing loops then pass it the key from an
    ``InfoKeys`` instead of letting it rebuild the key from the state.  One that depends on
    the menu only may offer ``choose_blind(menu, u)``, which ``play_tree`` prefers; one that
    samples a mixture by information state may offer ``mixture(info_state, menu)``, which
    ``play_tree`` looks up once per node and samples with ``pick_from``."""

    name: str

    def choose(self, state: State, seat: int, menu: tuple[str, ...], u: float) -> str: ...


@dataclass
class Chance:
    """A deal's chance: ``rank[c]`` is card ``c``'s place in the card order; ``aux`` the
    uniforms for picks and coins."""

    rank: list[int]
    aux: list[float]

    def stream(self) -> Stream:
        return Stream(self.aux)


_LENGTHS: dict[int, tuple[GameSpec, int]] = {}


def stream_length(spec: GameSpec) -> int:
    """Enough uniforms for any deal: one per decision, and at most four chance events that
    are not card deals per phase (two peeks with a coin each).  Cached per spec object."""
    found = _LENGTHS.get(id(spec))
    if found is None or found[0] is not spec:
        if len(_LENGTHS) > 4_096:
            _LENGTHS.clear()
        found = _LENGTHS[id(spec)] = (spec, max_decisions(spec) + 4 * len(spec.phases) + 8)
    return found[1]


def named_event(event: tuple[int, str, int, Any], labels: Sequence[str]) -> tuple[Any, ...]:
    """An event as an information state writes it: without its visibility, cards by label.
    (The engine's own naming, ``State.information_state``; duplicated so that keys can be
    built incrementally, and pinned equal to it by the tests.)"""
    _, kind, seat, data = event
    if kind in CARD_EVENTS:
        return (kind, seat, labels[data])
    if kind == "show":
        return (kind, seat, tuple(tuple(labels[c] for c in hand) for hand in data))
    if kind in PAIR_EVENTS:
        return (kind, seat, tuple(labels[c] for c in data))
    return (kind, seat, data)


_NAMES: dict[int, tuple[Sequence[str], dict[Any, str]]] = {}
_NAMES_CAP = 200_000  # events named per game before its table starts afresh


def event_names(labels: Sequence[str]) -> dict[Any, str]:
    """The table of ``repr(named_event(event, labels))`` by event, shared by every
    ``InfoKeys`` of a game (its card labels ``labels``; one table per labels object).

    An event's name is a function of the event alone (the labels fixed), and the engine logs
    each kind of event with one type of data, so an event met again (the same card dealt,
    the same bet, in another deal, world or replay) is named by one dictionary lookup."""
    found = _NAMES.get(id(labels))
    if found is None or found[0] is not labels:
        if len(_NAMES) > 256:
            _NAMES.clear()
        found = _NAMES[id(labels)] = (labels, {})
    return found[1]


class InfoKeys:
    """Information-state keys of one deal, built incrementally: ``key(state, seat)`` equals
    ``state.information_state(seat)`` but only names the events added since the last call
    (each by a lookup in ``event_names``), and keeps the key until an event the seat sees is
    added.  A replay from a common position starts from a ``copy()`` of the position's keys,
    so the shared history is named once per world rather than once per replay."""

    __slots__ = ("counts", "keys", "labels", "names", "owner", "texts")

    def __init__(self, labels: Sequence[str], owner: State | None = None) -> None:
        self.labels = labels
        self.names = event_names(labels)
        self.owner = owner  # the state whose events these are, when one is tracked
        self.counts = [0, 0]
        self.texts = ["", ""]  # the names of the events each seat saw, joined
        self.keys: list[str | None] = [None, None]

    def copy(self) -> InfoKeys:
        other = InfoKeys(self.labels)
        other.counts = self.counts[:]
        other.texts = self.texts[:]
        other.keys = self.keys[:]
        return other

    def key(self, state: State, seat: int) -> str:
        events = state.events
        done = self.counts[seat]
        if done < len(events):
            names = self.names
            added: list[str] = []
            for event in events[done:]:
                if event[0] == PUBLIC or event[0] == seat:
                    name = names.get(event)
                    if name is None:
                        name = repr(named_event(event, self.labels))
                        if len(names) >= _NAMES_CAP:
                            names.clear()
                        names[event] = name
                    added.append(name)
            self.counts[seat] = len(events)
            if added:
                text = self.texts[seat]
                self.texts[seat] = ", ".join([text, *added] if text else added)
                self.keys[seat] = None
        found = self.keys[seat]
        if found is None:
            found = self.keys[seat] = f"{SEATS[seat]}:[{self.texts[seat]}]"
        return found


def draw_chance(spec: GameSpec, rng: np.random.Generator) -> Chance:
    """A uniformly random card order and aux stream."""
    n = spec.deck.size
    order = rng.permutation(n)
    rank = [0] * n
    for place, card in enumerate(order.tolist()):
        rank[card] = place
    return Chance(rank, rng.random(stream_length(spec)).tolist())


def chance_outcome(state: State, rank: Sequence[int], aux: Stream) -> int:
    """The outcome of the pending chance event of ``state`` under the card order and stream:
    a card is the first of the order still in the deck, a pick of n ``int(u * n)`` and a
    coin of p percent ``u < p / 100`` (chosen among the outcomes ``chance_outcomes`` lists,
    without listing them)."""
    request = state.chance_request()
    assert request is not None
    kind, arg = request
    if kind == CARD:
        return min(state.deck, key=rank.__getitem__)
    if kind == PICK:
        return int(aux.next() * arg)
    return 1 if aux.next() < arg / 100.0 else 0


def resolve_chance(state: State, rank: Sequence[int], aux: Stream) -> int:
    """Resolve the pending chance event of ``state`` from the card order and stream."""
    outcome = chance_outcome(state, rank, aux)
    state.apply_chance(outcome)
    return outcome


def play_out(
    state: State,
    policies: Sequence[Policy],
    rank: Sequence[int],
    aux: Stream,
    moves: Stream,
    max_amounts: int,
    keys: InfoKeys | None = None,
) -> State:
    """Play ``state`` to the end: ``policies[seat]`` chooses from A(I) with ``moves``; a
    decision with one legal action is forced and draws nothing.  ``keys`` (the information
    keys of ``state``'s deal so far) saves rebuilding information states."""
    if keys is None:
        keys = InfoKeys(state.g.label_of)
    keyed = [getattr(p, "choose_keyed", None) for p in policies]
    while True:
        seat = state.current_player
        if seat >= 0:
            menu = state.legal_actions()
            if len(menu) == 1:
                state.apply(menu[0])
                continue
            menu = reduce_menu(menu, max_amounts)
            fast = keyed[seat]
            if fast is not None:
                state.apply(fast(keys.key(state, seat), menu, moves.next()))
            else:
                state.apply(policies[seat].choose(state, seat, menu, moves.next()))
        elif seat == CHANCE:
            resolve_chance(state, rank, aux)
        else:
            assert seat == TERMINAL
            return state


def chance_resolver(rank: Sequence[int], aux: list[float]) -> Resolver:
    """The resolver of a ``FixedChanceTree`` (``engines.gbg.fixed_chance``) for a deal whose chance
    is the card order ``rank`` and the stream ``aux``: it settles chance exactly as
    ``play_out`` does, the cursor being the stream's read position."""

    def resolve(state: State, cursor: int) -> int:
        if state.current_player != CHANCE:
            return cursor
        stream = Stream(aux)
        stream.index = cursor
        while state.current_player == CHANCE:
            resolve_chance(state, rank, stream)
        return stream.index

    return resolve


def fixed_chance_tree(state: State, rank: Sequence[int], aux: list[float]) -> FixedChanceTree:
    """The memo of the deals that continue ``state`` under the card order ``rank`` and the
    stream ``aux`` read from its start (a position's replays all read ``aux`` from 0)."""
    return FixedChanceTree(state, chance_resolver(rank, aux))


def play_tree(
    tree: FixedChanceTree,
    node: Node,
    policies: Sequence[Policy],
    uniforms: Sequence[float],
    max_amounts: int,
) -> Node:
    """``play_out`` on a ``FixedChanceTree``: from ``node``, ``policies[seat]`` chooses from
    A(I) with the uniforms read in order; a forced decision draws nothing.  Returns the
    terminal node: the same deal, move for move, as ``play_out`` from ``node``'s state with
    the tree's chance and ``Stream(uniforms)``.  A node memoises its A(I) and, once a keyed
    policy asks, the mover's information-state key; one tree serves one ``max_amounts``."""
    return play_trees(tree, (node,), policies, uniforms, max_amounts)[0]


def play_trees(
    tree: FixedChanceTree,
    nodes: Sequence[Node],
    policies: Sequence[Policy],
    uniforms: Sequence[float],
    max_amounts: int,
) -> list[Node]:
    """``play_tree`` from each of ``nodes`` in turn, under the same policies and uniforms (each
    walk reads ``uniforms`` from the start): the terminal nodes, in order.  The policies'
    fast paths are looked up once for all the walks."""
    blind = [getattr(p, "choose_blind", None) for p in policies]
    weighted = [getattr(p, "mixture", None) for p in policies]
    keyed = [getattr(p, "choose_keyed", None) for p in policies]
    n = len(uniforms)
    step = tree.step
    ends: list[Node] = []
    for node in nodes:
        i = 0
        live: State | None = None  # the walk's own state while it is on new ground
        keys: InfoKeys | None = None  # its information keys, named incrementally
        while True:
            seat = node.player
            if seat < 0:
                ends.append(node)
                break
            memo = node.memo
            if memo is None:
                legal = node.legal
                menu = legal if len(legal) == 1 else reduce_menu(legal, max_amounts)
                memo = node.memo = [menu, None, {}]  # A(I), the key, mixtures by policy
            menu = memo[0]
            if len(menu) == 1:
                action = menu[0]
            else:
                u = uniforms[i % n]
                i += 1
                choose = blind[seat]
                if choose is not None:
                    action = choose(menu, u)
                else:
                    mix = weighted[seat]
                    fast = keyed[seat]
                    if mix is not None or fast is not None:
                        key = memo[1]
                        if key is None:
                            if live is None:
                                key = tree.state(node).information_state(seat)
                            else:  # on new ground: name only the events since the last key
                                if keys is None or keys.owner is not live:
                                    keys = InfoKeys(live.g.label_of, live)
                                key = keys.key(live, seat)
                            memo[1] = key
                        if mix is not None:  # a mixture by information state: once per node
                            policy = policies[seat]
                            probs = memo[2].get(policy)
                            if probs is None:
                                probs = memo[2][policy] = mix(key, menu)
                            action = pick_from(menu, probs, u)
                        else:
                            action = fast(key, menu, u)  # type: ignore[misc]
                    else:
                        action = policies[seat].choose(tree.state(node, live), seat, menu, u)
            kid = node.children.get(action)  # a known move: no call into the tree
            if kid is None:
                node, live = step(node, action, live)
            else:
                node, live = kid, None
    return ends


def pick_from(menu: Sequence[str], probs: Sequence[float], u: float) -> str:
    """The action of ``menu`` the uniform ``u`` picks from the probabilities ``probs`` (the
    first whose cumulative probability exceeds ``u``; the last if rounding leaves none)."""
    acc = 0.0
    for action, p in zip(menu, probs, strict=True):
        acc += p
        if u < acc:
            return action
    return menu[-1]


def node_lead(node: Node, seat: int) -> int:
    """``chip_lead`` of a tree node."""
    a, b = node.returns
    return a - b if seat == 0 else b - a


def chip_lead(state: State, seat: int) -> int:
    """The seat's chip change minus its opponent's (Appendix C, "Objects")."""
    a, b = state.returns()
    return a - b if seat == 0 else b - a


# --- traces -----------------------------------------------------------------------------------


@dataclass
class DealTrace:
    """A deal as explicit-chance steps, with per-step facts for re-dealing worlds.

    ``kinds[i]`` is card, pick, coin or action; ``pick_sizes[i]`` the number of outcomes of a
    pick; ``pick_seen[i]`` the seats that saw a card because of the pick; ``discards[i]`` the
    card a swap action gave away (-1 otherwise); ``menus[i]`` the legal actions at an action
    step (None at chance steps).
    """

    steps: list[Step] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    pick_sizes: list[int] = field(default_factory=list)
    pick_seen: list[frozenset[int]] = field(default_factory=list)
    discards: list[int] = field(default_factory=list)
    menus: list[tuple[str, ...] | None] = field(default_factory=list)

    def chance(self, state: State, outcome: int) -> None:
        """Apply chance ``outcome`` to ``state`` and record it."""
        kind = state.chance_kind()
        assert kind is not None
        request = state.chance_request()
        size = request[1] if kind == PICK and request is not None else 0  # a pick's outcomes
        before = len(state.events)
        state.apply_chance(outcome)
        seen: frozenset[int] = frozenset()
        if kind == PICK:
            seen = _card_viewers(state.events[before:])
        self.steps.append(("chance", outcome))
        self.kinds.append(kind)
        self.pick_sizes.append(size)
        self.pick_seen.append(seen)
        self.discards.append(-1)
        self.menus.append(None)

    def action(self, state: State, action: str) -> None:
        """Apply ``action`` to ``state`` and record it."""
        before = len(state.events)
        menu = state.legal_actions()
        state.apply(action)
        discard = -1
        for vis, kind, _, data in state.events[before:]:
            if kind == "discard" and vis != PUBLIC:
                discard = data
        self.steps.append(("action", action))
        self.kinds.append(ACTION)
        self.pick_sizes.append(0)
        self.pick_seen.append(frozenset())
        self.discards.append(discard)
        self.menus.append(menu)

    def __len__(self) -> int:
        return len(self.steps)


def _card_viewers(events: Sequence[tuple[int, str, int, Any]]) -> frozenset[int]:
    seats: set[int] = set()
    for vis, kind, _, _ in events:
        if kind in CARD_EVENTS or kind in PAIR_EVENTS:
            seats.update((0, 1) if vis == PUBLIC else (vis,))
    return frozenset(seats)


def trace_steps(spec: GameSpec, steps: Sequence[Step]) -> tuple[State, DealTrace]:
    """Replay explicit-chance ``steps`` from the start, recording their trace."""
    state = new_deal(spec, explicit_chance=True)
    trace = DealTrace()
    for kind, value in steps:
        if kind == "chance":
            trace.chance(state, value)
        else:
            trace.action(state, value)
    return state, trace


def play_traced(
    spec: GameSpec,
    policies: Sequence[Policy],
    chance: Chance,
    moves: Stream,
    max_amounts: int,
) -> tuple[State, DealTrace]:
    """Play a whole deal from the shuffle, recording its trace."""
    state = new_deal(spec, explicit_chance=True)
    trace = DealTrace()
    aux = chance.stream()
    rank = chance.rank
    keys = InfoKeys(state.g.label_of)
    keyed = [getattr(p, "choose_keyed", None) for p in policies]
    while True:
        seat = state.current_player
        if seat >= 0:
            menu = state.legal_actions()
            if len(menu) > 1:
                menu = reduce_menu(menu, max_amounts)
                fast = keyed[seat]
                u = moves.next()
                if fast is not None:
                    action = fast(keys.key(state, seat), menu, u)
                else:
                    action = policies[seat].choose(state, seat, menu, u)
                trace.action(state, action)
            else:
                trace.action(state, menu[0])
        elif seat == CHANCE:
            trace.chance(state, chance_outcome(state, rank, aux))
        else:
            return state, trace
