"""Compile the batch play kernel once, into numba's on-disk cache, before anything runs in parallel.

``engines/gbg/batch_kernel.py`` is compiled by numba on first use and cached beside the source
(``engines/gbg/__pycache__/*.nbi, *.nbc``, valid while the source file is unchanged).  A cold
cache costs most of a minute (measured: 40.6 s for the first ``random_play`` call on Leduc, then
1.2 s for a process that loads the cache; this warm-up, both entry points, 47 to 54 s cold and
2 s warm).  Without this step,
every process that reaches the kernel before the cache is written compiles it on its own: both
test workers, the workers of their process pools and the runs that Dagster launches, all at once,
on a fresh clone.  The Makefile runs this once after installing (``make install``), again only
when the kernel changes::

    python tools/warm_jit.py      # prints one line: the entry points compiled and the time

It plays the kernel through the public paths that reach it (the random play of the pool filter;
of the screening axes and the state-space count, ``play_keys``; the L0 rollouts and population
play of the five axes), in this process, at the smallest budgets, so the signatures compiled
are the ones the product uses.  It fails
with one line (exit 1) when an entry point of the kernel is still uncompiled afterwards: a new
entry point that this warm-up does not reach.
"""

from __future__ import annotations

import sys
import time

ENTRY_POINTS = ("play_uniform", "play_l0", "play_keys")


def main() -> int:
    started = time.perf_counter()
    from engines.axes.budgets import axis_budget, screening_budget
    from engines.axes.compute import compute_axes
    from engines.axes.screening import screen_games
    from engines.gbg import batch_kernel
    from engines.gbg.presets import PRESETS
    from engines.gbg.seed_pool import run_pool

    spec = PRESETS["leduc"]()
    list(screen_games([(0, spec.canonical_json())], screening_budget("quick"), 0))
    run_pool(0, 2)
    compute_axes(spec, axis_budget("quick"), 0)
    cold = [name for name in ENTRY_POINTS if not getattr(batch_kernel, name).signatures]
    if cold:
        print(f"warm_jit: not compiled by the warm-up: {', '.join(cold)}", file=sys.stderr)
        return 1
    signatures = sum(len(getattr(batch_kernel, name).signatures) for name in ENTRY_POINTS)
    print(
        f"warm_jit: {len(ENTRY_POINTS)} kernel entry points ({signatures} signatures) "
        f"compiled or loaded in {time.perf_counter() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
