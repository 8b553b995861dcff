"""Editions (issue 39, items 5-6): anchored scores per edition on one scale, the trend table and
figure, the saturation figures pinned on hand-built corpora, and the verdict's rule."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import plotting
from engines.gbg.generator import GenerationConfig
from engines.stats.anchored import scales_with_flags
from engines.stats.anchored_planted import PlantedWorld
from engines.stats.editions import (
    COMPLEXITY_CEILING,
    EDITION_COLUMNS,
    HARDER,
    KEEP,
    MORE_EVIDENCE,
    SATURATION_COLUMNS,
    SATURATION_KEYS,
    SaturationRule,
    edition_rng,
    edition_saturation,
    edition_scores,
    saturation,
    saturation_verdict,
    swept_games,
    trend_figure,
    trend_table,
)
from engines.stats.reference_field import reference_field

FIELD = reference_field("gbg-builtin-v1")
FIELD_THETA = {"random": -1.0, "heuristic": 0.3, "search-2": 0.8}


def run_rows(
    game: int, x: str, y: str, m1: float, m2: float, run: int, status2: str = "complete"
) -> list[dict[str, object]]:
    """One run: deal 0 with ``x`` as Alice (Alice's margin ``m1``), deal 1 with the seats
    swapped (Alice's, i.e. ``y``'s, margin ``m2``). ``x``'s run margin is ``m1 - m2``."""
    return [
        {
            "match_id": f"r{run}.{deal}",
            "game_seed": game,
            "block": "hand",
            "run_id": f"r{run}",
            "play_seed": run,
            "alice": alice,
            "bob": bob,
            "alice_chip_delta": margin / 2,
            "bob_chip_delta": -margin / 2,
            "margin_alice": margin,
            "status": status,
        }
        for deal, (alice, bob, margin, status) in enumerate(
            ((x, y, m1, "complete"), (y, x, m2, status2))
        )
    ]


def hand_corpus() -> pd.DataFrame:
    """Top entrant A on four games (A's run margins in the comments):
    game 11: +8 against random; +4 against B though it lost deal 0 (sits Bob first) -> swept;
    game 12: +4 against heuristic; 0 against B (a tied run is not won) -> not swept;
    game 13: +6 and +4 against search-2; a run against B that A lost is incomplete (deal 1
             timed out), so it does not count -> swept;
    game 14: A does not play (B against C)."""
    runs = [
        (11, "A", "random", 4, -4),
        (11, "B", "A", 2, 6),
        (12, "A", "heuristic", 2, -2),
        (12, "A", "B", 2, 2),
        (13, "A", "search-2", 6, 0),
        (13, "A", "search-2", 2, -2),
        (14, "B", "C", 2, -2),
    ]
    rows = [r for k, run in enumerate(runs) for r in run_rows(*run, run=k)]
    rows += run_rows(13, "A", "B", -10, 10, run=99, status2="timeout")
    return pd.DataFrame(rows)


def hand_ratings() -> pd.DataFrame:
    """An anchored table by hand: three ranked entrants, a provisional one and members (both
    left out of the figures)."""
    return pd.DataFrame(
        {
            "model": ["D", "A", "B", "C", "search-2", "random"],
            "role": ["entrant", "entrant", "entrant", "entrant", "reference", "reference"],
            "status": ["provisional", "ranked", "ranked", "ranked", "reference", "reference"],
            "rating": [10.0, 3.0, 2.0, 0.5, 9.0, 0.0],
            "rating_low": [5.0, 2.5, 1.0, 0.0, 8.0, 0.0],
            "rating_high": [15.0, 3.5, 2.8, 0.9, 10.0, 0.0],
            "score": [99.0, 95.0, 80.0, 60.0, 90.0, 20.0],
        }
    )


def test_saturation_figures_of_a_hand_corpus() -> None:
    """Pinned by hand: spread 3.0 - 0.5; SD (ddof 0) of (3, 2, 0.5) = sqrt(19/18) (squared
    deviations 49/36 + 1/36 + 64/36 over 3); tiers: B's interval reaches A's low end (2.8 >=
    2.5), C's does not (0.9 < 2.5) -> 2; A plays games 11-13 and sweeps 11 and 13 -> 2/3."""
    figures = saturation(hand_corpus(), hand_ratings())
    assert list(figures) == list(SATURATION_KEYS)
    assert figures["players"] == 3 and figures["top"] == "A"
    assert figures["spread"] == pytest.approx(2.5)
    assert figures["sd"] == pytest.approx(math.sqrt(19 / 18))
    assert figures["tiers"] == 2
    assert (figures["games"], figures["swept_games"]) == (3, 2)
    assert figures["swept_share"] == pytest.approx(2 / 3)
    assert (figures["top_score"], figures["floor_score"]) == (95.0, 60.0)
    # a tighter interval for B splits it from A: three tiers
    tighter = hand_ratings()
    tighter.loc[tighter["model"] == "B", "rating_high"] = 2.4
    assert saturation(hand_corpus(), tighter)["tiers"] == 3
    # naming the players overrides role and status; a leaderboard's columns work too
    board = hand_ratings().rename(columns={"rating": "alpha", "rating_low": "ci_low"})
    board = board.rename(columns={"rating_high": "ci_high"}).drop(columns=["role", "status"])
    named = saturation(
        hand_corpus(), board, value="alpha", low="ci_low", high="ci_high", players=["B", "C"]
    )
    assert (named["top"], named["spread"], named["tiers"]) == ("B", 1.5, 2)
    # B plays 11, 12 and 14 (13's run is incomplete): it loses on 11 (-4), ties on 12, wins 14
    assert (named["games"], named["swept_games"]) == (3, 1)


def test_swept_games_reads_runs_from_the_players_side() -> None:
    corpus = hand_corpus()
    assert swept_games(corpus, "A") == (3, 2)
    assert swept_games(corpus, "random") == (1, 0)
    assert swept_games(corpus, "nobody") == (0, 0)
    # turning A's tied run on game 12 into a win (+2 -> +4 in deal 0) sweeps game 12 too
    won = corpus.copy()
    deal = won["match_id"] == "r3.0"
    won.loc[deal, ["margin_alice", "alice_chip_delta", "bob_chip_delta"]] = [4.0, 2.0, -2.0]
    assert swept_games(won, "A") == (3, 3)


def test_no_entrant_and_no_game_give_empty_figures() -> None:
    members_only = hand_ratings().loc[lambda f: f["role"] == "reference"]
    figures = saturation(hand_corpus(), members_only)
    assert figures["players"] == 0 and figures["top"] is None and figures["tiers"] == 0
    assert math.isnan(figures["spread"]) and math.isnan(figures["swept_share"])
    absent = saturation(hand_corpus(), hand_ratings(), players=["D"])
    assert (absent["top"], absent["games"]) == ("D", 0) and math.isnan(absent["swept_share"])
    verdict = saturation_verdict(figures)
    assert verdict["action"] == KEEP and not verdict["saturated"]


def figures_of(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "players": 4, "top": "A", "spread": 3.0, "sd": 1.0, "tiers": 3, "games": 10,
        "swept_games": 2, "swept_share": 0.2, "top_score": 90.0, "floor_score": 40.0,
    }  # fmt: skip
    return {**base, **overrides}


def test_verdict_follows_the_documented_rule() -> None:
    keep = saturation_verdict(figures_of(), complexity=1.0)
    assert keep == {
        "saturated": False, "action": KEEP, "reasons": [], "complexity": 1.0,
        "next_complexity": 1.0,
    }  # fmt: skip
    # 1. swept: at the threshold (5 of 10 = 50%) the field is saturated; one game less is not
    swept = saturation_verdict(figures_of(swept_games=5, swept_share=0.5), complexity=1.0)
    assert swept["saturated"] and swept["action"] == HARDER and swept["next_complexity"] == 1.5
    assert swept["reasons"] == [
        "the top entrant A wins every paired deal on 5 of 10 games (50% >= 50%)"
    ]
    assert not saturation_verdict(figures_of(swept_share=0.4))["saturated"]
    # 2. ceiling: one tier, every entrant at >= 90 against the field
    ceiling = saturation_verdict(figures_of(tiers=1, floor_score=92.5), complexity=2.0)
    assert ceiling["action"] == HARDER and ceiling["next_complexity"] == 2.5
    assert ceiling["reasons"] == [
        "4 entrants in 1 tier(s), all scoring >= 90 against the field (lowest 92.5)"
    ]
    # 3. one tier below the ceiling: more evidence, same dial
    unresolved = saturation_verdict(figures_of(tiers=1, floor_score=60.0), complexity=2.0)
    assert unresolved["action"] == MORE_EVIDENCE and not unresolved["saturated"]
    assert unresolved["next_complexity"] == 2.0
    # one entrant cannot be compressed, but can sweep
    alone = figures_of(players=1, tiers=1, floor_score=95.0)
    assert saturation_verdict(alone)["action"] == KEEP
    assert saturation_verdict({**alone, "swept_share": 0.9})["action"] == HARDER
    # at the generator's ceiling the dial stays and the reasons say so
    top = saturation_verdict(figures_of(swept_share=1.0), complexity=3.8)
    assert top["next_complexity"] == COMPLEXITY_CEILING
    stuck = saturation_verdict(figures_of(swept_share=1.0), complexity=COMPLEXITY_CEILING)
    assert stuck["next_complexity"] == COMPLEXITY_CEILING
    assert "cannot draw harder games" in stuck["reasons"][-1]
    # a custom rule
    strict = SaturationRule(max_swept_share=0.2, complexity_step=0.25)
    assert saturation_verdict(figures_of(), 1.0, strict)["next_complexity"] == 1.25


def test_rule_bounds_and_the_generators_dial() -> None:
    """The dial's ceiling here is the generator's own bound on ``complexity``."""
    (bound,) = [
        m.le for m in GenerationConfig.model_fields["complexity"].metadata if hasattr(m, "le")
    ]
    assert bound == COMPLEXITY_CEILING
    for bad in (
        {"max_swept_share": 0.0},
        {"max_swept_share": 1.5},
        {"min_tiers": 0},
        {"ceiling_score": 101.0},
        {"complexity_step": 0.0},
    ):
        with pytest.raises(ValueError):
            SaturationRule(**bad)


def world(entrants: dict[str, float], **kwargs: object) -> PlantedWorld:
    return PlantedWorld(FIELD, {**FIELD_THETA, **entrants}, **kwargs)  # type: ignore[arg-type]


def editions_of(w: PlantedWorld, n: int, seed: int) -> dict[int, pd.DataFrame]:
    """``n`` editions of one planted world, each on its own game seeds (100 e + 1000 + g)."""
    rng = np.random.default_rng(seed)
    return {
        e: w.sample_matches(rng).assign(game_seed=lambda f, e=e: f["game_seed"] + 100 * e)
        for e in range(1, n + 1)
    }


def test_edition_scores_are_each_editions_anchored_table() -> None:
    corpora = editions_of(world({"a": 1.0, "b": -0.2}, games=2, field_runs=8, entrant_runs=8), 3, 1)
    scores = edition_scores(corpora, FIELD, n_boot=40, seed=7)
    assert list(scores.columns) == list(EDITION_COLUMNS)
    assert list(scores["edition"].unique()) == [1, 2, 3]
    for e, corpus in corpora.items():
        table, note = scales_with_flags(corpus, FIELD, edition_rng(7, e), 40)
        mine = scores.loc[scores["edition"] == e].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine.drop(columns=["edition", "note"]), table)
        assert (mine["note"] == note).all() and note == ""
    # an edition's rows do not depend on which other editions are scored with it
    alone = edition_scores({3: corpora[3]}, FIELD, n_boot=40, seed=7)
    pd.testing.assert_frame_equal(alone, scores.loc[scores["edition"] == 3].reset_index(drop=True))
    # an edition whose corpus lacks a member keeps its rows, unscored, with the reason
    broken = {
        **corpora,
        2: corpora[2].loc[lambda f: (f["alice"] != "heuristic") & (f["bob"] != "heuristic")],
    }
    rows = edition_scores(broken, FIELD, n_boot=10).loc[lambda f: f["edition"] == 2]
    assert rows["note"].str.contains("lacks reference member").all()
    assert (
        rows["rating"].isna().all()
        and (rows.loc[rows["role"] == "entrant", "status"] == "provisional").all()
    )


