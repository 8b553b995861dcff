"""The replay rule: only the newest engine version's result of each match counts."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import pytest

from releases.versioned import REPLAY_KEY, newest_results, version_key


def deals(version: str, runs: Iterable[int], margin: int) -> list[dict[str, object]]:
    return [
        {
            "match_id": f"{version}/run-{r}.{d}",
            "game": "kuhn",
            "block": "block-1",
            "alice": ("a", "b")[d],
            "bob": ("b", "a")[d],
            "run_index": r,
            "deal": d,
            "engine_version": version,
            "margin_alice": margin,
        }
        for r in runs
        for d in (0, 1)
    ]


def test_a_replay_supersedes_older_results_and_keeps_them() -> None:
    # Runs 0-3 under 1.9.0; runs 0-1 replayed under 1.10.0 (numerically newer); run 4 only new.
    matches = pd.DataFrame(
        deals("1.9.0", range(4), 1) + deals("1.10.0", range(2), -1) + deals("1.10.0", [4], 0)
    )
    result = newest_results(matches)
    assert result.key == REPLAY_KEY
    assert len(result.superseded) == 4
    assert set(result.superseded["engine_version"]) == {"1.9.0"}
    assert set(result.superseded["run_index"]) == {0, 1}
    assert len(result.counted) == 10 and len(matches) == 14  # older rows stay, not counted
    assert result.summary() == {
        "match_key": list(REPLAY_KEY),
        "counted_matches": 10,
        "superseded_matches": 4,
        "counted_by_engine_version": {"1.9.0": 4, "1.10.0": 6},
        "newest_engine_version": "1.10.0",
    }


def test_a_single_version_supersedes_nothing_and_keeps_row_order() -> None:
    matches = pd.DataFrame(deals("1.0.0", range(3), 2))
    result = newest_results(matches, key="match_id")
    assert result.superseded.empty
    assert result.counted["match_id"].tolist() == matches["match_id"].tolist()


def test_two_results_of_one_match_under_one_version_are_refused() -> None:
    matches = pd.DataFrame(deals("1.0.0", range(1), 2) * 2)
    with pytest.raises(ValueError, match=r"two results under engine version 1\.0\.0"):
        newest_results(matches)
    with pytest.raises(ValueError, match="need column"):
        newest_results(matches.drop(columns=["engine_version"]))


def test_versions_compare_numerically_then_as_text() -> None:
    ordered = ["1.2", "1.9.9", "1.10.0", "1.10.0-rc1", "2.0.0"]
    assert sorted(reversed(ordered), key=version_key) == ordered
