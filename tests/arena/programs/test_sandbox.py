"""Strategy programs in the sandbox: admitted when well behaved; contained and rejected or
forfeited with a reason when hostile; the host is unaffected."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.programs.sandbox import Limits, Program, admit
from engines.gbg import presets

PROGRAMS = Path(__file__).with_name("programs")
KUHN = presets.kuhn()
OBS = {"hand": ["K♠"], "board": []}
LEGAL = ["check", "bet 1"]


def _one_move(name: str, limits: Limits | None = None) -> tuple[str, str]:
    with Program(PROGRAMS / name, limits) as program:
        outcome = program.act(OBS, LEGAL, seed=1)
    return outcome.status, outcome.reason


def test_a_good_program_is_admitted() -> None:
    verdict = admit(PROGRAMS / "good.py", KUHN)
    assert verdict.admitted, verdict.reason
    assert verdict.moves > 0
    assert verdict.median_move_ms is not None and verdict.median_move_ms < 100


def test_writing_inside_the_scratch_folder_is_allowed() -> None:
    assert _one_move("scratch_writer.py") == ("ok", "")


@pytest.mark.parametrize(
    ("name", "status", "reason"),
    [
        ("network.py", "crash", "not allowed"),  # socket refused (and no network namespace)
        ("writes.py", "crash", "writing /tmp/genstrat-sandbox-escape.txt is not allowed"),
        ("memory.py", "crash", "MemoryError"),
        ("forks.py", "crash", "os.fork is not allowed"),
        ("subprocesses.py", "crash", "not allowed"),
        ("illegal.py", "illegal", "returned 'all in'"),
        ("raises.py", "crash", "RuntimeError: strategy bug"),
        ("clock.py", "crash", "clocks are not available"),
    ],
)
def test_hostile_programs_are_contained(name: str, status: str, reason: str) -> None:
    got_status, got_reason = _one_move(name)
    assert got_status == status
    assert reason in got_reason


def test_an_infinite_loop_times_out() -> None:
    status, reason = _one_move("loops.py", Limits(move_seconds=1.0))
    assert status == "timeout"
    assert "no answer within 1 s" in reason


def test_after_a_timeout_the_next_move_starts_a_fresh_process() -> None:
    with Program(PROGRAMS / "loops.py", Limits(move_seconds=0.5)) as program:
        first = program.act(OBS, LEGAL, seed=1)
        second = program.act(OBS, LEGAL, seed=2)  # started again, in a new scratch folder
    assert first.status == second.status == "timeout"


def test_printing_megabytes_does_not_reach_the_host(capfd: pytest.CaptureFixture[str]) -> None:
    assert _one_move("prints.py") == ("ok", "")
    out, err = capfd.readouterr()
    assert "xxxx" not in out and "xxxx" not in err


def test_no_escape_file_was_written() -> None:
    _one_move("writes.py")
    assert not os.path.exists("/tmp/genstrat-sandbox-escape.txt")


def test_no_state_survives_between_moves() -> None:
    with Program(PROGRAMS / "stateful.py") as program:
        first = program.act(OBS, LEGAL, seed=1)
        second = program.act(OBS, LEGAL, seed=2)
    assert first.status == second.status == "ok"
    assert second.action == "check"


def test_a_preloaded_module_a_move_changes_is_fresh_for_the_next() -> None:
    with Program(PROGRAMS / "marks_preloaded.py") as program:
        moves = [program.act(OBS, LEGAL, seed=s) for s in range(3)]
        moves += program.act_many(OBS, LEGAL, range(3))
    assert [m.status for m in moves] == ["ok"] * 6
    assert {m.action for m in moves} == {LEGAL[0]}


def test_a_program_that_does_not_compile_is_refused() -> None:
    verdict = admit(PROGRAMS / "broken.py", KUHN)
    assert not verdict.admitted
    assert verdict.reason.startswith("does not load: does not compile")


@pytest.mark.parametrize("name", ["illegal.py", "raises.py", "loops.py"])
def test_admission_rejects_with_a_reason(name: str) -> None:
    verdict = admit(PROGRAMS / name, KUHN, limits=Limits(move_seconds=0.5))
    assert not verdict.admitted
    assert verdict.reason.split(":")[0] in {"illegal", "crash", "timeout"}


def test_missing_program_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="no strategy program at"):
        Program(PROGRAMS / "nope.py")


def test_program_check_cli(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from pipelines.cli import main

    assert main(["program", "check", str(PROGRAMS / "good.py"), "--game", "leduc", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["admitted"] is True and record["median_move_ms"] < 100
    assert main(["program", "check", str(PROGRAMS / "illegal.py"), "--game", "kuhn", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["reason"].startswith("illegal")
    assert main(["program", "check", "missing.py", "--game", "kuhn"]) == 2
    assert "no strategy program at missing.py" in capsys.readouterr().err


def test_procedural_reading_of_a_program_covers_every_kuhn_situation() -> None:
    from arena.programs.procedural_reading import reading

    with Program(PROGRAMS / "good.py") as program:
        text = reading(program, KUHN, seat=1)
    lines = [line for line in text.splitlines() if line.startswith("- Holding")]
    # Bob decides after Alice's check or bet, holding one of three cards: 6 situations.
    assert len(lines) == 6
    assert "in every situation it can face" in text
    assert "- Holding K♠; so far: Alice: bet 1. It plays call." in text
    assert "- Holding J♠; so far: Alice: check. It plays check." in text


BUSY = (
    "def act(observation, legal_actions, rng):\n"
    "    total = 0\n"
    "    for i in range(4_000_000):\n"
    "        total += i\n"
    "    return legal_actions[0]\n"
)


def test_many_busy_moves_are_not_killed_by_the_cpu_limit_and_each_is_charged(
    tmp_path: Path,
) -> None:
    """``cpu_seconds`` bounds one move's process: a program that spends a fair share of a
    second per move plays a long tournament, and each move's CPU is charged to that move
    (twelve moves spend more than the limit in all)."""
    path = tmp_path / "busy.py"
    path.write_text(BUSY, encoding="utf-8")
    with Program(path, Limits(cpu_seconds=1, move_seconds=30)) as program:
        outcomes = [program.act(OBS, LEGAL, seed=k) for k in range(12)]
    assert [o.status for o in outcomes] == ["ok"] * 12, [o.reason for o in outcomes]
    assert all(0.05 <= o.cpu_seconds <= 1.0 for o in outcomes), [o.cpu_seconds for o in outcomes]


def test_a_move_that_ends_its_process_is_a_crash_and_the_sandbox_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "exits.py"
    path.write_text("import os\n\ndef act(observation, legal_actions, rng):\n    os._exit(3)\n")
    with Program(path) as program:
        first = program.act(OBS, LEGAL, seed=1)
        pid = program.pid
        second = program.act(OBS, LEGAL, seed=2)
        assert program.pid == pid  # the same sandbox: only the move's process ended
    reason = "the program's process ended without an answer (exit status 3)"
    assert (first.status, first.reason) == (second.status, second.reason) == ("crash", reason)


def test_cpu_seconds_ends_a_move_and_the_move_is_charged_for_it() -> None:
    with Program(PROGRAMS / "loops.py", Limits(cpu_seconds=1, move_seconds=30)) as program:
        outcome = program.act(OBS, LEGAL, seed=1)
    assert outcome.status == "crash"
    assert outcome.reason.startswith("the program's process ended without an answer (killed by")
    assert 0.5 <= outcome.cpu_seconds <= 1.5  # clock ticks, scaled by the kernel