def test_editions_must_be_numbered_and_disjoint() -> None:
    corpora = editions_of(world({"a": 0.0}, games=2, field_runs=3, entrant_runs=3), 2, 2)
    with pytest.raises(ValueError, match="edition 2 reuses game seed"):
        edition_scores({1: corpora[1], 2: corpora[1]}, FIELD, n_boot=5)
    with pytest.raises(ValueError, match="positive integers"):
        edition_scores({0: corpora[1]}, FIELD, n_boot=5)
    with pytest.raises(ValueError, match="no editions"):
        edition_scores({}, FIELD, n_boot=5)
    with pytest.raises(ValueError, match="lacks column game_seed"):
        edition_scores({1: corpora[1].drop(columns=["game_seed"])}, FIELD, n_boot=5)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    extra=st.floats(-2.0, 2.0),
    between=st.integers(0, 4),
    edition=st.integers(1, 3),
)
def test_adding_an_entrant_never_moves_another_across_editions(
    seed: int, extra: float, between: int, edition: int
) -> None:
    """A new entrant in one edition (runs against the field and against the others) leaves
    every other player's point estimates, on all three scales and in every edition, where they
    were; the editions it did not enter are unchanged to the last bit, intervals included."""
    base = world({"a": 0.5, "b": -0.3}, games=2, field_runs=5, entrant_runs=5)
    corpora = editions_of(base, 3, seed)
    bigger = world(
        {"a": 0.5, "b": -0.3, "z": extra}, games=2, field_runs=5, entrant_runs=5,
        entrant_runs_between=between,
    )  # fmt: skip
    more = bigger.sample_matches(np.random.default_rng(seed + 1))
    more = more.loc[(more["alice"] == "z") | (more["bob"] == "z")].assign(
        run_id=lambda f: "z" + f["run_id"],
        match_id=lambda f: "z" + f["match_id"],
        game_seed=lambda f: f["game_seed"] + 100 * edition,
    )
    joined = {**corpora, edition: pd.concat([corpora[edition], more], ignore_index=True)}
    before = edition_scores(corpora, FIELD, n_boot=3, seed=seed).set_index(["edition", "model"])
    after = edition_scores(joined, FIELD, n_boot=3, seed=seed).set_index(["edition", "model"])
    assert set(after.index) - set(before.index) == {(edition, "z")}
    for which in ("rating", "score", "elo"):
        np.testing.assert_allclose(
            after.loc[before.index, which].to_numpy(dtype=float),
            before[which].to_numpy(dtype=float),
            rtol=0,
            atol=1e-9,
        )
    untouched = [e for e in (1, 2, 3) if e != edition]
    pd.testing.assert_frame_equal(after.loc[untouched], before.loc[untouched])


