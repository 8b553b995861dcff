"""The validity_checks stage: the whole-strategy check on real games (a game without decisions
has no interaction, a planted known answer) and the screening agreement's glue."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from assets import validity
from engines.axes.screening import SCREENING_AXES
from engines.gbg.presets import kuhn
from engines.gbg.spec import DealPhase, GameSpec, Metric, Rank, Showdown
from engines.stats.composite import regressor_zscores, zscore_axes
from engines.stats.leaderboard import RunSample
from engines.stats.pergame import per_game_alpha
from engines.stats.planted import SimulationConfig, simulate_corpus
from engines.stats.runs import run_table
from engines.stats.validity import screening_agreement


def no_decisions() -> GameSpec:
    """Cards only: every strategy plays the same game, so no strategy effect at all."""
    return GameSpec(
        name="cards-only",
        deck={
            "ranks": [Rank(label=x, value=v) for x, v in (("J", 11), ("Q", 12), ("K", 13))],
            "suits": ["♠"],
        },
        stack=2,
        ante=1,
        phases=[DealPhase(id="deal", count=1)],
        showdown=Showdown(metric=Metric(kind="high_card")),
    )


def test_whole_strategy_check_on_real_games() -> None:
    games = pd.DataFrame(
        {
            "game": ["cards", "kuhn"],
            "seed": [1, 2],
            "spec_json": [no_decisions().canonical_json(), kuhn().canonical_json()],
        }
    )
    axes = pd.DataFrame({"game": ["cards", "kuhn"], "opponent": [0.0, 0.1]})
    frame, summary = validity.whole_strategy_check(games, axes, "quick")
    shares = dict(zip(frame["game"], frame["interaction_share"], strict=True))
    assert shares["cards"] == 0.0  # no decision: rows, columns and interaction all zero
    assert np.isfinite(shares["kuhn"]) and abs(shares["kuhn"]) < 0.5
    assert (summary["per_seat"], summary["deals"]) == (8, 16)


def test_screening_check_is_the_agreement_of_the_two_composites() -> None:
    corpus = simulate_corpus(
        SimulationConfig(n_models=5, n_games=10, n_late_models=0, runs_per_matchup=3),
        np.random.default_rng(9),
    )
    rng = np.random.default_rng(3)
    seeds = corpus.axis_scores["game_seed"].to_numpy()
    bench = pd.DataFrame(
        {"seed": seeds, **{a: rng.normal(size=len(seeds)) for a in SCREENING_AXES}}
    )
    axis_frame = corpus.axis_scores.assign(game=[str(s) for s in seeds])
    got = validity.screening_check(corpus.matches, axis_frame, bench)
    # A game outside the benchmark (a preset played beside it) is left out, not an error.
    extra = corpus.matches.iloc[:2].assign(game_seed=-1)
    again = validity.screening_check(pd.concat([corpus.matches, extra]), axis_frame, bench)
    assert again["rho"] == pytest.approx(got["rho"])
    runs = run_table(corpus.matches)
    alpha = per_game_alpha(runs, RunSample.draw(runs, 1, np.random.default_rng(0)).observed)[0]
    z = zscore_axes(axis_frame, runs.game_seeds)
    zs = regressor_zscores(bench.set_index("seed").loc[list(runs.game_seeds)].to_numpy(float))
    want = screening_agreement(alpha, z, zs, SCREENING_AXES.index("temporal_depth"))
    assert got["rho"] == pytest.approx(want["rho"])
    assert got["shared_hardest"] == want["shared_hardest"]
    table = validity.validity_rows({"median_share": 0.001, "rho_with_axis": 0.5}, got)
    assert list(table.columns) == list(validity.VALIDITY_COLUMNS)
    assert table["paper"].tolist() == ["0.06%", "0.74", "0.80", "7 of 8"]
