"""Stockfish as a built-in agent for ``openspiel:chess``, over UCI (Universal Chess Interface).

The engine is Debian's ``stockfish`` package, version 15.1 (``STOCKFISH_VERSION``; a different
binary is refused, so the fingerprint stays true).  Strength is fixed by a node limit
(``go nodes N``): with one thread and the hash cleared before every move (``ucinewgame``) the
search, and so the move, is a function of the position alone, which keeps matches
reproducible.  ``movetime_s`` bounds the wall-clock time of one move; a move not found in it
fails the match (``MoveFailed``, ``timeout``).

Skill levels (``skill`` 0-19, with ``nodes``): Stockfish's own ``Skill Level`` option draws its
weakening from a generator seeded by the clock (checked on 15.1: the same position at skill 0
and 2000 nodes gives e7e5, c7c6 or c7c5 from run to run), so a game could not be replayed.
A level is therefore the documented pair (skill, nodes), and the weakening is Stockfish's own
rule (``Skill::pick_best`` in its ``search.cpp``) applied here with the seat's seeded
generator: search with ``MultiPV 4`` to depth ``1 + skill`` (the depth at which Stockfish
picks) within the node limit, then for the reported candidates, best first with scores
``s_i`` in centipawns, ``weakness = 120 - 2 * skill`` and ``delta = min(s_0 - s_last, 100)``,
choose the candidate with the largest ``s_i + (weakness * (s_0 - s_i) + delta *
rng.randrange(weakness)) // 128``.  (Stockfish caps ``delta`` at one pawn in its internal
units; here one pawn is 100 centipawns.)  A mate score counts as 100,000 centipawns less the
moves to mate.  ``skill`` unset is full strength (no MultiPV, the search's best move).

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
SKILL_PV = 4  # Stockfish's MultiPV under a skill level
MATE_CP = 100_000
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
    """Stockfish at a fixed node limit, optionally weakened to a skill level (see the module
    docstring)."""

    name: str = "stockfish"
    nodes: int = 1000
    movetime_s: float = 30.0
    hash_mb: int = 16
    skill: int | None = None

    VERSION: ClassVar[str] = f"stockfish-{STOCKFISH_VERSION}/uci-nodes-1/skill-pick-1"
    _proc: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.nodes < 1:
            raise ValueError("stockfish: nodes must be at least 1")
        if self.movetime_s <= 0:
            raise ValueError("stockfish: movetime_s must be positive")
        if not 1 <= self.hash_mb <= 1024:
            raise ValueError("stockfish: hash_mb must be from 1 to 1024")
        if self.skill is not None and (
            isinstance(self.skill, bool)
            or not isinstance(self.skill, int)
            or not 0 <= self.skill <= 19
        ):
            raise ValueError("stockfish: skill must be a whole number from 0 to 19 (or unset)")

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
        if self.skill is not None:
            self._send(f"setoption name MultiPV value {SKILL_PV}")
        self._send("isready")
        self._read_until("readyok", deadline)

    def _search(self, fen: str, go: str) -> tuple[str, list[str]]:
        """(bestmove, the ``info`` lines before it) for ``go`` from the position ``fen``."""
        self._engine()
        deadline = time.monotonic() + self.movetime_s
        self._send("ucinewgame")
        self._send("isready")
        self._read_until("readyok", deadline)
        self._send(f"position fen {fen}")
        self._send(go)
        infos: list[str] = []
        while True:
            line = self._read_until("", deadline)
            if line.startswith("bestmove"):
                return line.split()[1], infos
            if line.startswith("info") and " multipv " in line and " pv " in line:
                infos.append(line)

    def best_move(self, fen: str) -> str:
        """Stockfish's move in UCI for the position ``fen`` (full strength)."""
        return self._search(fen, f"go nodes {self.nodes}")[0]

    def candidates(self, fen: str) -> list[tuple[str, int]]:
        """The skill search's candidate moves, best first, with their scores in centipawns:
        each MultiPV line as last reported (the ranking when the search stopped)."""
        assert self.skill is not None
        best, infos = self._search(fen, f"go depth {1 + self.skill} nodes {self.nodes}")
        lines: dict[int, tuple[str, int]] = {}
        for line in infos:
            if "lowerbound" in line or "upperbound" in line:
                continue
            words = line.split()
            rank = int(words[words.index("multipv") + 1])
            kind, value = words[words.index("score") + 1 : words.index("score") + 3]
            cp = int(value)
            if kind == "mate":
                cp = MATE_CP - abs(cp) if cp > 0 else -MATE_CP + abs(cp)
            lines[rank] = (words[words.index("pv") + 1], cp)
        ranked = [lines[k] for k in sorted(lines)]
        return ranked or [(best, 0)]

    def skill_move(self, fen: str, rng: random.Random) -> str:
        """The move of Stockfish's weakening rule at ``skill``, drawn with ``rng`` (module
        docstring)."""
        assert self.skill is not None
        ranked = sorted(self.candidates(fen), key=lambda c: -c[1])  # stable: best line first
        top = ranked[0][1]
        delta = min(top - ranked[-1][1], 100)
        weakness = 120 - 2 * self.skill
        best, most = ranked[0][0], None
        for move, score in ranked:
            push = (weakness * (top - score) + delta * rng.randrange(weakness)) // 128
            if most is None or score + push >= most:
                best, most = move, score + push
        return best

    def act(self, state: Any, seat: int, rng: random.Random) -> str:
        from engines.openspiel.state import OpenSpielState
        from engines.openspiel.text import read_move

        if not isinstance(state, OpenSpielState) or state.spec.family != "chess":
            raise ValueError("the stockfish agent plays openspiel:chess only")
        fen = state.ps.board().to_fen()
        uci = self.best_move(fen) if self.skill is None else self.skill_move(fen, rng)
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
