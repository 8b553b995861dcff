"""Naming a game for the adapters, the action ids, and what a seat sees as text and numbers."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.adapters.common import GbgGame, OpenSpielGame, load_game, seat_index
from engines.gbg.engine import State
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.presets import kuhn, leduc
from engines.gbg.render import turn_prompt
from engines.openspiel.text import turn_prompt as openspiel_prompt
from engines.solve.openspiel_bridge import action_vocabulary
from tests.support import REPO_ROOT


def test_a_seed_is_generated_under_the_configuration_given() -> None:
    config = GenerationConfig(complexity=2.5)
    assert load_game("41", config=config).spec.spec_hash == generate(41, config).spec_hash
    assert load_game("41").spec.spec_hash == generate(41).spec_hash
    assert load_game("41", config="paper").spec.spec_hash != load_game("41").spec.spec_hash


def test_a_spec_file_and_a_spec_name_the_same_game(tmp_path: Path) -> None:
    path = tmp_path / "leduc.json"
    path.write_text(leduc().canonical_json())
    assert load_game(str(path)).spec.spec_hash == leduc().spec_hash
    assert load_game(leduc()).spec.spec_hash == leduc().spec_hash


def write_release(folder: Path, games: dict[str, str]) -> Path:
    (folder / "tables").mkdir(parents=True)
    frame = pd.DataFrame({"game": list(games), "spec_json": list(games.values())})
    frame.to_parquet(folder / "tables" / "benchmark_games.parquet")
    return folder


def test_a_release_game_is_the_spec_the_release_carries(tmp_path: Path) -> None:
    # token 7 carries the spec of seed 7 under another configuration: the adapter must not
    # generate seed 7 again under the default one
    carried = generate(7, GenerationConfig(complexity=3.0))
    release = write_release(tmp_path / "r1", {"7": carried.canonical_json()})
    for where in (release, release / "tables" / "benchmark_games.parquet"):
        assert load_game("7", release=where).spec.spec_hash == carried.spec_hash
    assert load_game("7").spec.spec_hash != carried.spec_hash
    assert load_game("kuhn", release=release).spec.spec_hash == kuhn().spec_hash
    with pytest.raises(ValueError, match="game '8' is not in the release at"):
        load_game("8", release=release)
    with pytest.raises(ValueError, match="no benchmark games table at"):
        load_game("7", release=tmp_path / "nothing")


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ("poker", "'poker' is not a game"),
        ("missing.json", "cannot read spec file missing.json"),
        ("openspiel:", "names no OpenSpiel game"),
        ("openspiel:matrix_rps", "not a sequential game"),
        ("openspiel:hanabi", "is not zero-sum"),
        ("openspiel:goofspiel(players=3)", "has 3 players"),
    ],
)
def test_a_bad_name_is_one_clear_value_error(game: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_game(game)
    with pytest.raises(ValueError, match="a game is a name"):
        load_game(42)  # type: ignore[arg-type]


def test_seats_are_named_the_three_ways() -> None:
    assert [seat_index(s) for s in (0, "bob", "player_1", np.int64(0), "Alice")] == [0, 1, 1, 0, 0]
    for bad in (2, "carol", 1.0, -1):
        with pytest.raises(ValueError, match="unknown seat"):
            seat_index(bad)  # type: ignore[arg-type]


def test_generated_action_ids_are_the_openspiel_bridge_vocabulary() -> None:
    game = load_game("leduc")
    assert isinstance(game, GbgGame)
    assert game.vocabulary == action_vocabulary(leduc())
    deal = game.new_deal(3)
    assert [game.vocabulary[i] for i in game.legal_ids(deal)] == sorted(
        deal.legal_actions(), key=game.vocabulary.index
    )


def visit(game: GbgGame, deals: int, seed: int) -> list[tuple[State, int]]:
    """Every (state, seat) of ``deals`` random deals."""
    out = []
    chooser = random.Random(seed)
    for play_seed in range(deals):
        deal = game.new_deal(play_seed)
        while True:
            out.extend((deal.clone(), seat) for seat in (0, 1))
            if deal.current_player < 0:
                break
            game.apply(deal, chooser.choice(game.legal_ids(deal)))
    return out


@pytest.mark.parametrize("preset", ["kuhn", "leduc"])
def test_on_kuhn_and_leduc_the_vector_tells_information_states_apart(preset: str) -> None:
    game = load_game(preset)
    assert isinstance(game, GbgGame)
    keys: dict[bytes, set[tuple[str, bool]]] = {}
    for deal, seat in visit(game, 400, 0):
        key = (deal.information_state(seat), deal.current_player == seat)
        keys.setdefault(game.encode(deal, seat).tobytes(), set()).add(key)
    assert all(len(found) == 1 for found in keys.values())
    assert len(keys) > (60 if preset == "kuhn" else 1000)


@settings(max_examples=20, deadline=None)
@given(
    game_seed=st.integers(min_value=0, max_value=10**6),
    complexity=st.floats(min_value=0.5, max_value=4.0),
)
def test_the_views_are_functions_of_the_information_state_across_the_dial(
    game_seed: int, complexity: float
) -> None:
    game = load_game(str(game_seed), config=GenerationConfig(complexity=complexity))
    assert isinstance(game, GbgGame)
    vectors: dict[tuple[str, bool], bytes] = {}
    for deal, seat in visit(game, 30, game_seed):
        vector = game.encode(deal, seat)
        assert vector.shape == (game.encoding_size,) and vector.dtype == np.float32
        assert vector.min() >= 0.0 and vector.max() <= 1.0
        key = (deal.information_state(seat), deal.current_player == seat)
        assert vectors.setdefault(key, vector.tobytes()) == vector.tobytes()
        text = game.text(deal, seat)
        assert text == turn_prompt(deal, seat)  # no character needed escaping
        assert set(text) <= set(game.charset)


def test_an_opponents_secret_choice_enters_the_vector_only_when_revealed() -> None:
    game = load_game("example4643")
    assert isinstance(game, GbgGame)
    slots = game.layout["decisions"]
    chooser = random.Random(1)
    hidden = revealed = 0
    for play_seed in range(100):
        deal = game.new_deal(play_seed)
        while deal.current_player >= 0:
            mover = deal.current_player
            before = game.encode(deal, 1 - mover)[slots]
            game.apply(deal, chooser.choice(game.legal_ids(deal)))
            after = game.encode(deal, 1 - mover)[slots]
            secret = deal.events[-1][:3] == (mover, "secret", mover)
            if secret:  # the other seat's decisions are unchanged: it did not see the choice
                assert np.array_equal(before, after)
                hidden += 1
            elif any(ev[1] == "reveal_choices" for ev in deal.events[-3:]):
                # the seat saw its own choice when it made it; the reveal adds the opponent's
                assert after.sum() == before.sum() + 1
                revealed += 1
    assert hidden > 0 and revealed > 0


def test_openspiel_games_use_openspiels_ids_tensor_and_prompt() -> None:
    game = load_game("openspiel:leduc_poker")
    assert isinstance(game, OpenSpielGame)
    assert game.num_actions == game.spec.game.num_distinct_actions()
    deal = game.new_deal(11)
    seat = deal.current_player
    assert game.legal_ids(deal) == sorted(deal.ps.legal_actions())
    assert np.array_equal(
        game.encode(deal, seat), np.asarray(deal.ps.information_state_tensor(seat), np.float32)
    )
    assert game.text(deal, seat) == openspiel_prompt(deal, seat)
    assert "Legal moves" not in game.text(deal, 1 - seat)
    with pytest.raises(ValueError, match="no tensor"):
        load_game("openspiel:coordinated_mp")


def test_apply_refuses_bad_actions_and_finished_deals() -> None:
    game = load_game("kuhn")
    deal = game.new_deal(0)
    illegal = next(a for a in range(game.num_actions) if a not in game.legal_ids(deal))
    with pytest.raises(ValueError, match=f"action {illegal} is not legal here; legal ids: "):
        game.apply(deal, illegal)
    for bad in ("check", None, 1.0, True):
        with pytest.raises(ValueError, match="an action is an integer id"):
            game.apply(deal, bad)
    while deal.current_player >= 0:
        game.apply(deal, game.legal_ids(deal)[0])
    with pytest.raises(ValueError, match="the deal is over"):
        game.apply(deal, 0)


def test_non_ascii_text_of_an_openspiel_game_is_escaped_into_the_charset() -> None:
    game = load_game("openspiel:kuhn_poker")

    class Shown(OpenSpielGame):
        def view(self, deal: object, seat: int) -> str:
            return "K\u2660 ok"

    shown = Shown(game.spec)
    assert shown.text(game.new_deal(0), 0) == "K\\u2660 ok"


def test_the_core_never_imports_the_adapters_or_their_frameworks() -> None:
    """The frameworks are optional: importing the CLI, the code location and the harness loads
    none of them, and no module outside arena/adapters imports the package."""
    frameworks = ("pettingzoo", "gymnasium", "textarena", "arena.adapters")
    probe = (
        "import sys, pipelines.cli, pipelines.definitions, arena.games, arena.reference_engines\n"
        f"print([m for m in sys.modules if m.startswith({frameworks!r})])"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    outside = [
        str(path.relative_to(REPO_ROOT))
        for package in ("engines", "arena", "quality", "releases", "assets", "pipelines")
        for path in (REPO_ROOT / package).rglob("*.py")
        if "adapters" not in path.parts
        and any(
            f"import {name}" in line or f"from {name}" in line
            for line in path.read_text().splitlines()
            for name in frameworks
        )
    ]
    assert outside == []
