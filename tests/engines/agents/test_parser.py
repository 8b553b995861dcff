"""The lenient parser reads the last JSON object, repairs minor faults, and never reads prose."""

from __future__ import annotations

import random

import pytest

from engines.agents.parser import action_schema, fallback_action, json_objects, parse_reply

BETTING = ("check", "bet 2", "bet 4")
FACING = ("fold", "call", "raise 4")
BIDS = ("bid 0", "bid 1", "bid 2", "bid 3")
SWAPS = ("keep", "swap K♠", "swap 10♥")


@pytest.mark.parametrize(
    ("reply", "menu", "action"),
    [
        ('{"action": "check"}', BETTING, "check"),
        ('I will bet.\n```json\n{"action": "bet 2"}\n```', BETTING, "bet 2"),
        ('{"action": "bet 4",}', BETTING, "bet 4"),  # trailing comma
        ("{'action': 'check'}", BETTING, "check"),  # single quotes
        ('{"Action": "BET  2"}', BETTING, "bet 2"),  # key and value case, inner spaces
        ('{"action": "bet", "amount": "4"}', BETTING, "bet 4"),  # amount as a string, apart
        ('{"action": "bet", "amount": 2}', BETTING, "bet 2"),
        ('{"action": "bet 4.0"}', BETTING, "bet 4"),
        ('{"action": "check", "amount": 0}', BETTING, "check"),
        ('{"action": 3}', BIDS, "bid 3"),  # a bare amount names the only amount verb
        ('{"action": "3"}', BIDS, "bid 3"),
        ('{"action": "Raise", "amount": "4"}', FACING, "raise 4"),
        ('{"action": "swap k♠"}', SWAPS, "swap K♠"),
        ('first {"action": "fold"} then, final: {"action": "call"}', FACING, "call"),
        ('{"reason": "the {best} move", "action": "fold"}', FACING, "fold"),  # braces in strings
        ("{'action': \"call\", 'why': 'it\\'s cheap',}", FACING, "call"),
        ('{"action": "call", "ok": True}', FACING, "call"),  # a Python literal
    ],
)
def test_lenient_parser_accepts_minor_faults(
    reply: str, menu: tuple[str, ...], action: str
) -> None:
    parsed = parse_reply(reply, menu)
    assert parsed.verdict == "ok", parsed
    assert parsed.action == action


@pytest.mark.parametrize(
    "reply",
    [
        None,
        "",
        "I think I will bet 2 here, it is clearly the best move.",
        "check",
        "action: check",
        '{"move": "check"}',  # an object without an action key
        '{"action": "check"',  # never closed
        "```json\n```",
    ],
)
def test_prose_and_objects_without_an_action_are_unparsable(reply: str | None) -> None:
    parsed = parse_reply(reply, BETTING)
    assert parsed.verdict == "unparsable"
    assert parsed.action is None


@pytest.mark.parametrize(
    "reply",
    [
        '{"action": "raise 999"}',
        '{"action": "bet", "amount": 3}',
        '{"action": "bet 2", "amount": 4}',  # contradictory
        '{"action": 2}',  # a bare amount when the menu has no amount verb... or two
        '{"action": null}',
    ],
)
def test_an_object_naming_nothing_on_the_menu_is_illegal(reply: str) -> None:
    parsed = parse_reply(reply, BETTING if "999" not in reply else FACING)
    if reply == '{"action": 2}':
        parsed = parse_reply(reply, ("check", "bet 2", "bid 2"))  # two amount verbs: ambiguous
    assert parsed.verdict == "illegal"
    assert parsed.action is None


def test_the_last_object_with_an_action_wins_even_if_illegal() -> None:
    parsed = parse_reply('{"action": "check"} ... no wait: {"action": "raise 50"}', BETTING)
    assert parsed.verdict == "illegal"
    assert parsed.said == "raise 50"


def test_json_objects_finds_top_level_spans() -> None:
    text = 'a {"x": {"y": 1}} b {"z": "}"} c {'
    assert json_objects(text) == ['{"x": {"y": 1}}', '{"z": "}"}']


def test_fallback_is_the_minimum_wager_or_bid() -> None:
    rng = random.Random(0)
    assert fallback_action(BETTING, rng) == "check"
    assert fallback_action(FACING, rng) == "call"
    assert fallback_action(("raise 6", "bet 4", "bet 2"), rng) == "bet 2"
    assert fallback_action(("bid 3", "bid 1", "bid 2"), rng) == "bid 1"


def test_fallback_elsewhere_is_a_seeded_random_legal_choice() -> None:
    menu = ("press", "hold", "bluff")
    picks = [fallback_action(menu, random.Random(seed)) for seed in range(60)]
    assert set(picks) == set(menu)  # every option can be drawn
    again = [fallback_action(menu, random.Random(seed)) for seed in range(60)]
    assert picks == again  # and the draw is the generator's, so it replays
    with pytest.raises(ValueError, match="no legal action"):
        fallback_action((), random.Random(0))


def test_action_schema_admits_exactly_the_menu() -> None:
    schema = action_schema(BETTING)
    assert schema["properties"]["action"]["enum"] == list(BETTING)
    assert schema["required"] == ["action"]
    assert schema["additionalProperties"] is False
