"""Subcommands of the ``genstrat`` CLI, one module per command group.

Each module exposes ``register(subparsers)``; heavy imports happen inside the handlers so that
``genstrat --help`` stays fast.  Every count option declares its range with ``count`` here, so a
value outside it is refused by the parser in one line with exit status 2, before any work.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def count(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in ``low..high`` (``high`` None: no upper bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low == 0:
            raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {value:,}")
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low:,}, got {value:,}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, got {value:,}")
        return value

    parse.__name__ = "count"
    return parse
