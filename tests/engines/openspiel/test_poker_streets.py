"""Heads-up hold'em names the street it is on (issue 46, item 6).

Every HUNL prompt used to say "Round: preflop": universal_poker writes the round as
``[Round 1]`` (no colon) and the field reader wanted ``[Round: 1]``. The street is checked
here against what OpenSpiel's own state string says independently of that reader: the board
cards dealt (``BoardCards`` in ``str(state)``: 0, 3, 4 and 5 cards on the four streets) and
the ACPC betting string (one ``/`` per finished round).
"""

from __future__ import annotations

import random
import re

import pytest

from engines.openspiel import OpenSpielState, parse_openspiel
from engines.openspiel.text import ROUNDS, poker_fields, poker_street

HUNL = parse_openspiel("openspiel:hunl")
BOARD_CARDS = {"preflop": 0, "flop": 3, "turn": 4, "river": 5}


def board_cards(state: OpenSpielState) -> int:
    """The community cards dealt, read from OpenSpiel's state string (two characters each)."""
    found = re.search(r"^BoardCards ?(\S*)$", str(state.ps), re.MULTILINE)
    return len(found.group(1)) // 2 if found else 0


def acpc_round(state: OpenSpielState) -> int:
    """The betting round from the ACPC state line (``STATE:0:cc/c:...``): finished rounds."""
    found = re.search(r"ACPC State: STATE:\d+:([^:]*):", str(state.ps))
    assert found is not None, str(state.ps)
    return found.group(1).count("/")


def passive(state: OpenSpielState) -> str:
    legal = state.legal_actions()
    return "check" if "check" in legal else "call"


def test_every_street_is_named_in_the_prompt_and_the_phase() -> None:
    state = HUNL.new_deal(3)
    seen: list[str] = []
    while not state.is_terminal():
        seat = state.current_player
        street = ROUNDS[acpc_round(state)]
        assert board_cards(state) == BOARD_CARDS[street]
        prompt = state.turn_prompt(seat)
        assert f"Round: {street}." in prompt
        assert state.phase_id == street
        shown = re.search(r"Community cards: (\S+)\.", prompt)
        assert shown is not None
        cards = "" if shown.group(1) == "none" else shown.group(1)
        assert len(cards) // 2 == BOARD_CARDS[street]
        seen.append(street)
        state.apply(passive(state))
    # Check-and-call down: two decisions on each street, in order.
    assert seen == ["preflop"] * 2 + ["flop"] * 2 + ["turn"] * 2 + ["river"] * 2


@pytest.mark.parametrize("play_seed", [0, 7, 12345])
def test_a_raise_keeps_the_street_and_the_next_card_moves_it(play_seed: int) -> None:
    state = HUNL.new_deal(play_seed)
    rng = random.Random(play_seed)
    streets = []
    while not state.is_terminal():
        legal = state.legal_actions()
        raises = [a for a in legal if a.startswith("raise ") and int(a.split()[1]) <= 20]
        # Raise small now and then (never all-in, so the hand reaches the river), else call.
        move = rng.choice(raises) if raises and rng.random() < 0.3 else passive(state)
        street = ROUNDS[acpc_round(state)]
        assert state.phase_id == street
        assert f"Round: {street}." in state.turn_prompt(state.current_player)
        streets.append(street)
        state.apply(move)
    assert streets[0] == "preflop" and streets[-1] == "river"
    assert streets == sorted(streets, key=ROUNDS.index)  # never back to an earlier street


def test_the_round_field_is_read_from_the_information_state() -> None:
    info = "[Round 2][Player: 0][Pot: 4][Money: 198 198][Private: Kc4d][Public: 9c8c5s2h]"
    fields = poker_fields(info)
    assert fields["Round"] == "2" and fields["Public"] == "9c8c5s2h" and fields["Pot"] == "4"
    assert poker_street(fields) == "turn"
    with pytest.raises(ValueError, match="no round"):
        poker_street(poker_fields("[Player: 0][Pot: 4]"))
