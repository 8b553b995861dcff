"""The compiled engine (``arena.compiled_engine``, ``tools/build_engine.py``): it computes what
the interpreted engine computes, number for number, and a build that does not match the sources
never loads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.compiled_engine import (
    BUILD,
    COMPILED,
    ENGINES,
    MANIFEST,
    built_files,
    fresh,
    running,
)
from tests.conftest import ENGINE
from tests.support import REPO_ROOT, interpreted


def fingerprint(seeds: list[int]) -> dict[str, Any]:
    """What the compiled modules compute on the games of ``seeds`` and the presets: the five
    axes and their diagnostics at the quick budget, random deals played to the end through the
    public State API (returns, histories, information states), and the conformance counts."""
    from engines.axes.budgets import axis_budget
    from engines.axes.compute import compute_axes
    from engines.gbg import presets
    from engines.gbg.conformance import check_conformance
    from engines.gbg.engine import new_deal
    from engines.gbg.generator import generate

    games = [presets.kuhn(), presets.leduc(), *(generate(seed) for seed in seeds)]
    found: dict[str, Any] = {"engine": running(), "games": []}
    for spec in games:
        report = compute_axes(spec, axis_budget("quick"), 3)
        deals = []
        for play_seed in range(6):
            state = new_deal(spec, play_seed)
            moves = 0
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply(legal[(play_seed + moves) % len(legal)])
                moves += 1
            deals.append((state.returns(), state.information_state(0), list(state.history)))
        conformance = check_conformance(spec, deals=20, seed=1)
        found["games"].append(
            {
                "spec": spec.spec_hash,
                "axes": report.axes,
                "seats": report.seats,
                "sampling_error": report.sampling_error,
                "diagnostics": {k: v for k, v in report.diagnostics.items() if k != "seconds"},
                "deals": deals,
                "conformance": (conformance.ok, conformance.deals, conformance.failures),
            }
        )
    return found


def test_the_suite_runs_the_compiled_engine_under_make_test() -> None:
    """``make test`` builds it first: a suite that silently ran interpreted would not test the
    engine the product runs."""
    if os.environ.get("CI") == "true" or fresh():
        assert ENGINE == "compiled", ENGINE
        assert running() == "compiled"
    else:
        assert ENGINE.startswith("interpreted (")  # and it says why


@pytest.mark.slow
@pytest.mark.compiled
@settings(max_examples=3, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 2**31 - 1), min_size=2, max_size=3))
def test_the_compiled_engine_computes_what_the_interpreter_computes(seeds: list[int]) -> None:
    if ENGINE != "compiled":
        pytest.fail(f"this process runs {ENGINE}; make compiled builds the engine")
    mine = fingerprint(seeds)
    reference = interpreted(fingerprint, seeds)
    assert (mine["engine"], reference["engine"]) == ("compiled", "interpreted")
    assert json.dumps(mine["games"], sort_keys=True, default=repr) == json.dumps(
        reference["games"], sort_keys=True, default=repr
    )


def test_no_compiled_module_sits_beside_the_sources() -> None:
    """Python prefers an extension to the ``.py`` beside it, whatever its age: the build lives
    in ``build/engine`` and loads through ``enable()`` only."""
    assert [p for p in ENGINES.rglob("*") if p.suffix in {".so", ".pyd"}] == []


def _copy_build(tmp_path: Path) -> tuple[Path, Path]:
    engines = tmp_path / "engines"
    shutil.copytree(ENGINES, engines, ignore=shutil.ignore_patterns("__pycache__"))
    build = tmp_path / "build"
    build.mkdir()
    return engines, build


def test_a_build_matches_only_the_sources_it_was_built_from(tmp_path: Path) -> None:
    from arena.compiled_engine import sources

    engines, build = _copy_build(tmp_path)
    assert not fresh(engines, build)  # nothing built
    for path in built_files(build):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    (build / MANIFEST.name).write_text(json.dumps({"sources": sources(engines)}))
    assert fresh(engines, build)
    state = engines / "gbg" / "state.py"
    os.utime(state)  # touched, same content: still the build's source
    assert fresh(engines, build)
    state.write_text(state.read_text() + "\n# edited\n")
    assert not fresh(engines, build)
    state.write_text(state.read_text().removesuffix("\n# edited\n"))
    assert fresh(engines, build)  # the same content again
    (engines / "gbg" / "new_module.py").write_text("X = 1\n")
    assert not fresh(engines, build)  # a source the build never saw
    (engines / "gbg" / "new_module.py").unlink()
    built_files(build)[0].unlink()
    assert not fresh(engines, build)  # an extension missing
    (build / MANIFEST.name).write_text("{not json")
    assert not fresh(engines, build)


PROBE = """
import sys
from pathlib import Path
from arena.compiled_engine import enable, running
print(enable(Path(sys.argv[1])))
print(running())
"""


@pytest.mark.compiled
@pytest.mark.parametrize("defect", ["stale", "incomplete", "unrecorded"])
def test_a_build_that_does_not_match_is_never_loaded(tmp_path: Path, defect: str) -> None:
    """A copy of the real build, made out of date, incomplete or unrecorded: the process runs
    the interpreted engine and says why (the real build, in the same process, would load)."""
    if not fresh():
        pytest.fail("make compiled builds the engine this test copies")
    build = tmp_path / "build"
    shutil.copytree(BUILD, build)
    manifest = json.loads((build / MANIFEST.name).read_text())
    if defect == "stale":
        manifest["sources"]["gbg/state.py"] = [1, 1, "0" * 64]
        (build / MANIFEST.name).write_text(json.dumps(manifest))
    elif defect == "incomplete":
        built_files(build)[COMPILED.index("engines.gbg.state")].unlink()
    else:
        (build / MANIFEST.name).unlink()
    probe = [sys.executable, "-c", PROBE, str(build)]
    out = subprocess.run(probe, cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    decided, engine = out.stdout.splitlines()
    assert engine == "interpreted"
    assert decided.startswith("interpreted (") and "make compiled" in decided
    real = [sys.executable, "-c", PROBE, str(BUILD)]
    out = subprocess.run(real, cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["compiled", "compiled"]
