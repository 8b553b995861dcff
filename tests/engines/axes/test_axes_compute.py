"""``compute_axes``: the same seeds give identical numbers (in one process or on a pool), the
report carries the axes and their diagnostics, and the rerun uses an independent draw."""

from __future__ import annotations

import json
import math

from arena.parallel import process_pool
from engines.axes.budgets import axis_budget
from engines.axes.compute import AxisReport, compute_axes, compute_with_rerun
from engines.axes.names import AXES
from engines.gbg import presets

BUDGET = axis_budget("quick").model_copy(
    update={"decisions_per_seat": 6, "info_opponents": 2, "info_deals": 6, "rerun": False}
)


def _numbers(report: AxisReport) -> str:
    """Every number of a report except its timing, as canonical JSON."""
    data = report.to_dict()
    data["diagnostics"].pop("seconds")
    return json.dumps(data, sort_keys=True)


def test_repeated_runs_with_the_same_seeds_give_identical_numbers() -> None:
    spec = presets.example4643()
    first = compute_axes(spec, BUDGET, seed=5)
    second = compute_axes(spec, BUDGET, seed=5)
    with process_pool(2) as pool:  # two processes, same numbers
        pooled = compute_axes(spec, BUDGET, seed=5, pool=pool)
    assert _numbers(second) == _numbers(first)
    assert _numbers(pooled) == _numbers(first)
    different = compute_axes(spec, BUDGET, seed=6)
    assert different.axes != first.axes


def test_the_report_has_the_five_axes_and_their_diagnostics() -> None:
    report = compute_axes(presets.leduc(), BUDGET, seed=0)
    data = json.loads(json.dumps(report.to_dict()))  # JSON-ready
    assert list(data["axes"]) == list(AXES)
    assert all(isinstance(v, float) for v in data["axes"].values())
    assert data["sampling_error"]["state_space"] is None
    for name in AXES[1:]:
        assert data["sampling_error"][name] >= 0
        assert len(data["seats"][name]) == 2
    diagnostics = data["diagnostics"]
    assert diagnostics["decisions"] == [6, 6]
    assert diagnostics["std_g"] > 0
    assert diagnostics["replays"] > 0
    assert 0 <= diagnostics["world_fallback_share"] <= 1
    assert diagnostics["information_deals"] == [12, 12]
    assert 0 < report.axes["state_space"] < math.log10(2 * 3 * 600 * 10)


def test_the_rerun_is_an_independent_draw_at_two_thirds_of_the_budget() -> None:
    budget = BUDGET.model_copy(update={"rerun": True, "decisions_per_seat": 9})
    scaled = budget.scaled(budget.rerun_fraction)
    assert scaled.decisions_per_seat == 6 and scaled.info_deals == 4 and not scaled.rerun
    report = compute_with_rerun(presets.kuhn(), budget, seed=0)
    assert report.rerun is not None and list(report.rerun) == list(AXES)
    assert report.rerun != report.axes
    assert "rerun" in report.to_dict()
