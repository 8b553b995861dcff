"""Named games: Kuhn and Leduc poker exactly as OpenSpiel plays them, heads-up limit hold'em,
and our rendition of the paper's Section 3 example (seed 4643).

Sources: OpenSpiel ``kuhn_poker`` (ante 1, one bet of 1, Pass/Bet) and ``leduc_poker`` (six
cards J Q K in two suits, ante 1, raises of 2 then 4, at most two raises a round, player 0 acts
first in both rounds, a pair with the board wins, else the higher card).  Neither OpenSpiel game
limits stacks in a way that binds, so the stacks below are large enough never to bind.
"""

from __future__ import annotations

from collections.abc import Callable

from engines.gbg.spec import (
    Actor,
    BettingPhase,
    DealPhase,
    DrawPhase,
    Edge,
    FixedStake,
    GameSpec,
    GridStake,
    Metric,
    PeekPhase,
    Perk,
    PositionPhase,
    Predicate,
    Rank,
    RevealPhase,
    Risk,
    ScoreRule,
    Showdown,
    SimCell,
    SimOption,
    SimultaneousPhase,
    SwapPhase,
)


def kuhn() -> GameSpec:
    """Kuhn poker: J Q K, one card each, ante 1, a single bet of 1, higher card wins."""
    return GameSpec(
        name="kuhn",
        deck={
            "ranks": [Rank(label=lbl, value=v) for lbl, v in (("J", 11), ("Q", 12), ("K", 13))],
            "suits": ["♠"],
        },
        stack=2,
        ante=1,
        phases=[
            DealPhase(id="deal", title="Deal", count=1),
            BettingPhase(id="bet", title="Betting", stake=FixedStake(size=1), raise_cap=1),
        ],
        showdown=Showdown(metric=Metric(kind="high_card")),
    )


def leduc() -> GameSpec:
    """Leduc poker: J Q K in two suits, ante 1, raise 2 then 4, at most two raises per round."""
    return GameSpec(
        name="leduc",
        deck={
            "ranks": [Rank(label=lbl, value=v) for lbl, v in (("J", 11), ("Q", 12), ("K", 13))],
            "suits": ["♠", "♥"],
        },
        stack=100,
        ante=1,
        phases=[
            DealPhase(id="deal", title="Deal", count=1),
            BettingPhase(
                id="bet1", title="First betting round", stake=FixedStake(size=2), raise_cap=2
            ),
            RevealPhase(id="flop", title="Board card", count=1),
            BettingPhase(
                id="bet2", title="Second betting round", stake=FixedStake(size=4), raise_cap=2
            ),
        ],
        showdown=Showdown(metric=Metric(kind="pair_with_board")),
    )


_POKER_RANKS = (
    ("2", 2),
    ("3", 3),
    ("4", 4),
    ("5", 5),
    ("6", 6),
    ("7", 7),
    ("8", 8),
    ("9", 9),
    ("T", 10),
    ("J", 11),
    ("Q", 12),
    ("K", 13),
    ("A", 14),
)


def holdem_limit() -> GameSpec:
    """Heads-up limit hold'em: blinds 1/2 (Alice is the button and posts the small blind),
    bets of 2 pre-flop and on the flop and 4 on the turn and river, four bets a round;
    Alice acts first pre-flop, Bob first after; best five of seven cards."""
    small, big = 2, 4
    return GameSpec(
        name="holdem-limit",
        deck={
            "ranks": [Rank(label=lbl, value=v) for lbl, v in _POKER_RANKS],
            "suits": ["♠", "♥", "♦", "♣"],
        },
        stack=200,
        ante=0,
        phases=[
            DealPhase(id="hole", title="Hole cards", count=2),
            BettingPhase(
                id="preflop",
                title="Pre-flop betting",
                stake=FixedStake(size=small),
                raise_cap=4,
                forced=(1, 2),
                first=Actor(seat="alice"),
            ),
            RevealPhase(id="flop", title="Flop", count=3),
            BettingPhase(
                id="flop_bet",
                title="Flop betting",
                stake=FixedStake(size=small),
                raise_cap=4,
                first=Actor(seat="bob"),
            ),
            RevealPhase(id="turn", title="Turn", count=1),
            BettingPhase(
                id="turn_bet",
                title="Turn betting",
                stake=FixedStake(size=big),
                raise_cap=4,
                first=Actor(seat="bob"),
            ),
            RevealPhase(id="river", title="River", count=1),
            BettingPhase(
                id="river_bet",
                title="River betting",
                stake=FixedStake(size=big),
                raise_cap=4,
                first=Actor(seat="bob"),
            ),
        ],
        showdown=Showdown(metric=Metric(kind="best_five")),
    )


