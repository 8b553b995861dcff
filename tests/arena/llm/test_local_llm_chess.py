"""The local SmolLM2 model plays chess end to end through the LLM path (issue 18).

Game Arena's chess protocol (``game-arena-chess``): the prompt gives the position (FEN) and the
moves so far but no list of legal moves; an unreadable or illegal reply earns up to three
rethinks; a fourth failure forfeits the game (a loss).  Two arms, as in ``test_local_llm``:

- ``json_object_schema``: llama.cpp's grammar admits only ``{"action": <a legal move>}``, so
  the model plays a whole game against Stockfish and never rethinks;
- ``none``: the 135M model is free to answer anything; every move it gets through is legal
  and took at most three rethinks, and a game it cannot continue ends as a forfeit it loses.

The Makefile starts the server and passes its URL in ``GENSTRAT_LOCAL_LLM_URL``; outside CI a
missing server skips these tests, under CI (``CI=true``) it fails them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("stockfish") is None and not Path("/usr/games/stockfish").is_file(),
        reason="stockfish not installed (make stockfish)",
    ),
]

URL_ENV = "GENSTRAT_LOCAL_LLM_URL"


@pytest.fixture(scope="module")
def local_llm_url() -> str:
    url = os.environ.get(URL_ENV)
    if url:
        return url
    if os.environ.get("CI") == "true":
        pytest.fail(f"{URL_ENV} is not set under CI: the Makefile must start the local LLM server")
    pytest.skip(f"no local LLM server ({URL_ENV} unset); `make pytest` starts one")


def play(url: str, response_format: str, folder: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    roster = parse_roster(
        {
            "players": [
                {"name": "stockfish-n1", "kind": "builtin", "agent": "stockfish",
                 "params": {"nodes": 1}},
                {
                    "name": "smollm2",
                    "kind": "openai",
                    "model": "smollm2",
                    "base_url": url,
                    "settings": {"temperature": 0, "max_tokens": 16, "seed": 0},
                    "response_format": response_format,
                },
            ],
            "providers": {f"openai@{url}": {"concurrency": 1, "max_retries": 2}},
        }
    )  # fmt: skip
    summary = run_tournament(roster, resolve_games(["openspiel:chess"]), 1, folder, parallel=2)
    assert summary.finished, summary.as_dict()
    return pd.read_parquet(folder / MATCHES), pd.read_parquet(folder / MOVES)


def test_the_model_plays_a_whole_game_under_the_grammar(
    local_llm_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    matches, moves = play(local_llm_url, "json_object_schema", tmp_path)
    with capsys.disabled():
        print(f"\nsmollm2 chess, grammar: {matches[['status', 'n_moves']].to_dict('records')}")
    assert list(matches["status"]) == ["complete", "complete"]
    assert (matches["alice_chip_delta"] + matches["bob_chip_delta"] == 0).all()
    llm = moves[moves["player"] == "smollm2"]
    assert len(llm) >= 4
    assert (llm["rethinks"] == 0).all() and not llm["fallback"].any()
    for row in llm.itertuples():
        assert row.action in list(row.legal_actions)
        assert row.verdict == "ok" and row.prompt_sha256 and row.input_tokens > 0
    # the game ends by the rules or at the 400-move cap, never by a failure
    assert (matches["n_moves"] <= 400).all()


def test_free_replies_follow_the_game_arena_protocol(
    local_llm_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    matches, moves = play(local_llm_url, "none", tmp_path)
    with capsys.disabled():
        print(f"\nsmollm2 chess, free replies: {matches[['status', 'n_moves']].to_dict('records')}")
    assert set(matches["status"]) <= {"complete", "forfeit"}
    llm = moves[moves["player"] == "smollm2"]
    assert (llm["rethinks"] <= 3).all() and not llm["fallback"].any()  # chess never falls back
    forfeited = set(matches.loc[matches["status"] == "forfeit", "match_id"])
    for row in llm.itertuples():
        if pd.isna(row.action):  # the forfeited move, kept for its requests (issue 41, item 1)
            assert row.match_id in forfeited and row.calls >= 4 and row.input_tokens > 0
            last = moves[moves["match_id"] == row.match_id]["index"].max()
            assert row.index == last  # the match ended there
            continue
        assert row.action in list(row.legal_actions)
        assert len(row.earlier_responses) == row.rethinks
    for row in matches.itertuples():
        if row.status == "forfeit":
            assert "Forfeit by smollm2" in row.error and "4 replies" in row.error
            assert "protocol game-arena-chess" in row.error
            smollm2 = row.alice_chip_delta if row.alice == "smollm2" else row.bob_chip_delta
            assert smollm2 == -1  # a forfeit is a loss
        else:
            assert row.alice_chip_delta + row.bob_chip_delta == 0
