"""The generic conformance test, run on every preset (and, later, every generated game)."""

from __future__ import annotations

from typing import Any

import pytest

from engines.gbg import presets, render
from engines.gbg.conformance import check_conformance
from engines.gbg.engine import State
from tests.support import interpreted


@pytest.mark.parametrize("name", sorted(presets.PRESETS))
def test_every_preset_conforms(name: str) -> None:
    report = check_conformance(presets.PRESETS[name](), deals=300, seed=1)
    assert report.ok, report.failures[:3]
    assert report.deals == 300
    # The leak check really compared observations (not vacuous).
    assert report.leak_comparisons > 100


def test_a_leaking_observation_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = render.observation

    def leaky(state: State, seat: int) -> dict[str, Any]:
        record = honest(state, seat)
        record["opponent_hand"] = sorted(state.hands[1 - seat])
        return record

    monkeypatch.setattr(render, "observation", leaky)
    report = check_conformance(presets.leduc(), deals=50, seed=1)
    assert not report.ok
    assert report.failures[0].startswith("leak: seat")


def _failures_with_a_chip_leak() -> list[str]:
    settle = State._settle

    def generous(self: State, winner: int) -> None:
        settle(self, winner)
        self.stacks[0] += 1

    State._settle = generous  # type: ignore[method-assign]  # a fresh process: nothing to undo
    report = check_conformance(presets.kuhn(), deals=10, seed=1)
    assert not report.ok
    return report.failures


def test_a_chip_leak_is_caught() -> None:
    # The leak is planted in the interpreter's State, on the interpreted engine: a compiled
    # State settles through its own method, past a patch of the class.
    failures = interpreted(_failures_with_a_chip_leak)
    assert "zero-sum" in failures[0] or "conserved" in failures[0]
