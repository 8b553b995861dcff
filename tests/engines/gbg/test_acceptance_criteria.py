"""The paper's five rejection criteria (Section 3), each rejecting a game built to fail it and
nothing else, and passing the same game one step short of the threshold where there is one.

Every game here has one card per player and a showdown by high card, so its figures under
uniform random play can be worked out by hand; each test states them.
"""

from __future__ import annotations

import pytest

from engines.backend import using
from engines.gbg.acceptance import AcceptanceSettings, evaluate
from engines.gbg.spec import (
    DealPhase,
    Deck,
    Edge,
    GameSpec,
    Metric,
    Predicate,
    Rank,
    RevealPhase,
    Showdown,
    SimCell,
    SimOption,
    SimultaneousPhase,
)

SEVEN = Deck(
    ranks=tuple(Rank(label=lbl, value=v) for lbl, v in zip("234567A", range(2, 9), strict=True)),
    suits=("♠",),
)
"""Seven cards of distinct ranks: one card each gives no tie at the showdown; Alice holds the
ace in 1/7 of deals, and Bob holds the 2 in 1/6 of the deals in which Alice holds the ace."""


def game(name: str, phases: list[object], deck: Deck = SEVEN) -> GameSpec:
    return GameSpec(
        name=name,
        deck=deck,
        stack=10,
        ante=1,
        phases=(DealPhase(id="deal", count=1), *phases),
        showdown=Showdown(metric=Metric(kind="high_card")),
    )


def rounds(n: int) -> list[object]:
    """``n`` simultaneous rounds in which both players choose and nothing else happens."""
    options = (SimOption(name="left"), SimOption(name="right"))
    return [SimultaneousPhase(id=f"sim{i}", options=options) for i in range(n)]


def holds(who: str, rank: str, negate: bool = False) -> Predicate:
    return Predicate.model_validate(
        {"kind": "holds_rank", "who": who, "rank": rank, "negate": negate}
    )


def reveal(pid: str, *edges: Edge) -> RevealPhase:
    return RevealPhase(id=pid, count=1, next=tuple(edges))


def test_every_criterion_passes_a_plain_game() -> None:
    # Ten rounds: exactly 10 moves per player in every deal (not more than ten), no branch, no
    # rare phase, and high card on distinct ranks decides every deal, half for each seat.
    verdict = evaluate(game("ten-rounds", rounds(10)))
    assert verdict["accepted"], verdict["reasons"]
    assert verdict["figures"]["moves_per_player"] == 10.0


def test_more_than_ten_moves_per_player_is_rejected() -> None:
    # Eleven rounds: 11 moves per player in every deal.
    verdict = evaluate(game("eleven-rounds", rounds(11)))
    assert verdict["figures"]["moves_per_player"] == 11.0
    assert verdict["reasons"] == ["moves"]


def test_a_seat_that_wins_most_decided_deals_is_rejected() -> None:
    # Alice takes a chip whenever the choices differ (half the deals) and the showdown is a tie
    # (every rank is worth the same): Alice wins every decided deal, a share of 1 > 0.65.
    flat = Deck(ranks=tuple(Rank(label=lbl, value=5) for lbl in "2345"), suits=("♠",))
    options = (SimOption(name="left"), SimOption(name="right"))
    cells = (
        SimCell(alice="left", bob="right", transfer=1),
        SimCell(alice="right", bob="left", transfer=1),
    )
    spec = game("alice-wins", [SimultaneousPhase(id="sim", options=options, matrix=cells)], flat)
    verdict = evaluate(spec)
    assert verdict["figures"]["seat_win_share"] == 1.0
    assert verdict["figures"]["alice_win_share"] == 1.0
    assert verdict["reasons"] == ["seat_bias"]


def test_branch_conditions_that_almost_always_or_never_hold_are_rejected() -> None:
    # One condition, "Alice holds the top card", on the seven-card deck (1/7 = 14% of deals:
    # accepted), then on a deck of thirty ranks (1/30 = 3.3%, outside [5%, 95%]): one extreme
    # condition of one, a share above 40%.  It does fire (so it is not dead), and the phase it
    # skips still fires in 97% of deals.
    def branching(deck: Deck) -> GameSpec:
        top = deck.ranks[-1].label
        return game(
            f"top-of-{deck.size}",
            [
                reveal("r1", Edge(to="r3", when=holds("alice", top)), Edge(to="r2")),
                reveal("r2"),
                reveal("r3"),
            ],
            deck,
        )

    assert evaluate(branching(SEVEN))["accepted"]
    thirty = Deck(ranks=tuple(Rank(label=str(v), value=v) for v in range(2, 32)), suits=("♠",))
    verdict = evaluate(branching(thirty))
    (row,) = verdict["figures"]["branches"]
    assert row["extreme"] and 0 < row["rate"] < 0.05
    assert row["status"] == "fires"
    assert verdict["figures"]["extreme_branch_share"] == 1.0
    assert verdict["reasons"] == ["extreme_branches"]


