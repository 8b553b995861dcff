"""A real LLM, locally: SmolLM2-135M-Instruct served by llama.cpp plays short tournaments.

The Makefile starts the server (``tools/local_llm.py``) before pytest and passes its URL in
``GENSTRAT_LOCAL_LLM_URL``.  Outside CI a missing server skips these tests; under CI (``CI=true``)
it fails them, so the local-model test cannot silently stop running.

With a JSON-schema ``response_format`` (llama.cpp's ``{"type": "json_object", "schema": ...}``)
the grammar allows only ``{"action": <a legal action>}``, so the model never falls back; without
one, the 135M model mostly fails to produce a legal JSON action and the harness rethinks and
falls back.  Both rates are printed (and recorded as test properties).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament

pytestmark = pytest.mark.slow  # make test runs it; make check leaves it out

URL_ENV = "GENSTRAT_LOCAL_LLM_URL"


@pytest.fixture(scope="module")
def local_llm_url() -> str:
    url = os.environ.get(URL_ENV)
    if url:
        return url
    if os.environ.get("CI") == "true":
        pytest.fail(f"{URL_ENV} is not set under CI: the Makefile must start the local LLM server")
    pytest.skip(f"no local LLM server ({URL_ENV} unset); `make pytest` starts one")


@pytest.mark.parametrize(("response_format", "runs"), [("none", 1), ("json_object_schema", 2)])
def test_a_short_match_against_the_local_model(
    local_llm_url: str,
    response_format: str,
    runs: int,
    tmp_path: Path,
    record_property: pytest.RecordProperty,
    capsys: pytest.CaptureFixture[str],
) -> None:
    roster = parse_roster(
        {
            "players": [
                {"name": "random", "kind": "builtin", "agent": "random"},
                {
                    "name": "smollm2",
                    "kind": "openai",
                    "model": "smollm2",
                    "base_url": local_llm_url,
                    "settings": {"temperature": 0, "max_tokens": 24, "seed": 0},
                    "response_format": response_format,
                    "family": "smollm2",
                },
            ],
            "providers": {f"openai@{local_llm_url}": {"concurrency": 1, "max_retries": 2}},
            "rethinks": 1,
        }
    )
    summary = run_tournament(roster, resolve_games(["kuhn"]), runs, tmp_path, parallel=2)
    assert summary.finished, summary.as_dict()
    assert summary.status_counts == {"complete": 2 * runs}
    moves = pd.read_parquet(tmp_path / MOVES)
    llm = moves[moves["player"] == "smollm2"]
    assert len(llm) >= 2 * runs
    assert llm["raw_response"].notna().all()
    assert (llm["input_tokens"] > 0).all() and (llm["calls"] >= 1).all()
    assert (llm["rethinks"] <= 1).all()
    assert (llm["fallback"] <= (llm["rethinks"] == 1)).all()  # a fallback only after K rethinks
    for row in llm.itertuples():
        assert row.action in list(row.legal_actions)
        assert json.loads(row.settings)["max_tokens"] == 24
    matches = pd.read_parquet(tmp_path / MATCHES)
    assert (matches["alice_chip_delta"] + matches["bob_chip_delta"] == 0).all()
    rates = summary.per_player["smollm2"]
    record_property("fallback_rate", rates["fallback_rate"])
    record_property("rethink_rate", rates["rethink_rate"])
    with capsys.disabled():
        print(
            f"\nlocal model smollm2, response_format={response_format}: "
            f"{int(rates['moves'])} moves, fallback rate {rates['fallback_rate']:.1%}, "
            f"rethink rate {rates['rethink_rate']:.1%}"
        )
    if response_format != "none":
        assert rates["fallback_rate"] == 0.0  # the grammar admits only legal actions
