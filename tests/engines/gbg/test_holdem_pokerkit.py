"""``holdem-limit`` showdowns agree with pokerkit (issue 2, "Done when").

pokerkit's ``StandardHighHand`` (pokerkit 0.7.7) is an independent, table-driven evaluator of
the best five-card hand from hole cards and board.  On seeded random seven-card pairs (two
players' two hole cards and a shared five-card board) the winner or tie that
``engines.gbg.rules.best_five`` gives on card values (2..14, ace 14) and suit indices must be
pokerkit's, and so must each hand's category.  The same pairs are then played through the
engine, checked down to the showdown, and its settlement must name the same winner.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import cache

import pytest
from pokerkit import Card, Label, StandardHighHand

from engines.gbg import new_deal, presets
from engines.gbg.rules import best_five, best_five_bruteforce, game_rules

RANK_CHARS = "23456789TJQKA"  # pokerkit's rank letters for values 2..14
SUIT_CHARS = "shdc"  # our suit index 0..3 (♠ ♥ ♦ ♣) as pokerkit letters
# pokerkit's labels in increasing strength are our categories 0 (high card) .. 8 (straight flush)
CATEGORY_LABELS = tuple(Label)

UNIFORM_PAIRS = 10_000
SMALL_DECK_PAIRS = 1_000  # many straights, wheels, flushes, full houses and quads
ENGINE_DEALS = 2_000

SPEC = presets.holdem_limit()
GAME = game_rules(SPEC)
DECK = tuple(range(GAME.n_cards))


@cache
def pokerkit_card(card: int) -> Card:
    value, suit = GAME.value_of[card], GAME.suit_of[card]
    (parsed,) = Card.parse(RANK_CHARS[value - 2] + SUIT_CHARS[suit])
    return parsed


def ours(cards: Sequence[int]) -> tuple[int, ...]:
    return best_five([GAME.value_of[c] for c in cards], [GAME.suit_of[c] for c in cards])


def theirs(hole: Sequence[int], board: Sequence[int]) -> StandardHighHand:
    return StandardHighHand.from_game(
        [pokerkit_card(c) for c in hole], [pokerkit_card(c) for c in board]
    )


def winner(a: object, b: object) -> int:
    """0 if Alice's hand is better, 1 if Bob's, -1 on a tie."""
    return 0 if a > b else 1 if b > a else -1  # type: ignore[operator]


def random_pairs(n: int, deck: Sequence[int], seed: int) -> list[tuple[int, ...]]:
    """``n`` deals of nine distinct cards: Alice's two, Bob's two, then the five-card board."""
    rng = random.Random(seed)
    return [tuple(rng.sample(deck, 9)) for _ in range(n)]


@cache
def uniform_pairs() -> list[tuple[int, ...]]:
    return random_pairs(UNIFORM_PAIRS, DECK, seed=4643)


def small_deck() -> tuple[int, ...]:
    """Ace to six and the king in all suits: 28 cards rich in straights, wheels and pairs."""
    return tuple(c for c in DECK if GAME.value_of[c] in (14, 2, 3, 4, 5, 6, 13))


@cache
def pokerkit_verdict(deal: tuple[int, ...]) -> tuple[Label, Label, int]:
    """pokerkit's categories for Alice and Bob and its winner (-1 on a tie); cached because
    pokerkit takes a few hundred microseconds per hand and two tests ask for the same deals."""
    alice, bob, board = deal[:2], deal[2:4], deal[4:]
    hand_a, hand_b = theirs(alice, board), theirs(bob, board)
    return hand_a.entry.label, hand_b.entry.label, winner(hand_a, hand_b)


def describe(deal: Sequence[int]) -> str:
    return " ".join(str(pokerkit_card(c)) for c in deal)


def compare(deal: tuple[int, ...], categories: Counter[int]) -> None:
    board = deal[4:]
    ours_a, ours_b = ours(deal[:2] + board), ours(deal[2:4] + board)
    label_a, label_b, their_winner = pokerkit_verdict(deal)
    assert (CATEGORY_LABELS[ours_a[0]], CATEGORY_LABELS[ours_b[0]]) == (label_a, label_b), describe(
        deal
    )
    assert winner(ours_a, ours_b) == their_winner, describe(deal)
    categories[ours_a[0]] += 1
    categories[ours_b[0]] += 1


@pytest.mark.slow  # over 5 s: make test only
def test_best_five_agrees_with_pokerkit_on_random_seven_card_pairs() -> None:
    categories: Counter[int] = Counter()
    for deal in uniform_pairs():
        compare(deal, categories)
    for deal in random_pairs(SMALL_DECK_PAIRS, small_deck(), seed=4644):
        compare(deal, categories)
    assert sum(categories.values()) == 2 * (UNIFORM_PAIRS + SMALL_DECK_PAIRS)
    assert set(categories) == set(range(9)), categories  # every category was exercised


def cards(text: str) -> tuple[int, ...]:
    """Card ids from pokerkit notation, e.g. ``"As5d"``."""
    lookup = {str(pokerkit_card(c)): c for c in DECK}
    return tuple(lookup[str(card)] for card in Card.parse(text))


EDGE_CASES = [
    # (Alice's hole, Bob's hole, board, winner): 0 Alice, 1 Bob, -1 tie
    ("As2d", "6c7h", "3s4h5dKcQh", 1),  # the wheel loses to a seven-high straight
    ("As2s", "KdKh", "3s4s5sKcKs", 0),  # steel wheel beats four kings
    ("AhKh", "QdQc", "2h5h9hQhQs", 1),  # quads beat a flush
    ("9h8h", "AcAd", "7h6h5hAhAs", 0),  # straight flush beats quad aces
    ("AdKc", "AsQh", "2c7d9hJsTc", 0),  # kicker plays
    ("2c3d", "4h5s", "AsKsQdJhTc", -1),  # the board plays: split
    ("QdQh", "JdJh", "8s8c8d3h3c", 0),  # full houses on a board of trips: higher pair
    ("KsKd", "AsQd", "2c2d7h7s9h", 0),  # two pair: kings and sevens over sevens and twos
    ("6h6d", "AcKc", "TsTdJsJd2h", 1),  # a pair under two board pairs is counterfeited
    ("8s8c", "5d5h", "8dAhAc5c2s", 0),  # eights full of aces over fives full of aces
    ("Ah9h", "Kh2h", "3h7hQh4c4d", 0),  # flush against flush: highest card
    ("AcAh", "7s6s", "5s4s3dKdQc", 1),  # open-ended straight beats aces
]


@pytest.mark.parametrize(("alice", "bob", "board", "expected"), EDGE_CASES)
def test_best_five_edge_cases_agree_with_pokerkit(
    alice: str, bob: str, board: str, expected: int
) -> None:
    a, b, shared = cards(alice), cards(bob), cards(board)
    assert winner(ours(a + shared), ours(b + shared)) == expected
    assert winner(theirs(a, shared), theirs(b, shared)) == expected


def showdown_winner(deal: tuple[int, ...]) -> int:
    """Play ``deal`` on ``holdem-limit`` with explicit chance, checking or calling throughout;
    return the seat the settlement paid (-1 on a split)."""
    state = new_deal(SPEC, explicit_chance=True)
    # Hole cards alternate Alice, Bob, Alice, Bob; then flop, turn and river.
    order = (deal[0], deal[2], deal[1], deal[3], *deal[4:])
    dealt = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_chance(order[dealt])
            dealt += 1
        else:
            state.apply("check" if "check" in state.legal_actions() else "call")
    assert dealt == 9
    alice, bob = state.returns()
    assert alice + bob == 0
    return 0 if alice > 0 else 1 if bob > 0 else -1


def test_engine_showdowns_agree_with_pokerkit() -> None:
    for deal in uniform_pairs()[:ENGINE_DEALS]:
        assert showdown_winner(deal) == pokerkit_verdict(deal)[2], describe(deal)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_best_five_equals_brute_force(size: int) -> None:
    rng = random.Random(size)
    for _ in range(3_000 if size == 7 else 500):
        hand = rng.sample(DECK, size)
        values = [GAME.value_of[c] for c in hand]
        suits = [GAME.suit_of[c] for c in hand]
        assert best_five(values, suits) == best_five_bruteforce(values, suits), hand
