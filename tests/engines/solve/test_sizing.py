"""The gate of exact solving (``engines.solve.sizing``): the smallest candidates that fit a
history limit, and Knuth's size estimate against exact counts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.agents.equilibrium import count_histories
from engines.gbg.presets import kuhn, leduc
from engines.solve.sizing import estimate_histories, smallest_that_fit

# A planted list: exact sizes, with estimates that are off by up to a factor of three.
EXACT = {"a": 900, "b": 50, "c": 5_000, "d": 120, "e": 700, "f": 300, "g": 80, "h": 2_000}
ESTIMATE = {"a": 400.0, "b": 150.0, "c": 9_000.0, "d": 40.0, "e": 2_000.0, "f": 900.0,
            "g": 30.0, "h": 60_000.0}  # fmt: skip


def _gate(limit: int, count: int, slack: float = 10.0):  # type: ignore[no-untyped-def]
    counted: list[str] = []

    def exact(game: str, bound: int) -> int:
        counted.append(game)
        return min(EXACT[game], bound + 1)

    rows = smallest_that_fit(list(EXACT), ESTIMATE.__getitem__, exact, limit, count, slack)
    return rows, counted


def test_the_gate_chooses_the_five_smallest_that_fit() -> None:
    rows, counted = _gate(limit=1_000, count=5)
    chosen = [r.game for r in rows if r.chosen]
    assert sorted(chosen, key=EXACT.__getitem__) == ["b", "g", "d", "f", "e"]
    by = {r.game: r for r in rows}
    # "a" (900) fits but is larger than the five chosen (counted before five fit, to the
    # limit); once five fit (g, d, b, a, f), counting stops at the largest of them: "e" at
    # 900, then "c" (5,000) at 700; "h" is estimated at 60 times the limit and never counted.
    assert by["a"].reason == "larger than the chosen games" and by["a"].histories == 900
    assert by["a"].bound is None and by["e"].bound == 900
    assert by["c"].reason == "larger than the chosen games" and by["c"].histories is None
    assert by["c"].bound == 700
    assert by["h"].reason == "estimate over the counting bound" and "h" not in counted
    assert by["b"].reason == "solved" and by["b"].estimate == 150.0
    # Counting goes in ascending estimate order (the cheap games first).
    assert counted == sorted(counted, key=ESTIMATE.__getitem__)


def test_once_enough_fit_counting_stops_at_the_largest_chosen() -> None:
    """A pool of many small games: after the first ``count`` fit, every count is bounded by
    the largest of the ``count`` smallest so far, never by the limit."""
    sizes = {f"g{i}": 10 + (i * 7919) % 1000 for i in range(200)}
    bounds: list[int] = []

    def exact(game: str, bound: int) -> int:
        bounds.append(bound)
        return min(sizes[game], bound + 1)

    rows = smallest_that_fit(list(sizes), lambda g: 1.0, exact, 10**7, 3)
    assert bounds[:3] == [10**7] * 3 and max(bounds[3:]) <= 1_000
    smallest = sorted(sizes.values())[:3]
    assert sorted(r.histories or 0 for r in rows if r.chosen) == smallest


def test_the_gate_with_fewer_fitting_games_than_asked() -> None:
    rows, _ = _gate(limit=100, count=5)
    assert [r.game for r in rows if r.chosen] == ["b", "g"]
    assert {r.game: r.reason for r in rows}["a"] == "over the limit"
    rows, _ = _gate(limit=10_000, count=0)
    assert not any(r.chosen for r in rows)


def test_the_gate_refuses_bad_settings() -> None:
    with pytest.raises(ValueError, match="need limit >= 1, count >= 0 and slack >= 1"):
        _gate(limit=0, count=5)
    with pytest.raises(ValueError, match="need limit >= 1"):
        _gate(limit=10, count=-1)


@settings(max_examples=50, deadline=None)
@given(
    sizes=st.dictionaries(
        st.text("abcdefgh", min_size=1, max_size=3),
        st.integers(min_value=1, max_value=10**7),
        max_size=12,
    ),
    limit=st.integers(min_value=1, max_value=10**7),
    count=st.integers(min_value=0, max_value=8),
)
def test_exact_estimates_choose_the_smallest_fitting(
    sizes: dict[str, int], limit: int, count: int
) -> None:
    rows = smallest_that_fit(
        list(sizes), lambda g: float(sizes[g]), lambda g, b: min(sizes[g], b + 1), limit, count
    )
    fitting = sorted((n, list(sizes).index(g), g) for g, n in sizes.items() if n <= limit)
    assert {r.game for r in rows if r.chosen} == {g for _, _, g in fitting[:count]}


@settings(max_examples=200, deadline=None)
@given(
    games=st.lists(
        st.tuples(st.integers(min_value=1, max_value=10**6), st.floats(min_value=1, max_value=1e8)),
        max_size=30,
    ),
    limit=st.integers(min_value=1, max_value=10**6),
    count=st.integers(min_value=0, max_value=8),
    slack=st.floats(min_value=1, max_value=20),
)
def test_any_estimates_choose_the_smallest_fitting_among_those_counted(
    games: list[tuple[int, float]], limit: int, count: int, slack: float
) -> None:
    """Estimates off by any factor: the chosen games are the ``count`` smallest (ties: the
    candidate order) of those within the counting bound that fit, as counting each to the
    limit would choose them; a count never runs past the limit."""
    names = [f"g{i}" for i in range(len(games))]
    size = {n: s for n, (s, _) in zip(names, games, strict=True)}
    guess = {n: e for n, (_, e) in zip(names, games, strict=True)}
    asked: list[int] = []

    def exact(game: str, bound: int) -> int:
        asked.append(bound)
        return min(size[game], bound + 1)

    rows = smallest_that_fit(names, guess.__getitem__, exact, limit, count, slack)
    eligible = [n for n in names if guess[n] <= slack * limit]
    fitting = sorted(
        (size[n], i, n) for i, n in enumerate(names) if n in eligible and size[n] <= limit
    )
    assert {r.game for r in rows if r.chosen} == {n for _, _, n in fitting[:count]}
    assert all(b <= limit for b in asked)
    for r in rows:
        if r.histories is not None:
            assert r.histories == size[r.game]


def test_knuth_estimate_is_near_the_exact_count() -> None:
    # Kuhn and Leduc are small enough to count: the estimate's mean over paths is unbiased,
    # and 2,000 probes bring it within 25% of the exact count on both.
    for spec in (kuhn(), leduc()):
        exact = count_histories(spec, 10**6)
        estimate = estimate_histories(spec, probes=2_000, seed=1)
        assert estimate == pytest.approx(exact, rel=0.25), spec.name
    assert estimate_histories(kuhn(), probes=1) == estimate_histories(kuhn(), probes=1)
    with pytest.raises(ValueError, match="probes must be at least 1"):
        estimate_histories(kuhn(), probes=0)
