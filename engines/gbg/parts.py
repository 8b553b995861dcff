"""The parts a generalized betting game is built from, as data (paper, Section 3).

A deck of ranked, suited cards; stakes; the branch predicates carried by the edges of the phase
graph; the ten kinds of phase (betting, simultaneous moves, auctions, observations, draws,
swaps, position assignments, side bets, board reveals and the deal); the showdown metric.  Each
is a frozen pydantic model that validates its own fields on construction.

They live apart from ``GameSpec`` (``engines.gbg.spec``) because the structural checks of a
whole game (``engines.gbg.structure``) are written in terms of these parts and a ``GameSpec``
runs those checks when it is built: parts, then checks, then the spec.  ``engines.gbg.spec``
re-exports every part, so a spec and its parts are imported from one place.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Seat = Literal["alice", "bob"]
SEATS: tuple[Seat, Seat] = ("alice", "bob")
SeatSet = Literal["alice", "bob", "both"]
SeatQuantifier = Literal["alice", "bob", "either", "both", "neither"]


class Part(BaseModel):
    """The base of every part: frozen, and no field beyond those declared."""

    model_config = ConfigDict(frozen=True, extra="forbid")


# --- cards ---------------------------------------------------------------------------------


class Rank(Part):
    """A rank: its printed label and its value for scoring (higher is better)."""

    label: str = Field(min_length=1, max_length=3)
    value: int = Field(ge=0, le=100)


class Deck(Part):
    """The deck: ranks x suits x copies.  Card ids enumerate (rank, suit, copy) in that order."""

    ranks: tuple[Rank, ...] = Field(min_length=1)
    suits: tuple[str, ...] = Field(min_length=1)
    copies: int = Field(default=1, ge=1, le=4)

    @model_validator(mode="after")
    def _distinct(self) -> Deck:
        labels = [r.label for r in self.ranks]
        if len(set(labels)) != len(labels):
            raise ValueError(f"deck ranks must have distinct labels, got {labels}")
        if len(set(self.suits)) != len(self.suits):
            raise ValueError(f"deck suits must be distinct, got {list(self.suits)}")
        return self

    @property
    def size(self) -> int:
        return len(self.ranks) * len(self.suits) * self.copies


# --- stakes and predicates -------------------------------------------------------------------


class FixedStake(Part):
    """Bets and raises of exactly ``size`` chips (limit poker)."""

    kind: Literal["fixed"] = "fixed"
    size: int = Field(ge=1)


class GridStake(Part):
    """Bets and raises of any amount on the wager grid, up to what both players can pay."""

    kind: Literal["grid"] = "grid"
    amounts: tuple[int, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _sorted(self) -> GridStake:
        if list(self.amounts) != sorted(set(self.amounts)) or self.amounts[0] < 1:
            raise ValueError("grid stake amounts must be positive, distinct and ascending")
        return self


class PotStake(Part):
    """Bets and raises sized as percentages of the pot (rounded, at least one chip)."""

    kind: Literal["pot"] = "pot"
    percents: tuple[int, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _sorted(self) -> PotStake:
        if list(self.percents) != sorted(set(self.percents)) or self.percents[0] < 1:
            raise ValueError("pot stake percents must be positive, distinct and ascending")
        return self


Stake = Annotated[FixedStake | GridStake | PotStake, Field(discriminator="kind")]


class Actor(Part):
    """Who acts first in a betting round: a fixed seat, a position's holder, the chip leader.

    When the rule names nobody (a position no one holds, level chips), ``fallback`` acts first.
    """

    rule: Literal["seat", "position", "chip_leader", "chip_trailer"] = "seat"
    seat: Seat = "alice"
    position: str | None = None
    fallback: Seat = "alice"

    @model_validator(mode="after")
    def _needs_position(self) -> Actor:
        if (self.rule == "position") != (self.position is not None):
            raise ValueError("an actor rule 'position' needs a position name, and only it")
        return self


class Predicate(Part):
    """A branch condition, evaluated when the game leaves a phase.

    kinds: ``holds_pair`` (two cards of one rank in hand), ``holds_rank`` (a card of ``rank``),
    ``chip_leader`` (more chips behind than the opponent), ``pot_at_least`` (``amount``),
    ``chose`` (made ``option`` in phase ``phase``), ``holds_position`` (``position``).
    ``who`` quantifies over the seats; ``negate`` inverts the result.
    """

    kind: Literal[
        "holds_pair", "holds_rank", "chip_leader", "pot_at_least", "chose", "holds_position"
    ]
    who: SeatQuantifier = "either"
    rank: str | None = None
    amount: int | None = None
    phase: str | None = None
    option: str | None = None
    position: str | None = None
    negate: bool = False

    @model_validator(mode="after")
    def _fields(self) -> Predicate:
        needs = {
            "holds_rank": ("rank",),
            "pot_at_least": ("amount",),
            "chose": ("phase", "option"),
            "holds_position": ("position",),
        }.get(self.kind, ())
        for name in needs:
            if getattr(self, name) is None:
                raise ValueError(f"predicate '{self.kind}' needs '{name}'")
        return self


class Edge(Part):
    """An edge of the phase graph: go to ``to`` (a phase id or ``showdown``) when ``when`` holds.

    Edges are tried in order; an edge without a predicate always holds.
    """

    to: str
    when: Predicate | None = None


# --- phases ----------------------------------------------------------------------------------


class _Phase(Part):
    id: str = Field(min_length=1, max_length=40, pattern=r"^[a-z0-9_]+$")
    title: str = Field(default="", max_length=80)
    next: tuple[Edge, ...] = ()


class DealPhase(_Phase):
    """Deal ``count`` cards from the deck to each player's private hand."""

    kind: Literal["deal"] = "deal"
    count: int = Field(ge=1, le=7)


