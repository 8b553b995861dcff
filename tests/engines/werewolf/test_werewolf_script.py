"""The moderator's rules on a game written out move by move (docs/WEREWOLF.md, "A worked
game"): every move, the views it produces and the outcome are stated by hand below, not read
back from the engine.

The deal: P1 Villager, P2 Werewolf, P3 Seer, P4 Villager, P5 Doctor, P6 Werewolf, P7 Villager,
P8 Villager; one round of statements a day.

- Night 1: P2 nominates P4, P6 nominates P7 (a disagreement: the last nomination, P7, is the
  victim); the Doctor P5 protects itself; the Seer P3 inspects P6 (a Werewolf).  P7 dies.
- Day 1 (the circle starts at P1): P2 writes as the moderator (filtered out); P3 claims the
  Seer and names P6; P6 counter-claims.  Ballots: P6 gets 4 of 7 (4 needed): exiled.
- Night 2: P2 nominates P3; P5 protects P3 (saved); P3 inspects P2 (a Werewolf).  No death.
- Day 2 (the circle starts at P2): P2 gets 4 of 6 (4 needed): exiled.  No Werewolf is left:
  the village wins.
"""

from __future__ import annotations

import pytest

from engines.werewolf.conformance import violations
from engines.werewolf.render import event_line, transcript
from engines.werewolf.roles import Role, Team
from engines.werewolf.rules import WerewolfRules
from engines.werewolf.state import WerewolfState, replay
from engines.werewolf.view import Request

V, W, S, D = Role.VILLAGER, Role.WEREWOLF, Role.SEER, Role.DOCTOR
ROLES = (V, W, S, V, D, W, V, V)
RULES = WerewolfRules(discussion_rounds=1)
P = {f"P{k}": k - 1 for k in range(1, 9)}

NIGHT_1 = [("P2", "nominate", "P4"), ("P6", "nominate", "P7"), ("P5", "protect", "P5"),
           ("P3", "inspect", "P6")]  # fmt: skip
DAY_1_TALK = [
    ("P1", "speak", "Good morning."),
    ("P2", "speak", "MODERATOR: P3 is a Werewolf. I am a simple villager."),
    ("P3", "speak", "I am the Seer. P6 is a Werewolf. I vote for P6."),
    ("P4", "speak", ""),
    ("P5", "speak", "I vote for P6."),
    ("P6", "speak", "I am the Seer. P3 is a Werewolf."),
    ("P8", "speak", "I vote for P6."),
]
DAY_1_VOTES = [("P1", "vote", "P6"), ("P2", "vote", "P3"), ("P3", "vote", "P6"),
               ("P4", "vote", "pass"), ("P5", "vote", "P6"), ("P6", "vote", "P3"),
               ("P8", "vote", "P6")]  # fmt: skip
NIGHT_2 = [("P2", "nominate", "P3"), ("P5", "protect", "P3"), ("P3", "inspect", "P2")]
DAY_2_TALK = [
    ("P2", "speak", "P3 is lying."),
    ("P3", "speak", "I am the Seer. P2 is a Werewolf. I vote for P2."),
    ("P4", "speak", "I vote for P2."),
    ("P5", "speak", "I vote for P2."),
    ("P8", "speak", "Agreed."),
    ("P1", "speak", "I vote for P2."),
]
DAY_2_VOTES = [("P1", "vote", "P2"), ("P2", "vote", "P3"), ("P3", "vote", "P2"),
               ("P4", "vote", "P2"), ("P5", "vote", "P2"), ("P8", "vote", "pass")]  # fmt: skip
SCRIPT = NIGHT_1 + DAY_1_TALK + DAY_1_VOTES + NIGHT_2 + DAY_2_TALK + DAY_2_VOTES


def play(moves: list[tuple[str, str, str]], state: WerewolfState | None = None) -> WerewolfState:
    """Play ``moves``, checking that each is asked of the seat and kind the script says."""
    state = state or WerewolfState(ROLES, RULES)
    for seat, kind, action in moves:
        request = state.request
        assert request is not None and (request.seat, request.kind) == (P[seat], kind), (
            f"the script plays a {kind} of {seat}; the moderator asks {request}"
        )
        state.act(action)
    return state


def lines(state: WerewolfState, seat: str) -> list[str]:
    return transcript(state.view(P[seat]))


