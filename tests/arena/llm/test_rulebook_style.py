"""The profile's rulebook style reaches the LLM players' prompts (through the roster), and the
compact style leaves a roster's JSON, its fingerprints and the prompts exactly as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.games import resolve_games
from arena.roster import Roster, parse_roster, roster_json, with_rulebook_style
from arena.tournament.runner import run_tournament
from assets.run_profiles import get_profile
from engines.gbg import rulebook
from engines.gbg.presets import leduc
from tests.doubles.scripted_server import Request, ScriptedServer, completion

URL = "http://127.0.0.1:9/v1"


def roster(url: str, style: str | None = None) -> Roster:
    data: dict[str, Any] = {
        "players": [
            {"name": "bot", "kind": "builtin", "agent": "random"},
            {"name": "llm", "kind": "openai", "model": "m", "base_url": url},
        ],
        "providers": {f"openai@{url}": {"max_retries": 0}},
    }
    if style is not None:
        data["rulebook_style"] = style
    return parse_roster(data)


def test_compact_leaves_the_roster_as_before_and_paper_is_a_new_fingerprint() -> None:
    plain = roster(URL)
    compact = with_rulebook_style(plain, get_profile("demo").rulebook_style)
    assert roster_json(compact) == roster_json(plain)
    assert "rulebook_style" not in roster_json(plain)
    assert compact.fingerprint("llm") == plain.fingerprint("llm")
    paper = with_rulebook_style(plain, get_profile("paper").rulebook_style)
    assert paper.rulebook_style == "paper" and '"rulebook_style":"paper"' in roster_json(paper)
    assert paper.fingerprint("llm") != plain.fingerprint("llm")
    assert paper.fingerprint("bot") == plain.fingerprint("bot")  # built-ins read no rulebook
    # The roster JSON round-trips (the roster asset's table stores it).
    assert parse_roster(json.loads(roster_json(paper))).rulebook_style == "paper"


def test_a_conflicting_or_unknown_style_is_refused() -> None:
    with pytest.raises(ValueError, match="names rulebook style 'paper' but the profile uses"):
        with_rulebook_style(roster(URL, "paper"), "compact")
    assert with_rulebook_style(roster(URL, "paper"), "paper").rulebook_style == "paper"
    with pytest.raises(ValueError, match="unknown rulebook style 'verbose'"):
        with_rulebook_style(roster(URL), "verbose")
    with pytest.raises(ValueError, match="rulebook_style"):
        roster(URL, "verbose")


@pytest.mark.parametrize("style", ["compact", "paper"])
def test_the_llm_players_system_prompt_is_the_rulebook_in_the_style(
    tmp_path: Path, style: str
) -> None:
    def fold_or_check(request: Request) -> Any:
        return completion('{"action": "call"}')

    with ScriptedServer(fold_or_check) as server:
        chosen = with_rulebook_style(roster(server.url), style)
        run_tournament(chosen, resolve_games(["leduc"]), 1, tmp_path / style)
        requests = list(server.requests)
    assert requests
    systems = {m["content"] for r in requests for m in r.body["messages"] if m["role"] == "system"}
    assert systems == {rulebook(leduc(), style=style)}


def test_the_plan_prices_the_rulebook_in_the_rosters_style() -> None:
    from arena.tournament.plan import plan_tournament

    games = resolve_games(["leduc"])
    compact = plan_tournament(roster(URL), games, 1).as_dict()
    paper = plan_tournament(with_rulebook_style(roster(URL), "paper"), games, 1).as_dict()
    assert compact["models"]["llm"]["calls"] == paper["models"]["llm"]["calls"]
    ratio = len(rulebook(leduc(), style="paper")) / len(rulebook(leduc()))
    assert ratio > 1.5
    assert paper["models"]["llm"]["input_tokens"] > compact["models"]["llm"]["input_tokens"]
