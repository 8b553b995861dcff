"""Anchored scales: planted ratings, 0-100 scores and calibrated Elo are recovered, intervals
cover at about the nominal rate, and corpora that share only the reference field land on one
scale (issue 19)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.stats.anchored import (
    ANCHORED_COLUMNS,
    ELO_SCALE,
    SeatCells,
    anchored_scales,
    anchored_table,
    fit_scales,
    observed_seat_cells,
    resample_seat_cells,
    scales_from_cells,
    scales_with_flags,
)
from engines.stats.anchored_planted import PlantedWorld
from engines.stats.bootstrap import percentile_interval
from engines.stats.provisional import ProvisionalRules, provisional_flags
from engines.stats.reference_field import (
    ReferenceEngine,
    ReferenceField,
    reference_field,
    register_reference_engine,
    register_reference_field,
    roster_mismatches,
)

FIELD = reference_field("gbg-builtin-v1")
FIELD_THETA = {"random": -1.0, "heuristic": 0.3, "search-2": 0.8}


def world(entrants: dict[str, float], **kwargs: object) -> PlantedWorld:
    return PlantedWorld(FIELD, {**FIELD_THETA, **entrants}, **kwargs)  # type: ignore[arg-type]


def test_coverage_of_all_three_scales_over_many_corpora() -> None:
    """90% intervals of the rating, the score and the Elo cover the planted values in about
    90% of 150 simulated corpora (measured: 0.88-0.91 over seeds; the band allows for the
    correlation of one corpus's players). Every corpus has the same design, so all corpora and all
    their bootstrap replicates are fitted in one vectorised call."""
    w = world({"a": 1.2, "b": 0.0, "c": -0.5}, games=3, field_runs=40, entrant_runs=40)
    rng = np.random.default_rng(20261203)
    n_corpora, n_boot = 150, 150
    corpora = [w.sample(rng) for _ in range(n_corpora)]
    runs = corpora[0]
    observed = [observed_seat_cells(r) for r in corpora]
    boot = [resample_seat_cells(r, n_boot, rng) for r in corpora]

    def stack(parts: list[SeatCells]) -> SeatCells:
        return SeatCells(
            *(
                np.concatenate([getattr(p, f) for p in parts])
                for f in SeatCells.__dataclass_fields__
            )
        )

    point = scales_from_cells(runs, stack(observed), FIELD)
    reps = scales_from_cells(runs, stack(boot), FIELD)
    truth = w.truth(runs)
    judged = [k for k, name in enumerate(runs.models) if name != FIELD.anchor]
    for which, column in (("rating", 0), ("score", 1), ("elo", 2)):
        estimate = point[column]
        replicates = reps[column].reshape(n_corpora, n_boot, -1)
        covered = []
        for c in range(n_corpora):
            low, high = percentile_interval(replicates[c], level=0.9)
            covered.append((low <= truth[which]) & (truth[which] <= high))
        rate = float(np.asarray(covered)[:, judged].mean())
        assert 0.85 <= rate <= 0.95, (which, rate)
        # and the estimates are centred on the truth (bias small against the spread)
        bias = (estimate - truth[which])[:, judged].mean(axis=0)
        spread = (estimate - truth[which])[:, judged].std(axis=0)
        assert (np.abs(bias) < 0.35 * spread).all(), (which, bias, spread)


def test_two_corpora_sharing_only_the_field_land_on_one_scale() -> None:
    """Release 1 rates a1..a3, release 2 rates b1..b3 (disjoint but for the field); b2 is a1
    replayed. Both recover their planted values, a1 and b2 agree, and the pooled order across
    releases is the planted one."""
    first = world({"a1": 1.4, "a2": 0.1, "a3": -0.6}, entrant_runs_between=10)
    second = world({"b1": 2.0, "b2": 1.4, "b3": -0.2}, entrant_runs_between=10)
    rng = np.random.default_rng(5)
    release1 = anchored_scales(first.sample_matches(rng), FIELD, rng, n_boot=400)
    release2 = anchored_scales(second.sample_matches(rng), FIELD, rng, n_boot=400)
    pooled: dict[str, tuple[float, float, float]] = {}
    for w, scales in ((first, release1), (second, release2)):
        truth = w.truth(w.sample(np.random.default_rng(0)))
        for which in ("rating", "score", "elo"):
            low, high = scales.interval(which, 0.99)
            judged = [k for k, n in enumerate(scales.models) if n != FIELD.anchor]
            inside = (low[judged] <= truth[which][judged]) & (truth[which][judged] <= high[judged])
            assert inside.all(), (which, scales.models, truth[which], low, high)
        for k, name in enumerate(scales.models):
            if name not in FIELD.members:
                pooled[name] = (scales.score[k], scales.elo[k], scales.rating[k])
    # the same planted player has the same estimand in both releases
    t1 = first.truth(first.sample(np.random.default_rng(0)))
    t2 = second.truth(second.sample(np.random.default_rng(0)))
    a1 = first.players.index("a1")
    b2 = second.players.index("b2")
    for which in ("rating", "score", "elo"):
        assert t1[which][a1] == pytest.approx(t2[which][b2])
    assert abs(pooled["a1"][0] - pooled["b2"][0]) < 6.0
    order = sorted(pooled, key=lambda name: -pooled[name][1])
    assert order[0] == "b1" and set(order[1:3]) == {"a1", "b2"} and order[-1] == "a3"
    planted = {**first.theta, **second.theta}
    rho = pd.Series([pooled[n][1] for n in pooled]).corr(
        pd.Series([planted[n] for n in pooled]), method="spearman"
    )
    assert rho > 0.9


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    extra=st.floats(-2.0, 2.0),
    between=st.integers(0, 5),
)
def test_other_entrants_never_move_an_entrant(seed: int, extra: float, between: int) -> None:
    """Adding an entrant (with its runs against the field and against other entrants) leaves
    every other player's point estimate on all three scales exactly where it was."""
    base = world({"a": 0.5, "b": -0.3}, games=2, field_runs=6, entrant_runs=6)
    rng = np.random.default_rng(seed)
    matches = base.sample_matches(rng)
    bigger = world(
        {"a": 0.5, "b": -0.3, "z": extra}, games=2, field_runs=6, entrant_runs=6,
        entrant_runs_between=between,
    )  # fmt: skip
    more = bigger.sample_matches(np.random.default_rng(seed + 1))
    involved = (more["alice"] == "z") | (more["bob"] == "z")
    more = more.loc[involved].assign(
        run_id=lambda f: "z" + f["run_id"], match_id=lambda f: "z" + f["match_id"]
    )
    alone = anchored_scales(matches, FIELD, np.random.default_rng(0), n_boot=2)
    joined = anchored_scales(pd.concat([matches, more]), FIELD, np.random.default_rng(0), n_boot=2)
    for name in alone.models:
        i, j = alone.models.index(name), joined.models.index(name)
        for which in ("rating", "score", "elo"):
            assert getattr(joined, which)[j] == pytest.approx(getattr(alone, which)[i], abs=1e-9)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    thetas=st.lists(st.floats(-3.0, 3.0), min_size=1, max_size=4),
    field_thetas=st.tuples(st.floats(-2.0, 0.0), st.floats(0.0, 2.0), st.floats(-1.0, 2.5)),
    h=st.floats(-0.8, 0.8),
)
def test_noise_free_corpora_recover_the_planted_scales(
    thetas: list[float], field_thetas: tuple[float, float, float], h: float
) -> None:
    """With every margin and point at its expectation over many runs, the fitted score and
    Elo equal the planted ones (up to the weak prior) and the rating equals its estimand."""
    entrants = {f"e{k}": t for k, t in enumerate(thetas)}
    w = PlantedWorld(
        FIELD,
        {**dict(zip(FIELD.members, field_thetas, strict=True)), **entrants},
        h=h, games=1, field_runs=20_000, entrant_runs=20_000,
    )  # fmt: skip
    runs = w.sample(np.random.default_rng(0))
    rating, score, elo, first_mover = scales_from_cells(runs, w.expected_cells(runs), FIELD)
    truth = w.truth(runs)
    assert rating[0] == pytest.approx(truth["rating"], abs=1e-9)
    assert score[0] == pytest.approx(truth["score"], abs=0.05)
    assert elo[0] == pytest.approx(truth["elo"], abs=1.0)
    assert first_mover[0] == pytest.approx(ELO_SCALE * h, abs=1.0)
    anchor = runs.models.index(FIELD.anchor)
    assert rating[0][anchor] == FIELD.anchor_rating and elo[0][anchor] == FIELD.anchor_elo


