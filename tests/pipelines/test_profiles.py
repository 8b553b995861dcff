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
    assert paper.axis_budget == "paper" and not paper.builtin_roster_only


def test_demo_profile_is_small_and_needs_no_keys() -> None:
    demo = PROFILES["demo"]
    assert demo.seed_count <= 1_000 and demo.benchmark_games <= 10
    assert demo.axis_budget == "quick" and demo.builtin_roster_only


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
