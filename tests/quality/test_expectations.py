"""great_expectations suites: a sound table passes, an out-of-range or missing column fails by
name. One module, so the seconds of great_expectations' import are paid once."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from arena.roster import parse_roster
from assets.roster import roster_table
from quality.expectations import SUITES, expectations_gate
from tests.quality.support import sound_matches
from tests.releases.support import reference_table


def test_every_suite_names_real_expectations() -> None:
    import great_expectations as gx

    for table, suite in SUITES.items():
        for kind, kwargs in suite:
            assert getattr(gx.expectations, kind)(**kwargs) is not None, (table, kind)


def test_sound_tables_meet_their_suites() -> None:
    for name, frame in (
        ("complete_pairs", sound_matches()),
        ("reference_games", reference_table()),
    ):
        result = expectations_gate(frame, SUITES[name], name)
        assert result.passed, result.message
        assert result.figures["unmet"] == 0 and result.figures["expectations"] == len(SUITES[name])


def test_an_out_of_range_column_is_caught_and_named() -> None:
    matches = sound_matches()
    matches.loc[4, "n_moves"] = -3
    matches.loc[5, "status"] = "abandoned"
    result = expectations_gate(matches, SUITES["match_corpus"], "match_corpus")
    assert not result.passed
    assert result.figures["unmet"] == 2
    assert result.message.startswith("match_corpus: 2 expectation(s) unmet;")
    failed = " | ".join(result.figures["failed"])
    assert "ExpectColumnValuesToBeInSet(status): 1 unexpected value(s), e.g. 'abandoned'" in failed
    assert "ExpectColumnValuesToBeBetween(n_moves): 1 unexpected value(s), e.g. -3" in failed


def test_a_missing_column_and_a_reversed_interval_are_caught() -> None:
    board = pd.DataFrame(
        {
            "model": ["a", "b"],
            "alpha": [1.0, -1.0],
            "ci_low": [0.5, -0.5],
            "ci_high": [1.5, -1.5],  # b's interval is reversed
            "rank": [1, 2],
        }
    )
    result = expectations_gate(board, SUITES["leaderboards"], "leaderboards")
    assert not result.passed
    failed = " | ".join(result.figures["failed"])
    assert "ExpectColumnToExist(matches)" in failed
    assert "ExpectColumnPairValuesAToBeGreaterThanB(ci_high, ci_low)" in failed


def _roster_with_a_program(folder: Path) -> pd.DataFrame:
    program = folder / "first.py"
    program.write_text("def act(observation, legal_actions, rng):\n    return legal_actions[0]\n")
    return roster_table(
        parse_roster(
            {
                "players": [
                    {"name": "random", "kind": "builtin", "agent": "random"},
                    {"name": "first", "kind": "program", "path": str(program)},
                ]
            }
        )
    )


def test_a_roster_with_a_program_player_meets_its_suite(tmp_path: Path) -> None:
    result = expectations_gate(_roster_with_a_program(tmp_path), SUITES["roster"], "roster")
    assert result.passed, result.message


def test_a_program_player_without_a_code_hash_is_caught(tmp_path: Path) -> None:
    roster = _roster_with_a_program(tmp_path)
    roster.loc[roster["name"] == "first", "code_sha256"] = "not-a-hash"
    result = expectations_gate(roster, SUITES["roster"], "roster")
    assert not result.passed
    assert "ExpectColumnValuesToMatchRegex(code_sha256)" in " | ".join(result.figures["failed"])
