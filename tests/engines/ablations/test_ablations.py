"""The ablations: programs written by models (repair turn, attempts recorded), arms on
identical deals, the fit and effects, efficiency anchors, the thinking budget and the judge."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from arena.ablations.authoring import author_program, extract_code
from arena.ablations.judge import RUBRICS, parse_scores, tertiles
from arena.ablations.matches import (
    PROGRAM_PREFIX,
    ProgramSpec,
    Seat,
    ablation_matches,
    play_ablation,
)
from arena.ablations.opponents import estimate_policy, table_policy
from arena.ablations.runner import PROGRAMS, AblationSettings, run_ablations
from arena.games import resolve_games
from arena.llm.cache import ResponseCache
from arena.programs.player import ProgramPlayer
from arena.programs.procedural_reading import reading, situations
from arena.programs.sandbox import Program, admit, program_observation
from arena.roster import parse_roster
from arena.tournament.runner import build_lineup
from engines.ablations.arms import disclosure_effect, fit_lambda, run_margins
from engines.ablations.thinking import budget_pair
from engines.agents.base import BuiltinPlayer, Player
from engines.agents.builtin import builtin_agent
from engines.gbg import GameSpec, presets
from engines.solve.best_response import efficiency, respond
from tests.doubles.scripted_server import ScriptedServer
from tests.engines.ablations.scripted import SCORES, script

KUHN = presets.kuhn()


def _entry(name: str, url: str, **extra: object) -> dict[str, object]:
    return {"name": name, "kind": "openai", "model": "scripted", "base_url": url, **extra}


def test_code_is_extracted_from_fenced_or_bare_replies() -> None:
    assert extract_code("x\n```python\ndef act(o, l, r):\n    return l[0]\n```") == (
        "def act(o, l, r):\n    return l[0]\n"
    )
    assert extract_code("def act(o, l, r):\n    return l[0]") is not None
    assert extract_code("I cannot write code.") is None


def test_a_broken_program_gets_one_repair_turn_and_every_attempt_is_recorded(
    tmp_path: Path,
) -> None:
    with ScriptedServer(script) as server:

        async def main() -> list[object]:
            roster = parse_roster(
                {"players": [_entry("author", server.url), _entry("b", server.url)]}
            )
            lineup = build_lineup(roster, ResponseCache(None), random.Random(0))
            try:
                return list(
                    await author_program(lineup.players["author"], KUHN, "kuhn", tmp_path)  # type: ignore[arg-type]
                )
            finally:
                await lineup.aclose()

        attempts = asyncio.run(main())
    first, second = attempts  # type: ignore[misc]
    assert (first.attempt, first.admitted) == (0, False)
    assert first.reason.startswith("illegal") and "all in" in first.reason
    assert (second.attempt, second.admitted) == (1, True)
    assert first.code_sha256 != second.code_sha256 and first.prompt_sha256 != second.prompt_sha256
    assert "was rejected" not in first.raw_reply and "Here is the fix" in second.raw_reply
    assert Path(second.path).read_text().startswith("def act")


def test_judge_replies_are_parsed_leniently() -> None:
    reply = 'ok {"opponent_modelling": 2, "private_information": 1, "planning": 3}'
    assert parse_scores(reply) == {
        "opponent_modelling": 2.0, "private_information": 1.0, "planning_depth": 3.0,
    }  # fmt: skip
    assert parse_scores("opponent: 3, private info: 0, planning depth = 7")["planning_depth"] == 3.0
    assert parse_scores("no idea") is None
    assert tertiles({"a": 1.0, "b": 2.0, "c": 3.0}) == {"a": "low", "b": "middle", "c": "top"}


def test_the_estimated_policy_of_a_program_is_exactly_exploited() -> None:
    with Program(PROGRAMS / "cautious.py") as program:
        table = estimate_policy(program, KUHN, 1, seeds=8)
    policy = table_policy(table)
    best = respond(KUHN, 0, policy, best=True)
    from engines.solve.best_response import response_policy

    assert efficiency(KUHN, 0, response_policy(best), policy).score == pytest.approx(1.0)
    worst = respond(KUHN, 0, policy, best=False)
    assert efficiency(KUHN, 0, response_policy(worst), policy).score == pytest.approx(0.0)


def test_both_arms_and_every_player_meet_the_same_deals() -> None:
    game = resolve_games(["kuhn"])[0]
    spec = ProgramSpec("bluffer", "handwritten", "x", "0" * 64)
    seeds = {
        (arm, name): [m.play_seed for m in ablation_matches(game, spec, Seat(name, name), arm, 3)]
        for arm in ("hidden", "disclosed")
        for name in ("a", "b")
    }
    assert len({tuple(s) for s in seeds.values()}) == 1
    with pytest.raises(ValueError, match="unknown arm"):
        ablation_matches(game, spec, Seat("a", "a"), "secret", 1)


def test_lambda_and_the_disclosure_effect_recover_planted_values() -> None:
    rng = np.random.default_rng(0)
    alpha = {"p1": -1.0, "p2": 0.0, "p3": 1.0}
    rows = []
    for arm, slope, shift in (("hidden", 1.0, 0.0), ("disclosed", 2.0, 0.5)):
        for game in ("g1", "g2"):
            for run in range(20):
                for player, a in alpha.items():
                    margin = slope * a + shift + (3.0 if game == "g2" else 0.0)
                    for seat in ("alice", "bob"):
                        rows.append({"arm": arm, "game": game, "program": "x", "author": "h",
                                     "player": player, "run_index": run, "status": "complete",
                                     "player_seat": seat, "player_chips": margin / 2})  # fmt: skip
    runs = run_margins(pd.DataFrame(rows))
    fit = fit_lambda(runs, alpha, 20, rng)
    assert fit["lambda_hidden"].value == pytest.approx(1.0)
    assert fit["lambda_disclosed"].value == pytest.approx(2.0)
    effect = disclosure_effect(runs, 20, rng)
    assert effect["all"].value == pytest.approx(0.5)
    assert effect["p3"].value == pytest.approx(1.5) and effect["p1"].value == pytest.approx(-0.5)
    assert budget_pair(["b", "a", "c"]) == ("a", "c") and budget_pair(["high", "low"]) == (
        "low",
        "high",
    )


def test_every_ablation_runs_end_to_end_with_a_scripted_model(tmp_path: Path) -> None:
    with ScriptedServer(script) as server:
        settings = AblationSettings(
            games=("kuhn",),
            runs=2,
            builtin_players=({"name": "random", "kind": "builtin", "agent": "random"},),
            llm_players=(
                _entry("m-low", server.url, family="m", variant="low", settings={"max_tokens": 8}),
                _entry("m-high", server.url, family="m", variant="high"),
            ),
            authors=(_entry("author", server.url, model="author-model"),),
            judge=_entry("judge", server.url, model="judge-model"),
            llm_runs=2,
            bootstrap=20,
        )
        result = run_ablations(settings, {"random": -0.3, "m-low": 0.1, "m-high": 0.2}, tmp_path)
        calls = len(server.requests)
        again = run_ablations(settings, {"random": -0.3, "m-low": 0.1, "m-high": 0.2}, tmp_path)
        assert len(server.requests) == calls  # the response cache makes a rerun free
    assert list(result.authoring["admitted"]) == [False, True]
    assert set(result.matches["status"]) == {"complete"}
    assert set(result.matches["program"]) == {
        "bluffer",
        "cautious",
        result.programs["program"].iloc[-1],
    }
    # identical deals: each player meets each program on the same play seeds in both arms
    for _, part in result.matches.groupby(["player", "program"]):
        by_arm = part.groupby("arm")["play_seed"].apply(sorted)
        assert by_arm["hidden"] == by_arm["disclosed"]
    # built-ins cannot read the disclosure: identical deals give an effect of exactly zero
    assert result.disclosure["random"].value == 0.0
    assert {"lambda_hidden", "lambda_disclosed"} <= set(result.lambdas)
    assert set(result.thinking["family"]) == {"m", "search"}
    assert (result.efficiency["game"] == "kuhn").all() and len(result.efficiency) > 0
    judged = result.judgements
    assert len(judged) > 0 and (judged["verdict"] == "ok").all()
    assert (judged["opponent_modelling"] == SCORES["opponent_modelling"]).all()
    assert set(result.association["rubric"]) == {
        "opponent_modelling", "private_information", "planning_depth"
    }  # fmt: skip
    # one game judged: each rubric's tracking is over its traces, undefined (one axis value)
    assert list(result.tracking["rubric"]) == list(RUBRICS)
    assert (result.tracking["games"] == 1).all() and result.tracking["spearman"].isna().all()
    summary = result.summary()
    assert set(summary["ablation"]) == {"programs", "thinking_budget", "judge", "authoring"}
    pd.testing.assert_frame_equal(summary, again.summary())


@pytest.mark.slow  # over 5 s: make test only
def test_the_disclosed_arm_reads_the_program_on_the_game_being_played(tmp_path: Path) -> None:
    # regression: readings were kept per seat only, so with two games the disclosed arm carried
    # the last game's reading (Leduc's, ~11k tokens: past a small model's context window)
    with ScriptedServer(script) as server:
        settings = AblationSettings(
            games=("kuhn", "leduc"),
            runs=1,
            builtin_players=({"name": "random", "kind": "builtin", "agent": "random"},),
            llm_players=(_entry("m", server.url),),
            llm_games=("kuhn",),
            bootstrap=10,
            siblings=False,
        )
        result = run_ablations(settings, {}, tmp_path)
        systems = [str(r.body["messages"][0]["content"]) for r in server.requests]
    played = result.matches[result.matches["player"] == "m"]
    assert set(played["status"]) == {"complete"} and set(played["arm"]) == {"hidden", "disclosed"}
    with Program(PROGRAMS / "bluffer.py") as program:
        kuhn_readings = {reading(program, KUHN, s) for s in (0, 1)}
        leduc_readings = {reading(program, presets.leduc(), s) for s in (0, 1)}
    disclosed = [s for s in systems if "opponent's strategy (disclosed)" in s]
    assert disclosed and all(not any(r in s for r in leduc_readings) for s in disclosed)
    assert any(any(r in s for r in kuhn_readings) for s in disclosed)
    assert all("stopped" not in n for n in result.notes)


CRASHING = "def act(observation, legal_actions, rng):\n    raise RuntimeError('boom')\n"
ILLEGAL = "def act(observation, legal_actions, rng):\n    return 'all in'\n"


@pytest.mark.parametrize("code", [CRASHING, ILLEGAL], ids=["crash", "illegal"])
def test_a_program_that_crashes_or_answers_illegally_loses_the_match(
    tmp_path: Path, code: str
) -> None:
    path = tmp_path / "hostile.py"
    path.write_text(code, encoding="utf-8")
    game = resolve_games(["kuhn"])[0]
    spec = ProgramSpec("hostile", "handwritten", str(path), "1" * 64)
    seat = Seat("random", "fp-random")
    with Program(path) as program:
        players: dict[str, Player] = {
            "random": BuiltinPlayer("random", builtin_agent("random", {})),
            PROGRAM_PREFIX + "hostile": ProgramPlayer(PROGRAM_PREFIX + "hostile", program),
        }
        rows, _ = asyncio.run(play_ablation([game], [spec], [seat], lambda *_: players, 2))
    assert len(rows) == 8 and {r["status"] for r in rows} == {"forfeit"}
    for row in rows:
        # the program folds at its first move: it loses what it has in the pot (its ante, at
        # least), and the chips still sum to zero
        assert row["player_chips"] >= 1 and row["alice_chip_delta"] + row["bob_chip_delta"] == 0
        assert "Forfeit by program:hostile" in row["error"]
    runs = run_margins(pd.DataFrame(rows))
    assert len(runs) == 4 and (runs["margin"] > 0).all()  # forfeits are evidence: losses


def _response_program(spec: GameSpec, choices: dict[int, dict[str, str]], path: Path) -> Path:
    """A strategy program file that plays ``choices[seat]`` (information state -> action) in
    each seat: a table keyed by what the program sees (its hand and the events it has seen)."""
    table = {}
    for seat, chosen in choices.items():
        found, complete = situations(spec, seat, max_situations=5000)
        assert complete
        for situation in found:
            obs = program_observation(situation.state, seat)
            table[json.dumps([obs["you"], obs["hand"], obs["events"]])] = chosen[situation.key]
    path.write_text(
        "import json\n"
        f"TABLE = {table!r}\n\n"
        "def act(observation, legal_actions, rng):\n"
        "    seen = [observation['you'], observation['hand'], observation['events']]\n"
        "    return TABLE[json.dumps(seen)]\n",
        encoding="utf-8",
    )
    return path


# leduc: over 5 s, make test only
@pytest.mark.parametrize("name", ["kuhn", pytest.param("leduc", marks=pytest.mark.slow)])
def test_the_best_response_program_scores_one_and_the_worst_zero(tmp_path: Path, name: str) -> None:
    """Efficiency (paper, Section 8) of sandboxed programs against a sandboxed program: the
    program written from the exact best response scores 1, from the worst response 0."""
    spec = presets.PRESETS[name]()
    with Program(PROGRAMS / "bluffer.py") as opponent:
        policies = [table_policy(estimate_policy(opponent, spec, s, seeds=4)) for s in (0, 1)]
    fixed = policies[1]
    scores = {}
    for best in (True, False):
        choices = {s: respond(spec, s, policies[1 - s], best=best).choices for s in (0, 1)}
        path = _response_program(spec, choices, tmp_path / f"r{best}.py")
        verdict = admit(path, spec)
        assert verdict.admitted, verdict.reason
        with Program(path) as player:
            played = table_policy(estimate_policy(player, spec, 0, seeds=1))
        scores[best] = efficiency(spec, 0, played, fixed).score
    assert scores[True] == pytest.approx(1.0, abs=1e-9)
    assert scores[False] == pytest.approx(0.0, abs=1e-9)
