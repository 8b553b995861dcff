"""Admission counts a program's CPU, not the host's load (``arena.programs.sandbox``, module
docstring): a program that spends 300 ms of CPU a move is refused, and one that spends 40 ms
is admitted while other processes keep every core of the host busy, where its moves can take
several times their CPU in wall time (at a load of 25 on two cores: 30 ms of CPU, about 200 ms
a move), which a wall-clock median refused."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.programs.openspiel_track import admit_openspiel
from arena.programs.sandbox import Limits, admit, verdict
from engines.gbg import presets
from engines.openspiel.spec import parse_openspiel

# A program that spends ``CPU_S`` seconds of its own CPU on every move (``os.times``: the move's
# process's user and system time, counted by the kernel whatever else the host runs).
SPENDS = """\
import os

CPU_S = {cpu_s}


def act(observation, legal_actions, rng):
    until = sum(os.times()[:2]) + CPU_S
    while sum(os.times()[:2]) < until:
        pass
    return legal_actions[0]
"""
# Wall time is not what is judged: a move may take this long on a loaded host.
PATIENT = Limits(move_seconds=120)


def spends(folder: Path, cpu_s: float) -> Path:
    path = folder / f"spends_{int(cpu_s * 1000)}ms.py"
    path.write_text(SPENDS.format(cpu_s=cpu_s))
    return path


@pytest.fixture
def busy_host() -> Iterator[None]:
    """Two processes per core that spin until the test ends; yields once each has started."""
    count = 2 * (os.cpu_count() or 1)
    burners = [
        subprocess.Popen(
            [sys.executable, "-c", "print('spinning', flush=True)\nwhile True: pass"],
            stdout=subprocess.PIPE,
        )
        for _ in range(min(count, 16))
    ]
    try:
        for burner in burners:
            assert burner.stdout is not None and burner.stdout.readline() == b"spinning\n"
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
            if burner.stdout is not None:
                burner.stdout.close()


def test_a_program_that_spends_cpu_is_refused(tmp_path: Path) -> None:
    refused = admit(spends(tmp_path, 0.3), presets.kuhn(), deals=2, limits=PATIENT)
    assert not refused.admitted
    assert refused.reason.startswith("too slow: median move ")
    assert refused.reason.endswith(" ms of CPU > 100 ms")
    assert refused.median_move_ms is not None and refused.median_move_ms >= 300


def test_a_loaded_host_does_not_refuse_a_program_that_spends_little(
    tmp_path: Path, busy_host: None
) -> None:
    admitted = admit(spends(tmp_path, 0.04), presets.kuhn(), limits=PATIENT)
    assert admitted.admitted, admitted.reason
    assert admitted.moves >= 6
    assert admitted.median_move_ms is not None and 40 <= admitted.median_move_ms <= 100
    # and on the same loaded host, the program that spends 300 ms is still refused
    refused = admit(spends(tmp_path, 0.3), presets.kuhn(), deals=2, limits=PATIENT)
    assert not refused.admitted and refused.reason.startswith("too slow")


def test_the_openspiel_admission_counts_cpu_too(tmp_path: Path, busy_host: None) -> None:
    game = parse_openspiel("openspiel:connect_four")
    admitted = admit_openspiel(spends(tmp_path, 0.04), game, deals=2, moves_per_deal=3,
                               limits=PATIENT)  # fmt: skip
    assert admitted.admitted, admitted.reason
    assert admitted.median_move_ms is not None and 40 <= admitted.median_move_ms <= 100
    refused = admit_openspiel(spends(tmp_path, 0.3), game, deals=1, moves_per_deal=3,
                              limits=PATIENT)  # fmt: skip
    assert not refused.admitted and refused.reason.startswith("too slow")


def test_the_verdict_holds_the_limit_at_the_median() -> None:
    assert verdict([0.1, 0.1, 0.2], 100.0).admitted  # 100 ms of CPU is within the limit
    slow = verdict([0.0, 0.11, 0.2], 100.0)
    assert (slow.admitted, slow.moves) == (False, 3)
    assert slow.reason == "too slow: median move 110.0 ms of CPU > 100 ms"
    assert verdict([], 100.0).median_move_ms is None
