"""engines.tasks: the inline pool runs a task when it is submitted and hands its exception back
through ``result()`` as a future would; the collector pause puts the collector back as it found
it, on the way out of an error too."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from engines.tasks import InlinePool, cycle_collection_paused


@pytest.fixture
def collector_on() -> Iterator[None]:
    was_on = gc.isenabled()
    gc.enable()
    yield
    if not was_on:
        gc.disable()


def test_the_inline_pool_runs_at_submission_and_raises_at_result() -> None:
    ran: list[int] = []
    done = InlinePool().submit(lambda x: ran.append(x) or x * 2, 21)
    assert ran == [21] and done.result() == 42
    failed = InlinePool().submit(lambda: 1 // 0)
    with pytest.raises(ZeroDivisionError):
        failed.result()


@pytest.mark.usefixtures("collector_on")
def test_the_collector_is_off_inside_and_back_on_after() -> None:
    with cycle_collection_paused():
        assert not gc.isenabled()
        with cycle_collection_paused():  # nested: still off, and the outer pause restores it
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_the_collector_comes_back_after_an_error() -> None:
    with pytest.raises(RuntimeError), cycle_collection_paused():
        raise RuntimeError("the task failed")
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with cycle_collection_paused():
        pass
    assert not gc.isenabled()
