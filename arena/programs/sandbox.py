"""Strategy programs in a sandbox (paper, Section 8; GameBench 2, Section 2).

A strategy program is a Python file defining ``act(observation: dict, legal_actions: list,
rng) -> action``.  It must be deterministic given its inputs, draw chance only from ``rng``,
read no clock, start no thread or process, and keep no state between moves.  It runs in a
separate process (``arena/programs/child.py``) with:

- resource limits: CPU seconds, address space (memory), file size, no core dumps;
- a wall-time limit per move (the host kills the process);
- no network: an empty network namespace where the system allows it (``unshare -n``), and in
  any case an audit hook that refuses sockets;
- no new processes, no native code loading, no writes outside a scratch folder (audit hook);
- its prints sent to a bounded sink, never to the host.

``Program.act`` returns an ``Outcome``: the action, or why there is none (``crash``,
``illegal``, ``timeout``).  In matches a crash or an illegal action forfeits the match; a
timeout is recorded and left out of the evidence.  ``admit`` is the admission test: the
program loads, returns legal actions over a short test, and its median move takes at most
100 ms.
"""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engines.gbg.engine import State, new_deal
from engines.gbg.spec import GameSpec

CHILD = Path(__file__).with_name("child.py")


@dataclass(frozen=True)
class Limits:
    """Per-program resource limits."""

    cpu_seconds: int = 20
    memory_mb: int = 512
    file_mb: int = 8
    move_seconds: float = 2.0
    start_seconds: float = 10.0


@dataclass(frozen=True)
class Outcome:
    """One move of a program: ``action`` when ``status`` is ``ok``, else the reason."""

    status: str  # ok | crash | illegal | timeout
    action: str | None = None
    reason: str = ""
    seconds: float = 0.0


def _network_isolation() -> list[str]:
    """``unshare -n`` when this system lets us create a network namespace, else nothing."""
    tool = shutil.which("unshare")
    if tool is None:
        return []
    try:
        probe = subprocess.run([tool, "-n", "true"], capture_output=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [tool, "-n"] if probe.returncode == 0 else []


class Program:
    """A running sandboxed program (start once, ask for many moves, then ``close``)."""

    def __init__(self, path: str | Path, limits: Limits | None = None) -> None:
        self.path = Path(path).resolve()
        if not self.path.is_file():
            raise ValueError(f"no strategy program at {self.path}")
        self.limits = limits or Limits()
        self.scratch = tempfile.mkdtemp(prefix="genstrat-program-")
        self.proc: subprocess.Popen[str] | None = None
        self.dead_reason = ""

    def _limits(self) -> None:  # runs in the child before exec
        import resource

        lim = self.limits
        resource.setrlimit(resource.RLIMIT_CPU, (lim.cpu_seconds, lim.cpu_seconds))
        mem = lim.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        size = lim.file_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    def start(self) -> str | None:
        """Start the process and load the program; the reason it failed, or None.

        After a crash or a timeout (which close the process) the next ``act`` starts it again,
        with an empty scratch folder."""
        os.makedirs(self.scratch, mode=0o700, exist_ok=True)  # ``close`` removed it
        command = [
            *_network_isolation(),
            sys.executable,
            "-I",
            "-S",
            str(CHILD),
            str(self.path),
            self.scratch,
        ]
        env = {"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8"}
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            env=env,
            cwd=self.scratch,
            preexec_fn=self._limits,
        )
        reply = self._read(self.limits.start_seconds)
        if reply is None:
            return self.dead_reason or "did not start"
        if "error" in reply:
            self.close()
            return str(reply["error"])
        return None

    def _read(self, timeout: float) -> dict[str, Any] | None:
        assert self.proc is not None and self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.dead_reason = f"no answer within {timeout:g} s"
            self.close()
            return None
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.poll()
            self.dead_reason = f"the program's process ended (exit status {code})"
            self.close()
            return None
        try:
            data: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError:
            self.dead_reason = "the program's process sent garbage"
            self.close()
            return None
        return data

    def cpu_seconds(self) -> float | None:
        """CPU time the running process has used (None when unknown or not running)."""
        if self.proc is None:
            return None
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def act(self, observation: dict[str, Any], legal: list[str], seed: int) -> Outcome:
        """Ask for one move (the program is started on first use).

        ``cpu_seconds`` bounds the process's whole life, so a process that has used half of it
        is replaced by a fresh one before the move (a program keeps no state between moves):
        a move is then killed for CPU only if it alone spends the other half."""
        used = self.cpu_seconds()
        if used is not None and used > self.limits.cpu_seconds / 2:
            self.close()
        if self.proc is None:
            failure = self.start()
            if failure:
                return Outcome("crash", reason=failure)
        if self.proc is None or self.proc.poll() is not None:
            return Outcome("crash", reason=self.dead_reason or "the program is not running")
        assert self.proc.stdin is not None
        t0 = time.perf_counter()
        request = {"observation": observation, "legal": legal, "seed": seed}
        try:
            self.proc.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.close()
            return Outcome("crash", reason="the program's process ended")
        reply = self._read(self.limits.move_seconds)
        elapsed = time.perf_counter() - t0
        if reply is None:
            status = "timeout" if self.dead_reason.startswith("no answer") else "crash"
            return Outcome(status, reason=self.dead_reason, seconds=elapsed)
        if "error" in reply:
            return Outcome("crash", reason=str(reply["error"]), seconds=elapsed)
        action = reply.get("action")
        if not isinstance(action, str) or action not in legal:
            return Outcome(
                "illegal", reason=f"returned {action!r}, not one of {legal}", seconds=elapsed
            )
        return Outcome("ok", action=action, seconds=elapsed)

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    self.proc.kill()
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    stream.close()
            self.proc = None
        shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self) -> Program:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def program_observation(state: State, seat: int) -> dict[str, Any]:
    """What a program sees: the seat's observation record (no hidden card)."""
    obs = state.observation(seat)
    obs.pop("legal_actions", None)
    return obs


@dataclass(frozen=True)
class Admission:
    admitted: bool
    reason: str
    median_move_ms: float | None
    moves: int


def admit(
    path: str | Path,
    spec: GameSpec,
    deals: int = 6,
    seed: int = 0,
    max_median_ms: float = 100.0,
    limits: Limits | None = None,
) -> Admission:
    """The admission test: load, play ``deals`` short deals in both seats against uniform
    random play with every move legal, and a median move of at most ``max_median_ms``."""
    rng = random.Random(seed)
    times: list[float] = []
    with Program(path, limits) as program:
        failure = program.start()
        if failure:
            return Admission(False, f"does not load: {failure}", None, 0)
        for d in range(deals):
            seat = d % 2
            state = new_deal(spec, seed + d)
            while not state.is_terminal():
                legal = list(state.legal_actions())
                if state.current_player != seat:
                    state.apply(rng.choice(legal))
                    continue
                outcome = program.act(program_observation(state, seat), legal, rng.randrange(2**31))
                if outcome.status != "ok" or outcome.action is None:
                    return Admission(
                        False, f"{outcome.status}: {outcome.reason}", _median_ms(times), len(times)
                    )
                times.append(outcome.seconds)
                state.apply(outcome.action)
    median = _median_ms(times)
    if median is not None and median > max_median_ms:
        return Admission(
            False,
            f"too slow: median move {median:.1f} ms > {max_median_ms:g} ms",
            median,
            len(times),
        )
    return Admission(True, "admitted", median, len(times))


def _median_ms(times: list[float]) -> float | None:
    return 1000.0 * statistics.median(times) if times else None