def test_the_deal_tells_each_seat_its_role_and_the_pack_its_members() -> None:
    state = WerewolfState(ROLES, RULES)
    assert lines(state, "P1") == ["You are P1. Your role is Villager.", "Night 1 falls."]
    assert lines(state, "P2") == [
        "You are P2. Your role is Werewolf.",
        "The Werewolves are P2 and P6 (your partner: P6).",
        "Night 1 falls.",
    ]
    # the first Werewolf is asked first, and may pick any living non-Werewolf or pass
    assert state.request == Request(
        P["P2"], "nominate", 1, ("P1", "P3", "P4", "P5", "P7", "P8", "pass")
    )
    assert state.view(P["P2"]).request == state.request
    assert state.view(P["P6"]).request is None  # only the seat asked sees the request


def test_night_one_the_last_nomination_is_the_victim_and_only_the_pack_sees_nominations() -> None:
    state = play(NIGHT_1[:1])
    assert lines(state, "P6")[-1] == "P2 nominated P4 as the pack's victim."
    assert lines(state, "P1") == ["You are P1. Your role is Villager.", "Night 1 falls."]
    state = play(NIGHT_1[1:3], state)
    assert state.request == Request(
        P["P3"], "inspect", 1, ("P1", "P2", "P4", "P5", "P6", "P7", "P8", "pass")
    )  # the Seer may inspect anyone living but itself
    assert lines(state, "P5")[-1] == "You protect you tonight."
    state = play(NIGHT_1[3:], state)
    assert lines(state, "P3")[-2:] == [
        "You inspect P6: P6 is a Werewolf.",
        "Day 1 begins. P7 was eliminated during the night.",
    ]
    assert state.view(P["P3"]).inspections == ((P["P6"], True),)
    assert lines(state, "P7")[-1] == "Day 1 begins. You were eliminated during the night."
    assert lines(state, "P1") == [
        "You are P1. Your role is Villager.",
        "Night 1 falls.",
        "Day 1 begins. P7 was eliminated during the night.",
    ]
    assert state.view(P["P1"]).alive == (0, 1, 2, 3, 4, 5, 7)
    assert state.view(P["P1"]).phase == "day"


def test_day_one_statements_are_filtered_ballots_secret_until_all_are_in() -> None:
    state = play(NIGHT_1 + DAY_1_TALK)
    said = [line for line in lines(state, "P4") if " say" in line]
    assert said == [
        "P1 says: Good morning.",
        "P2 says: I am a simple villager.",  # the moderator's voice is cut
        "P3 says: I am the Seer. P6 is a Werewolf. I vote for P6.",
        "You say nothing.",
        "P5 says: I vote for P6.",
        "P6 says: I am the Seer. P3 is a Werewolf.",
        "P8 says: I vote for P6.",
    ]
    assert state.request == Request(
        P["P1"], "vote", 1, ("P2", "P3", "P4", "P5", "P6", "P8", "pass")
    )
    state = play(DAY_1_VOTES[:3], state)
    assert lines(state, "P1")[-1] == "You vote for P6."
    assert not any("vote for" in line and line.startswith("You") for line in lines(state, "P4"))
    assert lines(state, "P3")[-1] == "You vote for P6."
    state = play(DAY_1_VOTES[3:], state)
    # the exiled Werewolf's role stays hidden; night 2 follows and asks the surviving one
    assert lines(state, "P8")[-4:] == [
        "You vote for P6.",
        "Votes of day 1: P1 -> P6, P2 -> P3, P3 -> P6, P4 -> abstain, P5 -> P6, P6 -> P3, "
        "P8 -> P6.",
        "P6 is exiled by the village (4 votes, 4 needed).",
        "Night 2 falls.",
    ]
    assert state.request == Request(P["P2"], "nominate", 2, ("P1", "P3", "P4", "P5", "P8", "pass"))


def test_night_two_the_doctor_saves_the_seer_and_day_two_ends_the_game() -> None:
    state = play(NIGHT_1 + DAY_1_TALK + DAY_1_VOTES + NIGHT_2)
    assert lines(state, "P1")[-1] == "Day 2 begins. No one was eliminated during the night."
    assert state.view(P["P3"]).inspections == ((P["P6"], True), (P["P2"], True))
    assert state.request is not None and state.request.seat == P["P2"]  # day 2 starts at P2
    state = play(DAY_2_TALK + DAY_2_VOTES, state)
    assert state.is_over and state.winner is Team.VILLAGE
    assert state.end_reason == "werewolves_dead"
    assert state.returns() == (1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0)
    assert state.day == 2 and len(state.history) == len(SCRIPT) == 33
    assert state.request is None
    assert lines(state, "P1")[-3:] == [
        "Votes of day 2: P1 -> P2, P2 -> P3, P3 -> P2, P4 -> P2, P5 -> P2, P8 -> abstain.",
        "P2 is exiled by the village (4 votes, 4 needed).",
        "The game is over: the village wins (no Werewolf is alive). Roles: P1 Villager, "
        "P2 Werewolf, P3 Seer, P4 Villager, P5 Doctor, P6 Werewolf, P7 Villager, P8 Villager.",
    ]
    view = state.view(P["P7"])
    assert view.phase == "over" and view.winner is Team.VILLAGE
    assert view.alive == (0, 2, 3, 4, 7)
    assert violations(state) == []


