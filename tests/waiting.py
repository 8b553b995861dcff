"""Waiting on a condition in tests: poll it until it holds, with a deadline that is a fail-safe
for a hung test (generous, past any load), never a measure of speed."""

from __future__ import annotations

import time
from collections.abc import Callable

FAIL_SAFE_S = 120.0


def until(
    done: Callable[[], bool],
    what: str,
    timeout_s: float = FAIL_SAFE_S,
    *,
    fail: bool = True,
    interval_s: float = 0.02,
) -> None:
    """Poll ``done`` until it holds.  Past ``timeout_s``: fail naming ``what`` (``fail``), or
    return and leave it to the test's assertions to say what is left."""
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            assert not fail, f"{what}: not within {timeout_s:.0f} s"
            return
        time.sleep(interval_s)