def test_phases_that_rarely_fire_are_rejected() -> None:
    # r1 skips to r5 unless Alice holds the ace (6/7 of deals); r2 skips to r5 unless Bob holds
    # the 2 (5/6 of the deals that reach it).  Neither condition is extreme, but r3 and r4
    # fire only when Alice holds the ace and Bob the 2: 1/7 x 1/6 = 2.4% of deals, under 5%.
    # Two rare phases of six: a share of 33%, above 20%.
    spec = game(
        "rare-phases",
        [
            reveal("r1", Edge(to="r5", when=holds("alice", "A", negate=True)), Edge(to="r2")),
            reveal("r2", Edge(to="r5", when=holds("bob", "2", negate=True)), Edge(to="r3")),
            reveal("r3"),
            reveal("r4"),
            reveal("r5"),
        ],
    )
    verdict = evaluate(spec)
    figures = verdict["figures"]
    assert figures["rare_phases"] == ["r3", "r4"]
    assert figures["extreme_branch_share"] == 0.0
    assert verdict["reasons"] == ["rare_phases"]


def dead_branch_game() -> GameSpec:
    """A condition that can never hold ("Alice holds a pair", with one card), evaluated in every
    deal, beside two that hold in 6/7 and 5/6 of the deals that evaluate them: one extreme
    condition of three (33%, not above 40%), and no phase fires in under 5% of deals (r3, the
    rarest, in 1/7 of them)."""
    return game(
        "dead-pair",
        [
            reveal(
                "r1", Edge(to="r3", when=Predicate(kind="holds_pair", who="alice")), Edge(to="r2")
            ),
            reveal("r2", Edge(to="r4", when=holds("alice", "A", negate=True)), Edge(to="r3")),
            reveal("r3", Edge(to="r5", when=holds("bob", "2", negate=True)), Edge(to="r4")),
            reveal("r4"),
            reveal("r5"),
        ],
    )


def test_a_branch_that_can_never_fire_is_rejected() -> None:
    # 600 deals evaluate the dead condition 600 times, fewer than the 688 after which no fire
    # is evidence (a 1% branch would have fired with probability 0.999); the next stage plays
    # 600 more, and 1,200 evaluations without a fire decide it.
    spec = dead_branch_game()
    verdict = evaluate(spec)
    dead = verdict["figures"]["branches"][0]
    assert dead["evaluated"] == 600 and dead["held"] == 0
    assert dead["decided_on"] == {"deals": 1_200, "evaluated": 1_200, "held": 0}
    assert dead["status"] == "dead"
    assert verdict["figures"]["extreme_branch_share"] == pytest.approx(1 / 3)
    assert verdict["figures"]["rare_phases"] == []
    assert verdict["reasons"] == ["dead_branch"]
    # Without further deals the 600 evaluations cannot decide it: the game would pass.
    short = evaluate(spec, AcceptanceSettings(decide_max_deals=600))
    assert short["figures"]["branches"][0]["status"] == "undetermined"
    assert short["accepted"]


def test_the_dead_branch_decision_stops_where_every_branch_is_decided() -> None:
    # A branch entered in 1/7 of deals that has not fired needs 688 / (1/7) = about 4,800
    # deals: stages of 600, 1,200, 2,400, 4,800 and 9,600 deals.  Here r2's condition ("Alice
    # holds the 2") is evaluated only when she holds the ace, so it never holds.
    spec = game(
        "dead-late",
        [
            reveal("r1", Edge(to="r3", when=holds("alice", "A", negate=True)), Edge(to="r2")),
            reveal("r2", Edge(to="r4", when=holds("alice", "2")), Edge(to="r3")),
            reveal("r3", Edge(to="r5", when=holds("bob", "2", negate=True)), Edge(to="r4")),
            reveal("r4"),
            reveal("r5"),
        ],
    )
    # On these deals the stage of 4,800 holds 643 evaluations: the stage of 9,600 decides it,
    # with 1,349.
    verdict = evaluate(spec)
    row = next(b for b in verdict["figures"]["branches"] if b["phase"] == "r2")
    assert row["decided_on"] == {"deals": 9_600, "evaluated": 1_349, "held": 0}
    assert verdict["figures"]["dead_decision_deals"] == 9_600
    assert row["status"] == "dead" and verdict["reasons"] == ["dead_branch"]
    short = evaluate(spec, AcceptanceSettings(decide_max_deals=4_800))
    assert short["figures"]["branches"][1]["decided_on"]["evaluated"] == 643
    assert short["figures"]["branches"][1]["status"] == "undetermined" and short["accepted"]


def test_a_game_rejected_on_the_first_deals_plays_no_further_deals() -> None:
    # The dead-pair game with a fourth condition that always holds ("Alice holds no pair"):
    # two extreme conditions of four (50%, above 40%) reject it on the first 600 deals, and the
    # dead branch is then decided only when asked for every game (decide_dead="always").
    base = dead_branch_game()
    r4 = reveal(
        "r4",
        Edge(to="showdown", when=Predicate(kind="holds_pair", who="alice", negate=True)),
        Edge(to="r5"),
    )
    spec = base.model_copy(update={"phases": (*base.phases[:4], r4, base.phases[5])})
    spec = GameSpec.model_validate(spec.model_dump())
    needed = evaluate(spec)
    assert needed["reasons"] == ["extreme_branches"]
    assert needed["figures"]["dead_decision_deals"] == 600
    always = evaluate(spec, AcceptanceSettings(decide_dead="always"))
    assert always["reasons"] == ["extreme_branches", "dead_branch"]
    assert always["accepted"] == needed["accepted"]


def test_the_interpreter_gives_the_same_verdict_on_every_deal_it_plays() -> None:
    spec = dead_branch_game()
    fast = evaluate(spec, seed=3)
    with using("reference"):
        slow = evaluate(spec, seed=3)
    assert fast == slow
