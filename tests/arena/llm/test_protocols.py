"""Move protocols against the scripted server: under ``paper`` one request per move and the
paper's fallback, under ``arena`` the rethinks; the profiles' protocols and where they are
recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.llm.protocols import PROTOCOLS, move_protocol
from arena.roster import Roster, parse_roster, roster_json, with_protocol
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from assets.run_profiles import PROFILES, get_profile
from engines.agents.parser import FEEDBACK, fallback_action
from engines.tournament.match import seat_rng
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion

GAMES = ("kuhn", "leduc", "11")  # two wager games and a generated one (non-wager menus too)


def roster(url: str, protocol: str | None, rethinks: int = 3) -> Roster:
    data: dict[str, Any] = {
        "players": [
            {"name": "bot", "kind": "builtin", "agent": "random"},
            {"name": "llm", "kind": "openai", "model": "m", "base_url": url},
        ],
        "rethinks": rethinks,
        "providers": {f"openai@{url}": {"max_retries": 0}},
    }
    if protocol is not None:
        data["protocol"] = protocol
    return parse_roster(data)


def illegal(request: Request) -> Answer:
    return completion('{"action": "go all in on the moon"}')


def play(r: Roster, out: Path) -> Any:
    return run_tournament(r, resolve_games(list(GAMES)), 4, out)


def test_paper_sends_one_request_a_move_and_plays_the_papers_fallback(tmp_path: Path) -> None:
    with ScriptedServer(illegal) as server:
        summary = play(roster(server.url, "paper", rethinks=3), tmp_path / "p")
        requests = list(server.requests)
    assert summary.finished and summary.status_counts == {"complete": summary.scheduled}
    moves = pd.read_parquet(tmp_path / "p" / MOVES)
    llm = moves[moves["player"] == "llm"]
    assert len(llm) > 20
    # never a rethink: exactly one request per move, none carrying the feedback sentence
    assert len(requests) == len(llm) == int(llm["calls"].sum())
    feedback = set(FEEDBACK.values())
    assert not any(m["content"] in feedback for r in requests for m in r.body["messages"])
    assert all(len(r.body["messages"]) == 2 for r in requests)
    assert (llm["rethinks"] == 0).all() and llm["fallback"].all()
    assert (llm["verdict"] == "illegal").all()
    # the paper's fallback, replayed from each seat's generator, move by move
    matches = pd.read_parquet(tmp_path / "p" / MATCHES).set_index("match_id")
    replayed = []
    for match_id, group in llm.groupby("match_id", sort=False):
        match = matches.loc[match_id]
        seat = 0 if group["seat"].iloc[0] == "alice" else 1
        rng = seat_rng(int(match["play_seed"]), int(match["deal"]), seat)
        for row in group.sort_values("index").itertuples():
            replayed.append(fallback_action(tuple(row.legal_actions), rng) == row.action)
    assert all(replayed) and len(replayed) == len(llm)
    # wagers fall back to the minimum: check, else call, never a bet or raise when either is legal
    for row in llm.itertuples():
        legal = list(row.legal_actions)
        if "check" in legal:
            assert row.action == "check"
        elif "call" in legal:
            assert row.action == "call"
    assert summary.per_player["llm"]["rethink_rate"] == 0.0
    assert summary.per_player["llm"]["fallback_rate"] == 1.0


def test_arena_rethinks_k_times_with_the_feedback(tmp_path: Path) -> None:
    with ScriptedServer(illegal) as server:
        play(roster(server.url, "arena", rethinks=2), tmp_path / "a")
        requests = list(server.requests)
    llm = pd.read_parquet(tmp_path / "a" / MOVES).query("player == 'llm'")
    assert len(requests) == 3 * len(llm)
    assert (llm["rethinks"] == 2).all() and llm["fallback"].all()
    assert sum(r.body["messages"][-1]["content"] == FEEDBACK["illegal"] for r in requests) == (
        2 * len(llm)
    )


def test_the_same_fallback_under_both_protocols(tmp_path: Path) -> None:
    """The protocols differ only in the rethinks: with a model that never answers legally,
    both play the same actions on the same deals."""
    with ScriptedServer(illegal) as server:
        play(roster(server.url, "paper"), tmp_path / "p")
        play(roster(server.url, "arena", rethinks=1), tmp_path / "a")
    paper = pd.read_parquet(tmp_path / "p" / MOVES)
    arena = pd.read_parquet(tmp_path / "a" / MOVES)
    assert list(paper["action"]) == list(arena["action"])


def test_the_protocol_is_part_of_the_fingerprint_and_the_roster_json() -> None:
    url = "http://127.0.0.1:9/v1"
    paper, arena = roster(url, "paper"), roster(url, "arena")
    assert paper.rethinks_of(paper.player("llm")) == 0
    assert arena.rethinks_of(arena.player("llm")) == 3
    assert paper.fingerprint("llm") != arena.fingerprint("llm")
    assert paper.fingerprint("bot") == arena.fingerprint("bot")
    assert json.loads(roster_json(paper))["protocol"] == "paper"
    # a roster that names no protocol keeps the JSON it had before protocols existed
    assert "protocol" not in json.loads(roster_json(roster(url, None)))
    assert roster(url, None).protocol_name == "arena"


def test_profiles_name_their_protocol() -> None:
    assert get_profile("paper").protocol == "paper"
    assert get_profile("demo").protocol == "arena"
    assert {p.protocol for p in PROFILES.values()} <= set(PROTOCOLS)
    assert "protocol" in get_profile("paper").model_dump()  # the release records the profile


def test_with_protocol_applies_the_profiles_and_refuses_a_conflict() -> None:
    url = "http://127.0.0.1:9/v1"
    applied = with_protocol(roster(url, None), "paper")
    assert applied.protocol == "paper" and applied.rethinks_of(applied.player("llm")) == 0
    assert with_protocol(roster(url, "paper"), "paper").protocol == "paper"
    with pytest.raises(ValueError, match="names protocol 'arena' but the profile uses 'paper'"):
        with_protocol(roster(url, "arena"), "paper")
    with pytest.raises(ValueError, match="unknown protocol 'nope'"):
        move_protocol("nope")
    with pytest.raises(ValueError, match="protocol"):
        parse_roster(
            {
                "players": [
                    {"name": "a", "kind": "builtin", "agent": "random"},
                    {"name": "b", "kind": "builtin", "agent": "random"},
                ],
                "protocol": "lenient",
            }
        )


def test_the_paper_profile_records_protocol_paper_in_the_roster_asset(tmp_path: Path) -> None:
    from assets.resources import RosterFile, RunProfile
    from assets.roster import RosterConfig, roster, roster_from_table

    path = tmp_path / "r.yaml"
    path.write_text(
        "players:\n  - {name: bot, kind: builtin, agent: random}\n"
        "  - {name: llm, kind: openai, model: m, base_url: 'http://127.0.0.1:9/v1'}\n"
        "rethinks: 2\n"
    )
    out = roster(RosterConfig(path=str(path)), RunProfile(name="paper"), RosterFile())
    frame = out.value
    assert out.metadata["protocol"].value == "paper"
    assert json.loads(frame["roster_json"].iloc[0])["protocol"] == "paper"
    assert frame.set_index("name").loc["llm", "rethinks"] == 0
    recorded = roster_from_table(frame)
    assert recorded.protocol == "paper" and recorded.rethinks_of(recorded.player("llm")) == 0