def example4643() -> GameSpec:
    """Our rendition of the paper's seed 4643 (Section 3), feature for feature.

    Eight cards (10 J Q K in two suits), three private cards each, stacks of 10, ante 3.  A
    hidden position from the dealt hands with a peek; a first betting round with any stake up
    to the stack; an optional peek at a 50% risk of paying a chip; a draw for both; a hidden
    chip-leader position with a further peek; a second round of fixed 1-chip bets; a
    simultaneous Press/Hold/Bluff round if either player holds a pair; a swap offered if Alice
    holds a King (with a random card of Bob's); showdown on the sum of ranks, +3 for a pair of
    Js and -3 for each King.
    """
    either_pair = Predicate(kind="holds_pair", who="either")
    alice_king = Predicate(kind="holds_rank", who="alice", rank="K")
    return GameSpec(
        name="example4643",
        deck={
            "ranks": [
                Rank(label=lbl, value=v) for lbl, v in (("10", 10), ("J", 11), ("Q", 12), ("K", 13))
            ],
            "suits": ["♠", "♥"],
        },
        stack=10,
        ante=3,
        phases=[
            DealPhase(id="deal", title="Deal", count=3),
            PositionPhase(
                id="marker",
                title="The marker",
                name="marker",
                criterion="high_sum",
                hidden=True,
                perk=Perk(kind="peek"),
            ),
            BettingPhase(
                id="bet1",
                title="First betting round",
                stake=GridStake(amounts=(1, 2, 3, 4, 5, 6, 7)),
                raise_cap=2,
            ),
            PeekPhase(
                id="risky_peek",
                title="Risky peek",
                who="both",
                optional=True,
                risk=Risk(percent=50, chips=1),
            ),
            DrawPhase(id="draw", title="Draw", who="both", count=1),
            PositionPhase(
                id="leader",
                title="The leader's glance",
                name="leader",
                criterion="chip_leader",
                hidden=True,
                perk=Perk(kind="peek"),
            ),
            BettingPhase(
                id="bet2",
                title="Second betting round",
                stake=FixedStake(size=1),
                raise_cap=2,
                next=(
                    Edge(to="standoff", when=either_pair),
                    Edge(to="swap", when=alice_king),
                    Edge(to="showdown"),
                ),
            ),
            SimultaneousPhase(
                id="standoff",
                title="Standoff",
                options=(
                    SimOption(name="press", pot_chips=1, score_delta=2),
                    SimOption(name="hold"),
                    SimOption(name="bluff"),
                ),
                matrix=(
                    SimCell(alice="bluff", bob="hold", transfer=1),
                    SimCell(alice="hold", bob="bluff", transfer=-1),
                    SimCell(alice="bluff", bob="press", transfer=-1),
                    SimCell(alice="press", bob="bluff", transfer=1),
                ),
                next=(Edge(to="swap", when=alice_king), Edge(to="showdown")),
            ),
            SwapPhase(id="swap", title="Swap", who="alice", source="opponent"),
        ],
        showdown=Showdown(
            metric=Metric(
                kind="rank_sum",
                rules=(
                    ScoreRule(kind="pair_of", rank="J", points=3),
                    ScoreRule(kind="per_card", rank="K", points=-3),
                ),
            )
        ),
    )


PRESETS: dict[str, Callable[[], GameSpec]] = {
    "kuhn": kuhn,
    "leduc": leduc,
    "holdem-limit": holdem_limit,
    "example4643": example4643,
}


def preset(name: str) -> GameSpec:
    """The preset called ``name``; ``ValueError`` lists the known names otherwise."""
    try:
        return PRESETS[name]()
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None
