"""The prompt of a Werewolf seat (``arena.werewolf.prompts``): built from the view alone, the
task and reply format per request, Game Arena's truncation (the latest 75% of the log each
time, the private summary never cut) and the statement reader."""

from __future__ import annotations

import json

import pytest

from arena.werewolf.prompts import (
    KEEP,
    build_prompt,
    parse_statement,
    reply_schema,
    user_text,
)
from engines.werewolf.bots import RandomBot
from engines.werewolf.play import seat_generators
from engines.werewolf.render import ROLE_NAMES, rules_text, transcript
from engines.werewolf.rules import WerewolfRules
from engines.werewolf.state import new_game
from engines.werewolf.view import PlayerView
from tests.engines.werewolf.test_werewolf_script import (
    DAY_1_TALK,
    DAY_1_VOTES,
    NIGHT_1,
    NIGHT_2,
    RULES,
    P,
    play,
)


def test_a_choice_prompt_holds_the_private_summary_log_task_and_menu_last() -> None:
    state = play(NIGHT_1 + DAY_1_TALK + DAY_1_VOTES + NIGHT_2[:2])  # the Seer is asked
    view = state.view(P["P3"])
    prompt = build_prompt(view, RULES, 24_000)
    assert prompt.omitted == 0
    assert rules_text(RULES) in prompt.system and "team's victory" in prompt.system
    lines = prompt.user.splitlines()
    assert lines[:3] == [
        "You are P3. Your role is Seer (team: the village).",
        "Your findings as the Seer: P6 is a Werewolf.",
        "Living players: P1, P2, P3, P4, P5, P8.",
    ]
    log = transcript(view)
    start = lines.index("Game log, oldest first:") + 1
    assert lines[start : start + len(log)] == log
    assert lines[-1] == 'Legal actions: ["P1", "P2", "P4", "P5", "P8", "pass"]'
    assert lines[-3].startswith("Night 2: choose a living player to inspect")


def test_a_werewolf_sees_its_pack_and_a_statement_prompt_has_no_menu() -> None:
    state = play(NIGHT_1 + DAY_1_TALK[:1])  # P2 is to speak
    prompt = build_prompt(state.view(P["P2"]), RULES, 24_000)
    assert "The Werewolves are P2 and P6." in prompt.user.splitlines()
    assert "P6 nominated P7 as the pack's victim." in prompt.user
    assert "Legal actions" not in prompt.user
    assert prompt.user.splitlines()[-1].endswith('"statement": "<what you say to the table>"}.')
    villager = build_prompt(play(NIGHT_1).view(P["P1"]), RULES, 24_000).user
    assert "nominated" not in villager and "Werewolves are" not in villager


def long_view() -> PlayerView:
    """A late decision of a game of random bots with three rounds of talk a day."""
    state = new_game(4, WerewolfRules(discussion_rounds=3))
    rngs = seat_generators(4)
    while (request := state.request) is not None:
        if request.day == 3 and request.kind == "vote":
            return state.view(request.seat)
        state.act(RandomBot().act(state.view(request.seat), rngs[request.seat]))
    raise AssertionError("the game ended before day 3's vote")


def test_truncation_keeps_the_latest_three_quarters_each_time_and_never_the_summary() -> None:
    view = long_view()
    log = transcript(view)
    full = user_text(view, RULES)
    assert build_prompt(view, RULES, len(full)).omitted == 0
    steps, omitted = [0], 0  # the omitted counts of repeated 75% cuts
    while omitted < len(log):
        left = len(log) - omitted
        omitted += max(1, left - int(left * KEEP))
        steps.append(omitted)
    assert steps[1] == len(log) - int(len(log) * 0.75)  # the first cut drops a quarter
    assert len(full) > 2_500
    for budget in (len(full) - 1, len(full) * 2 // 3, 1_500, 1_000):
        prompt = build_prompt(view, RULES, budget)
        assert prompt.user == user_text(view, RULES, prompt.omitted)
        k = steps.index(prompt.omitted)  # one of the cuts ...
        assert (
            k > 0 and len(user_text(view, RULES, steps[k - 1])) > budget
        )  # ... the first that fits
        assert len(prompt.user) <= budget or prompt.omitted == len(log)
        lines = prompt.user.splitlines()
        assert f"({prompt.omitted} earlier lines omitted to fit the context.)" in lines
        start = lines.index("Game log, oldest first:") + 2
        assert lines[start : start + len(log) - prompt.omitted] == log[prompt.omitted :]
        assert lines[:1] == [
            f"You are {view.name}. Your role is {ROLE_NAMES[view.role]} "
            + ("(team: the Werewolves)." if view.pack else "(team: the village).")
        ]
        assert lines[-1].startswith("Legal actions:")
    with pytest.raises(ValueError, match="context_chars must be at least 1000"):
        build_prompt(view, RULES, 999)


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ('{"reasoning": "hm", "statement": "I vote for P2."}', "I vote for P2."),
        ('Thinking... ```json\n{"statement": "Hi"}\n```', "Hi"),
        ("{'statement': 'single quotes'}", "single quotes"),
        ('{"statement": "first"} then {"statement": "last"}', "last"),
        ('{"Statement": ""}', ""),
        ('{"statement": 3}', None),
        ('{"action": "P2"}', None),
        ("I say hello", None),
        ("", None),
    ],
)
def test_the_statement_reader(reply: str, said: str | None) -> None:
    assert parse_statement(reply) == said


def test_reply_schemas_name_the_field_of_the_request() -> None:
    state = play(NIGHT_1)
    speak = reply_schema(state.view(P["P1"]).request)  # type: ignore[arg-type]
    assert speak["required"] == ["reasoning", "statement"]
    vote = play(NIGHT_1 + DAY_1_TALK).request
    assert vote is not None
    schema = reply_schema(vote)
    assert schema["properties"]["action"]["enum"] == list(vote.options)
    json.dumps(schema)  # serialisable as a request body
    assert WerewolfRules().statement_chars == 600
