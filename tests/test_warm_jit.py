"""tools/warm_jit.py: the Makefile's one-time compilation of the batch play kernel."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from types import ModuleType

from numba.core.registry import CPUDispatcher

from engines.gbg import batch_kernel
from tests.support import REPO_ROOT

WARM_JIT = REPO_ROOT / "tools" / "warm_jit.py"


def load_warm_jit() -> ModuleType:
    spec = importlib.util.spec_from_file_location("warm_jit", WARM_JIT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_warm_up_names_every_entry_point_of_the_kernel() -> None:
    """A compiled function the rest of the engine calls (a public name) is one the warm-up
    must reach; the private ones are compiled as part of them."""
    public = {
        name
        for name, value in vars(batch_kernel).items()
        if isinstance(value, CPUDispatcher) and not name.startswith("_")
    }
    assert public == set(load_warm_jit().ENTRY_POINTS)


def test_the_warm_up_compiles_every_entry_point_and_says_so_in_one_line() -> None:
    """Run as the Makefile runs it (the cache is warm by then: it loads, in seconds)."""
    done = subprocess.run(
        [sys.executable, str(WARM_JIT)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    entry_points = len(load_warm_jit().ENTRY_POINTS)
    assert line.startswith(f"warm_jit: {entry_points} kernel entry points")
