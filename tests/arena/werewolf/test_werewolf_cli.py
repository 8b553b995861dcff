"""``genstrat werewolf play`` (``pipelines/commands/werewolf.py``): bots, a model of a roster on
the scripted loopback server, a person at a pseudo-terminal, and mistakes in one line."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

import pipelines.cli as cli
from engines.werewolf.roles import Role
from engines.werewolf.state import Move, replay
from tests.arena.werewolf.test_werewolf_llm import sensible
from tests.doubles.scripted_server import ScriptedServer
from tests.pipelines.test_cli_game_openspiel import Terminal

BOTS = "rule,rule,random,rule,rule,random,rule,rule"


def test_the_command_group_is_listed() -> None:
    assert "werewolf" in cli.COMMAND_GROUPS


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(["werewolf", "play", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_bots_play_a_seeded_game_and_the_same_seed_replays_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["--players", BOTS, "--seed", "3"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (
        "Werewolf, seed 3: P1 rule, P2 rule, P3 random, P4 rule, P5 rule, P6 random, P7 rule, "
        "P8 rule"
    )
    assert lines[1] == "Night 1 falls." and lines[-1].startswith("The game is over: ")
    assert not any("nominated" in line or "You " in line for line in lines)  # public only
    assert run(["--players", BOTS, "--seed", "3"], capsys)[1] == out
    assert run(["--players", BOTS, "--seed", "4"], capsys)[1] != out
    path = tmp_path / "t" / "game.json"
    code, printed, _ = run(
        ["--players", BOTS, "--seed", "3", "--json", "--transcript", str(path)], capsys
    )
    data = json.loads(printed)
    assert code == 0 and json.loads(path.read_text()) == data
    state = replay(tuple(Role(r) for r in data["roles"]), [Move(**m) for m in data["moves"]])
    assert state.winner == data["winner"] and lines[-1].startswith("The game is over: ")


def test_named_bots_and_settings(capsys: pytest.CaptureFixture[str]) -> None:
    quiet = "quiet," + BOTS.split(",", 1)[1]
    argv = ["--players", quiet, "--seed", "5", "--bot", "quiet=rule:seer_reveals=false"]
    argv += ["--rounds", "1", "--max-days", "3", "--json"]
    code, out, _ = run(argv, capsys)
    data = json.loads(out)
    assert code == 0 and data["players"][0] == "quiet" and data["days"] <= 3
    assert data["rules"] == {"discussion_rounds": 1, "max_days": 3, "statement_chars": 600}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--players", "rule,rule", "--seed", "1"],
            "--players names 8 players, one per seat; got 2",
        ),
        (
            ["--players", BOTS.replace("random", "nobody", 1), "--seed", "1"],
            "unknown player(s) nobody",
        ),
        (["--players", "you,you" + ",rule" * 6, "--seed", "1"], "'you' (a person) at most once"),
        (["--players", BOTS, "--seed", "1", "--bot", "x"], "expected NAME=KIND"),
        (["--players", BOTS, "--seed", "1", "--bot", "x=rule:seer_reveals=maybe"], "HABIT=true or"),
        (
            ["--players", "x" + BOTS[4:], "--seed", "1", "--bot", "x=rule:depth=true"],
            "takes no parameter depth",
        ),
        (
            ["--players", "x" + BOTS[4:], "--seed", "1", "--bot", "x=mcts"],
            "unknown werewolf bot 'mcts'",
        ),
        (["--players", BOTS, "--seed", "1", "--rounds", "9"], "--rounds must be at most 5"),
        (["--players", BOTS, "--seed", "-1"], "--seed must be a non-negative integer"),
    ],
)
def test_mistakes_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(argv, capsys)
    assert code == 2
    assert message in err and err.count("\n") == 1, err


def test_a_model_of_a_roster_takes_seats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedServer(sensible) as server:
        roster = tmp_path / "roster.yaml"
        roster.write_text(
            "players:\n"
            f"  - {{name: llm, kind: openai, model: m, base_url: '{server.url}'}}\n"
            f"  - {{name: unused, kind: openai, model: u, base_url: '{server.url}'}}\n"
        )
        players = "llm,rule,llm,rule,random,rule,rule,rule"
        cache = tmp_path / "cache.sqlite"
        code, out, _ = run(["--players", players, "--seed", "2", "--roster", str(roster),
                            "--cache", str(cache), "--json"], capsys)  # fmt: skip
        asked = len(server.requests)
    data = json.loads(out)
    llm = [d for d in data["decisions"] if d["player"] == "llm"]
    assert code == 0 and llm and asked == sum(d["calls"] for d in llm)
    assert all(d["forfeit"] is None for d in llm)
    assert {r.body["model"] for r in server.requests} == {"m"}
    # offline from the cache: the same game
    code, again, _ = run(["--players", players, "--seed", "2", "--roster", str(roster),
                          "--cache", str(cache), "--offline", "--json"], capsys)  # fmt: skip
    assert code == 0 and json.loads(again)["events"] == data["events"]


def test_a_person_finishes_a_game_in_a_terminal() -> None:
    players = "you," + BOTS.split(",", 1)[1]
    command = ["werewolf", "play", "--players", players, "--seed", "11", "--rounds", "1"]
    term = Terminal([sys.executable, "-m", "pipelines.cli", *command])
    try:
        screen = term.read_until(r"(your choice> $)|(you say> $)")
        assert "You are P1. Your role is " in screen
        answered = 0
        while True:
            screen = term.read_until(r"(your choice> $)|(you say> $)|(You (won|lost)[^\n]*\n)")
            if re.search(r"You (won|lost)", screen):
                break
            if screen.endswith("you say> "):
                term.type("rules" if answered == 0 else "I am a simple villager.")
                if answered == 0:
                    term.read_until(r"WEREWOLF.*you say> $")
                    term.type("Hello all. I vote for P2.")
            else:
                term.type("zz" if answered == 1 else "1")
                if answered == 1:
                    term.read_until(r"not a choice: 'zz'.*your choice> $")
                    term.type("pass")
            answered += 1
            assert answered < 200
    finally:
        code = term.close()
    assert code == 0 and answered >= 2
    assert "The game is over: " in term.screen
    # the person saw their seat's view only (seed 11 deals P1 a Villager's card)
    assert "You are P1. Your role is Villager." in term.screen and "nominated" not in term.screen
    assert "You say: Hello all. I vote for P2." in term.screen
