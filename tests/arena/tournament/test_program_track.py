"""The program track: scripted authors write programs through the real authoring path (one
repair turn), the admitted programs and the shipped handwritten ones play the reference field in
the sandbox, and the track ranks their authors with failed submissions scoring 0 (issue 19)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from arena.ablations.authoring import author_program
from arena.games import resolve_games
from arena.llm.cache import ResponseCache
from arena.llm.player import LLMPlayer
from arena.programs.sandbox import admit
from arena.roster import parse_roster
from arena.tournament.lineup import build_lineup
from arena.tournament.runner import run_tournament
from engines.stats.program_track import OVERALL, authoring_runs, program_track
from engines.stats.reference_field import reference_field
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion

KEY_ENV = "GENSTRAT_TEST_LLM_KEY"
SHIPPED = Path(__file__).resolve().parents[3] / "arena" / "ablations" / "programs"
FIELD = reference_field("gbg-builtin-v1")

# The 0-100 score counts deals won (GameBench 2's points: win 1, tie 1/2, loss 0), and against
# this field a program that bets whenever it can and never folds wins the most deals.
SOLID = """\
def act(observation, legal_actions, rng):
    bets = [a for a in legal_actions if a.split(" ")[0] in ("bet", "raise")]
    if bets:
        return bets[0]
    return "call" if "call" in legal_actions else "check"
"""
PASSIVE = """\
def act(observation, legal_actions, rng):
    return "check" if "check" in legal_actions else "call"
"""
CRASHES = """\
def act(observation, legal_actions, rng):
    return legal_actions[99]
"""


def fenced(code: str) -> Answer:
    return completion(f"Here it is.\n```python\n{code}```\n")


def script(request: Request) -> Answer:
    """solid: right first time; sloppy: a crashing program, then a working one after the
    repair turn; broken: never any code."""
    model = request.body["model"]
    turns = len(request.body["messages"])
    if model == "solid":
        return fenced(SOLID)
    if model == "sloppy":
        return fenced(CRASHES if turns < 3 else PASSIVE)
    return completion(json.dumps({"note": "I would rather not write code"}))


@pytest.fixture(scope="module")
def track(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, pd.DataFrame]:
    folder = tmp_path_factory.mktemp("track")
    kuhn = resolve_games(["kuhn"])
    with ScriptedServer(script) as server:
        authors = parse_roster(
            {
                "players": [
                    {"name": name, "kind": "openai", "model": name, "base_url": server.url,
                     "api_key_env": KEY_ENV}
                    for name in ("solid", "sloppy", "broken")
                ],
                "providers": {f"openai@{server.url}": {"concurrency": 2, "backoff_base_s": 0.01}},
            }
        )  # fmt: skip

        async def write() -> list[dict[str, object]]:
            cache = ResponseCache(folder / "cache.sqlite")
            lineup = build_lineup(authors, cache, random.Random(0), {KEY_ENV: "sk-test-0000"})
            rows: list[dict[str, object]] = []
            try:
                for name in ("solid", "sloppy", "broken"):
                    author = lineup.players[name]
                    assert isinstance(author, LLMPlayer)
                    attempts = await author_program(author, kuhn[0].spec, "kuhn", folder / "src")
                    for a in attempts:
                        program = f"{name}-prog" if a.admitted else None
                        rows.append({**a.record(), "program": program})
            finally:
                await lineup.aclose()
                cache.close()
            return rows

        rows = asyncio.run(write())
    for shipped in ("bluffer", "cautious"):
        verdict = admit(SHIPPED / f"{shipped}.py", kuhn[0].spec)
        rows.append(
            {"author": "handwritten", "game": "kuhn", "attempt": 0, "admitted": verdict.admitted,
             "reason": verdict.reason, "program": shipped}
        )  # fmt: skip
    attempts = pd.DataFrame(rows)
    paths = {r["program"]: r["path"] for r in rows if r.get("program") and r.get("path")}
    paths |= {name: str(SHIPPED / f"{name}.py") for name in ("bluffer", "cautious")}
    players = [
        {"name": "random", "kind": "builtin", "agent": "random"},
        {"name": "heuristic", "kind": "builtin", "agent": "heuristic"},
        {"name": "search-2", "kind": "builtin", "agent": "search",
         "params": {"depth": 2, "worlds": 8}},
        *({"name": name, "kind": "program", "path": path} for name, path in sorted(paths.items())),
    ]  # fmt: skip
    summary = run_tournament(parse_roster({"players": players}), kuhn, 12, folder / "corpus")
    assert summary.finished and not summary.not_admitted
    matches = pd.read_parquet(summary.matches_path)
    return program_track(attempts, matches, FIELD, 400, np.random.default_rng(0))


def test_the_track_ranks_scripted_and_shipped_authors(
    track: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    runs, table = track
    overall = table[table["game"] == OVERALL].set_index("author")
    assert set(overall.index) == {"solid", "sloppy", "broken", "handwritten"}
    assert (overall["status"] == "ranked").all()
    assert sorted(overall["rank"].tolist()) == [1, 2, 3, 4]
    assert overall.loc["solid", "rank"] == 1  # it wins the most deals against the field
    assert overall.loc["broken", "rank"] == 4
    # a failed submission scores 0, with no uncertainty
    assert overall.loc["broken", "score"] == 0.0
    assert overall.loc["broken", "ci_low"] == overall.loc["broken", "ci_high"] == 0.0
    assert overall.loc["broken", "failed"] == 1 and overall.loc["broken", "admitted"] == 0
    # the repair turn is recorded; the handwritten author's two programs are both counted
    assert overall.loc["sloppy", "repair_turns"] == 1 and overall.loc["sloppy", "admitted"] == 1
    assert overall.loc["handwritten", "authoring_runs"] == 2
    shipped = runs[runs["author"] == "handwritten"].set_index("program")
    # the shipped programs are ranked too: the bluffer wins more deals than the cautious one
    assert shipped.loc["bluffer", "ci_low"] > shipped.loc["cautious", "ci_high"]
    shipped = shipped["score"]
    assert overall.loc["handwritten", "score"] == pytest.approx(shipped.mean())
    for author in ("solid", "sloppy", "handwritten"):
        row = overall.loc[author]
        assert 0.0 < row["ci_low"] <= row["score"] <= row["ci_high"] < 100.0


def test_outcomes_follow_gamebench_2() -> None:
    """Speed rejections and harness failures count in no score (and flag the author); failed
    attempts count 0; repairs are the attempts after the first."""
    attempts = pd.DataFrame(
        [
            ("a", "g", 0, False, "crash: boom", None),
            ("a", "g", 1, True, "admitted", "a-1"),
            ("a", "g", 0, False, "does not load: SyntaxError", None),
            ("b", "g", 0, False, "too slow: median move 250.0 ms > 100 ms", None),
            ("c", "g", 0, False, "no reply: player stopped", None),
        ],
        columns=["author", "game", "attempt", "admitted", "reason", "program"],
    )
    runs = authoring_runs(attempts)
    assert list(runs["outcome"]) == ["admitted", "failed", "speed", "harness"]
    assert list(runs["repair_turns"]) == [1, 0, 0, 0]
    assert list(runs["run"]) == [0, 1, 0, 0]
    with pytest.raises(ValueError, match="no first attempt"):
        authoring_runs(attempts.iloc[1:2])
    with pytest.raises(ValueError, match="lack column"):
        authoring_runs(attempts.drop(columns=["program"]))
