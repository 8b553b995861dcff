"""The first stage of a spec's rules: its cards as flat tables, its predicates as closures.

Card attributes become lists indexed by card id (rank, value, suit, printed label) and each
branch predicate a closure over a ``State``.  The phase handlers (``engines.gbg.phases``) need
exactly this much of a game's rules and no more; ``engines.gbg.rules.GameRules`` extends
it with the handlers themselves, the edges of the phase graph and the showdown key.  Keeping the
two stages apart lets the handlers sit below the game that builds them.
"""

from __future__ import annotations

from collections.abc import Callable

from engines.gbg.spec import GameSpec, Predicate
from engines.gbg.state import State, StateTest

SeatTest = Callable[[State, int], bool]


class CardTables:
    """Flat tables of one spec's cards, and its predicates as closures over them."""

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        deck = spec.deck
        self.n_cards = deck.size
        self.rank_of: list[int] = []
        self.value_of: list[int] = []
        self.suit_of: list[int] = []
        self.label_of: list[str] = []
        for r, rank in enumerate(deck.ranks):
            for s, suit in enumerate(deck.suits):
                for _ in range(deck.copies):
                    self.rank_of.append(r)
                    self.value_of.append(rank.value)
                    self.suit_of.append(s)
                    self.label_of.append(f"{rank.label}{suit}")
        self.rank_index = {rank.label: r for r, rank in enumerate(deck.ranks)}

    # --- predicates -------------------------------------------------------------------------

    def seat_test(self, pred: Predicate) -> SeatTest | None:
        """The per-seat test of a predicate, or None when it is not about a seat."""
        rank_of = self.rank_of
        if pred.kind == "holds_pair":

            def test(st: State, seat: int) -> bool:
                ranks = [rank_of[c] for c in st.hands[seat]]
                return len(set(ranks)) < len(ranks)

            return test
        if pred.kind == "holds_rank":
            r = self.rank_index[pred.rank or ""]
            return lambda st, seat: any(rank_of[c] == r for c in st.hands[seat])
        if pred.kind == "chip_leader":
            return lambda st, seat: st.stacks[seat] > st.stacks[1 - seat]
        if pred.kind == "chose":
            key = (pred.phase or "", pred.option or "")
            return lambda st, seat: st.choices.get((key[0], seat)) == key[1]
        if pred.kind == "holds_position":
            name = pred.position or ""
            return lambda st, seat: st.positions.get(name) == seat
        return None

    def predicate(self, pred: Predicate) -> StateTest:
        """Compile a predicate to ``f(state) -> bool``."""
        negate = pred.negate
        if pred.kind == "pot_at_least":
            amount = pred.amount or 0
            return lambda st: (st.pot() >= amount) != negate
        test = self.seat_test(pred)
        assert test is not None
        who = pred.who
        if who in ("alice", "bob"):
            seat = 0 if who == "alice" else 1
            return lambda st: test(st, seat) != negate
        if who == "either":
            return lambda st: (test(st, 0) or test(st, 1)) != negate
        if who == "both":
            return lambda st: (test(st, 0) and test(st, 1)) != negate
        return lambda st: (not (test(st, 0) or test(st, 1))) != negate
