"""``Program.act_many``: a batch of moves at one observation has exactly the outcomes of asking
them one by one with ``act``, for well-behaved programs and for programs that fail on some
seeds (an error, an illegal move, a reply too long, no answer, the lifetime CPU limit)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.programs.sandbox import BATCH_BYTES, Limits, Outcome, Program

PROGRAMS = Path(__file__).with_name("programs")
OBS: dict[str, object] = {"hand": ["K♠"], "board": []}
LEGAL = ["check", "bet 1", "fold"]

# Deterministic given the seed: a mixture of moves, errors and illegal answers.
MIXED = """
def act(observation, legal_actions, rng):
    u = rng.random()
    if u < 0.15:
        raise ValueError(f"unlucky {u:.3f}")
    if u < 0.25:
        return "all in"
    return legal_actions[rng.randrange(len(legal_actions))]
"""
# Ends its own reply stream for some seeds (the host closes the process on a huge reply), or
# never answers.
SOMETIMES_HUGE = """
def act(observation, legal_actions, rng):
    if rng.random() < 0.3:
        return "x" * (1 << 17)
    return legal_actions[0]
"""
SOMETIMES_LOOPS = """
def act(observation, legal_actions, rng):
    if rng.random() < 0.3:
        while True:
            pass
    return legal_actions[-1]
"""
BUSY = """
def act(observation, legal_actions, rng):
    total = 0
    for i in range(4_000_000):
        total += i
    return legal_actions[rng.randrange(len(legal_actions))]
"""


def _program(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return path


def _seen(outcomes: list[Outcome]) -> list[tuple[str, str | None, str]]:
    return [(o.status, o.action, o.reason) for o in outcomes]


Seen = list[tuple[str, str | None, str]]


def _one_by_one(
    path: Path, seeds: list[int], limits: Limits | None = None, obs: dict[str, object] = OBS
) -> Seen:
    with Program(path, limits) as program:
        return _seen([program.act(obs, LEGAL, seed) for seed in seeds])


def _batched(
    path: Path, seeds: list[int], limits: Limits | None = None, obs: dict[str, object] = OBS
) -> Seen:
    with Program(path, limits) as program:
        return _seen(program.act_many(obs, LEGAL, seeds))


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seeds=st.lists(st.integers(0, 2**31 - 1), max_size=12))
def test_a_batch_has_the_outcomes_of_one_move_at_a_time(tmp_path: Path, seeds: list[int]) -> None:
    path = _program(tmp_path, "mixed.py", MIXED)
    assert _batched(path, seeds) == _one_by_one(path, seeds)


@pytest.mark.parametrize(
    "name", ["good.py", "illegal.py", "raises.py", "injects.py", "stateful.py"]
)
def test_fixed_programs_answer_a_batch_as_one_by_one(name: str) -> None:
    seeds = list(range(6))
    assert _batched(PROGRAMS / name, seeds) == _one_by_one(PROGRAMS / name, seeds)


def test_a_reply_too_long_mid_batch_closes_the_process_and_the_rest_are_asked_afresh(
    tmp_path: Path,
) -> None:
    path = _program(tmp_path, "huge.py", SOMETIMES_HUGE)
    seeds = list(range(10))
    found = _batched(path, seeds)
    assert found == _one_by_one(path, seeds)
    statuses = {status for status, _, _ in found}
    assert statuses == {"ok", "crash"}  # the seeds hit both branches


def test_a_move_without_answer_times_out_in_a_batch_and_the_next_ones_are_played(
    tmp_path: Path,
) -> None:
    path = _program(tmp_path, "loops.py", SOMETIMES_LOOPS)
    limits = Limits(move_seconds=0.5)
    seeds = list(range(8))
    found = _batched(path, seeds, limits)
    assert found == _one_by_one(path, seeds, limits)
    assert [s for s, _, _ in found].count("timeout") >= 1 and ("ok", "fold", "") in found


def test_moves_that_share_the_lifetime_cpu_limit_are_not_lost(tmp_path: Path) -> None:
    """A batch's moves together may spend more than the half of ``cpu_seconds`` that ``act``
    leaves a move: the move whose process the limit ended is asked again, fresh."""
    path = _program(tmp_path, "busy.py", BUSY)
    limits = Limits(cpu_seconds=1, move_seconds=30)
    seeds = list(range(12))
    found = _batched(path, seeds, limits)
    assert [status for status, _, _ in found] == ["ok"] * 12, found
    assert found == _one_by_one(path, seeds, limits)


def test_a_batch_larger_than_the_pipe_takes_is_asked_one_by_one(tmp_path: Path) -> None:
    path = _program(tmp_path, "mixed.py", MIXED)
    big: dict[str, object] = {"hand": ["K♠"], "board": [], "note": "x" * (BATCH_BYTES // 4)}
    seeds = list(range(8))
    assert _batched(path, seeds, obs=big) == _one_by_one(path, seeds, obs=big)


def test_an_empty_batch_starts_nothing() -> None:
    with Program(PROGRAMS / "good.py") as program:
        assert program.act_many(OBS, LEGAL, []) == []
        assert program.proc is None
