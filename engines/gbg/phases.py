"""Phase handlers: the rules of each kind of phase, as the engine enforces them.

Each handler is built once per game's rules (``GameRules``) and holds no per-deal state (that
lives on the ``State``).  ``enter`` starts the phase (dealing, assigning, or setting the first
decision), ``act`` applies a verified action of the player to move, and each ends by calling
``state.finish_phase()``, ``state.fold(...)`` or ``state.showdown()``.  The rulebook module
states these same rules in words; ``engines.gbg.rulebook.consistency_errors`` checks that every
number and name used here is stated there.

A handler reads only the card tables and predicate closures of its game (``CardTables``) and
acts on a ``State``; ``engines.gbg.rules.GameRules`` builds one handler per phase, so this
module sits between those two and ``GameRules``.
"""

from __future__ import annotations

from typing import Any

from engines.gbg.spec import (
    AuctionPhase,
    BettingPhase,
    DealPhase,
    DrawPhase,
    PeekPhase,
    Phase,
    PositionPhase,
    RevealPhase,
    SideBetPhase,
    SimultaneousPhase,
    SwapPhase,
)
from engines.gbg.state import PUBLIC, State
from engines.gbg.tables import CardTables

FOLD, CHECK, CALL, BET = 0, 1, 2, 3


def _seats(who: str) -> list[int]:
    return {"alice": [0], "bob": [1], "both": [0, 1]}[who]


class Handler:
    """Base: a phase with no decisions finishes as soon as it is entered."""

    def __init__(self, game: CardTables, index: int, phase: Any) -> None:
        self.game = game
        self.index = index
        self.phase = phase
        self.id: str = phase.id

    def enter(self, st: State) -> None:
        st.finish_phase()

    def act(self, st: State, seat: int, action: str) -> None:
        raise AssertionError(f"phase {self.id} takes no actions")

    def after_chance(self, st: State, outcomes: list[int]) -> None:
        st.finish_phase()

    def settle_side_bet(self, st: State, bettor: int) -> None:
        raise AssertionError(f"phase {self.id} holds no side bets")


class DealHandler(Handler):
    """Deal ``count`` private cards to each player, alternating, Alice first."""

    phase: DealPhase

    def __init__(self, game: CardTables, index: int, phase: DealPhase) -> None:
        super().__init__(game, index, phase)
        self.requests = [("card", s) for _ in range(phase.count) for s in (0, 1)]

    def enter(self, st: State) -> None:
        st.chance(self.requests, self.after_chance)


class RevealHandler(Handler):
    """Deal ``count`` cards face up to the board."""

    phase: RevealPhase

    def enter(self, st: State) -> None:
        st.chance([("card", 2)] * self.phase.count, self.after_chance)


