"""Where independent pieces of work run: the science says what may run apart, the harness where.

The pool screen, the screening axes and the axes of one game split their work into tasks whose
results do not depend on where or in which order they run (every task draws from seeds derived
from the run seed and its own identity).  They submit those tasks to a ``TaskPool``.  The pure
science only ever runs them here, one after another (``InlinePool``); the harness
(``arena.parallel.process_pool``) hands in a pool of worker processes, so that ``engines/``
starts no process itself.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class TaskResult(Protocol[T_co]):
    """The outcome of a submitted task (a ``concurrent.futures.Future`` is one)."""

    def result(self) -> T_co: ...


class TaskPool(Protocol):
    """Something that runs ``fn(*args)`` somewhere and says how many tasks it runs at once."""

    @property
    def workers(self) -> int: ...

    def submit(self, fn: Callable[..., T], /, *args: Any) -> TaskResult[T]: ...


class Done:
    """A task that has already run: its value (or the exception it raised, raised again)."""

    def __init__(self, value: Any = None, error: BaseException | None = None) -> None:
        self.value, self.error = value, error

    def result(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


class InlinePool:
    """Runs every task at once, in this process, when it is submitted (one worker)."""

    workers = 1

    def submit(self, fn: Callable[..., T], /, *args: Any) -> TaskResult[T]:
        try:
            return Done(fn(*args))
        except Exception as exc:  # raised again by ``result()``, as a Future would
            return Done(error=exc)


@contextlib.contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Run the block with Python's cycle collector off, then put it back as it was.

    For the simulation tasks (a game's axes, a chunk of screening): they build millions of
    short-lived objects and keep large fixed-chance trees alive while they walk them, and each
    of the collector's passes walks what is alive; their trees are unlinked when done
    (``FixedChanceTree.release``) so that reference counting frees them, and the garbage left
    for the collector is collected after the block.  Measured on the paper-budget axes with
    reruns in one process, alternating with this pause made a no-op (2026-12-06): seed 871 9.3
    and 8.9 s against 9.7 and 10.4 s, seed 2395 8.4 and 7.9 s against 8.0 and 8.6 s (within
    noise), the same peak memory (324 and 330 MB).
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