class RevealPhase(_Phase):
    """Deal ``count`` cards face up to the board (seen by both players)."""

    kind: Literal["reveal"] = "reveal"
    count: int = Field(ge=1, le=5)


class BettingPhase(_Phase):
    """A betting round: check/bet when nothing is owed, fold/call/raise when facing a bet.

    ``raise_cap`` bounds the bets plus raises of the round (forced bets count as the first bet
    when they are unequal).  ``forced`` are blinds posted at the start of the round.
    """

    kind: Literal["betting"] = "betting"
    stake: Stake
    raise_cap: int = Field(ge=1, le=6)
    first: Actor = Actor()
    forced: tuple[int, int] = (0, 0)


class SimOption(Part):
    """A named option of a simultaneous round: chips into the pot and a showdown score change."""

    name: str = Field(min_length=1, max_length=20, pattern=r"^[a-z][a-z0-9_]*$")
    pot_chips: int = Field(default=0, ge=0)
    score_delta: int = 0


class SimCell(Part):
    """A pairwise effect: when Alice picks ``alice`` and Bob ``bob``, Bob pays ``transfer``
    chips to Alice (negative: Alice pays Bob), capped by what the payer has."""

    alice: str
    bob: str
    transfer: int


class SimultaneousPhase(_Phase):
    """Both players choose an option in secret; the choices are then revealed together."""

    kind: Literal["simultaneous"] = "simultaneous"
    options: tuple[SimOption, ...] = Field(min_length=2)
    matrix: tuple[SimCell, ...] = ()


class AuctionItem(Part):
    """What an auction sells: the top card of the deck, a peek at an opponent card, a position."""

    kind: Literal["card", "peek", "position"]
    position: str | None = None


class AuctionPhase(_Phase):
    """A sealed-bid auction on a bid grid; first price (winner pays own bid) or second price
    (winner pays the loser's bid).  Payments go to the pot."""

    kind: Literal["auction"] = "auction"
    item: AuctionItem
    bids: tuple[int, ...] = Field(min_length=2)
    pricing: Literal["first", "second"] = "first"
    tie: Literal["no_sale", "alice", "bob"] = "no_sale"


