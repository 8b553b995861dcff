"""The science's process pool (``arena.parallel``): its workers are forked even in a process that
was itself spawned, as every run the daemon launches is."""

from __future__ import annotations

import multiprocessing
import os

import pytest

from arena.compiled_engine import running
from arena.parallel import ProcessPool, process_pool
from tests.conftest import ENGINE
from tests.support import interpreted

# Set by the parent after import: a forked worker sees the parent's value, a spawned worker
# imports this module afresh and sees this one.
MARK = "as imported"


def _mark_and_parent() -> tuple[str, int]:
    return MARK, os.getppid()


def _in_spawned_parent(
    start_method: str | None, sink: multiprocessing.connection.Connection
) -> None:
    """In a child started by spawn (a daemon run's situation): mark, open a pool, ask it."""
    global MARK
    MARK = "set by the parent"
    assert multiprocessing.get_start_method() == "spawn"  # what a spawned process hands down
    try:
        if start_method is None:
            with process_pool(2) as pool:
                found = [pool.submit(_mark_and_parent).result() for _ in range(4)]
        else:
            explicit = ProcessPool(2, start_method=start_method)
            try:
                found = [explicit.submit(_mark_and_parent).result() for _ in range(4)]
            finally:
                explicit.close()
        sink.send((os.getpid(), found))
    finally:
        sink.close()


def _ask_from_spawned_parent(start_method: str | None) -> tuple[int, list[tuple[str, int]]]:
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_in_spawned_parent, args=(start_method, send))
    child.start()
    send.close()
    try:
        found: tuple[int, list[tuple[str, int]]] = receive.recv()
    finally:
        child.join(timeout=60)
    assert child.exitcode == 0
    return found


@pytest.mark.parametrize("start_method", [None, "fork"])
def test_a_spawned_process_forks_its_pool_workers(start_method: str | None) -> None:
    parent, answers = _ask_from_spawned_parent(start_method)
    assert answers == [("set by the parent", parent)] * 4


def test_spawned_workers_would_not_see_the_parent_state() -> None:
    """The comparison the benchmark makes, and what the test above would see without the fork."""
    parent, answers = _ask_from_spawned_parent("spawn")
    assert answers == [("as imported", parent)] * 4


def test_the_pool_results_do_not_depend_on_the_start_method() -> None:
    with process_pool(2) as forked:
        a = [forked.submit(pow, 3, k).result() for k in range(6)]
    spawned = ProcessPool(2, start_method="spawn")
    try:
        b = [spawned.submit(pow, 3, k).result() for k in range(6)]
    finally:
        spawned.close()
    assert a == b == [3**k for k in range(6)]


def _engines_of_a_spawned_pool() -> tuple[str, str]:
    pool = ProcessPool(1, start_method="spawn")
    try:
        return running(), pool.submit(running).result()
    finally:
        pool.close()


def test_workers_run_the_engine_of_the_process_that_opened_the_pool() -> None:
    """A spawned worker imports the engine afresh: compiled when its parent runs the compiled
    engine, interpreted when its parent keeps the sources (arena.compiled_engine)."""
    parent, worker = _engines_of_a_spawned_pool()
    assert worker == parent == ("compiled" if ENGINE == "compiled" else "interpreted")
    assert interpreted(_engines_of_a_spawned_pool) == ("interpreted", "interpreted")
