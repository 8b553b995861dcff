"""A test leaves SIGINT and SIGTERM as it found them, whatever Dagster does to them."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import dagster as dg
import pytest

from tests.support import signals_kept


@dg.asset
def one() -> int:
    return 1


@pytest.fixture
def sigint_ignored() -> Iterator[None]:
    """SIGINT ignored, as in a background job of a script; both signals restored after."""
    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGINT, saved[0])
    signal.signal(signal.SIGTERM, saved[1])


def test_dagster_leaves_sigterm_ignored_where_sigint_was(sigint_ignored: None) -> None:
    # the behaviour signals_kept exists for (pipelines/dagster_private.py names where): if a
    # Dagster release stops doing this, signals_kept and the hook in conftest.py can go
    assert dg.materialize([one]).success
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN


def test_signals_kept_puts_sigterm_back_after_an_in_process_run(sigint_ignored: None) -> None:
    with signals_kept():
        assert dg.materialize([one]).success
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