def test_calibration_to_declared_elo_interpolates_between_members() -> None:
    """A field with two declared Elo values (as Game Arena's engine levels) fits intercept and
    slope: planted logits map to a + b * theta on the declared line."""
    for engine in (
        ReferenceEngine("test-level-a", "random", elo=800.0),
        ReferenceEngine("test-level-b", "random", elo=1600.0),
        ReferenceEngine("test-mid", "random"),
    ):
        register_reference_engine(engine)  # the same identity again is accepted
    field = register_reference_field(
        ReferenceField(
            "test-levels", 1, "planted", ("test-level-a", "test-level-b", "test-mid"),
            anchor="test-level-a", anchor_elo=800.0,
        )
    )  # fmt: skip
    w = PlantedWorld(
        field, {"test-level-a": -1.0, "test-level-b": 1.0, "test-mid": 0.0, "x": 0.5},
        games=1, field_runs=20_000, entrant_runs=20_000,
    )  # fmt: skip
    runs = w.sample(np.random.default_rng(0))
    _, _, elo, _ = scales_from_cells(runs, w.expected_cells(runs), field)
    models = list(runs.models)
    # declared: -1 -> 800, +1 -> 1600, so x (0.5) -> 1400 and mid (0) -> 1200
    assert elo[0][models.index("x")] == pytest.approx(1400.0, abs=2.0)
    assert elo[0][models.index("test-mid")] == pytest.approx(1200.0, abs=2.0)


