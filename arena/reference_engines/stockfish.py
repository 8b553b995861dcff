"""Stockfish as a built-in agent for ``openspiel:chess``, over UCI (Universal Chess Interface).

The engine is Debian's ``stockfish`` package, version 15.1 (``STOCKFISH_VERSION``; a different
binary is refused, so the fingerprint stays true).  Strength is fixed by a node limit
(``go nodes N``): with one thread and the hash cleared before every move (``ucinewgame``) the
search, and so the move, is a function of the position alone, which keeps matches
reproducible.  Stockfish's ``Skill Level`` is not offered: in 15.1 its weakening draws from a
generator seeded by the clock, so a game could not be replayed.  ``movetime_s`` bounds the
wall-clock time of one move; a move not found in it fails the match (``MoveFailed``,
``timeout``).

The process is started at the first move and ends with the agent (``close``) or the program.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from engines.agents.base import MoveFailed

STOCKFISH_VERSION = "15.1"
CANDIDATES = ("stockfish", "/usr/games/stockfish")


def stockfish_path() -> str:
    """The Stockfish binary; ``ValueError`` names the install step when there is none."""
    for candidate in CANDIDATES:
        found = shutil.which(candidate) or (candidate if Path(candidate).is_file() else None)
        if found:
            return found
    raise ValueError("stockfish is not installed: run `make stockfish` (Debian package stockfish)")


@dataclass
class StockfishAgent:
    """Stockfish at a fixed node limit (see the module docstring)."""

    name: str = "stockfish"
    nodes: int = 1000
    movetime_s: float = 30.0
    hash_mb: int = 16

    VERSION: ClassVar[str] = f"stockfish-{STOCKFISH_VERSION}/uci-nodes-1"
    _proc: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.nodes < 1:
            raise ValueError("stockfish: nodes must be at least 1")
        if self.movetime_s <= 0:
            raise ValueError("stockfish: movetime_s must be positive")
        if not 1 <= self.hash_mb <= 1024:
            raise ValueError("stockfish: hash_mb must be from 1 to 1024")

    def _send(self, line: str) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()

    def _read_until(self, prefix: str, deadline: float) -> str:
        assert self._proc is not None and self._proc.stdout is not None
        while True:
            if time.monotonic() > deadline:
                self.close()
                raise MoveFailed("timeout", f"stockfish gave no {prefix!r} in time")
            line: str = self._proc.stdout.readline()
            if not line:
                self.close()
                raise MoveFailed("error", "stockfish ended unexpectedly")
            if line.startswith(prefix):
                return line.strip()

    def _engine(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            return
        self._proc = subprocess.Popen(
            [stockfish_path()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        deadline = time.monotonic() + 30
        self._send("uci")
        ident = self._read_until("id name", deadline)
        if ident.split()[-1] != STOCKFISH_VERSION:
            self.close()
            raise ValueError(f"stockfish {STOCKFISH_VERSION} expected, found {ident!r}")
        self._read_until("uciok", deadline)
        self._send("setoption name Threads value 1")
        self._send(f"setoption name Hash value {self.hash_mb}")
        self._send("isready")
        self._read_until("readyok", deadline)

    def best_move(self, fen: str) -> str:
        """Stockfish's move in UCI for the position ``fen``."""
        self._engine()
        deadline = time.monotonic() + self.movetime_s
        self._send("ucinewgame")
        self._send("isready")
        self._read_until("readyok", deadline)
        self._send(f"position fen {fen}")
        self._send(f"go nodes {self.nodes}")
        return str(self._read_until("bestmove", deadline).split()[1])

    def act(self, state: Any, seat: int, rng: random.Random) -> str:
        from engines.openspiel.state import OpenSpielState
        from engines.openspiel.text import read_move

        if not isinstance(state, OpenSpielState) or state.spec.family != "chess":
            raise ValueError("the stockfish agent plays openspiel:chess only")
        uci = self.best_move(state.ps.board().to_fen())
        move = read_move(state, uci)
        if move is None:
            raise MoveFailed("error", f"stockfish answered {uci!r}, not a legal move here")
        return move

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
            proc.wait(timeout=5)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # nothing to report at interpreter exit
            self.close()
