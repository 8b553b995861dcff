"""Editions and the seed ledger (issue 39, item 3): disjoint seeds from edition to edition,
checked when publishing and by ``release verify``; bad editions refused in one line, nothing
published."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from releases.editions import LEDGER, Edition, admission_problem, disjoint_problems, edition_of
from releases.errors import Refused
from releases.store import INDEX, publish, verify
from tests.releases.support import PASSING, sample_inputs, snapshot

SEEDS = 100  # seeds per edition of the profile below


def edition_inputs(
    edition: int, games: list[int], seed_count: int = SEEDS
) -> tuple[dict[str, pd.DataFrame], dict[str, str], dict[str, bytes], object]:
    """A small release of edition ``edition`` of the ``demo`` profile whose benchmark games are
    the seeds ``games``."""
    tables, texts, images, context = sample_inputs()
    tables = {**tables, "benchmark_games": pd.DataFrame({"game": [str(g) for g in games],
                                                          "seed": games})}  # fmt: skip
    settings_ = {"seed_start": 0, "seed_count": seed_count, "edition": edition}
    return tables, texts, images, dataclasses.replace(context, profile_settings=settings_)


def publish_edition(store: Path, edition: int, games: list[int], **kw: int) -> str:
    tables, texts, images, context = edition_inputs(edition, games, **kw)
    return publish(tables, texts, images, context, store, gates=PASSING).release_id  # type: ignore[arg-type]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args], capture_output=True, text=True, check=False
    )


def test_two_editions_published_one_after_the_other_have_disjoint_seeds(tmp_path: Path) -> None:
    store = tmp_path / "store"
    first = publish_edition(store, 1, [3, 50, 99])
    second = publish_edition(store, 2, [100, 150])
    ledger = json.loads((store / LEDGER).read_text())["editions"]
    assert [(e["edition"], e["seeds"], e["games"], e["releases"]) for e in ledger] == [
        (1, [0, 100], [3, 50, 99], [first]),
        (2, [100, 200], [100, 150], [second]),
    ]
    for release in (first, second):
        verify(release, store)
        done = cli("release", "verify", release, "--store", str(store))
        assert done.returncode == 0, done.stderr
        assert f"release {release} verified" in done.stdout
    # the nightly refresh adds players to the current edition: a second release of edition 2
    third = publish_edition(store, 2, [100, 150, 199])
    ledger = json.loads((store / LEDGER).read_text())["editions"]
    assert ledger[1]["releases"] == [second, third] and ledger[1]["games"] == [100, 150, 199]


@pytest.mark.parametrize(
    ("edition", "games", "seed_count", "message"),
    [
        (2, [150], 150, "edition 2 of profile 'demo' was published with seeds 100 to 199"),
        (1, [5], SEEDS, "edition 1 of profile 'demo' goes backwards: edition 2 is already"),
    ],
    ids=["reused seeds", "backwards"],
)
def test_a_bad_edition_is_refused_in_one_line_and_nothing_is_published(
    tmp_path: Path, edition: int, games: list[int], seed_count: int, message: str
) -> None:
    store = tmp_path / "store"
    publish_edition(store, 1, [3])
    publish_edition(store, 2, [120])
    before = snapshot(store)
    with pytest.raises(Refused, match=message) as refused:
        publish_edition(store, edition, games, seed_count=seed_count)
    assert "\n" not in str(refused.value)
    assert snapshot(store) == before


def test_a_new_edition_that_would_reuse_a_published_seed_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "store"
    publish_edition(store, 1, [3], seed_count=300)  # seeds 0 to 299
    before = snapshot(store)
    # edition 3 at 150 seeds an edition starts at 300: 300 to 449, disjoint; at 100: 200 to 299
    with pytest.raises(Refused, match="edition 3 of profile 'demo' would reuse seeds published"):
        publish_edition(store, 3, [250], seed_count=SEEDS)
    assert snapshot(store) == before
    publish_edition(store, 3, [310], seed_count=150)


def test_verify_fails_a_release_whose_games_an_earlier_edition_drew(tmp_path: Path) -> None:
    store = tmp_path / "store"
    publish_edition(store, 1, [3])
    second = publish_edition(store, 2, [120])
    ledger = json.loads((store / LEDGER).read_text())
    ledger["editions"][0]["games"].append(120)  # a store whose first edition drew 120 as well
    (store / LEDGER).write_text(json.dumps(ledger))
    with pytest.raises(Refused, match="games 120 of edition 2 were drawn by edition 1"):
        verify(second, store)
    done = cli("release", "verify", second, "--store", str(store))
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and "drawn by edition 1" in done.stderr
    # the index is untouched by a verify
    assert json.loads((store / INDEX).read_text())["releases"][1]["release_id"] == second


def test_a_damaged_ledger_stops_publication(tmp_path: Path) -> None:
    store = tmp_path / "store"
    publish_edition(store, 1, [3])
    (store / LEDGER).write_text("{not json")
    before = snapshot(store)
    with pytest.raises(Refused, match=r"edition ledger .* cannot be read"):
        publish_edition(store, 1, [4])
    assert snapshot(store) == before


def test_edition_of_reads_the_manifest_profile() -> None:
    profile = {"name": "paper", "seed_start": 0, "seed_count": 12_351, "edition": 3}
    edition = edition_of(profile, pd.DataFrame({"seed": [24_710, 30_000]}))
    assert edition == Edition("paper", 3, (24_702, 37_053), (24_710, 30_000))
    assert edition_of({"name": "x", "seed_count": 3}, None) is None  # draws no seeds


@settings(max_examples=200, deadline=None)
@given(
    count=st.integers(1, 10_000),
    start=st.integers(0, 10**9),
    editions=st.lists(st.integers(1, 50), min_size=1, max_size=8, unique=True),
)
def test_editions_of_a_profile_drawn_in_order_are_always_admitted_and_disjoint(
    count: int, start: int, editions: list[int]
) -> None:
    """Whatever the profile's seed range, editions taken in increasing order are admitted and
    each one's games (any seeds of its range) meet no earlier edition's."""
    ledger: list[dict[str, object]] = []
    for number in sorted(editions):
        profile = {"name": "p", "seed_start": start, "seed_count": count, "edition": number}
        first = start + (number - 1) * count
        games = pd.DataFrame({"seed": [first, first + count - 1]})
        edition = edition_of(profile, games)
        assert edition is not None
        assert admission_problem(ledger, edition) is None
        assert disjoint_problems(ledger, edition) == []
        ledger.append({**edition.as_json(), "releases": []})
    if len(editions) > 1:  # and going back to any earlier one is refused
        profile = {"name": "p", "seed_start": start, "seed_count": count, "edition": min(editions)}
        edition = edition_of(profile, None)
        assert edition is not None
        assert "goes backwards" in str(admission_problem(ledger, edition))
