"""The table gates: each passes on sound data and names the first offending row otherwise."""

from __future__ import annotations

import pandas as pd
import pytest

from engines.gbg import ENGINE_VERSION
from quality.gates import (
    complete_pairs,
    fallback_rates,
    game_attestation,
    match_attestation,
    rulebook_consistency,
    zero_sum,
)
from quality.release_gates import fold, release_gates, table_gates
from tests.quality.support import GAMES, sound_matches
from tests.releases.support import reference_table


def test_every_gate_passes_on_sound_data() -> None:
    matches = sound_matches()
    games = reference_table()
    for passed, figures, message in (
        fallback_rates(matches),
        zero_sum(matches),
        complete_pairs(matches),
        match_attestation(matches, GAMES, ENGINE_VERSION),
        rulebook_consistency(games),
        game_attestation(games, ENGINE_VERSION),
    ):
        assert passed, message
        assert figures and message


def test_fallback_rates_name_the_worst_model() -> None:
    matches = sound_matches(runs=10)
    assert fallback_rates(matches, max_rate=0.0).passed  # no fallbacks at all
    matches.loc[matches["alice"] == "bot-b", "fallbacks_alice"] = 1  # 1 of its 2 moves
    result = fallback_rates(matches, max_rate=0.05)
    assert not result.passed
    assert result.figures["worst_model"] == "bot-b"
    assert result.figures["rates"] == {"bot-a": 0.0, "bot-b": 0.25}
    assert "worst bot-b at 25.00%" in result.message
    # Without per-seat move counts, half of n_moves is each seat's share.
    assert fallback_rates(matches.drop(columns=["moves_alice", "moves_bob"])).figures["rates"] == {
        "bot-a": 0.0,
        "bot-b": 0.25,
    }


def test_zero_sum_catches_created_chips_and_wrong_margins() -> None:
    leak = sound_matches()
    leak.loc[3, "bob_chip_delta"] += 1
    result = zero_sum(leak)
    assert not result.passed and result.figures["not_conserved"] == 1
    assert f"match {leak.loc[3, 'match_id']}" in result.message
    margin = sound_matches()
    margin.loc[0, "margin_alice"] = 99
    assert "margin" in zero_sum(margin).message and not zero_sum(margin).passed


def test_zero_sum_checks_decided_matches_only_as_the_asset_check_does() -> None:
    # A timeout or an error carries no result (DESIGN "Data contracts"): its empty chip
    # columns are not a leak, in the release gate as in match_corpus's check.
    matches = sound_matches()
    matches.loc[0, ["status", "alice_chip_delta", "bob_chip_delta", "margin_alice"]] = [
        "error",
        None,
        None,
        None,
    ]
    result = zero_sum(matches)
    assert result.passed, result.message
    assert (
        result.message
        == f"all {len(matches) - 1} decided matches are zero-sum (1 without a result)"
    )


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda m: m.drop(index=1), "has 1 deal(s), not 2"),
        (lambda m: m.assign(status=["timeout"] + ["complete"] * (len(m) - 1)), "not complete"),
        (lambda m: m.assign(bob=["bot-a", *m["bob"][1:]]), "do not swap the seats"),
        (
            lambda m: m.assign(
                alice=["bot-a"] * 2 + [*m["alice"][2:]], bob=["bot-a"] * 2 + [*m["bob"][2:]]
            ),
            "same model",
        ),
    ],
)
def test_complete_pairs_names_the_broken_run(damage: object, expected: str) -> None:
    result = complete_pairs(damage(sound_matches()))  # type: ignore[operator]
    assert not result.passed and expected in result.message and "g-1-r0" in result.message


def test_attestation_catches_foreign_games_hashes_and_engines() -> None:
    matches = sound_matches()
    other = matches.copy()
    other.loc[2, "spec_hash"] = "0" * 64
    assert "differs from its frozen game" in match_attestation(other, GAMES, ENGINE_VERSION).message
    unknown = matches.assign(game_seed=matches["game_seed"].replace({7: 8}))
    assert "outside the frozen set" in match_attestation(unknown, GAMES, ENGINE_VERSION).message
    stale = match_attestation(matches, GAMES, "0.9.0")
    assert not stale.passed and stale.figures["engine_version_mismatches"] == len(matches)

    games = reference_table()
    games.loc[1, "spec_json"] = games.loc[1, "spec_json"].replace("leduc", "leduc2")
    result = game_attestation(games, ENGINE_VERSION)
    assert not result.passed and result.message.startswith("leduc: spec_hash is not")


def test_rulebook_consistency_names_the_game_and_the_gap() -> None:
    games = reference_table()
    games.loc[0, "rulebook"] = games.loc[0, "rulebook"].replace("Each player starts with", "?")
    result = rulebook_consistency(games)
    assert not result.passed and result.figures["inconsistent"] == 1
    assert "kuhn: stack" in result.message
    with pytest.raises(ValueError, match="needs column"):
        rulebook_consistency(games.drop(columns=["spec_json"]))


