"""Constructed games for the axes' evidence tests, each built so that an axis's answer is
known in advance (the expectation is stated where each game is used)."""

from __future__ import annotations

from engines.gbg.spec import (
    BettingPhase,
    DealPhase,
    Deck,
    DrawPhase,
    FixedStake,
    GameSpec,
    Metric,
    PeekPhase,
    Rank,
    Showdown,
)


def _ranks(values: list[int]) -> tuple[Rank, ...]:
    labels = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
    return tuple(Rank(label=labels[i], value=v) for i, v in enumerate(values))


def bet_game(cards_matter: bool) -> GameSpec:
    """One card each, one betting round (bet 4 into antes of 1), high card wins.  When
    ``cards_matter`` is false every rank has the same value, so every showdown is a tie
    (refund) and a player's own card cannot change its payoff."""
    values = [2, 3, 4, 5, 6, 7] if cards_matter else [7] * 6
    return GameSpec(
        name=f"bet-{'cards' if cards_matter else 'blind'}",
        deck=Deck(ranks=_ranks(values), suits=("♠",)),
        stack=10,
        ante=1,
        phases=(
            DealPhase(id="deal", count=1),
            BettingPhase(id="bet", stake=FixedStake(size=4), raise_cap=1),
        ),
        showdown=Showdown(metric=Metric(kind="high_card")),
    )


def draw_game(then_bet: bool = False) -> GameSpec:
    """One card each; Alice alone may draw a second card (draw or stand); the higher sum of
    ranks wins.  Drawing always wins (any two cards outscore any one), so one action
    dominates by a wide margin, and with ``then_bet`` false it is the only decision of the
    game and nothing follows it.  ``then_bet`` adds a betting round after the draw."""
    phases: list[object] = [
        DealPhase(id="deal", count=1),
        DrawPhase(id="draw", who="alice", count=1, optional=True),
    ]
    if then_bet:
        phases.append(BettingPhase(id="bet", stake=FixedStake(size=2), raise_cap=2))
    return GameSpec(
        name="draw-then-bet" if then_bet else "draw",
        deck=Deck(ranks=_ranks([10, 11, 12, 13]), suits=("♠", "♥")),
        stack=10,
        ante=2,
        phases=tuple(phases),
        showdown=Showdown(metric=Metric(kind="rank_sum")),
    )


def peek_game() -> GameSpec:
    """One card each; Alice alone may peek at the top card of the deck, which nobody ever
    receives; high card wins.  Her only decision cannot change any payoff."""
    return GameSpec(
        name="peek",
        deck=Deck(ranks=_ranks([10, 11, 12, 13]), suits=("♠", "♥")),
        stack=10,
        ante=2,
        phases=(
            DealPhase(id="deal", count=1),
            PeekPhase(id="peek", who="alice", target="deck_top", optional=True),
        ),
        showdown=Showdown(metric=Metric(kind="high_card")),
    )


def family_game(n_ranks: int, hand: int) -> GameSpec:
    """A family member: ``n_ranks`` ranks in two suits, ``hand`` cards each, one betting round
    of 1-chip bets (two bets at most), high card wins; nothing else changes along the family."""
    return GameSpec(
        name=f"family-{n_ranks}x2-hand{hand}",
        deck=Deck(ranks=_ranks(list(range(2, 2 + n_ranks))), suits=("♠", "♥")),
        stack=10,
        ante=1,
        phases=(
            DealPhase(id="deal", count=hand),
            BettingPhase(id="bet", stake=FixedStake(size=1), raise_cap=2),
        ),
        showdown=Showdown(metric=Metric(kind="high_card")),
    )


def copies_game() -> GameSpec:
    """J and Q in one suit, two copies of each (card ids 0 and 1 are both J♠), one card each,
    one betting round: the smallest game where two card ids look alike to their holder."""
    return GameSpec(
        name="copies",
        deck=Deck(
            ranks=(Rank(label="J", value=11), Rank(label="Q", value=12)), suits=("♠",), copies=2
        ),
        stack=5,
        ante=1,
        phases=(
            DealPhase(id="deal", count=1),
            BettingPhase(id="bet", stake=FixedStake(size=1), raise_cap=1),
        ),
        showdown=Showdown(metric=Metric(kind="high_card")),
    )