run_spec = st.tuples(
    st.integers(0, 3),  # game
    st.integers(0, 4),  # first player
    st.integers(1, 4),  # offset to the second player
    st.integers(-4, 4),  # deal margins (x2 chips)
    st.integers(-4, 4),
)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    runs=st.lists(run_spec, min_size=1, max_size=30),
    ratings=st.lists(
        st.tuples(st.floats(-5, 5), st.floats(0, 3), st.floats(0, 3)), min_size=5, max_size=5
    ),
    ranked=st.lists(st.booleans(), min_size=5, max_size=5),
)
def test_saturation_invariants_over_random_corpora(
    runs: list[tuple[int, int, int, int, int]],
    ratings: list[tuple[float, float, float]],
    ranked: list[bool],
) -> None:
    """Spread >= 0 and SD <= spread / 2 (the largest SD of values within a range), 1 <= tiers
    <= players, swept games <= games, share in [0, 1]; the swept games agree with a direct
    count over the generated runs."""
    names = ["p0", "p1", "p2", "p3", "p4"]
    rows = []
    for k, (game, i, step, m1, m2) in enumerate(runs):
        rows += run_rows(game, names[i], names[(i + step) % 5], 2 * m1, 2 * m2, run=k)
    corpus = pd.DataFrame(rows)
    table = pd.DataFrame(
        {
            "model": names,
            "role": "entrant",
            "status": ["ranked" if r else "provisional" for r in ranked],
            "rating": [r[0] for r in ratings],
            "rating_low": [r[0] - r[1] for r in ratings],
            "rating_high": [r[0] + r[2] for r in ratings],
        }
    )
    figures = saturation(corpus, table)
    n = sum(ranked)
    assert figures["players"] == n
    if n == 0:
        assert figures["tiers"] == 0 and figures["top"] is None
        return
    assert figures["spread"] >= 0 and 0 <= figures["sd"] <= figures["spread"] / 2 + 1e-12
    assert 1 <= figures["tiers"] <= n
    assert 0 <= figures["swept_games"] <= figures["games"] <= 4
    top = figures["top"]
    assert table.loc[table["model"] == top, "rating"].iloc[0] == max(
        r[0] for r, keep in zip(ratings, ranked, strict=True) if keep
    )
    margins: dict[int, list[int]] = {}
    for game, i, step, m1, m2 in runs:
        x, y = names[i], names[(i + step) % 5]
        if top in (x, y):
            margins.setdefault(game, []).append((m1 - m2) if x == top else (m2 - m1))
    assert figures["games"] == len(margins)
    assert figures["swept_games"] == sum(all(m > 0 for m in ms) for ms in margins.values())
    if figures["games"]:
        assert 0.0 <= figures["swept_share"] <= 1.0


