"""Secrets never reach the corpus: every free-text field of a match or move row (an error, a
model's raw reply, its reasoning, earlier replies) is redacted before the journal sees it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.secrets import REDACTED, redacted_rows
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament

CANARY = "sk-proj-CANARYcanary0123456789abcdef"


def test_every_free_text_field_is_redacted() -> None:
    match = {"match_id": "m", "error": f"HTTPError: GET https://x/?key={CANARY}\nsecond line"}
    moves = [
        {
            "match_id": "m",
            "raw_response": f'I was given {CANARY}. {{"action": "bet", "monkey": 3}}',
            "reasoning": "my OPENAI_API_KEY=hunter2hunter2 is",
            "earlier_responses": [f"first {CANARY}", "clean"],
            "action": "bet",
        }
    ]
    clean_match, (clean_move,) = redacted_rows(match, moves, (CANARY,))
    assert CANARY not in str(clean_match) + str(clean_move)
    assert "\n" not in clean_match["error"] and REDACTED in clean_match["error"]
    assert '"monkey": 3' in clean_move["raw_response"]  # a reply keeps its own words
    assert clean_move["earlier_responses"] == [f"first {REDACTED}", "clean"]
    assert clean_move["action"] == "bet"
    assert match["error"].endswith("second line")  # the input rows are not mutated


def test_an_exception_carrying_a_key_reaches_no_table_or_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent whose move raises with a key in its message (as an HTTP client's error with the
    key in a URL would): the match is an error, recorded without the key anywhere."""
    from engines.agents.builtin import RandomAgent

    secret = "plain-secret-0f1e2d3c4b5a"  # no credential shape: found as the variable's value

    def leaky(self: RandomAgent, *args: object) -> str:
        raise RuntimeError(f"GET https://provider.invalid/v1?key={secret} failed")

    monkeypatch.setenv("PROVIDER_API_KEY", secret)
    monkeypatch.setattr(RandomAgent, "act", leaky)
    roster = parse_roster(
        {
            "players": [
                {"name": "leaky", "kind": "builtin", "agent": "random"},
                {"name": "other", "kind": "builtin", "agent": "random"},
            ]
        }
    )
    out = tmp_path / "out"
    run_tournament(roster, resolve_games(["kuhn"]), 1, out)
    journals = "".join(p.read_text() for p in out.glob("*.jsonl"))
    matches, moves = pd.read_parquet(out / MATCHES), pd.read_parquet(out / MOVES)
    assert secret not in journals
    for table in (matches, moves):
        assert not table.astype(str).stack().str.contains(secret, regex=False).any()
    errors = list(matches["error"].dropna())
    assert errors and all(REDACTED in e and "RuntimeError" in e for e in errors)