class Risk(Part):
    """A chance of a penalty: with ``percent`` % probability pay ``chips`` into the pot."""

    percent: int = Field(ge=1, le=99)
    chips: int = Field(ge=1)


class PeekPhase(_Phase):
    """An observation: a player sees one card it could not see before.

    ``target``: a random card of the opponent's hand, or the next card of the deck.
    ``who``: a seat, both, or the holder of ``position``.  An ``optional`` peek is offered as a
    choice (peek or pass) and may carry a ``cost`` (chips into the pot) or a ``risk``.
    """

    kind: Literal["peek"] = "peek"
    who: Literal["alice", "bob", "both", "position"] = "both"
    position: str | None = None
    target: Literal["opponent_card", "deck_top"] = "opponent_card"
    optional: bool = True
    cost: int = Field(default=0, ge=0)
    risk: Risk | None = None


class DrawPhase(_Phase):
    """Players draw ``count`` private cards from the deck (optionally: draw or stand)."""

    kind: Literal["draw"] = "draw"
    who: SeatSet = "both"
    count: int = Field(default=1, ge=1, le=3)
    optional: bool = False


class SwapPhase(_Phase):
    """A player may exchange one card of its hand: with the deck (a fresh private card), with
    the board (it takes the last board card, its own card goes face up in its place), or with
    the opponent (it gives the chosen card and takes one of the opponent's cards at random;
    both players then know both cards)."""

    kind: Literal["swap"] = "swap"
    who: SeatSet = "alice"
    source: Literal["deck", "board", "opponent"] = "deck"


class Perk(Part):
    """What holding a position gives: a peek at an opponent card, or showdown points."""

    kind: Literal["peek", "score_bonus"]
    points: int = 0


class PositionPhase(_Phase):
    """Assign a named position to the player who meets ``criterion`` (nobody on a tie).

    ``hidden``: only the holder is told.  Criteria: the highest card in hand, the highest or
    lowest sum of ranks in hand, holding a pair, having more chips behind (chip leader).
    """

    kind: Literal["position"] = "position"
    name: str = Field(min_length=1, max_length=20, pattern=r"^[a-z][a-z0-9_]*$")
    criterion: Literal["high_card", "high_sum", "low_sum", "pair", "chip_leader"]
    hidden: bool = False
    perk: Perk | None = None


class SideBetPhase(_Phase):
    """Each player in turn may place a side bet of ``stake`` chips on a proposition about its own
    final hand.  The opponent covers it; both stakes are held apart from the pot and settled at
    the end of the deal (even after a fold): the bettor takes both if the proposition holds."""

    kind: Literal["side_bet"] = "side_bet"
    stake: int = Field(ge=1)
    proposition: Predicate


Phase = Annotated[
    DealPhase
    | RevealPhase
    | BettingPhase
    | SimultaneousPhase
    | AuctionPhase
    | PeekPhase
    | DrawPhase
    | SwapPhase
    | PositionPhase
    | SideBetPhase,
    Field(discriminator="kind"),
]

# --- showdown --------------------------------------------------------------------------------


class ScoreRule(Part):
    """A bonus or penalty of a rank-sum showdown: ``points`` for a pair of ``rank``
    (``pair_of``) or for each card of ``rank`` (``per_card``)."""

    kind: Literal["pair_of", "per_card"]
    rank: str
    points: int


class Metric(Part):
    """How a showdown compares hands.

    ``high_card``: highest card, then next highest, ...; ``rank_sum``: sum of rank values plus
    rules (higher wins); ``low_sum``: lowest sum of rank values wins; ``pair_with_board``: a hand
    card pairing a board card wins, otherwise the highest hand card (Leduc);
    ``best_five``: the best five-card poker hand from hand and board.
    ``use_board``: board cards count for ``high_card``, ``rank_sum`` and ``low_sum``.
    """

    kind: Literal["high_card", "rank_sum", "low_sum", "pair_with_board", "best_five"]
    rules: tuple[ScoreRule, ...] = ()
    use_board: bool = False


class Showdown(Part):
    metric: Metric
    tie: Literal["refund"] = "refund"
