"""The compiled engine (``arena.compiled_engine``, ``tools/build_engine.py``): it computes what
the interpreted engine computes, number for number; it runs when ``GENSTRAT_ENGINE=compiled``
asks for it, and a build that does not match the sources is refused in one line, never loaded."""

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
    stale,
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


def test_the_suite_runs_the_engine_the_switch_names() -> None:
    """``make test`` builds the compiled engine and asks for it (a suite that silently ran the
    sources would not test the engine the product runs); ``make check`` (``GENSTRAT_SUITE=
    check``) asks for the kernel, under CI too."""
    asked = os.environ.get("GENSTRAT_ENGINE") or "kernel"
    assert asked == ENGINE
    assert running() == ("compiled" if asked == "compiled" else "interpreted")
    if os.environ.get("CI") == "true" and os.environ.get("GENSTRAT_SUITE") != "check":
        assert ENGINE == "compiled"


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
    assert stale(engines, build) == "engines/gbg/state.py changed since the build"
    state.write_text(state.read_text().removesuffix("\n# edited\n"))
    assert fresh(engines, build)  # the same content again
    (engines / "gbg" / "new_module.py").write_text("X = 1\n")
    assert stale(engines, build) == "engines/gbg/new_module.py is new since the build"
    (engines / "gbg" / "new_module.py").unlink()
    (engines / "gbg" / "rng.py").unlink()
    assert stale(engines, build) == "engines/gbg/rng.py is gone since the build"
    shutil.copy(ENGINES / "gbg" / "rng.py", engines / "gbg" / "rng.py")
    assert fresh(engines, build)  # same content, another time: its hash decides
    built_files(build)[0].unlink()
    assert stale(engines, build) == f"{built_files(build)[0].name} is missing from the build"
    (build / MANIFEST.name).write_text("{not json")
    assert stale(engines, build) == "not built"


PROBE = """
import sys
from pathlib import Path
from arena.compiled_engine import enable, running
print(enable(Path(sys.argv[1])))
print(running())
"""


def _probe(build: Path, engine: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GENSTRAT_ENGINE": engine}
    probe = [sys.executable, "-c", PROBE, str(build)]
    return subprocess.run(probe, cwd=REPO_ROOT, env=env, capture_output=True, text=True)


def test_the_switch_chooses_the_engine_and_refuses_a_missing_build(tmp_path: Path) -> None:
    """``kernel`` and ``reference`` run the sources whatever is built; ``compiled`` without a
    build ends in one line that says what to run, status 2; so does a name that is no engine."""
    for engine in ("kernel", "reference", ""):
        done = _probe(tmp_path, engine)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [engine or "kernel", "interpreted"]
    refused = _probe(tmp_path, "compiled")
    assert refused.returncode == 2 and refused.stdout == ""
    (line,) = refused.stderr.splitlines()
    assert line.startswith("genstrat: GENSTRAT_ENGINE=compiled, but the compiled engine in ")
    assert line.endswith("(not built): run `make compiled`, or set GENSTRAT_ENGINE=kernel")
    wrong = _probe(tmp_path, "fast")
    assert wrong.returncode == 2 and wrong.stdout == ""
    assert wrong.stderr.splitlines() == [
        "genstrat: GENSTRAT_ENGINE='fast' is not a backend: use one of reference, kernel, compiled"
    ]


@pytest.mark.compiled
@pytest.mark.parametrize("defect", ["stale", "incomplete", "unrecorded"])
def test_a_build_that_does_not_match_is_refused(tmp_path: Path, defect: str) -> None:
    """A copy of the real build, made out of date, incomplete or unrecorded: asked for, it is
    refused in one line naming why (the real build, in the same process, loads); the kernel
    still runs on the sources beside it."""
    if not fresh():
        pytest.fail("make compiled builds the engine this test copies")
    build = tmp_path / "build"
    shutil.copytree(BUILD, build)
    manifest = json.loads((build / MANIFEST.name).read_text())
    if defect == "stale":
        manifest["sources"]["gbg/state.py"] = [1, 1, "0" * 64]
        (build / MANIFEST.name).write_text(json.dumps(manifest))
        why = "engines/gbg/state.py changed since the build"
    elif defect == "incomplete":
        extension = built_files(build)[COMPILED.index("engines.gbg.state")]
        extension.unlink()
        why = f"{extension.name} is missing from the build"
    else:
        (build / MANIFEST.name).unlink()
        why = "not built"
    refused = _probe(build, "compiled")
    assert refused.returncode == 2
    (line,) = refused.stderr.splitlines()
    assert f"is out of date ({why}): run `make compiled`" in line
    assert _probe(build, "kernel").stdout.splitlines() == ["kernel", "interpreted"]
    assert _probe(BUILD, "compiled").stdout.splitlines() == ["compiled", "compiled"]
