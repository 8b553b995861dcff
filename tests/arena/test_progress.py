"""The one progress reporter (``arena.progress``): plain lines off a terminal (no carriage
return), throttled, with rate and ETA, and a final line; a tqdm bar on a terminal."""

from __future__ import annotations

import io
import itertools
import re

import pytest

from arena.progress import ProgressReporter, Stages


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_it_writes_plain_lines() -> None:
    stream, clock = io.StringIO(), Clock()
    with ProgressReporter("work", total=50, unit="games", out=stream, every_s=1, clock=clock) as r:
        for done in range(1, 51):
            clock.now += 0.3
            r.set(done)
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert len(text.splitlines()) > 3 and all(
        line.startswith("work: ") for line in text.splitlines()
    )


def test_it_throttles() -> None:
    lines: list[str] = []
    clock = Clock()
    reporter = ProgressReporter("work", total=1000, out=lines.append, every_s=5, clock=clock)
    shown_at = []
    for done in range(1, 1001):
        clock.now += 0.02  # 20 s in all
        before = len(lines)
        reporter.set(done)
        if len(lines) > before:
            shown_at.append(clock.now)
    assert lines[0].startswith("work: 1/1000")  # the first count is shown at once
    assert 4 <= len(shown_at) <= 5  # then at most one line every 5 s
    assert all(b - a >= 5 - 1e-9 for a, b in itertools.pairwise(shown_at))
    reporter.close()
    assert len(lines) == len(shown_at) + 1


def test_it_reports_rate_and_eta_and_finishes_with_a_final_line() -> None:
    lines: list[str] = []
    clock = Clock()
    with ProgressReporter(
        "tournament", unit="matches", out=lines.append, every_s=2, clock=clock
    ) as r:
        for done in range(1, 41):
            clock.now += 0.25  # 4 matches a second
            r.set(done, 40, moves=7 * done)
    assert lines[0] == "tournament: 1/40 matches (2%), 4.00 matches/s, ETA 00:09, moves=7"
    assert re.fullmatch(
        r"tournament: \d+/40 matches \(\d+%\), 4\.00 matches/s, ETA 00:0\d, moves=\d+", lines[2]
    )
    assert lines[-1] == "tournament: finished 40/40 matches in 00:10 (4.00 matches/s), moves=280"


def test_resumed_work_counts_but_is_not_in_the_rate() -> None:
    lines: list[str] = []
    clock = Clock()
    with ProgressReporter("tournament", unit="matches", out=lines.append, clock=clock) as r:
        clock.now += 1.0
        r.set(31, 40, already=30)  # 30 recorded by an earlier run, one played now
        clock.now += 1.0
        r.set(32, 40, already=30)
    assert lines[0].startswith("tournament: 31/40 matches (78%), 1.00 matches/s, ETA 00:09")
    assert lines[-1] == "tournament: finished 32/40 matches in 00:02 (1.00 matches/s)"


def test_unknown_totals_bytes_and_a_log_function() -> None:
    lines: list[str] = []
    clock = Clock()
    with ProgressReporter("screening", unit="seeds", out=lines.append, clock=clock) as r:
        clock.now += 2.0
        r.set(10)
    assert lines == [
        "screening: 10 seeds, 5.00 seeds/s, 00:02 elapsed",
        "screening: finished 10 seeds in 00:02 (5.00 seeds/s)",
    ]
    lines.clear()
    size = 4 * 2**20
    with ProgressReporter(
        "pull",
        total=size,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        out=lines.append,
        clock=clock,
    ) as r:
        clock.now += 2.0
        r.update(size // 2)
        r.update(-(size // 4))  # the server ignored a range: that part comes again
        clock.now += 2.0
        r.update(size * 3 // 4)
    # tqdm scales counts by unit_divisor and rates by 1000: 2**20 B/s is "1.05MB/s"
    assert lines[0] == "pull: 2.00M/4.00MB (50%), 1.05MB/s, ETA 00:02"
    assert lines[-1] == "pull: finished 4.00M/4.00MB in 00:04 (1.05MB/s)"


def test_on_a_terminal_it_draws_a_tqdm_bar() -> None:
    terminal = Terminal()
    with ProgressReporter("work", total=4, unit="games", out=terminal) as r:
        for done in range(1, 5):
            r.set(done)
    text = terminal.getvalue()
    assert "\r" in text and "4/4" in text and "games/s" in text and "|" in text
    assert text.endswith("\n")


def test_disabled_reports_nothing() -> None:
    stream = io.StringIO()
    with ProgressReporter("quiet", total=3, out=stream, enabled=False) as r:
        r.set(1)
        r.update(2)
    assert stream.getvalue() == "" and r.done == 0


def test_stages_get_a_reporter_each() -> None:
    lines: list[str] = []
    clock = Clock()
    with Stages("kuhn", unit="tasks", out=lines.append, every_s=5, clock=clock) as stages:
        clock.now += 3.0
        stages("population", 1, 1)  # the stage's work came before its one count
        for done in range(1, 5):
            clock.now += 1.0
            stages("replays and search", done, 4)
    assert lines == [
        "kuhn population: finished 1/1 tasks in 00:03 (0.33 tasks/s)",
        "kuhn replays and search: 1/4 tasks (25%), 1.00 tasks/s, ETA 00:03",
        "kuhn replays and search: finished 4/4 tasks in 00:04 (1.00 tasks/s)",
    ]


def test_the_interval_must_be_positive() -> None:
    with pytest.raises(ValueError, match="every_s must be positive"):
        ProgressReporter("work", every_s=0)
