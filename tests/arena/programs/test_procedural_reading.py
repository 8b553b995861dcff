"""The enumeration behind a program's reading and estimated policy
(``arena.programs.procedural_reading.situations``): complete on a small tree, bounded in
histories on a large one, shared between programs, and never needed by built-in players."""

from __future__ import annotations

from pathlib import Path

import pytest

import arena.ablations.runner as runner
from arena.ablations.opponents import estimate_policy
from arena.ablations.runner import PROGRAMS, AblationSettings, run_ablations
from arena.programs.procedural_reading import situations
from arena.programs.sandbox import Program
from engines.agents.equilibrium import count_histories
from engines.gbg import presets
from engines.gbg.generator import generate, named_config

KUHN = presets.kuhn()


def test_the_enumeration_is_complete_exactly_when_the_tree_fits_the_node_bound() -> None:
    size = count_histories(KUHN, 10**6)
    for seat in (0, 1):
        found, complete = situations(KUHN, seat, max_nodes=size)
        assert complete and len(found) == 6  # a card and a betting history: 3 x 2
        _, complete = situations(KUHN, seat, max_nodes=size - 1)
        assert not complete  # sampled play instead
    with pytest.raises(ValueError, match="max_nodes must be at least 1"):
        situations(KUHN, 0, max_nodes=0)


def test_a_game_with_few_situations_and_a_vast_tree_is_sampled_not_walked() -> None:
    """Paper-configuration seed 5000 (the second benchmark game of the paper profile's first
    edition): its tree has about 4e22 histories (Knuth's estimate), so an unbounded
    enumeration never ended; bounded, it falls back to sampled play, and its policy is
    refused as too large to solve."""
    spec = generate(5000, named_config("paper"))
    assert count_histories(spec, 10**5) > 10**5
    found, complete = situations(spec, 0, max_situations=2000, max_nodes=10**5)
    assert not complete and found
    too_large = "situations or 100,000 histories; too large"
    with Program(PROGRAMS / "cautious.py") as program, pytest.raises(ValueError, match=too_large):
        estimate_policy(program, spec, 0, max_nodes=10**5)


def test_the_enumeration_is_shared_and_callers_get_their_own_list() -> None:
    first, _ = situations(KUHN, 1)
    kept = list(first)
    first.clear()
    again, complete = situations(KUHN, 1)
    assert complete and len(again) == 6
    assert all(a is b for a, b in zip(again, kept, strict=True))  # one enumeration, not two


def test_built_in_players_never_read_a_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reading is the disclosed LLM's appendix: an ablation of built-in players alone
    makes none (it was the paper profile's longest step: readings of every benchmark game)."""

    def refuse(*_: object, **__: object) -> str:
        raise AssertionError("a reading was made for built-in players")

    monkeypatch.setattr(runner, "reading", refuse)
    settings = AblationSettings(
        games=("kuhn",),
        runs=1,
        builtin_players=({"name": "random", "kind": "builtin", "agent": "random"},),
        bootstrap=10,
    )
    result = run_ablations(settings, {}, tmp_path)
    assert set(result.matches["status"]) == {"complete"}
    assert {"search-low", "search-high", "random"} <= set(result.matches["player"])
