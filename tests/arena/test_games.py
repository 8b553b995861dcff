"""Naming games and carrying their identity (issue 39, items 1 and 7): a seed is a game only
under a configuration; a catalogue carries specs; games cross process boundaries as specs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import (
    catalogue_from_table,
    catalogued_game,
    game_records,
    games_from_records,
    generation_config,
    resolve_games,
)
from engines.gbg.generator import generate, named_config

CONFIGS = st.one_of(
    st.sampled_from(["default", "paper"]).map(named_config),
    st.floats(0.5, 4.0).map(lambda c: named_config("default").model_copy(update={"complexity": c})),
)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**12), config=CONFIGS)
def test_a_game_crosses_a_process_boundary_as_its_spec(seed: int, config: object) -> None:
    (game,) = resolve_games([str(seed)], config)  # type: ignore[arg-type]
    (back,) = games_from_records(game_records([game]))
    assert back.spec.spec_hash == game.spec.spec_hash == generate(seed, config).spec_hash  # type: ignore[arg-type]
    assert (back.token, back.game_seed) == (game.token, game.game_seed)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_a_catalogued_seed_is_the_spec_it_carries_whatever_the_default(seed: int) -> None:
    paper = generate(seed, named_config("paper"))
    table = pd.DataFrame(
        {"game": [str(seed)], "seed": [seed], "spec_hash": [paper.spec_hash],
         "spec_json": [paper.canonical_json()]}
    )  # fmt: skip
    catalogue = catalogue_from_table(table)
    assert catalogued_game(str(seed), catalogue, "benchmark_games").spec.spec_hash == (
        paper.spec_hash
    )
    (game,) = resolve_games([str(seed)], catalogue=catalogue)
    assert game.spec.spec_hash == paper.spec_hash
    with pytest.raises(ValueError, match=f"game '{seed + 1}' is not in benchmark_games"):
        catalogued_game(str(seed + 1), catalogue, "benchmark_games")
    assert catalogued_game("kuhn", catalogue, "benchmark_games").token == "kuhn"


def test_a_table_without_specs_or_with_a_bad_one_is_one_line() -> None:
    with pytest.raises(ValueError, match="holds no game specs"):
        catalogue_from_table(pd.DataFrame({"game": ["1"]}))
    with pytest.raises(ValueError, match="game 1: invalid spec"):
        catalogue_from_table(pd.DataFrame({"game": ["1"], "spec_json": ['{"name": 3}']}))
    first, second = generate(1), generate(2)
    twice = pd.DataFrame({"game": ["1", "1"], "spec_json": [first.canonical_json(),
                                                            second.canonical_json()]})  # fmt: skip
    with pytest.raises(ValueError, match="game 1 is listed twice with different specs"):
        catalogue_from_table(twice)


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        ("", ".json", "is not valid json"),
        ("[1, 2]", ".json", "must hold a mapping of settings"),
        ("complexity: [", ".yaml", "is not valid yaml"),
        ("complexity: 9", ".yaml", "invalid generation config in"),
        ("colour: red", ".yml", "invalid generation config in"),
    ],
)
def test_a_bad_configuration_file_is_one_line(
    tmp_path: Path, content: str, suffix: str, message: str
) -> None:
    path = tmp_path / f"config{suffix}"
    path.write_text(content)
    with pytest.raises(ValueError, match=message) as refused:
        generation_config(str(path))
    assert "\n" not in str(refused.value)


def test_named_configurations_and_files_agree() -> None:
    assert generation_config(None) == generation_config("default") == named_config("default")
    assert generation_config("paper") == named_config("paper")
    with pytest.raises(ValueError, match="unknown generation configuration 'Paper'"):
        generation_config("Paper")