def test_a_dominant_entrant_makes_the_next_edition_harder() -> None:
    """End to end: an entrant planted far above the field (logit 9 against the strongest
    member's 0.8) wins every run on every game of every edition; the watch says harder."""
    w = world({"ace": 9.0, "b": 0.0}, games=4, field_runs=6, entrant_runs=3, entrant_runs_between=2)
    corpora = editions_of(w, 3, 11)
    scores = edition_scores(corpora, FIELD, n_boot=100, seed=3)
    watch = edition_saturation(corpora, scores, complexity={1: 1.0, 2: 1.5, 3: 4.0})
    assert list(watch.columns) == list(SATURATION_COLUMNS)
    assert (watch["top"] == "ace").all() and (watch["games"] == 4).all()
    assert (watch["swept_share"] == 1.0).all() and (watch["tiers"] == 2).all()
    assert list(watch["action"]) == [HARDER] * 3
    assert list(watch["next_complexity"]) == [1.5, 2.0, 4.0]
    assert "cannot draw harder games" in watch["reasons"].iloc[2]


def scores_by_hand() -> pd.DataFrame:
    """x: 50, 60, absent; y: 70, no scale, 65; m: a member at 30 throughout."""
    rows = [
        (1, "x", "entrant", 50.0), (2, "x", "entrant", 60.0),
        (1, "y", "entrant", 70.0), (2, "y", "entrant", float("nan")), (3, "y", "entrant", 65.0),
        (1, "m", "reference", 30.0), (2, "m", "reference", 30.0), (3, "m", "reference", 30.0),
    ]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["edition", "model", "role", "score"])
    return frame.assign(score_low=frame["score"] - 5, score_high=frame["score"] + 5)


def test_trend_table_is_player_by_edition() -> None:
    table = trend_table(scores_by_hand())
    assert list(table.index) == ["y", "x"]  # by the latest edition each played: 65, then 60
    assert list(table.columns) == [1, 2, 3] and table.columns.name == "edition"
    expected = [[70.0, math.nan, 65.0], [50.0, 60.0, math.nan]]
    np.testing.assert_array_equal(table.to_numpy(), np.array(expected))
    everyone = trend_table(scores_by_hand(), roles=None)
    assert list(everyone.index) == ["y", "x", "m"]
    with pytest.raises(ValueError, match="value must be one of"):
        trend_table(scores_by_hand(), value="alpha")


def test_trend_figure_is_deterministic_png_and_svg() -> None:
    png = trend_figure(scores_by_hand())
    assert png.startswith(b"\x89PNG") and png == trend_figure(scores_by_hand())
    with plotting.image_format("svg"):
        svg = trend_figure(scores_by_hand())
    assert svg.lstrip().startswith(b"<?xml")
