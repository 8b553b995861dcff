"""The mover's state: one deal of a GBG, from the shuffle to settlement, on the interpreter.

A ``State`` holds everything that moves in a deal (deck, hands, board, stacks, pot, positions,
choices, the event log and the history) and runs on a game's rules (``GameRules``), which it
sees through the ``Game`` protocol below: the phase rules (one ``PhaseRule`` per phase), the
branch tests, the showdown key, the card names and the seat's observation.
``engines.gbg.rules`` builds that game and ``engines.gbg.phases`` its rules; both operate on a
``State``, so they import this module and this module imports neither: the protocol is the whole
of what a deal needs from them.  ``initial_state`` starts an interpreted deal;
``engines.gbg.engine.new_deal`` (the public entry) chooses between it and the memoised game tree.

Chance events (cards, coins, random picks) come from the deal's generator; without one (the
explicit-chance mode) the deal stops at chance nodes and lists their outcomes with
probabilities, OpenSpiel style, so that a caller (the OpenSpiel bridge, a test) chooses them.

Moves follow pokerkit's verify / can / do triad: ``verify_apply`` raises ``ValueError`` with
the reason, ``can_apply`` returns a bool, ``apply`` verifies, applies and returns an immutable
``Move`` record.  The records form the deal's history; together with the chance outcomes they
replay the deal exactly (``engines.gbg.steps``).

An event log with visibility (public, or private to one seat) is the single source of what a
seat knows: ``observation(seat)`` and ``information_state(seat)`` read only the events that
seat can see, so an observation cannot leak a hidden card that no rule revealed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from mypy_extensions import mypyc_attr

from engines.gbg.rng import DealRng
from engines.gbg.spec import SEATS, GameSpec

CHANCE = -1
TERMINAL = -4
PUBLIC = 2

# Chance requests: (kind, argument).  "card": deal a card to a hand (0, 1) or the board (2) or
# to the top of the deck (3); "pick": a uniform index below the argument; "coin": true with
# the argument's percent.
ChanceRequest = tuple[str, int]

# Event kinds whose data is one card id, and those whose data is a pair of card ids/tuples.
CARD_EVENTS = frozenset({"card", "board", "peek", "peek_top", "discard"})
PAIR_EVENTS = frozenset({"show", "swap_take", "board_swap"})


class Move(NamedTuple):
    """One decision, as recorded in the history (``ply`` counts decisions from 0)."""

    ply: int
    seat: int
    phase: str
    action: str


_new_tuple = tuple.__new__

Event = tuple[int, str, int, Any]
"""(visibility, kind, seat, data): visibility 0 or 1 is private to that seat, 2 is public."""

StateTest = Callable[["State"], bool]
"""A branch predicate as a closure: does it hold in this state?"""


class PhaseRule(Protocol):
    """One phase's rules as a deal calls them (``engines.gbg.phases.Handler`` implements it).

    ``enter`` starts the phase, ``act`` applies a verified action of the player to move, and
    ``settle_side_bet`` pays a side bet placed in this phase; ``phase`` is the spec's phase.
    """

    @property
    def phase(self) -> Any: ...

    def enter(self, st: State) -> None: ...

    def act(self, st: State, seat: int, action: str) -> None: ...

    def settle_side_bet(self, st: State, bettor: int) -> None: ...


class Game(Protocol):
    """A game's rules as a deal reads them (``engines.gbg.rules.GameRules`` implements it).

    The spec and its stack, the card count and card names (by card id), the phase ids and one
    rule per phase, each phase's edges (target index, or -1 for the showdown, with the
    predicate; None always holds) and its unconditional target (None when it branches), the
    showdown key of a seat (higher wins), and a seat's observation: as an OpenSpiel state asks
    its game's observer, a deal asks its game to put what a seat sees into a record.
    """

    @property
    def spec(self) -> GameSpec: ...

    @property
    def stack(self) -> int: ...

    @property
    def n_cards(self) -> int: ...

    @property
    def label_of(self) -> list[str]: ...

    @property
    def phase_ids(self) -> list[str]: ...

    @property
    def handlers(self) -> Sequence[PhaseRule]: ...

    @property
    def edges(self) -> Sequence[Sequence[tuple[int, StateTest | None]]]: ...

    @property
    def straight(self) -> Sequence[int | None]: ...

    @property
    def showdown_key(self) -> Callable[[State, int], Any]: ...

    def observation(self, st: State, seat: int) -> dict[str, Any]: ...


def position_as_known(holder: int, seat: int, visibility: int) -> str:
    """How ``seat`` knows the holder of a position from an event it sees: ``you``, else (a
    public event) ``opponent`` or ``nobody``, else ``not you``."""
    if holder == seat:
        return "you"
    if visibility == PUBLIC:
        return "opponent" if holder >= 0 else "nobody"
    return "not you"


# ``engines.gbg.tree.TreeState`` (interpreted) subclasses it when the engine runs compiled
# (``arena.compiled_engine``).
@mypyc_attr(allow_interpreted_subclasses=True)
class State:
    """A deal in progress.  ``current_player`` is 0 (Alice), 1 (Bob), CHANCE or TERMINAL."""

    __slots__ = (
        "_chance_outcomes",
        "_cont",
        "_legal",
        "_pending",
        "_rng",
        "acted",
        "board",
        "branches",
        "choices",
        "contrib",
        "current_player",
        "deck",
        "events",
        "g",
        "hands",
        "history",
        "n_bets",
        "phase",
        "points",
        "positions",
        "queue",
        "round",
        "selection",
        "side",
        "stacks",
        "top",
        "winner",
    )

    g: Game

    def __init__(self, game: Game, rng: DealRng | None, blank: bool = False) -> None:
        self.g = game
        self._rng = rng
        if blank:  # ``clone`` sets every other field
            return
        spec = game.spec
        self.deck = list(range(game.n_cards))
        self.top: list[int] = []
        self.hands: list[list[int]] = [[], []]
        self.board: list[int] = []
        ante = spec.ante
        self.stacks = [spec.stack - ante, spec.stack - ante]
        self.contrib = [ante, ante]
        self.round = [0, 0]
        self.acted = [False, False]
        self.n_bets = 0
        self.points = [0, 0]
        self.positions: dict[str, int | None] = {}
        self.choices: dict[tuple[str, int], str] = {}
        self.selection: list[str | None] = [None, None]
        self.queue: list[int] = []
        self.side: list[tuple[int, int]] = []
        self.events: list[Event] = []
        self.history: list[Move] = []
        self.branches: list[tuple[int, int]] = []
        self.phase = 0
        self.current_player = CHANCE
        self._legal: tuple[str, ...] = ()
        self._pending: list[ChanceRequest] = []
        self._chance_outcomes: list[int] = []
        self._cont: Any = None
        self.winner = -1

    # --- public API -------------------------------------------------------------------------

    @property
    def spec(self) -> GameSpec:
        return self.g.spec

    def legal_actions(self) -> tuple[str, ...]:
        """The actions open to the player to move (empty at chance and terminal nodes)."""
        return self._legal

    def is_terminal(self) -> bool:
        return self.current_player == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player == CHANCE

    def returns(self) -> tuple[int, int]:
        """Each seat's chip change over the deal (zero until the deal ends)."""
        if self.current_player != TERMINAL:
            return (0, 0)
        stack = self.g.stack
        return (self.stacks[0] - stack, self.stacks[1] - stack)

    def pot(self) -> int:
        return self.contrib[0] + self.contrib[1]

    def escrow(self) -> int:
        """Chips held apart for side bets not yet settled."""
        if self.current_player == TERMINAL:
            return 0
        handlers = self.g.handlers
        return sum(2 * handlers[i].phase.stake for _, i in self.side)

    def chips_in_play(self) -> int:
        """Stacks + pot + side-bet escrow: constant over a deal (chip conservation)."""
        return self.stacks[0] + self.stacks[1] + self.pot() + self.escrow()

    @property
    def phase_id(self) -> str:
        return "showdown" if self.phase < 0 else self.g.phase_ids[self.phase]

    def verify_apply(self, action: str) -> None:
        """Raise ``ValueError`` naming why ``action`` cannot be played now."""
        if self.current_player < 0:
            node = "terminal" if self.current_player == TERMINAL else "chance"
            raise ValueError(f"no player is to move at a {node} node")
        if action not in self._legal:
            raise ValueError(f"illegal action {action!r}; legal: {list(self._legal)}")

    def can_apply(self, action: str) -> bool:
        return self.current_player >= 0 and action in self._legal

    def apply(self, action: str) -> Move:
        """Verify and play ``action`` for the player to move; return its record."""
        if action not in self._legal or self.current_player < 0:
            self.verify_apply(action)
        seat = self.current_player
        g = self.g
        move = _new_tuple(Move, (len(self.history), seat, g.phase_ids[self.phase], action))
        self.history.append(move)
        g.handlers[self.phase].act(self, seat, action)
        return move

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node: (outcome, probability) pairs.  Card outcomes are card ids."""
        if self.current_player != CHANCE or not self._pending:
            return []
        kind, arg = self._pending[0]
        if kind == "card":
            p = 1.0 / len(self.deck)
            return [(c, p) for c in sorted(self.deck)]
        if kind == "pick":
            return [(i, 1.0 / arg) for i in range(arg)]
        return [(0, (100 - arg) / 100.0), (1, arg / 100.0)]

    def chance_kind(self) -> str | None:
        """At a chance node: ``card``, ``pick`` (a uniform index) or ``coin``; else None."""
        if self.current_player != CHANCE or not self._pending:
            return None
        return self._pending[0][0]

    def chance_request(self) -> ChanceRequest | None:
        """At a chance node: the pending request, (kind, argument) as ``chance_outcomes``
        lists it (a card from the deck, a pick below the argument, a coin of the argument's
        percent); else None."""
        if self.current_player != CHANCE or not self._pending:
            return None
        return self._pending[0]

    def apply_chance(self, outcome: int) -> None:
        """At a chance node: resolve the pending chance event with ``outcome``."""
        if self.current_player != CHANCE or not self._pending:
            raise ValueError("not at a chance node")
        kind, arg = self._pending[0]
        # Membership in the outcomes ``chance_outcomes`` lists, without listing them.
        if kind == "card":
            possible = outcome in self.deck
        elif kind == "pick":
            possible = outcome in range(arg)
        else:
            possible = outcome in (0, 1)
        if not possible:
            raise ValueError(f"chance outcome {outcome} is not possible here")
        self._resolve(self._pending.pop(0), outcome)
        self._drain()

    def observation(self, seat: int | str) -> dict[str, Any]:
        """What ``seat`` can see now, as a structured record (``engines.gbg.render`` builds it;
        the deal asks its game's rules, which hold the renderer)."""
        return self.g.observation(self, _seat_index(seat))

    def information_state(self, seat: int | str) -> str:
        """The perfect-recall key: every event ``seat`` has seen, in order."""
        s = _seat_index(seat)
        label = self.g.label_of
        seen = [_named(ev, label) for ev in self.events if ev[0] == PUBLIC or ev[0] == s]
        return f"{SEATS[s]}:{seen!r}"

    def abstract_state(self, seat: int | str) -> tuple[Any, ...]:
        """The paper's abstracted information state for the state-space axis (Appendix C).

        The decision (phase and menu), the seat's own hand, its last three decisions, its chips
        and the opponent's, the pot, the board, everything else it has been shown, positions.
        """
        s = _seat_index(seat)
        label = self.g.label_of
        own = tuple(m.action for m in self.history if m.seat == s)[-3:]
        shown = tuple(
            _named(ev, label)
            for ev in self.events
            if (ev[0] == PUBLIC or ev[0] == s) and not (ev[1] == "act" and ev[2] == s)
        )
        positions = tuple(sorted(self.known_positions(s).items()))
        return (
            self.phase_id,
            self._legal if self.current_player == s else (),
            tuple(sorted(label[c] for c in self.hands[s])),
            own,
            self.stacks[s],
            self.stacks[1 - s],
            self.pot(),
            tuple(label[c] for c in self.board),
            shown,
            positions,
        )

    def known_cards(self, seat: int | str) -> set[int]:
        """Card ids ``seat`` has been shown by some rule (own cards, board, peeks, showdown)."""
        s = _seat_index(seat)
        seen: set[int] = set()
        for vis, kind, _, data in self.events:
            if vis != PUBLIC and vis != s:
                continue
            if kind in CARD_EVENTS:
                seen.add(data)
            elif kind == "show":
                seen.update(data[0])
                seen.update(data[1])
            elif kind in PAIR_EVENTS:
                seen.update(data)
        return seen

    def known_positions(self, seat: int) -> dict[str, str]:
        """Positions as ``seat`` knows them: holder name, ``you``, or ``not you``."""
        out: dict[str, str] = {}
        for ev in self.events:
            if ev[1] == "position" and (ev[0] == PUBLIC or ev[0] == seat):
                name, holder = ev[3]
                out[name] = position_as_known(holder, seat, ev[0])
        return out

    def clone(self) -> State:
        """An independent copy (shares only the immutable rules)."""
        other = State(self.g, None if self._rng is None else self._rng.copy(), blank=True)
        other.deck = self.deck[:]
        other.top = self.top[:]
        other.hands = [self.hands[0][:], self.hands[1][:]]
        other.board = self.board[:]
        other.stacks = self.stacks[:]
        other.contrib = self.contrib[:]
        other.round = self.round[:]
        other.acted = self.acted[:]
        other.n_bets = self.n_bets
        other.points = self.points[:]
        other.positions = dict(self.positions)
        other.choices = dict(self.choices)
        other.selection = self.selection[:]
        other.queue = self.queue[:]
        other.side = self.side[:]
        other.events = self.events[:]
        other.history = self.history[:]
        other.branches = self.branches[:]
        other.phase = self.phase
        other.current_player = self.current_player
        other._legal = self._legal
        other._pending = self._pending[:]
        other._chance_outcomes = self._chance_outcomes[:]
        other._cont = self._cont
        other.winner = self.winner
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        return self.clone()

    def __repr__(self) -> str:
        return (
            f"State({self.g.spec.name!r}, phase={self.phase_id!r}, "
            f"player={self.current_player}, moves={len(self.history)})"
        )

    # --- machinery used by the phase handlers ------------------------------------------------

    def decide(self, seat: int, legal: tuple[str, ...]) -> None:
        """Make ``seat`` the player to move with menu ``legal``."""
        self.current_player = seat
        self._legal = legal

    def log(self, visibility: int, kind: str, seat: int, data: Any) -> None:
        self.events.append((visibility, kind, seat, data))

    def pay(self, seat: int, amount: int) -> int:
        """Move up to ``amount`` chips from ``seat``'s stack into the pot; return what moved."""
        amount = min(amount, self.stacks[seat])
        self.stacks[seat] -= amount
        self.contrib[seat] += amount
        self.round[seat] += amount
        return amount

    def chance(self, requests: list[ChanceRequest], cont: Any) -> None:
        """Resolve ``requests`` in order, then call ``cont(state, outcomes)``."""
        rng = self._rng
        if rng is not None and not self.top:
            # Sampled chance, the common case: resolve in place without the pending queue.
            deck, events, outcomes = self.deck, self.events, []
            for kind, arg in requests:
                if kind == "card":
                    card = deck.pop(rng.below(len(deck)))  # the deck stays sorted
                    if arg < 2:
                        self.hands[arg].append(card)
                        events.append((arg, "card", arg, card))
                    elif arg == 2:
                        self.board.append(card)
                        events.append((PUBLIC, "board", -1, card))
                    else:
                        self.top.append(card)
                    outcomes.append(card)
                elif kind == "pick":
                    outcomes.append(rng.below(arg))
                else:
                    outcomes.append(1 if rng.below(100) < arg else 0)
            cont(self, outcomes)
            return
        self._pending = list(requests)
        self._chance_outcomes = []
        self._cont = cont
        self._drain()

    def _drain(self) -> None:
        pending = self._pending
        rng = self._rng
        while pending:
            kind, arg = pending[0]
            if kind == "card" and self.top:
                pending.pop(0)
                self._resolve((kind, arg), self.top[0])
                continue
            if rng is None:
                self.current_player = CHANCE
                self._legal = ()
                return
            pending.pop(0)
            if kind == "card":
                outcome = self.deck[rng.below(len(self.deck))]
            elif kind == "pick":
                outcome = rng.below(arg)
            else:
                outcome = 1 if rng.below(100) < arg else 0
            self._resolve((kind, arg), outcome)
        cont, self._cont = self._cont, None
        cont(self, self._chance_outcomes)

    def _resolve(self, request: ChanceRequest, outcome: int) -> None:
        kind, arg = request
        if kind == "card":
            if self.top and self.top[0] == outcome:
                self.top.pop(0)
            else:
                self.deck.remove(outcome)
            if arg == 2:
                self.board.append(outcome)
                self.events.append((PUBLIC, "board", -1, outcome))
            elif arg == 3:
                self.top.append(outcome)
            else:
                self.hands[arg].append(outcome)
                self.events.append((arg, "card", arg, outcome))
        self._chance_outcomes.append(outcome)

    def finish_phase(self) -> None:
        """Leave the current phase by the first edge whose predicate holds."""
        g = self.g
        straight = g.straight[self.phase]
        target = straight if straight is not None else self._branch()
        if target < 0:
            self.showdown()
        else:
            self.phase = target
            self.events.append((PUBLIC, "phase", -1, target))
            g.handlers[target].enter(self)

    def _branch(self) -> int:
        """The target of the first edge whose predicate holds (the last edge always does)."""
        edges = self.g.edges[self.phase]
        for k, (target, test) in enumerate(edges):
            if test is None or test(self):
                self.branches.append((self.phase, k))  # edge k held, those before did not
                return target
        raise AssertionError(f"phase {self.phase_id}: no edge holds (the last must be plain)")

    def fold(self, seat: int) -> None:
        """``seat`` folded (its action is already logged): the opponent takes the pot."""
        self._settle(1 - seat)

    def showdown(self) -> None:
        self.phase = -1
        key = self.g.showdown_key
        self.events.append((PUBLIC, "show", -1, (tuple(self.hands[0]), tuple(self.hands[1]))))
        k0, k1 = key(self, 0), key(self, 1)
        self._settle(0 if k0 > k1 else 1 if k1 > k0 else -1)

    def _settle(self, winner: int) -> None:
        """Pay the pot to ``winner`` (each takes back its own chips on a tie), then side bets."""
        self.phase = -1
        self.winner = winner
        contrib = self.contrib
        if winner < 0:
            self.stacks[0] += contrib[0]
            self.stacks[1] += contrib[1]
        else:
            self.stacks[winner] += contrib[0] + contrib[1]
        self.contrib = [0, 0]
        if self.side:
            for bettor, stake_index in self.side:
                self.g.handlers[stake_index].settle_side_bet(self, bettor)
        self.events.append((PUBLIC, "settle", winner, None))
        self.current_player = TERMINAL
        self._legal = ()


def _named(event: Event, label: list[str]) -> tuple[Any, ...]:
    """An event without its visibility, cards named by label rather than id: two copies of a
    card (``Deck.copies`` > 1) are indistinguishable to a seat, so they must key alike."""
    _, kind, seat, data = event
    if kind in CARD_EVENTS:
        return (kind, seat, label[data])
    if kind == "show":
        return (kind, seat, tuple(tuple(label[c] for c in hand) for hand in data))
    if kind in PAIR_EVENTS:
        return (kind, seat, tuple(label[c] for c in data))
    return (kind, seat, data)


def _seat_index(seat: int | str) -> int:
    if isinstance(seat, str):
        if seat not in SEATS:
            raise ValueError(f"unknown seat {seat!r}; use 'alice' or 'bob'")
        return SEATS.index(seat)
    if seat not in (0, 1):
        raise ValueError(f"unknown seat {seat!r}; use 0 (alice) or 1 (bob)")
    return seat


def initial_state(game: Game, rng: DealRng | None) -> State:
    """A deal of ``game`` on the interpreter, entered into its first phase.

    Chance comes from ``rng``; with None (explicit chance) the deal stops at chance nodes for
    the caller to resolve.
    """
    state = State(game, rng)
    state.events.append((PUBLIC, "phase", -1, 0))
    game.handlers[0].enter(state)
    return state