def test_flags_and_table_do_not_rank_incomplete_entrants() -> None:
    w = world(
        {"full": 0.4, "thin": 0.2, "gap": 0.0, "spent": 0.1}, games=2, field_runs=8, entrant_runs=8
    )
    rng = np.random.default_rng(3)
    m = w.sample_matches(rng)
    thin = ((m["alice"] == "thin") | (m["bob"] == "thin")) & (
        m["run_id"].str[1:].astype(int) % 4 != 0
    )
    m = m.loc[~thin]  # about 1 run in 4 kept: 12 complete pairs -> fewer than 20
    gap = (
        ((m["alice"] == "gap") | (m["bob"] == "gap"))
        & ((m["alice"] == "heuristic") | (m["bob"] == "heuristic"))
        & (m["game_seed"] == 1001)
    )
    m = m.loc[~gap]
    spent = ((m["alice"] == "spent") | (m["bob"] == "spent")) & (m["game_seed"] == 1000)
    m.loc[spent & (m["match_id"].str.endswith(".1")), "status"] = "budget"
    flags = provisional_flags(m, FIELD, rules=ProvisionalRules(min_pairs=20))
    by = flags.set_index("model")
    assert by.loc["full", "status"] == "ranked" and by.loc["full", "reason"] == ""
    assert "too few complete pairs" in by.loc["thin", "reason"]
    assert (
        "missing block" in by.loc["gap", "reason"] and "heuristic@1001" in by.loc["gap", "reason"]
    )
    assert "budget" in by.loc["spent", "reason"]
    assert (by.loc[list(FIELD.members), "status"] == "reference").all()
    scales = anchored_scales(m, FIELD, rng, n_boot=50)
    table = anchored_table(scales, flags, FIELD)
    ranked = table[table["status"] == "ranked"]
    assert list(ranked["model"]) == ["full"] and list(ranked["rank"]) == [1]
    assert table.loc[table["status"] != "ranked", "rank"].isna().all()
    assert (table["field"] == FIELD.key).all()


