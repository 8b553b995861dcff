"""A GameSpec turned into the rules the interpreter runs: tables and functions.

The rules are built once per spec object and cached: card attributes become flat lists
indexed by card id and branch predicates closures (``engines.gbg.tables``, the stage the phase
handlers need), each phase gets its handler (``engines.gbg.phases``), the phase graph's edges
are resolved to indices, showdown metrics become key functions, and betting menus are memoised
by the few facts they depend on.  One code path serves every spec; nothing here knows any
preset by name.  A ``GameRules`` is what a ``State`` runs on (the ``Game`` protocol of
``engines.gbg.state``), including the renderer of a seat's observation (``engines.gbg.render``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, Protocol

from engines.gbg import render
from engines.gbg.phases import Handler, make_handler
from engines.gbg.spec import GameSpec, Metric
from engines.gbg.state import State, StateTest
from engines.gbg.structure import cards_needed, chance_paths, successors
from engines.gbg.tables import CardTables

# Games whose chance events alone branch into more paths than this are never played on a game
# tree (``engines.gbg.tree``).
MAX_CHANCE_PATHS = 20_000


class GameRules(CardTables):
    """The rules of one spec: its card tables, phase order, handlers, edges, showdown metric."""

    def __init__(self, spec: GameSpec) -> None:
        super().__init__(spec)
        self.stack = spec.stack
        self.phase_ids = [p.id for p in spec.phases]
        self.phase_index = {pid: i for i, pid in enumerate(self.phase_ids)}
        self.handlers: list[Handler] = [make_handler(self, i, p) for i, p in enumerate(spec.phases)]
        self.edges: list[list[tuple[int, StateTest | None]]] = []
        for i, p in enumerate(spec.phases):
            if p.next:
                resolved = [
                    (self._target(e.to), None if e.when is None else self.predicate(e.when))
                    for e in p.next
                ]
            else:
                resolved = [(self._target(successors(spec, i)[0]), None)]
            self.edges.append(resolved)
        # The target of a phase whose only edge is unconditional (None when it branches).
        self.straight: list[int | None] = [
            e[0][0] if len(e) == 1 and e[0][1] is None else None for e in self.edges
        ]
        self.showdown_key = metric_key(self, spec.showdown.metric)
        self.tree_eligible = chance_paths(spec) <= MAX_CHANCE_PATHS
        self.tree: Any = None  # the GameTree of engines.gbg.tree, built on the first deal

    def _target(self, phase_id: str) -> int:
        return -1 if phase_id == "showdown" else self.phase_index[phase_id]

    def observation(self, st: State, seat: int) -> dict[str, Any]:
        """What ``seat`` sees of ``st``, as ``engines.gbg.render`` records it."""
        return render.observation(st, seat)


# --- showdown metrics ---------------------------------------------------------------------------


class Cards(Protocol):
    """What a showdown metric reads: a ``State``, or the what-if hands of
    ``engines.agents.builtin.hand_strength``."""

    hands: list[list[int]]
    board: list[int]
    points: list[int]


def metric_key(game: GameRules, metric: Metric) -> Callable[[Cards, int], Any]:
    """A function giving each seat's comparable showdown key (higher wins).

    Points from options and positions (``state.points``) are added to a rank sum, subtracted
    from a low sum, and compared before the hand for the other metrics.
    """
    value_of, rank_of, suit_of = game.value_of, game.rank_of, game.suit_of
    rules = [(r.kind, game.rank_index[r.rank], r.points) for r in metric.rules]
    use_board = metric.use_board

    def cards(st: Cards, seat: int) -> list[int]:
        return st.hands[seat] + st.board if use_board else st.hands[seat]

    if metric.kind == "high_card" and not use_board and max_hand_size(game.spec) == 1:
        # One card each: the card's value is the whole key (Kuhn).
        return lambda st, seat: (st.points[seat], value_of[st.hands[seat][0]])

    if metric.kind in ("rank_sum", "low_sum"):
        sign = 1 if metric.kind == "rank_sum" else -1

        def sum_key(st: Cards, seat: int) -> int:
            held = cards(st, seat)
            total = sum(value_of[c] for c in held)
            for kind, rank, points in rules:
                n = sum(1 for c in held if rank_of[c] == rank)
                if kind == "per_card":
                    total += points * n
                elif n >= 2:
                    total += points
            return sign * total + st.points[seat]

        return sum_key
    if metric.kind == "high_card":
        return lambda st, seat: (
            st.points[seat],
            sorted([value_of[c] for c in cards(st, seat)], reverse=True),
        )
    if metric.kind == "pair_with_board":

        def board_key(st: Cards, seat: int) -> tuple[int, int, int]:
            board_ranks = {rank_of[c] for c in st.board}
            best = max(value_of[c] for c in st.hands[seat])
            paired = [value_of[c] for c in st.hands[seat] if rank_of[c] in board_ranks]
            return (st.points[seat], 1 if paired else 0, max(paired) if paired else best)

        return board_key

    def five_key(st: Cards, seat: int) -> tuple[Any, ...]:
        held = st.hands[seat] + st.board
        return (st.points[seat], best_five([value_of[c] for c in held], [suit_of[c] for c in held]))

    return five_key


def max_hand_size(spec: GameSpec) -> int:
    """The most cards a hand can hold along any path."""
    return cards_needed(spec)[1]


def _straight_high(values: set[int]) -> int:
    """The top value of the highest five-long run (the ace may play low), or 0."""
    vals = set(values)
    if 14 in vals:
        vals.add(1)
    best = 0
    for v in vals:
        if all(v - k in vals for k in range(5)):
            best = max(best, v)
    return best


def best_five(values: Sequence[int], suits: Sequence[int]) -> tuple[int, ...]:
    """Rank the best five-card poker hand in ``values``/``suits`` (any number of cards: with
    fewer than five, the categories that fit are ranked on the cards held).

    Returns (category, tie-breakers...) with categories 8 straight flush, 7 four of a kind,
    6 full house, 5 flush, 4 straight, 3 three of a kind, 2 two pair, 1 pair, 0 high card;
    ranks are card values with the ace as 14.  Larger tuples win.
    """
    by_suit: dict[int, list[int]] = {}
    for v, s in zip(values, suits, strict=True):
        by_suit.setdefault(s, []).append(v)
    flush_best: tuple[int, ...] | None = None
    for suited in by_suit.values():
        if len(suited) >= 5:
            high = _straight_high(set(suited))
            if high:
                return (8, high)
            top = tuple(sorted(suited, reverse=True)[:5])
            if flush_best is None or top > flush_best:
                flush_best = top
    counts: dict[int, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    groups = sorted(((n, v) for v, n in counts.items()), reverse=True)
    if groups[0][0] >= 4:  # a multi-copy deck can hold more than four of a value
        quad = groups[0][1]
        rest = sorted(values, reverse=True)
        for _ in range(4):
            rest.remove(quad)
        return (7, quad, *rest[:1])  # the kicker, when the hand has a fifth card
    trips = [v for n, v in groups if n == 3]
    pairs = [v for n, v in groups if n == 2]
    if trips and (len(trips) > 1 or pairs):
        second = max([*trips[1:], *pairs])
        return (6, trips[0], second)
    if flush_best is not None:
        return (5, *flush_best)
    high = _straight_high(set(values))
    if high:
        return (4, high)
    singles = sorted((v for v in counts if counts[v] == 1), reverse=True)
    if trips:
        return (3, trips[0], *singles[:2])
    if len(pairs) >= 2:
        kicker = max([v for v in counts if v not in pairs[:2]], default=0)
        return (2, pairs[0], pairs[1], kicker)
    if pairs:
        return (1, pairs[0], *singles[:3])
    return (0, *singles[:5])


def best_five_bruteforce(values: Sequence[int], suits: Sequence[int]) -> tuple[int, ...]:
    """Reference: the maximum over every five-card subset (for tests)."""
    idx = range(len(values))
    return max(
        best_five([values[i] for i in combo], [suits[i] for i in combo])
        for combo in combinations(idx, 5)
    )


_CACHE: dict[int, tuple[GameSpec, GameRules]] = {}


def game_rules(spec: GameSpec) -> GameRules:
    """The rules of ``spec``, built once per spec object."""
    entry = _CACHE.get(id(spec))
    if entry is not None and entry[0] is spec:
        return entry[1]
    if len(_CACHE) > 4096:
        _CACHE.clear()
    game = GameRules(spec)
    _CACHE[id(spec)] = (spec, game)
    return game
