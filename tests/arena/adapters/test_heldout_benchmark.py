"""benchmarks/heldout_generalization.py: its game-independent description and a tiny run."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from engines.gbg.engine import new_deal
from engines.gbg.presets import kuhn, leduc
from tests.support import REPO_ROOT

SCRIPT = REPO_ROOT / "benchmarks" / "heldout_generalization.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("heldout_generalization", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_abstract_actions_are_kinds_with_the_smallest_and_largest_amounts() -> None:
    bench = load()
    assert bench.abstract_actions(("fold", "call", "raise 4", "raise 2", "raise 10")) == {
        "fold": ["fold"],
        "call": ["call"],
        "raise min": ["raise 2"],
        "raise max": ["raise 10"],
    }
    assert bench.abstract_actions(("keep", "swap K♠", "swap 2♥")) == {
        "keep": ["keep"],
        "swap": ["swap K♠", "swap 2♥"],
    }
    assert bench.kind("cooperate") == "option" and bench.kind("side_bet") == "side_bet"


def test_the_description_reads_the_same_in_two_games() -> None:
    bench = load()
    rng = random.Random(0)
    deals = [new_deal(spec, seed) for spec in (kuhn(), leduc()) for seed in range(30)]
    states = {bench.describe(deal, 0, rng) for deal in deals}
    # both games open on a check-or-bet decision: one menu description, several strengths, and
    # the antes' share of the chips (Kuhn's stacks are short, Leduc's long) in two pot bins
    assert {kinds for _, kinds, _ in states} == {("bet", "check")}
    assert len({strength for strength, _, _ in states}) > 1
    assert {pot for _, _, pot in states} == {0, 2}


def test_a_tiny_run_reports_every_figure(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            *("--train-games", "2", "--test-games", "2", "--episodes", "40"),
            *("--eval-deals", "3", "--json", "--out", str(tmp_path)),
        ],
        env={**os.environ, "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert max(report["train_seeds"]) < min(report["test_seeds"])
    assert len(report["test_seeds"]) == 2 and report["q_table_states"] > 0
    for split in ("held_out", "training"):
        for agent in ("q-learner", "random", "heuristic"):
            cell = report["chips_per_deal"][split][agent]["heuristic"]
            assert cell["low"] <= cell["mean"] <= cell["high"]
    assert set(report["held_out_differences"]) == {"q-learner - random", "q-learner - heuristic"}
    written = list(tmp_path.glob("heldout_generalization_*.json"))
    assert len(written) == 1 and json.loads(written[0].read_text()) == report


def test_bad_settings_are_usage_errors() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--test-games", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "at least" in result.stderr