def test_bad_corpora_are_refused_with_the_reason() -> None:
    m = world({"a": 0.0}).sample_matches(np.random.default_rng(1))
    no_member = m[(m["alice"] != "search-2") & (m["bob"] != "search-2")]
    with pytest.raises(ValueError, match="lacks reference member"):
        anchored_scales(no_member, FIELD, np.random.default_rng(0), n_boot=5)
    members = set(FIELD.members)
    within = m["alice"].isin(members) & m["bob"].isin(members)
    cut = within & ((m["alice"] == "random") | (m["bob"] == "random"))
    with pytest.raises(ValueError, match="cannot be fitted"):
        anchored_scales(m.loc[~cut], FIELD, np.random.default_rng(0), n_boot=5)


def test_hostile_tables_give_one_clear_reason() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="lacks column"):
        scales_with_flags(pd.DataFrame({"x": [1]}), FIELD, rng, 5)
    m = world({"a": 0.0}).sample_matches(np.random.default_rng(1))
    table, note = scales_with_flags(m.iloc[:0], FIELD, rng, 5)
    assert table.empty and list(table.columns) == list(ANCHORED_COLUMNS)
    assert note == "the match table has no complete paired deals"
    broken = m.copy()
    broken.loc[0, "alice_chip_delta"] += 1  # chips that do not add up
    with pytest.raises(ValueError, match="refused"):
        anchored_scales(broken, FIELD, rng, 5)
    tripled = pd.concat([m, m.iloc[:1].assign(match_id="extra")])
    with pytest.raises(ValueError, match="more than two deals"):
        anchored_scales(tripled, FIELD, rng, 5)
    with pytest.raises(ValueError, match="min_pairs"):
        ProvisionalRules(min_pairs=0)


def test_reference_fields_are_frozen_and_checked_against_the_roster() -> None:
    assert FIELD.key == "gbg-builtin-v1" and FIELD.anchor == "random"
    assert FIELD.fingerprint() == reference_field("gbg-builtin-v1").fingerprint()
    with pytest.raises(ValueError, match="already registered"):
        register_reference_engine(ReferenceEngine("search-2", "search", (("depth", 3),)))
    with pytest.raises(ValueError, match="anchor"):
        ReferenceField("bad", 1, "x", ("random", "heuristic"), anchor="search-2")
    with pytest.raises(ValueError, match="unknown reference field"):
        reference_field("gbg-builtin-v99")
    roster = {
        "random": ("random", {}),
        "heuristic": ("heuristic", {}),
        "search-2": ("search", {"depth": 2, "worlds": 8}),
    }
    assert roster_mismatches(FIELD, roster) == []
    roster["search-2"] = ("search", {"depth": 1})
    assert roster_mismatches(FIELD, roster) == [
        "search-2: the roster plays search {'depth': 1}, the field gbg-builtin-v1 fixes "
        "search {'depth': 2, 'worlds': 8}"
    ]


def test_fit_scales_shares_one_bootstrap_draw() -> None:
    w = world({"a": 0.3})
    runs = w.sample(np.random.default_rng(2))
    one = fit_scales(runs, FIELD, 50, np.random.default_rng(9))
    two = fit_scales(runs, FIELD, 50, np.random.default_rng(9))
    assert np.array_equal(one.score_boot, two.score_boot)
    assert one.rating_boot.shape == (50, runs.n_models)
