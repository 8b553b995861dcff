"""Engine behaviour the axes rely on.

With ``Deck.copies > 1`` two copies of one card (same label, e.g. two J♠) are different card
ids; a seat cannot tell them apart, so its information state and abstract state name cards by
label.  Otherwise the state-space count would be inflated and a Dirichlet strategy would mix
differently at what is one information set.
"""

from __future__ import annotations

from constructed_games import copies_game

from engines.gbg.engine import State, new_deal


def _deal(alice_card: int) -> State:
    state = new_deal(copies_game(), explicit_chance=True)
    state.apply_chance(alice_card)  # card ids 0 and 1 are the two copies of J♠
    state.apply_chance(2)  # Bob: a Q♠
    return state


def test_the_two_copies_look_the_same_to_their_holder() -> None:
    first, second = _deal(0), _deal(1)
    assert first.g.label_of[0] == first.g.label_of[1] == "J♠"
    assert first.observation(0) == second.observation(0)


def test_copies_of_a_card_give_one_information_state() -> None:
    first, second = _deal(0), _deal(1)
    assert first.information_state(0) == second.information_state(0)
    assert first.abstract_state(0) == second.abstract_state(0)


def test_the_abstract_state_has_what_appendix_c_lists() -> None:
    # Appendix C: the decision, the own hand, the last three own decisions, the chips,
    # everything shown (events, board, pot) and the positions.
    state = _deal(0)
    state.apply("check")
    phase, menu, hand, own, stack, other, pot, board, shown, positions = state.abstract_state(1)
    assert (phase, menu) == ("bet", ("check", "bet 1"))
    assert (hand, own, board, positions) == (("Q♠",), (), (), ())
    assert (stack, other, pot) == (state.stacks[1], state.stacks[0], state.pot())
    assert ("act", 0, "check") in shown
    assert not any(event[0] == "card" and event[2] == 0 for event in shown)  # not Alice's card
