"""Worker processes for the science's independent tasks (``engines.tasks.TaskPool``).

``process_pool(workers)`` is the one place that decides how many processes the pool screen, the
screening axes and the axes of a game use: both cores by default (the machine's budget is two),
and none inside a daemonic process (a Dask worker may not start children; the cluster provides
the parallelism there), where the tasks run in the calling process.  Results do not depend on
the number of workers (each task draws only from seeds derived from its identity).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from engines.tasks import InlinePool, TaskPool

T = TypeVar("T")


def default_workers() -> int:
    """Both cores (at most two: the machine's budget); one inside a daemonic process."""
    if multiprocessing.current_process().daemon:
        return 1
    return max(1, min(2, os.cpu_count() or 1))


class ProcessPool:
    """A ``TaskPool`` of worker processes."""

    def __init__(self, workers: int) -> None:
        self._workers = workers
        self._executor = ProcessPoolExecutor(max_workers=workers)

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
