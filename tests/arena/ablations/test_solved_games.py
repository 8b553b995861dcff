"""Exact solving in the ablations by the history gate (paper, Section 8: "on five games we
solve exactly"): the chosen games join the ablation, are solved whatever their number of
situations, and their sizes and times are tabled; benchmark games keep their stored specs."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ablations.opponents import estimate_policy, table_policy
from arena.ablations.runner import PROGRAMS, AblationSettings, _resolve, run_ablations
from arena.programs.sandbox import Program
from engines.gbg.generator import PAPER_CONFIG, generate
from engines.gbg.presets import kuhn
from engines.solve.best_response import respond

RANDOM = {"name": "random", "kind": "builtin", "agent": "random"}
CALL = {"name": "heuristic", "kind": "builtin", "agent": "heuristic"}


def test_the_gate_solves_the_smallest_candidate_and_tables_its_size(tmp_path: Path) -> None:
    # One situation at most for the configured game: only the history gate solves anything.
    # Kuhn (58 histories) fits under 1,000, Leduc does not; Kuhn joins the ablation's games.
    settings = AblationSettings(
        games=("kuhn",), runs=1, builtin_players=(RANDOM, CALL), siblings=False, bootstrap=10,
        max_situations=1, solved_games=1, solve_candidates=("leduc", "kuhn"),
        max_histories=1_000,
    )  # fmt: skip
    result = run_ablations(settings, {}, tmp_path)
    gate = result.sizing.set_index("game")
    assert gate.loc["kuhn", "chosen"] and gate.loc["kuhn", "histories"] == 58
    assert not gate.loc["leduc", "chosen"]
    assert gate.loc["leduc", "reason"] in ("over the limit", "estimate over the counting bound")
    solved = result.solved
    assert set(solved["game"]) == {"kuhn"} and set(solved["program"]) == {"bluffer", "cautious"}
    assert (solved["histories"] == 58).all() and (solved["infosets"] == 6).all()
    assert (solved[["policy_seconds", "expand_seconds", "solve_seconds"]] >= 0).all().all()
    # The values are the tree-of-states solver's against the program's estimated policy.
    row = result.solving.query("program == 'cautious' and seat == 'alice'").iloc[0]
    with Program(PROGRAMS / "cautious.py") as program:
        policy = table_policy(estimate_policy(program, kuhn(), 1, seeds=8))
    assert row["best_response"] == pytest.approx(respond(kuhn(), 0, policy, True).value)
    assert row["worst_response"] == pytest.approx(respond(kuhn(), 0, policy, False).value)
    assert (result.efficiency["game"] == "kuhn").all() and len(result.efficiency) > 0


def test_a_benchmark_token_keeps_its_stored_spec() -> None:
    # A bare seed means the default configuration; the paper configuration's game of that
    # seed comes from the benchmark's stored spec.
    paper = generate(5, PAPER_CONFIG)
    (game,) = _resolve(("5",), {"5": paper.canonical_json()})
    assert game.generated.spec_hash == paper.spec_hash
    (plain,) = _resolve(("5",), {})
    assert plain.generated.spec_hash != paper.spec_hash


def test_the_paper_profile_solves_five_and_the_demo_dump_is_unchanged() -> None:
    from assets.run_profiles import get_profile

    assert get_profile("paper").ablation_solved_games == 5
    assert get_profile("paper").model_dump()["ablation_solved_games"] == 5
    # Zero is left out of the dump, so the demo's recorded profile is what it was.
    assert "ablation_solved_games" not in get_profile("demo").model_dump()


def test_the_pool_makes_up_the_number_when_too_few_benchmark_games_fit() -> None:
    from arena.ablations.runner import choose_solved

    # Leduc (the benchmark's only game) is over 1,000 histories; the pool's Kuhn fits.
    settings = AblationSettings(
        games=(), solved_games=2, solve_candidates=("leduc",), solve_reserve=("kuhn", "leduc"),
        max_histories=1_000,
    )  # fmt: skip
    games, gate = choose_solved(settings)
    assert [g.token for g in games] == ["kuhn"]
    rows = {(r.game, r.source): r for r in gate.itertuples()}
    assert set(rows) == {("leduc", "benchmark"), ("kuhn", "pool")}  # leduc is sized once
    assert rows["kuhn", "pool"].chosen and rows["kuhn", "pool"].histories == 58
    assert not rows["leduc", "benchmark"].chosen
    # enough benchmark games fit: the pool is not searched
    enough = AblationSettings(
        games=(), solved_games=1, solve_candidates=("kuhn",), solve_reserve=("leduc",),
        max_histories=1_000,
    )  # fmt: skip
    games, gate = choose_solved(enough)
    assert [g.token for g in games] == ["kuhn"] and set(gate["source"]) == {"benchmark"}


def test_the_ablations_reserve_is_the_accepted_pool_outside_the_benchmark() -> None:
    import pandas as pd

    from arena.roster import load_roster
    from assets.ablations import AblationsConfig, settings_for
    from assets.roster import DEMO_ROSTER, roster_table
    from assets.run_profiles import get_profile

    specs = {seed: generate(seed, PAPER_CONFIG).canonical_json() for seed in (3, 5, 8)}
    benchmark = pd.DataFrame({"order": [0], "game": ["5"], "spec_json": [specs[5]]})
    pool = pd.DataFrame({"seed": list(specs), "spec_json": list(specs.values())})
    roster = roster_table(load_roster(DEMO_ROSTER))
    settings = settings_for(
        AblationsConfig(solved_games=2), roster, get_profile("demo"), benchmark, None, pool
    )
    assert settings.solve_candidates == ("5",) and settings.solve_reserve == ("3", "8")
    assert {t: settings.specs[t] for t in ("3", "5", "8")} == {str(k): v for k, v in specs.items()}
    # without solving, no reserve
    none = settings_for(AblationsConfig(solved_games=0), roster, get_profile("demo"), benchmark)
    assert none.solve_reserve == () and none.solve_candidates == ()