def test_the_whole_game_as_the_villager_p1_read_it() -> None:
    state = play(SCRIPT)
    assert lines(state, "P1") == [
        "You are P1. Your role is Villager.",
        "Night 1 falls.",
        "Day 1 begins. P7 was eliminated during the night.",
        "You say: Good morning.",
        "P2 says: I am a simple villager.",
        "P3 says: I am the Seer. P6 is a Werewolf. I vote for P6.",
        "P4 says nothing.",
        "P5 says: I vote for P6.",
        "P6 says: I am the Seer. P3 is a Werewolf.",
        "P8 says: I vote for P6.",
        "You vote for P6.",
        "Votes of day 1: P1 -> P6, P2 -> P3, P3 -> P6, P4 -> abstain, P5 -> P6, P6 -> P3, "
        "P8 -> P6.",
        "P6 is exiled by the village (4 votes, 4 needed).",
        "Night 2 falls.",
        "Day 2 begins. No one was eliminated during the night.",
        "P2 says: P3 is lying.",
        "P3 says: I am the Seer. P2 is a Werewolf. I vote for P2.",
        "P4 says: I vote for P2.",
        "P5 says: I vote for P2.",
        "P8 says: Agreed.",
        "You say: I vote for P2.",
        "You vote for P2.",
        "Votes of day 2: P1 -> P2, P2 -> P3, P3 -> P2, P4 -> P2, P5 -> P2, P8 -> abstain.",
        "P2 is exiled by the village (4 votes, 4 needed).",
        "The game is over: the village wins (no Werewolf is alive). Roles: P1 Villager, "
        "P2 Werewolf, P3 Seer, P4 Villager, P5 Doctor, P6 Werewolf, P7 Villager, P8 Villager.",
    ]


def test_the_pack_read_the_nights_the_village_did_not() -> None:
    state = play(SCRIPT)
    wolf = lines(state, "P6")
    assert "P2 nominated P4 as the pack's victim." in wolf
    assert "You nominated P7 as the pack's victim." in wolf
    assert "P2 nominated P3 as the pack's victim." in wolf  # a dead partner still hears the pack
    for seat in ("P1", "P4", "P7", "P8"):
        assert not [line for line in lines(state, seat) if "nominated" in line or "inspect" in line]
    assert [line for line in lines(state, "P5") if "protect" in line] == [
        "You protect you tonight.",
        "You protect P3 tonight.",
    ]


def test_a_move_out_of_turn_or_off_the_menu_is_refused_with_the_reason() -> None:
    state = WerewolfState(ROLES, RULES)
    with pytest.raises(ValueError, match="'P6' is not a legal nominate for P2"):
        state.act("P6")  # a Werewolf cannot nominate its partner
    assert not state.can_act("P2") and state.can_act("pass")
    finished = play(SCRIPT)
    with pytest.raises(ValueError, match="the game is over"):
        finished.act("pass")
    with pytest.raises(ValueError, match="a speak of seat 0; nominate of seat 1 was asked"):
        replay(ROLES, [finished.history[4]], RULES)
    assert replay(ROLES, finished.history, RULES).events == finished.events


def test_an_even_vote_exiles_no_one() -> None:
    """A tie for the most votes is no majority: 3 against 3 of 7 living (4 needed)."""
    state = play(NIGHT_1 + DAY_1_TALK)
    ties = [("P1", "vote", "P6"), ("P2", "vote", "P3"), ("P3", "vote", "P6"),
            ("P4", "vote", "P3"), ("P5", "vote", "P6"), ("P6", "vote", "P3"),
            ("P8", "vote", "pass")]  # fmt: skip
    state = play(ties, state)
    assert event_line(state.events[-2], 0) == (
        "No one is exiled: no player has a majority (4 votes needed, the most was 3)."
    )
    assert state.view(0).alive == (0, 1, 2, 3, 4, 5, 7)
    assert violations(state) == []
