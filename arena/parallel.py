"""Worker processes for the science's independent tasks (``engines.tasks.TaskPool``).

``process_pool(workers)`` is the one place that decides how many processes the pool screen, the
screening axes and the axes of a game use: both cores by default (the machine's budget is two),
and none inside a daemonic process (a Dask worker may not start children; the cluster provides
the parallelism there), where the tasks run in the calling process.  Results do not depend on
the number of workers (each task draws only from seeds derived from its identity).

On Linux, workers are forked, whatever the calling process's default start method.  A run that the
daemon launches is itself started by ``multiprocessing``'s spawn, and a spawned process passes
spawn on to its children: each worker would then start a fresh interpreter and import the
engines and load the compiled kernels again before its first task (1.3 to 1.6 s of wall time
per pool, i.e. per game of ``axis_scores``, in ``benchmarks/pool_start.py``).  Forked workers
share what the caller has already imported and compiled, as they always did under ``make run``
and the tests.  The tasks are pure computations: they touch none of the locks the caller's
threads (Dagster's log and event writers) may hold when the pool forks.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from arena import compiled_engine
from engines.tasks import InlinePool, TaskPool

T = TypeVar("T")


def default_workers() -> int:
    """Both cores (at most two: the machine's budget); one inside a daemonic process."""
    if multiprocessing.current_process().daemon:
        return 1
    return max(1, min(2, os.cpu_count() or 1))


def _context() -> multiprocessing.context.BaseContext:
    """Fork on Linux (module docstring); elsewhere the platform's default (macOS spawns: a
    process that has loaded its system frameworks may not fork safely there)."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _same_engine(compiled: bool) -> None:
    """In a worker: the engine of the process that opened the pool (a forked worker has it
    already; a spawned one imports the engine afresh)."""
    if compiled:
        compiled_engine.enable()
    else:
        compiled_engine.interpret()


class ProcessPool:
    """A ``TaskPool`` of worker processes."""

    def __init__(self, workers: int, start_method: str | None = None) -> None:
        """``start_method`` overrides the fork of the module docstring (the benchmark's
        comparison, ``benchmarks/pool_start.py``)."""
        self._workers = workers
        context = _context() if start_method is None else multiprocessing.get_context(start_method)
        self._executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_same_engine,
            initargs=(compiled_engine.asked(),),
        )

    @property
    def workers(self) -> int:
        return self._workers

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        return self._executor.submit(fn, *args)

    def close(self) -> None:
        """Stop the workers; tasks not yet started are cancelled."""
        self._executor.shutdown(wait=True, cancel_futures=True)


@contextmanager
def process_pool(workers: int | None = None) -> Iterator[TaskPool]:
    """A pool of ``workers`` processes (default: ``default_workers()``), or the calling process
    when that is one worker or when this process may not start children."""
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    count = default_workers() if workers is None else workers
    if count <= 1 or multiprocessing.current_process().daemon:
        yield InlinePool()
        return
    pool = ProcessPool(count)
    try:
        yield pool
    finally:
        pool.close()
