"""The built-in bots (``engines.werewolf.bots``): each habit of the rule bot on positions of the
worked game (``test_werewolf_script``), the claim reader, the planted strengths the ratings are
checked against, and the refusal of unknown bots."""

from __future__ import annotations

import random

import pytest

from engines.werewolf.bots import RandomBot, RuleBot, make_bot
from engines.werewolf.claims import read_table
from engines.werewolf.play import play_bots
from engines.werewolf.roles import SEATS, Role, Team
from engines.werewolf.rules import WerewolfRules
from engines.werewolf.state import WerewolfState, new_game
from engines.werewolf.view import PASS
from tests.engines.werewolf.test_werewolf_script import (
    DAY_1_TALK,
    DAY_1_VOTES,
    NIGHT_1,
    NIGHT_2,
    ROLES,
    RULES,
    P,
    play,
)


def ask(bot: RuleBot | RandomBot, state: WerewolfState, seed: int = 0) -> str:
    request = state.request
    assert request is not None
    return bot.act(state.view(request.seat), random.Random(seed))


def test_the_seer_reveals_its_findings_or_keeps_them() -> None:
    state = play(NIGHT_1)  # P3 found P6; day 1 starts with P1, the Seer speaks third
    state = play(DAY_1_TALK[:2], state)
    assert ask(RuleBot(), state) == "I am the Seer. P6 is a Werewolf. I vote for P6."
    assert ask(RuleBot(seer_reveals=False), state) == "I vote for P6."  # still votes its find


def test_the_village_follows_the_first_seer_claimant_and_the_table_reads_it() -> None:
    state = play(NIGHT_1 + DAY_1_TALK)  # P3 claimed first, P6 counter-claimed
    table = read_table(state.view(P["P1"]))
    assert table.claimants == [P["P3"], P["P6"]]
    assert table.findings == {P["P3"]: {P["P6"]: True}, P["P6"]: {P["P3"]: True}}
    assert table.declared == {P["P3"]: P["P6"], P["P5"]: P["P6"], P["P8"]: P["P6"]}
    assert ask(RuleBot(), state) == "P6"  # P1 votes the claimant's Werewolf
    knows = RuleBot().knowledge(state.view(P["P1"]), table)
    assert knows.seer == P["P3"] and knows.wolves == {P["P6"]}
    assert knows.suspicion[P["P6"]] == 2  # a later claimant
    # without reading claims, P1 follows the declared bandwagon (three declared P6)
    assert ask(RuleBot(follows_seer=False), state) == "P6"


def test_the_doctor_guards_the_claimed_seer_else_itself() -> None:
    state = play(NIGHT_1 + DAY_1_TALK + DAY_1_VOTES + NIGHT_2[:1])  # the Doctor is asked
    assert state.request is not None and state.request.seat == P["P5"]
    assert ask(RuleBot(), state) == "P3"
    first_night = play(NIGHT_1[:2])  # no claim yet: itself
    assert ask(RuleBot(), first_night) == "P5"
    picks = {ask(RuleBot(doctor_guards=False), state, seed) for seed in range(40)}
    assert len(picks) > 3 and picks <= {"P1", "P2", "P3", "P4", "P5", "P8"}


def test_the_pack_hunts_the_claimant_and_agrees_on_one_victim() -> None:
    state = play(NIGHT_1 + DAY_1_TALK + DAY_1_VOTES)  # night 2: P2 is the last Werewolf
    assert ask(RuleBot(), state) == "P3"  # the claimed Seer
    night_one = WerewolfState(ROLES, RULES)
    first = ask(RuleBot(), night_one, seed=3)
    night_one.act(first)
    assert ask(RuleBot(), night_one, seed=99) == first  # the partner follows the nomination


def test_an_accused_pack_fakes_a_claim_once() -> None:
    """Two rounds of talk: the Seer P3 accuses P2 in round one; in round two the lower living
    Werewolf (P2) claims the Seer's role and accuses P3; its partner P6 does not claim again."""
    state = play(NIGHT_1, WerewolfState(ROLES, WerewolfRules(discussion_rounds=2)))
    for text in ("Hello.", "Hello.", "I am the Seer. P2 is a Werewolf.", "", "", "", "", ""):
        state.act(text)  # round one (P1 .. P8 without P7), then P1 of round two
    assert state.request is not None and state.request.seat == P["P2"]
    assert ask(RuleBot(), state) == "I am the Seer. P3 is a Werewolf. I vote for P3."
    assert ask(RuleBot(wolf_fakes=False), state) == "I vote for P3."
    state.act(ask(RuleBot(), state))
    for _ in range(3):  # P3, P4, P5
        state.act("")
    assert state.request is not None and state.request.seat == P["P6"]
    assert ask(RuleBot(), state) == "I vote for P3."


def test_random_bot_picks_seats_never_passes_and_claims_nothing() -> None:
    state = WerewolfState(ROLES, RULES)
    picks = {ask(RandomBot(), state, seed) for seed in range(60)}
    assert picks == {"P1", "P3", "P4", "P5", "P7", "P8"}
    state = play(NIGHT_1)
    said = {ask(RandomBot(), state, seed) for seed in range(60)}
    assert not any("Seer" in s or "Werewolf" in s for s in said)
    assert PASS not in said


def village_win_rate(village: dict[str, bool], wolves: dict[str, bool], games: int = 150) -> float:
    won = 0
    for seed in range(games):
        state = new_game(seed)
        bots = [
            make_bot("rule", wolves if state.roles[s] is Role.WEREWOLF else village)
            for s in range(SEATS)
        ]
        won += play_bots(state, bots, seed).winner is Team.VILLAGE
    return won / games


def test_the_planted_strengths_differ_as_designed() -> None:
    """The habits the planted field switches off cost the village (150 seeded games each;
    measured when written: 0.72 with every habit, 0.13 with a quiet Seer, 0.22 with a
    Doctor guarding at random, on 300 games)."""
    full = village_win_rate({}, {})
    assert full > 0.55
    assert village_win_rate({"seer_reveals": False}, {}) < full - 0.3
    assert village_win_rate({"doctor_guards": False}, {}) < full - 0.3


def test_unknown_bots_and_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown werewolf bot 'mcts'; known: random, rule"):
        make_bot("mcts")
    with pytest.raises(ValueError, match="takes no parameter depth; it takes seer_reveals"):
        make_bot("rule", {"depth": 2})
    with pytest.raises(ValueError, match="random' takes no parameter seer_reveals"):
        make_bot("random", {"seer_reveals": True})
    with pytest.raises(ValueError, match="must be true or false"):
        make_bot("rule", {"seer_reveals": 1})
    assert make_bot("rule", {"seer_reveals": False}, name="quiet") == RuleBot(
        name="quiet", seer_reveals=False
    )
