"""One seed never kills a pool: generator and engine failures are recorded rejections with a
bounded one-line reason, and the CLI screen that used to die on seed 100062 completes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import engines.gbg.seed_pool as seed_pool
from engines.gbg.acceptance import AcceptanceSettings
from engines.gbg.generator import GenerationConfig
from engines.gbg.seed_pool import ERROR_CHARS, error_line, screen, screen_seed

GENSTRAT = Path(sys.executable).with_name("genstrat")


def test_an_engine_failure_in_random_play_is_a_recorded_rejection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise ValueError("x" * 10_000)

    monkeypatch.setattr(seed_pool, "evaluate", explode)
    verdict = screen_seed(3, GenerationConfig(), AcceptanceSettings())
    assert verdict["accepted"] is False and verdict["reasons"] == ["engine_error"]
    assert verdict["error"].startswith("engine_error: ValueError: xxx")
    assert len(verdict["error"]) <= len("engine_error: ") + ERROR_CHARS
    assert len(verdict["spec_hash"]) == 64
    rows = list(screen(3, 1, max_seeds=2))  # the pool goes on past the failure
    assert [r["seed"] for r in rows] == [3, 4]


def test_error_lines_are_one_bounded_line() -> None:
    line = error_line(RuntimeError("first\nsecond\n" + "y" * 5000))
    assert "\n" not in line and len(line) == ERROR_CHARS and line.endswith("...")
    assert error_line(KeyError("k")) == "KeyError: 'k'"


def test_seed_100062_screens_as_a_verdict() -> None:
    verdict = screen_seed(100062, GenerationConfig(), AcceptanceSettings())
    assert verdict["seed"] == 100062 and isinstance(verdict["accepted"], bool)
    assert verdict["reasons"] or verdict["accepted"]


def test_the_screen_from_seed_100000_completes() -> None:
    completed = subprocess.run(
        [str(GENSTRAT), "pool", "screen", "--start", "100000", "--count", "40", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    summary = json.loads(completed.stdout)
    assert summary["accepted"] == 40
