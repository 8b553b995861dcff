"""Rulebooks state every rule with its numbers; the consistency gate names what is missing."""

from __future__ import annotations

import json

import pytest

from engines.gbg import consistency_errors, new_deal, presets, rulebook
from engines.gbg.render import turn_prompt


@pytest.mark.parametrize("name", sorted(presets.PRESETS))
def test_preset_rulebooks_are_consistent(name: str) -> None:
    spec = presets.PRESETS[name]()
    assert consistency_errors(spec, rulebook(spec)) == []


def test_missing_raise_cap_is_named() -> None:
    spec = presets.leduc()
    text = rulebook(spec).replace("At most 2 bets and raises in total", "Some bets", 1)
    errors = consistency_errors(spec, text)
    assert errors == ["raise cap of bet1: 'At most 2 bets' not stated in the section of bet1"]


def test_amount_stated_in_the_wrong_section_is_missing() -> None:
    spec = presets.leduc()
    text = rulebook(spec).replace("exactly 4 chips", "exactly four chips")
    # "4 chips" still appears elsewhere? It must be found in bet2's own section.
    errors = consistency_errors(spec, text)
    assert errors == ["bet size of bet2: '4 chips' not stated in the section of bet2"]


def test_missing_branch_and_showdown_rule_are_named() -> None:
    spec = presets.example4643()
    text = rulebook(spec)
    text = text.replace("if either player holds a pair (two cards of one rank) in hand", "if so")
    text = text.replace("-3 points for each K", "minus three for kings")
    errors = consistency_errors(spec, text)
    assert any(e.startswith("branch of bet2") for e in errors)
    assert any(e.startswith("showdown rule for K") for e in errors)


def test_example4643_rulebook_states_its_features() -> None:
    text = rulebook(presets.example4643())
    for phrase in (
        "The deck has 8 cards",
        "Each player starts with 10 chips",
        "antes 3 chips",
        "wager grid {1, 2, 3, 4, 5, 6, 7}",
        "with probability 50% the peeker pays 1 chip",
        "It is hidden: only the holder is told",
        "- press: the chooser puts 1 chip into the pot",
        "+3 points for a pair of Js",
        "-3 points for each K",
        "if Alice holds a card of rank K in hand, go to phase swap",
    ):
        assert phrase in text, phrase


def test_turn_prompt_lists_the_menu_as_json() -> None:
    state = new_deal(presets.kuhn(), 3)
    prompt = turn_prompt(state, 0)
    menu = prompt.split("Legal actions: ", 1)[1].splitlines()[0]
    assert json.loads(menu) == ["check", "bet 1"]
    assert '{"action": "<one of the legal actions>"}' in prompt
    assert "Your hand:" in prompt and "Pot: 2." in prompt
