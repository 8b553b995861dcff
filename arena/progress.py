"""One progress reporter for every long task: a bar on a terminal, plain lines anywhere else.

Why it exists: the design card asks that long work show progress (a bar, or periodic counts
with rate and ETA), and one way to do it. The reporter is built on tqdm, which counts, smooths
the rate, estimates the time left and throttles:

- on a terminal, tqdm's bar, redrawn at most every half second;
- anywhere else (a pipe, a file, or a log function such as Dagster's ``context.log.info``),
  plain lines, never a carriage return: one at the first count, then at most one every
  ``every_s`` seconds, each with the count, the rate and the ETA, and a final line when the
  task ends (the count, the time taken and the average rate).

The engines report through callbacks of their own shape; callers adapt them in one line, e.g.
``progress=lambda done, total: reporter.set(done, total)``; :class:`Stages` serves
``progress(stage, done, total)`` callbacks with one reporter per stage.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self, TextIO, cast

from tqdm import tqdm  # type: ignore[import-untyped]

Sink = TextIO | Callable[[str], object]
"""Where progress goes: a text stream, or a function that takes one line."""

BAR_INTERVAL_S = 0.5
"""A terminal bar is redrawn at most this often."""
LINE_INTERVAL_S = 10.0
"""Lines in a log (Dagster's event log keeps every one) come at most this often."""
COMMAND_INTERVAL_S = 2.0
"""Lines a command writes to a pipe or file (someone may be watching it) come at most this
often."""

_LINE = (
    "{desc}: {n_fmt}/{total_fmt}{unit} ({percentage:.0f}%), {rate_noinv_fmt}, "
    "ETA {remaining}{postfix}"
)
_OPEN_LINE = "{desc}: {n_fmt}{unit}, {rate_noinv_fmt}, {elapsed} elapsed{postfix}"
_FINAL = "{desc}: finished {n_fmt}/{total_fmt}{unit} in {elapsed} ({rate_noinv_fmt}){postfix}"
_OPEN_FINAL = "{desc}: finished {n_fmt}{unit} in {elapsed} ({rate_noinv_fmt}){postfix}"


class _Discard:
    """The stream tqdm writes to in line mode (lines go to the sink instead)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None


class _Tqdm(tqdm):  # type: ignore[misc]
    """tqdm that, given ``emit``, writes each refresh as one line instead of redrawing."""

    monitor_interval = 0  # no monitor thread: refreshes happen in updates and at the end

    def __init__(self, *args: Any, emit: Callable[[str], object] | None, **kwargs: Any) -> None:
        self._emit = emit
        self._counting = False  # no line before the first count (its total may be unknown)
        super().__init__(*args, **kwargs)

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        if self._emit is None:
            return bool(super().display(msg, pos))
        if msg is None and self._counting:  # msg "" is tqdm clearing a bar: nothing to clear
            self._emit(self.line())
        return True

    def line(self) -> str:
        """The current state as one plain line (the final form once closed)."""
        known = bool(self.total) and self.n <= self.total  # tqdm drops a total that is passed
        if self.disable:  # close() disables the bar before its last display
            form = _FINAL if known else _OPEN_FINAL
        else:
            form = _LINE if known else _OPEN_LINE
        text: str = self.format_meter(**{**self.format_dict, "bar_format": form})
        return re.sub(r"\s+", " ", text).replace("( ", "(")  # tqdm pads rates to width 5


class _Closing:
    """``with`` support: leaving the block calls :meth:`close`."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


class ProgressReporter(_Closing):
    """Progress of one task of ``total`` units (``None``: not known yet), reported to ``out``
    (default ``sys.stderr``): a tqdm bar if ``out`` is a terminal, else throttled lines.

    Use it as a context manager (or call :meth:`close`) so the task ends with a final line.
    ``enabled=False`` reports nothing. ``clock`` (seconds, default ``time.time``) and
    ``started`` (when the task began by that clock, default now) are for stages whose work
    began before their first count, and for tests.
    """

    def __init__(
        self,
        desc: str,
        *,
        total: int | None = None,
        unit: str = "it",
        out: Sink | None = None,
        every_s: float = LINE_INTERVAL_S,
        unit_scale: bool = False,
        unit_divisor: int = 1000,
        enabled: bool = True,
        clock: Callable[[], float] | None = None,
        started: float | None = None,
    ) -> None:
        if every_s <= 0:
            raise ValueError(f"every_s must be positive, got {every_s}")
        sink: Sink = sys.stderr if out is None else out
        isatty = getattr(sink, "isatty", None)
        self.terminal = bool(callable(isatty) and isatty())
        self.enabled = enabled
        emit: Callable[[str], object] | None = None
        if not self.terminal:
            writes = callable(getattr(sink, "write", None))
            emit = _printer(cast(TextIO, sink)) if writes else cast(Callable[[str], object], sink)
        self._bar = _Tqdm(
            total=total,
            desc=desc,
            unit=unit if unit_scale else f" {unit}",
            unit_scale=unit_scale,
            unit_divisor=unit_divisor,
            file=sink if self.terminal else _Discard(),
            mininterval=BAR_INTERVAL_S if self.terminal else every_s,
            miniters=0,  # a fixed 0: look at the clock on every count, even an unchanged one
            leave=True,
            disable=not enabled,
            emit=emit,
        )
        if enabled:
            if clock is not None:
                self._bar._time = clock
            now = self._bar._time()
            self._bar.last_print_t = now
            self._bar.start_t = now if started is None else started

    @property
    def done(self) -> int:
        """Units counted so far."""
        return int(self._bar.n)

    def update(self, n: int = 1) -> None:
        """Count ``n`` more units (negative to take some back)."""
        if self.enabled:
            self._count(self._bar.n + n)

    def set(self, done: int, total: int | None = None, *, already: int = 0, **info: Any) -> None:
        """``done`` units of ``total`` (``None``: keep the known total). ``already``: how many
        of ``done`` were done before this task started (resumed work): counted, left out of the
        rate. ``info`` is shown after the counts (e.g. ``moves=1234``)."""
        if not self.enabled:
            return
        bar = self._bar
        if total is not None:
            bar.total = total
        if already > bar.initial and bar.n <= already and not bar._counting:
            bar.initial = bar.n = bar.last_print_n = already
        if info:
            bar.set_postfix(info, refresh=False)
        self._count(done)

    def _count(self, done: int) -> None:
        bar = self._bar
        first = not bar._counting
        bar._counting = True
        shown = bar.update(done - bar.n)
        if first and not shown and not (bar.total and bar.n >= bar.total):
            bar.refresh()  # the first count shows the task has started (unless it has ended)

    def close(self) -> None:
        """End the task with a final line (on a terminal: the bar, left in place)."""
        if self.enabled:
            self._bar._counting = True
            self._bar.close()


class Stages(_Closing):
    """``progress(stage, done, total)`` callbacks as one :class:`ProgressReporter` per stage,
    described ``"<desc> <stage>"``; a stage ends (its final line) when it reaches its total or
    another stage starts, and :meth:`close` ends the last. Each stage's time runs from the end
    of the one before (its work began before its first count)."""

    def __init__(self, desc: str = "", **options: Any) -> None:
        self.desc = desc
        self.options = options
        clock = options.get("clock") or time.time
        self._clock: Callable[[], float] = clock
        self._since = clock()
        self._stage: str | None = None
        self._reporter: ProgressReporter | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self._reporter is None or stage != self._stage:
            self.close()
            desc = f"{self.desc} {stage}" if self.desc else stage
            self._stage = stage
            self._reporter = ProgressReporter(
                desc, total=total, started=self._since, **self.options
            )
        self._reporter.set(done, total)
        if total and done >= total:
            self.close()

    def close(self) -> None:
        """End the current stage, if any."""
        if self._reporter is not None:
            self._reporter.close()
            self._reporter = None
            self._since = self._clock()


def _printer(stream: TextIO) -> Callable[[str], None]:
    def emit(line: str) -> None:
        print(line, file=stream, flush=True)

    return emit
