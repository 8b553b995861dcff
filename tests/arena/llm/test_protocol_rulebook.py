"""The paper protocol is the paper's prompt (issue 40, item 5): ``--protocol paper`` and the paper
profile send the paper-style rulebook unless the roster names a style of its own; the arena
protocol leaves the style to the roster and the profile."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.llm.protocols import PROTOCOLS
from arena.roster import Roster, parse_roster, roster_json, with_protocol, with_rulebook_style
from assets.run_profiles import PROFILES
from engines.gbg import rulebook
from engines.gbg.presets import kuhn
from pipelines.cli import main
from tests.doubles.scripted_server import Request, ScriptedServer, completion

URL = "http://127.0.0.1:9/v1"


def roster(style: str | None = None, protocol: str | None = None) -> Roster:
    data: dict[str, Any] = {
        "players": [
            {"name": "bot", "kind": "builtin", "agent": "random"},
            {"name": "llm", "kind": "openai", "model": "m", "base_url": URL},
        ]
    }
    if style is not None:
        data["rulebook_style"] = style
    if protocol is not None:
        data["protocol"] = protocol
    return parse_roster(data)


def test_the_paper_protocol_sets_the_paper_rulebook_unless_the_roster_names_one() -> None:
    paper = with_protocol(roster(), "paper")
    assert paper.rulebook_style == "paper"
    assert '"rulebook_style":"paper"' in roster_json(paper)
    named = with_protocol(roster("paper"), "paper")  # the same prompt, named by the roster
    assert paper.fingerprint("llm") == named.fingerprint("llm")
    assert paper.fingerprint("llm") != with_protocol(roster("compact"), "paper").fingerprint("llm")
    # the roster overrides it
    assert with_protocol(roster("compact"), "paper").rulebook_style == "compact"
    assert with_protocol(roster("paper"), "paper").rulebook_style == "paper"
    # arena leaves the style alone: a default roster's JSON and fingerprints stay as they were
    arena = with_protocol(roster(), "arena")
    assert arena.rulebook_style is None
    assert arena.fingerprint("llm") == with_protocol(roster(), "arena").fingerprint("llm")
    assert "rulebook_style" not in roster_json(arena)


def test_a_style_chosen_after_the_protocol_replaces_the_protocols_but_not_the_rosters() -> None:
    # ``--protocol paper --style compact``: the explicit style wins over the protocol's
    chosen = with_rulebook_style(with_protocol(roster(), "paper"), "compact")
    assert chosen.rulebook_style is None and chosen.protocol == "paper"
    assert chosen.fingerprint("llm") != with_protocol(roster(), "paper").fingerprint("llm")
    # a style the roster names is still a conflict with another one
    with pytest.raises(ValueError, match="names rulebook style 'paper' but the profile uses"):
        with_rulebook_style(with_protocol(roster("paper"), "paper"), "compact")
    # and a replaced style is the roster's from then on
    again = with_rulebook_style(
        with_rulebook_style(with_protocol(roster(), "paper"), "paper"), "paper"
    )
    with pytest.raises(ValueError, match="names rulebook style 'paper'"):
        with_rulebook_style(again, "compact")


def test_every_profile_under_the_paper_protocol_sends_the_paper_rulebook() -> None:
    assert PROTOCOLS["paper"].rulebook_style == "paper"
    assert PROTOCOLS["arena"].rulebook_style is None
    for profile in PROFILES.values():
        chosen = with_rulebook_style(
            with_protocol(roster(), profile.protocol), profile.rulebook_style
        )
        expected = "paper" if profile.protocol == "paper" else profile.rulebook_style
        assert (chosen.rulebook_style or "compact") == expected, profile.name


def _system_prompts(
    tmp_path: Path, *options: str, style: str | None = None, protocol: str | None = None
) -> set[str]:
    """The system prompts an LLM player of a roster file was sent in ``tournament run``."""

    def call(request: Request) -> Any:
        return completion('{"action": "call"}')

    with ScriptedServer(call) as server:
        path = tmp_path / "roster.yaml"
        path.write_text(
            "players:\n  - {name: bot, kind: builtin, agent: random}\n"
            f"  - {{name: llm, kind: openai, model: m, base_url: '{server.url}'}}\n"
            + (f"rulebook_style: {style}\n" if style else "")
            + (f"protocol: {protocol}\n" if protocol else "")
        )
        name = "".join(o.strip("-") for o in options) + (style or "") + (protocol or "")
        out = tmp_path / f"t-{name}"
        code = main(["tournament", "run", "--roster", str(path), "--games", "kuhn", "--runs",
                     "1", "--out", str(out), "--quiet", "--json", *options])  # fmt: skip
        requests = list(server.requests)
    assert code == 0 and requests
    return {m["content"] for r in requests for m in r.body["messages"] if m["role"] == "system"}


def test_tournament_run_protocol_paper_sends_the_paper_rulebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GENSTRAT_PROFILE", raising=False)  # the demo profile: compact
    paper, compact = rulebook(kuhn(), style="paper"), rulebook(kuhn())
    assert _system_prompts(tmp_path) == {compact}
    assert _system_prompts(tmp_path, "--protocol", "paper") == {paper}
    assert _system_prompts(tmp_path, "--protocol", "arena") == {compact}
    # the roster's own style, and an explicit --style, override the protocol's
    assert _system_prompts(tmp_path, "--protocol", "paper", style="compact") == {compact}
    assert _system_prompts(tmp_path, "--protocol", "paper", "--style", "compact") == {compact}
    # the roster's own protocol is the paper's prompt too
    assert _system_prompts(tmp_path, protocol="paper") == {paper}
    assert _system_prompts(tmp_path, protocol="paper", style="compact") == {compact}
