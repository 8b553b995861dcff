"""One model at several reasoning settings, rated as separate entrants of one family (issue 46,
item 5)."""

from __future__ import annotations

from typing import Any

import pytest

from arena.reasoning_variants import expand_reasoning
from arena.roster import ApiEntry, parse_roster


def entry(**extra: Any) -> dict[str, Any]:
    return {
        "name": "gpt-x",
        "kind": "openai",
        "model": "gpt-x",
        "settings": {"max_completion_tokens": 512},
        **extra,
    }


def test_each_setting_is_an_entrant_of_the_models_family() -> None:
    roster = parse_roster(
        {
            "players": [
                {"name": "random", "kind": "builtin", "agent": "random"},
                entry(reasoning={"low": {"reasoning_effort": "low"},
                                 "high": {"reasoning_effort": "high"}}),
            ]
        }
    )  # fmt: skip
    players = {p.name: p for p in roster.players}
    assert list(players) == ["random", "gpt-x@low", "gpt-x@high"]
    low, high = players["gpt-x@low"], players["gpt-x@high"]
    assert isinstance(low, ApiEntry) and isinstance(high, ApiEntry)
    assert (low.family, low.variant, high.family, high.variant) == ("gpt-x", "low", "gpt-x", "high")
    assert low.settings == {"max_completion_tokens": 512, "reasoning_effort": "low"}
    assert high.settings["reasoning_effort"] == "high"
    assert roster.fingerprint("gpt-x@low") != roster.fingerprint("gpt-x@high")


def test_an_entrys_own_family_links_the_settings() -> None:
    [a, b] = expand_reasoning({"players": [entry(family="gpt", reasoning={"a": {}, "b": {}})]})[
        "players"
    ]
    assert a["family"] == b["family"] == "gpt" and (a["variant"], b["variant"]) == ("a", "b")


def test_a_roster_without_reasoning_is_unchanged() -> None:
    data = {"players": [entry()], "rethinks": 1}
    assert expand_reasoning(data) == data


@pytest.mark.parametrize(
    ("player", "message"),
    [
        ({"name": "r", "kind": "builtin", "agent": "random", "reasoning": {"a": {}}},
         "for LLM players only"),
        (entry(reasoning={}), "must map labels to settings"),
        (entry(reasoning=["low"]), "must map labels to settings"),
        (entry(reasoning={"low": "x"}), "must be a mapping of settings"),
        (entry(reasoning={"no spaces": {}}), "is not a short name"),
        (entry(reasoning={"a": {"max_completion_tokens": 9}}), "which its settings set"),
        (entry(variant="v", reasoning={"a": {}}), "not both"),
    ],
)  # fmt: skip
def test_a_malformed_reasoning_is_one_line(player: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_roster({"players": [player]})
