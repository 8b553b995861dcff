"""``genstrat game show|simulate|play`` on OpenSpiel games; ``play`` driven through a pseudo-
terminal, as a person at a terminal would use it."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipelines.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_show_prints_the_rules_with_the_notation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["game", "show", "openspiel:chess"]) == 0
    out = capsys.readouterr().out
    assert "standard algebraic notation" in out and "you lose the game" in out


def test_show_json_carries_the_spec_hash(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["game", "show", "openspiel:hex(board_size=7)", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["spec_hash"]) == 64 and data["spec"]["params"]["board_size"] == 7
    assert data["spec"]["protocol"]["name"] == "menu-forfeit"


def test_simulate_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["game", "simulate", "openspiel:connect_four", "--deals", "200", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    # Random connect four lasts from 7 to 42 moves; the first player wins more often than not.
    assert 7 <= stats["mean_moves"] <= 42 and stats["alice_win_rate"] > 0.5
    assert stats["adjudicated_at_cap"] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["game", "show", "openspiel:nope"], "OpenSpiel has no game 'nope'"),
        (["game", "play", "openspiel:chess", "--vs", "heuristic"], "does not play"),
        (["game", "play", "openspiel:go", "--vs", "stockfish"], "does not play openspiel:go"),
        (["game", "play", "openspiel:chess", "--vs", "nobody"], "unknown built-in agent"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


class Terminal:
    """A child process on a pseudo-terminal: read its screen, type lines."""

    def __init__(self, argv: list[str]) -> None:
        self.master, slave = os.openpty()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "dumb"}
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env, close_fds=True
        )
        os.close(slave)
        self.screen = ""
        self.mark = 0  # where the screen since the last line typed begins

    def read_until(self, pattern: str, timeout: float = 60.0) -> str:
        """The screen since the last line typed, once ``pattern`` is on it."""
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.screen[self.mark :], re.DOTALL):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {pattern!r} on the screen:\n{self.screen[-2000:]}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"ended before {pattern!r}:\n{self.screen[-2000:]}")
                self.screen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        return self.screen[self.mark :]

    def type(self, line: str) -> None:
        self.mark = len(self.screen)
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        os.close(self.master)
        return code


def test_play_connect_four_against_mcts_in_a_terminal() -> None:
    term = Terminal(
        [sys.executable, "-m", "pipelines.cli", "game", "play", "openspiel:connect_four",
         "--vs", "mcts", "--seed", "7"]
    )  # fmt: skip
    try:
        screen = term.read_until(r"your move> ")
        assert "you are Alice (x) against the mcts bot (play seed 7)" in screen
        term.type("rules")
        term.read_until(r"line up 4 of their discs.*your move> ")
        term.type("zz")
        term.read_until(r"not a legal move: 'zz'")
        moves = 0
        while True:
            screen = term.read_until(r"(your move> $)|(Result: [^\n]*\n)")
            if "Result:" in screen:
                break
            menu = re.findall(r"Legal moves: (.*)\n", term.screen)[-1].split(", ")
            term.type(f"column {menu[0]}" if moves % 2 else menu[0].upper())  # lenient reading
            moves += 1
            assert moves <= 21
    finally:
        code = term.close()
    assert code == 0
    assert re.search(r"Result: you (won|lost|drew)\.", term.screen)
    assert term.screen.count("mcts plays") >= moves - 1 and moves >= 4