class BettingHandler(Handler):
    """A betting round (see ``BettingPhase``).  Menus are memoised by what they depend on."""

    phase: BettingPhase

    def __init__(self, game: CardTables, index: int, phase: BettingPhase) -> None:
        super().__init__(game, index, phase)
        self.cap = phase.raise_cap
        self.forced = phase.forced
        self.has_forced = any(phase.forced)
        self.first = phase.first
        self.first_seat = (
            -1 if phase.first.rule != "seat" else ("alice", "bob").index(phase.first.seat)
        )
        stake = phase.stake
        self.fixed: tuple[int, ...] | None = None
        self.percents: tuple[int, ...] = ()
        if stake.kind == "fixed":
            self.fixed = (stake.size,)
        elif stake.kind == "grid":
            self.fixed = stake.amounts
        else:
            self.percents = stake.percents
        self.menus: dict[tuple[int, ...], tuple[str, ...]] = {}
        self.parsed: dict[str, tuple[int, int]] = {
            "fold": (FOLD, 0),
            "check": (CHECK, 0),
            "call": (CALL, 0),
        }
        # Menus when every size is affordable, indexed by 2 * facing + opened.
        self.full_menus: list[tuple[str, ...]] = []
        if self.fixed is not None:
            for facing in (False, True):
                for opened in (False, True):
                    base = ("fold", "call") if facing else ("check",)
                    verb = "raise" if opened else "bet"
                    labels = tuple(f"{verb} {size}" for size in self.fixed)
                    for label, size in zip(labels, self.fixed, strict=True):
                        self.parsed[label] = (BET, size)
                    self.full_menus.append(base + labels)

    def first_actor(self, st: State) -> int:
        rule = self.first
        if rule.rule == "seat":
            return 0 if rule.seat == "alice" else 1
        fallback = 0 if rule.fallback == "alice" else 1
        if rule.rule == "position":
            holder = st.positions.get(rule.position or "")
            return fallback if holder is None else holder
        a, b = st.stacks
        if a == b:
            return fallback
        leader = 0 if a > b else 1
        return leader if rule.rule == "chip_leader" else 1 - leader

    def enter(self, st: State) -> None:
        st.round = [0, 0]
        st.acted = [False, False]
        st.n_bets = 0
        if self.has_forced:
            f0, f1 = self.forced
            st.pay(0, f0)
            st.pay(1, f1)
            st.log(PUBLIC, "blinds", -1, (f0, f1))
            st.n_bets = 1 if st.round[0] != st.round[1] else 0
        first = self.first_seat if self.first_seat >= 0 else self.first_actor(st)
        if st.round[0] == st.round[1] and (not st.stacks[0] or not st.stacks[1]):
            st.finish_phase()
            return
        self.decide(st, first)

    def sizes(self, st: State) -> tuple[int, ...]:
        if self.fixed is not None:
            return self.fixed
        pot = st.pot()
        return tuple(sorted({max(1, (pot * p + 50) // 100) for p in self.percents}))

    def decide(self, st: State, seat: int) -> None:
        """Set ``seat``'s menu: check/bet when nothing is owed, fold/call/raise otherwise.

        A bet or raise may not exceed what the bettor can pay after calling, nor what the
        opponent can pay to call it (so a call is always affordable and no side pot arises).
        """
        rnd = st.round
        stacks = st.stacks
        opp = 1 - seat
        facing = rnd[opp] - rnd[seat]
        opened = st.n_bets > 0
        limit = stacks[seat] - facing
        if stacks[opp] < limit:
            limit = stacks[opp]
        if st.n_bets >= self.cap:
            limit = 0
        fixed = self.fixed
        if fixed is not None and limit >= fixed[-1]:
            menu = self.full_menus[2 * (facing > 0) + opened]
        else:
            key = (facing > 0, opened, limit, 0 if fixed is not None else st.pot())
            cached = self.menus.get(key)
            if cached is None:
                cached = self.menus[key] = self.menu(st, facing > 0, opened, limit)
            menu = cached
        st.current_player = seat
        st._legal = menu

    def menu(self, st: State, facing: bool, opened: bool, limit: int) -> tuple[str, ...]:
        verb = "raise" if opened else "bet"
        base = ["fold", "call"] if facing else ["check"]
        for size in self.sizes(st):
            if size <= limit:
                label = f"{verb} {size}"
                self.parsed[label] = (BET, size)
                base.append(label)
        return tuple(base)

    def act(self, st: State, seat: int, action: str) -> None:
        code, amount = self.parsed[action]
        st.events.append((PUBLIC, "act", seat, action))
        if code == FOLD:
            st.fold(seat)
            return
        opp = 1 - seat
        rnd = st.round
        acted = st.acted
        acted[seat] = True
        if code == BET:
            pay = rnd[opp] - rnd[seat] + amount
            st.stacks[seat] -= pay
            st.contrib[seat] += pay
            rnd[seat] += pay
            st.n_bets += 1
            acted[opp] = False
            self.decide(st, opp)
            return
        if code == CALL:
            pay = rnd[opp] - rnd[seat]
            st.stacks[seat] -= pay
            st.contrib[seat] += pay
            rnd[seat] += pay
        if acted[opp]:
            st.finish_phase()
        else:
            self.decide(st, opp)


class SecretChoiceHandler(Handler):
    """Shared shape of simultaneous rounds and sealed-bid auctions: Alice chooses, Bob chooses
    without seeing it, then both choices are revealed and resolved."""

    def menu(self, st: State, seat: int) -> tuple[str, ...]:
        raise NotImplementedError

    def enter(self, st: State) -> None:
        st.selection = [None, None]
        st.decide(0, self.menu(st, 0))

    def act(self, st: State, seat: int, action: str) -> None:
        st.selection[seat] = action
        st.choices[(self.id, seat)] = action
        st.log(seat, "secret", seat, action)
        if seat == 0:
            st.decide(1, self.menu(st, 1))
            return
        a, b = st.selection
        assert a is not None and b is not None
        self.resolve(st, a, b)

    def resolve(self, st: State, a: str, b: str) -> None:
        raise NotImplementedError


class SimultaneousHandler(SecretChoiceHandler):
    phase: SimultaneousPhase

    def __init__(self, game: CardTables, index: int, phase: SimultaneousPhase) -> None:
        super().__init__(game, index, phase)
        self.options = {o.name: o for o in phase.options}
        self.names = tuple(o.name for o in phase.options)
        self.matrix = {(c.alice, c.bob): c.transfer for c in phase.matrix}

    def menu(self, st: State, seat: int) -> tuple[str, ...]:
        return self.names

    def resolve(self, st: State, a: str, b: str) -> None:
        st.log(PUBLIC, "reveal_choices", -1, (a, b))
        for seat, name in ((0, a), (1, b)):
            option = self.options[name]
            st.pay(seat, option.pot_chips)
            st.points[seat] += option.score_delta
        transfer = self.matrix.get((a, b), 0)
        if transfer:
            payer, payee = (1, 0) if transfer > 0 else (0, 1)
            moved = min(abs(transfer), st.stacks[payer])
            st.stacks[payer] -= moved
            st.stacks[payee] += moved
            st.log(PUBLIC, "transfer", payee, moved)
        st.finish_phase()


class AuctionHandler(SecretChoiceHandler):
    phase: AuctionPhase

    def menu(self, st: State, seat: int) -> tuple[str, ...]:
        return tuple(f"bid {b}" for b in self.phase.bids if b <= st.stacks[seat])

    def resolve(self, st: State, a: str, b: str) -> None:
        bid = (int(a.split()[1]), int(b.split()[1]))
        p = self.phase
        if bid[0] != bid[1]:
            winner = 0 if bid[0] > bid[1] else 1
        else:
            winner = {"no_sale": -1, "alice": 0, "bob": 1}[p.tie]
        price = 0
        if winner >= 0:
            price = bid[winner] if p.pricing == "first" else bid[1 - winner]
            st.pay(winner, price)
        st.log(PUBLIC, "auction", winner, (bid[0], bid[1], price))
        if winner < 0:
            st.finish_phase()
            return
        item = p.item
        if item.kind == "card":
            st.chance([("card", winner)], self.after_chance)
        elif item.kind == "peek":
            peek_opponent_card(st, winner, self.after_chance)
        else:
            name = item.position or ""
            st.positions[name] = winner
            st.log(PUBLIC, "position", -1, (name, winner))
            st.finish_phase()


def peek_opponent_card(st: State, seat: int, then: Any) -> None:
    """``seat`` sees a uniformly chosen card of the opponent's hand, then ``then`` runs."""
    hand = st.hands[1 - seat]
    if not hand:
        then(st, [])
        return

    def seen(st: State, outcomes: list[int]) -> None:
        card = st.hands[1 - seat][outcomes[-1]]
        st.log(seat, "peek", seat, card)
        then(st, outcomes)

    st.chance([("pick", len(hand))], seen)


class PeekHandler(Handler):
    """An observation phase (see ``PeekPhase``)."""

    phase: PeekPhase

    def enter(self, st: State) -> None:
        p = self.phase
        if p.who == "position":
            holder = st.positions.get(p.position or "")
            st.queue = [] if holder is None else [holder]
        else:
            st.queue = _seats(p.who)
        self.next_seat(st)

    def next_seat(self, st: State, outcomes: list[int] | None = None) -> None:
        if not st.queue:
            st.finish_phase()
            return
        seat = st.queue.pop(0)
        if self.phase.optional:
            affordable = st.stacks[seat] >= self.phase.cost
            st.decide(seat, ("peek", "pass") if affordable else ("pass",))
        else:
            self.look(st, seat)

    def act(self, st: State, seat: int, action: str) -> None:
        st.choices[(self.id, seat)] = action
        st.log(PUBLIC, "act", seat, action)
        if action == "pass":
            self.next_seat(st)
            return
        st.pay(seat, self.phase.cost)
        self.look(st, seat)

    def look(self, st: State, seat: int) -> None:
        p = self.phase

        def after_look(st: State, outcomes: list[int]) -> None:
            if p.risk is None:
                self.next_seat(st)
                return

            def after_coin(st: State, coin: list[int]) -> None:
                if coin[-1]:
                    paid = st.pay(seat, p.risk.chips if p.risk else 0)
                    st.log(PUBLIC, "risk", seat, paid)
                else:
                    st.log(PUBLIC, "risk", seat, 0)
                self.next_seat(st)

            st.chance([("coin", p.risk.percent)], after_coin)

        if p.target == "opponent_card":
            peek_opponent_card(st, seat, after_look)
        else:

            def seen_top(st: State, outcomes: list[int]) -> None:
                card = st.top[0]
                st.log(seat, "peek_top", seat, card)
                after_look(st, outcomes)

            if st.top:
                seen_top(st, [])
            else:
                st.chance([("card", 3)], seen_top)


class DrawHandler(Handler):
    """Players draw cards in seat order (optionally choosing to draw or stand)."""

    phase: DrawPhase

    def enter(self, st: State) -> None:
        p = self.phase
        if not p.optional:
            reqs = [("card", s) for s in _seats(p.who) for _ in range(p.count)]
            st.chance(reqs, self.after_chance)
            return
        st.queue = _seats(p.who)
        self.next_seat(st)

    def next_seat(self, st: State, outcomes: list[int] | None = None) -> None:
        if not st.queue:
            st.finish_phase()
            return
        st.decide(st.queue.pop(0), ("draw", "stand"))

    def act(self, st: State, seat: int, action: str) -> None:
        st.choices[(self.id, seat)] = action
        st.log(PUBLIC, "act", seat, action)
        if action == "stand":
            self.next_seat(st)
        else:
            st.chance([("card", seat)] * self.phase.count, self.next_seat)


class SwapHandler(Handler):
    """A player may exchange one hand card with the deck or with the last board card."""

    phase: SwapPhase

    def enter(self, st: State) -> None:
        st.queue = _seats(self.phase.who)
        self.next_seat(st)

    def next_seat(self, st: State, outcomes: list[int] | None = None) -> None:
        while st.queue:
            seat = st.queue.pop(0)
            if self.phase.source == "board" and not st.board:
                continue
            labels = self.game.label_of
            offers = sorted({labels[c] for c in st.hands[seat]})
            st.decide(seat, ("keep", *(f"swap {label}" for label in offers)))
            return
        st.finish_phase()

    def act(self, st: State, seat: int, action: str) -> None:
        st.choices[(self.id, seat)] = "keep" if action == "keep" else "swap"
        st.log(PUBLIC, "act", seat, "keep" if action == "keep" else "swap")
        if action == "keep":
            self.next_seat(st)
            return
        label = action.split(" ", 1)[1]
        hand = st.hands[seat]
        card = next(c for c in hand if self.game.label_of[c] == label)
        hand.remove(card)
        st.log(seat, "discard", seat, card)
        if self.phase.source == "deck":
            st.chance([("card", seat)], self.next_seat)
            return
        if self.phase.source == "opponent":
            self.exchange(st, seat, card)
            return
        taken = st.board.pop()
        st.board.append(card)
        hand.append(taken)
        st.log(PUBLIC, "board_swap", seat, (card, taken))
        self.next_seat(st)

    def exchange(self, st: State, seat: int, given: int) -> None:
        """Give ``given`` to the opponent and take one of its cards at random."""

        def taken(st: State, outcomes: list[int]) -> None:
            theirs = st.hands[1 - seat]
            card = theirs.pop(outcomes[-1])
            theirs.append(given)
            st.hands[seat].append(card)
            st.log(seat, "swap_take", seat, (given, card))
            st.log(1 - seat, "swap_take", seat, (given, card))
            self.next_seat(st)

        st.chance([("pick", len(st.hands[1 - seat]))], taken)


class PositionHandler(Handler):
    """Assign a position by its criterion (nobody holds it on a tie), then grant its perk."""

    phase: PositionPhase

    def measure(self, st: State, seat: int) -> tuple[int, ...]:
        value_of, rank_of = self.game.value_of, self.game.rank_of
        hand = st.hands[seat]
        crit = self.phase.criterion
        if crit == "high_card":
            return tuple(sorted((value_of[c] for c in hand), reverse=True))
        if crit == "high_sum":
            return (sum(value_of[c] for c in hand),)
        if crit == "low_sum":
            return (-sum(value_of[c] for c in hand),)
        if crit == "pair":
            ranks = [rank_of[c] for c in hand]
            return (1 if len(set(ranks)) < len(ranks) else 0,)
        return (st.stacks[seat],)

    def enter(self, st: State) -> None:
        p = self.phase
        m0, m1 = self.measure(st, 0), self.measure(st, 1)
        holder = 0 if m0 > m1 else 1 if m1 > m0 else None
        st.positions[p.name] = holder
        if p.hidden:
            if holder is not None:
                st.log(holder, "position", -1, (p.name, holder))
        else:
            st.log(PUBLIC, "position", -1, (p.name, -1 if holder is None else holder))
        if holder is None or p.perk is None:
            st.finish_phase()
        elif p.perk.kind == "score_bonus":
            st.points[holder] += p.perk.points
            st.finish_phase()
        else:
            peek_opponent_card(st, holder, self.after_chance)


class SideBetHandler(Handler):
    """Each player in turn may stake a side bet on its own final hand."""

    phase: SideBetPhase

    def __init__(self, game: CardTables, index: int, phase: SideBetPhase) -> None:
        super().__init__(game, index, phase)
        test = game.seat_test(phase.proposition)
        self.test = test
        self.negate = phase.proposition.negate

    def enter(self, st: State) -> None:
        st.queue = [0, 1]
        self.next_seat(st)

    def next_seat(self, st: State) -> None:
        stake = self.phase.stake
        while st.queue:
            seat = st.queue.pop(0)
            if min(st.stacks) >= stake:
                st.decide(seat, ("side_bet", "pass"))
                return
        st.finish_phase()

    def act(self, st: State, seat: int, action: str) -> None:
        st.choices[(self.id, seat)] = action
        st.log(PUBLIC, "act", seat, action)
        if action == "side_bet":
            stake = self.phase.stake
            st.stacks[0] -= stake
            st.stacks[1] -= stake
            st.side = [*st.side, (seat, self.index)]
        self.next_seat(st)

    def holds(self, st: State, bettor: int) -> bool:
        if self.test is None:
            amount = self.phase.proposition.amount or 0
            return (st.pot() >= amount) != self.negate
        return self.test(st, bettor) != self.negate

    def settle_side_bet(self, st: State, bettor: int) -> None:
        won = self.holds(st, bettor)
        taker = bettor if won else 1 - bettor
        st.stacks[taker] += 2 * self.phase.stake
        st.log(PUBLIC, "side_settle", bettor, won)


HANDLERS: dict[str, type[Handler]] = {
    "deal": DealHandler,
    "reveal": RevealHandler,
    "betting": BettingHandler,
    "simultaneous": SimultaneousHandler,
    "auction": AuctionHandler,
    "peek": PeekHandler,
    "draw": DrawHandler,
    "swap": SwapHandler,
    "position": PositionHandler,
    "side_bet": SideBetHandler,
}


def make_handler(game: CardTables, index: int, phase: Phase) -> Handler:
    return HANDLERS[phase.kind](game, index, phase)