def test_release_gates_fold_tables_and_mark_what_does_not_apply() -> None:
    games = reference_table()
    gates = release_gates(
        {"reference_games": games}, engine_version=ENGINE_VERSION, with_expectations=False
    )
    assert gates["zero_sum"].message.startswith("not applicable")
    assert gates["rulebook_consistency"].passed
    # A match table without frozen games cannot be attested.
    alone = release_gates(
        {"complete_pairs": sound_matches()}, engine_version=ENGINE_VERSION, with_expectations=False
    )
    assert not alone["attestation"].passed and "no frozen games" in alone["attestation"].message
    per_table = {
        "complete_pairs": table_gates(
            "complete_pairs",
            sound_matches().drop(index=0),
            engine_version=ENGINE_VERSION,
            games=GAMES,
            with_expectations=False,
        )
    }
    folded = fold(per_table)
    assert not folded["complete_pairs"].passed
    assert folded["complete_pairs"].message.startswith("complete_pairs: 1 run(s)")
    assert folded["attestation"].passed and "complete_pairs" in folded["attestation"].figures


def test_presets_attest_through_their_tournament_game_seed() -> None:
    from engines.gbg import presets
    from engines.tournament.schedule import preset_game_seed
    from quality.release_gates import frozen_games

    frozen = frozen_games({"reference_games": reference_table()})
    assert frozen is not None
    assert frozen[preset_game_seed(presets.kuhn())] == presets.kuhn().spec_hash
    assert frozen_games({"roster": pd.DataFrame()}) is None


def test_a_benchmark_table_is_checked_against_rendered_rulebooks_and_attests_with_presets() -> None:
    from engines.gbg.generator import generate
    from quality.release_gates import frozen_games

    specs = {seed: generate(seed) for seed in (0, 4)}
    benchmark = pd.DataFrame(
        {
            "seed": list(specs),
            "spec_hash": [s.spec_hash for s in specs.values()],
            "spec_json": [s.canonical_json() for s in specs.values()],
        }
    )
    result = rulebook_consistency(benchmark)
    assert result.passed and result.figures["rendered"] is True
    frozen = frozen_games(
        {
            "benchmark_games": benchmark,
            "reference_games": reference_table(),
            "accepted_games": pd.DataFrame({"seed": [99], "spec_hash": ["x"]}),
        }
    )
    assert frozen is not None and frozen[4] == specs[4].spec_hash and len(frozen) == 2 + 4


def test_matches_of_the_openspiel_group_are_attested_to_its_games() -> None:
    """Issue 18: without generated games, the ``openspiel_games`` table is the frozen set and
    the matches are attested to its spec hashes under the engine version the release names."""
    version = "openspiel-adapter-1/open_spiel-2.0.2"
    games = pd.DataFrame(
        {"game": ["openspiel:a", "openspiel:b"], "game_seed": list(GAMES),
         "spec_hash": list(GAMES.values()), "engine_version": [version] * 2}
    )  # fmt: skip
    matches = sound_matches().assign(engine_version=version)
    tables = {"openspiel_games": games, "complete_pairs": matches}
    gates = release_gates(tables, engine_version=version, with_expectations=False)
    assert gates["attestation"].passed, gates["attestation"].message
    assert gates["attestation"].figures["complete_pairs"]["matches"] == len(matches)
    other = games.assign(spec_hash=games["spec_hash"].str[::-1])  # another game under the name
    failed = release_gates(
        {**tables, "openspiel_games": other}, engine_version=version, with_expectations=False
    )["attestation"]
    assert not failed.passed and "differs from its frozen game" in failed.message
    under = release_gates(tables, engine_version=ENGINE_VERSION, with_expectations=False)
    assert not under["attestation"].passed  # played under another engine than the release's
    assert "engine_version" in under["attestation"].message


def test_a_move_without_an_action_may_only_end_its_match() -> None:
    """The request that ended a match unanswered is recorded (every request counted, issue 41)
    as a last move without an action; the ``moves`` gate and the transcript's expectations
    let that one through and refuse a missing action anywhere else."""
    from quality.expectations import SUITES, expectations_gate
    from quality.gates import unfinished_moves

    moves = pd.DataFrame(
        {
            "match_id": ["m1", "m1", "m2", "m2"],
            "index": [0, 1, 0, 1],
            "seat": ["alice", "bob", "alice", "bob"],
            "player": ["a", "b", "a", "b"],
            "legal_actions": ["[]"] * 4,
            "action": ["call", None, "fold", "call"],
            "fallback": [False] * 4,
            "rethinks": [0] * 4,
        }
    )
    passed = unfinished_moves(moves)
    assert passed.passed and passed.figures == {"moves": 4, "unfinished": 1, "broken": 0}
    assert expectations_gate(moves, SUITES["match_moves"], "match_moves").passed
    broken = moves.assign(action=["call", "raise", None, "call"])
    failed = unfinished_moves(broken)
    assert not failed.passed
    assert (
        failed.message == "match m2 has a move without an action at index 0, before its last move"
    )
    assert "moves" in table_gates("match_moves", moves, engine_version=ENGINE_VERSION)
