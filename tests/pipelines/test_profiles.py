"""Profiles: the sizes of DESIGN.md, chosen by GENSTRAT_PROFILE, clear errors for bad names."""

import pytest

from assets.resources import RunProfile
from assets.run_profiles import PROFILES, get_profile


def test_paper_profile_has_the_papers_sizes() -> None:
    paper = PROFILES["paper"]
    # GENSTRAT paper, Sections 2-5: 12,351 seeds, 2,000 accepted, 50 games, up to 20 runs,
    # bootstrap B = 2,000.
    assert (paper.seed_count, paper.max_accepted, paper.benchmark_games) == (12_351, 2_000, 50)
    assert (paper.runs_per_matchup, paper.bootstrap_resamples) == (20, 2_000)
    assert paper.axis_budget == "paper"


def test_demo_profile_is_small_and_needs_no_keys() -> None:
    demo = PROFILES["demo"]
    assert demo.seed_count <= 1_000 and demo.benchmark_games <= 10
    assert demo.axis_budget == "quick"


def test_profile_is_chosen_by_environment_with_demo_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GENSTRAT_PROFILE", raising=False)
    assert get_profile().name == "demo"
    assert RunProfile().get().name == "demo"
    monkeypatch.setenv("GENSTRAT_PROFILE", "paper")
    assert get_profile().name == "paper"
    assert RunProfile().get().name == "paper"
    assert RunProfile(name="demo").get().name == "demo"


def test_unknown_profile_names_the_choices() -> None:
    with pytest.raises(ValueError, match="choose one of: demo, paper"):
        get_profile("huge")


def test_a_profile_selects_at_least_the_games_the_composite_complexity_needs() -> None:
    """Fewer benchmark games ran every stage and then failed in ``capability_profiles``; a
    profile of fewer is refused when it is written, naming the field."""
    from pydantic import ValidationError

    from engines.stats.analysis import MIN_COMPOSITE_GAMES

    tiny = PROFILES["tiny"].model_dump()
    assert tiny["benchmark_games"] == MIN_COMPOSITE_GAMES  # the smallest profile fits exactly
    with pytest.raises(ValidationError, match="benchmark_games"):
        type(PROFILES["tiny"])(**{**tiny, "benchmark_games": MIN_COMPOSITE_GAMES - 1})


def test_editions_draw_consecutive_disjoint_seed_ranges_on_the_profile_cadence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 39, item 3: edition e samples seed_start + (e - 1) * seed_count onwards; the paper
    profile starts a new edition every seven days from its epoch, the demo stays at 1."""
    from datetime import date, timedelta

    from assets.run_profiles import EditionPolicy

    for name in ("GENSTRAT_EDITION", "GENSTRAT_COMPLEXITY", "GENSTRAT_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    paper = get_profile("paper", today=date(2026, 12, 7))
    assert paper.edition == 1 and paper.seed_range == (0, 12_351)
    epoch = paper.edition_policy.epoch
    assert get_profile("paper", today=epoch + timedelta(days=6)).edition == 1
    assert get_profile("paper", today=epoch + timedelta(days=7)).edition == 2
    third = get_profile("paper", today=epoch + timedelta(days=20))
    assert third.edition == 3 and third.seed_range == (24_702, 37_053)
    assert get_profile("demo", today=epoch + timedelta(days=400)).edition == 1
    assert get_profile("demo", edition=4).first_seed == 900
    assert get_profile("demo", edition=4).data_namespace == "demo/edition-4"
    monkeypatch.setenv("GENSTRAT_EDITION", "3")
    assert get_profile("tiny").seed_range == (240, 360)
    assert EditionPolicy(cadence_days=1).current(epoch - timedelta(days=3)) == 1


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("GENSTRAT_EDITION", "0", "edition must be between 1 and 10,000, got 0"),
        ("GENSTRAT_EDITION", "-2", "edition must be a positive whole number"),
        ("GENSTRAT_EDITION", "1e3", "edition must be a positive whole number"),
        ("GENSTRAT_COMPLEXITY", "9", "GENSTRAT_COMPLEXITY must be a number from 0.5 to 4.0"),
        ("GENSTRAT_COMPLEXITY", "hard", "GENSTRAT_COMPLEXITY must be a number from 0.5 to 4.0"),
        ("GENSTRAT_PRIVATE_GAMES", "-1", "GENSTRAT_PRIVATE_GAMES must be a whole number from 0"),
        ("GENSTRAT_PRIVATE_GAMES", "101", "GENSTRAT_PRIVATE_GAMES must be a whole number from 0"),
    ],
)
def test_a_bad_edition_or_dial_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError, match=message) as refused:
        get_profile("demo")
    assert "\n" not in str(refused.value)


def test_the_complexity_dial_of_an_edition_reaches_the_generation_config(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GENSTRAT_COMPLEXITY", "2")
    harder = get_profile("tiny-paper")
    assert harder.generation_config().complexity == 2.0
    assert harder.model_dump(mode="json")["complexity"] == 2.0
    monkeypatch.delenv("GENSTRAT_COMPLEXITY")
    assert "complexity" not in get_profile("tiny-paper").model_dump(mode="json")


def test_a_deployment_keeps_games_private_by_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GENSTRAT_PRIVATE_GAMES", "10")
    assert get_profile("paper").private_games == 10
    monkeypatch.setenv("GENSTRAT_PRIVATE_GAMES", "0")
    assert "private_games" not in get_profile("tiny-paper").model_dump(mode="json")
    monkeypatch.delenv("GENSTRAT_PRIVATE_GAMES")
    assert get_profile("tiny-paper").private_games == 1 and get_profile("paper").private_games == 0
