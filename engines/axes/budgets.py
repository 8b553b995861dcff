"""The budgets of the axes: every number of the paper's estimation, in one place (Appendix C).

Two named budgets exist for the five axes and two for the six screening axes: ``paper`` (the
paper's numbers where it gives them, our choices where it does not, each marked below) and
``quick`` (small enough for the demo profile and the tests).  Profiles refer to a budget by
name (``assets/run_profiles.py``); the numbers live only here.  ``AxisBudget.scaled`` gives the
budget of the rerun diagnostic (about two-thirds of the budget, Appendix C, "Estimation").
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

BudgetName = Literal["quick", "paper"]


class AxisBudget(BaseModel):
    """How much simulation the five axes get.  Paper values unless marked ``choice``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    # Population (Appendix C, "Population").
    population_size: int = Field(default=200, ge=2)
    tier1_size: int = Field(default=100, ge=1)
    ranking_deals: int = Field(default=40, ge=1)
    opponent_l0_weight: float = Field(default=1 / 3, ge=0.0, le=1.0)  # P_Theta
    continuation_l0_weight: float = Field(default=1 / 4, ge=0.0, le=1.0)  # P_K
    # STD_g (choice: pairs drawn from P_Theta for both seats, deals per pair).
    std_pairs: int = Field(default=20, ge=1)
    std_deals: int = Field(default=30, ge=2)
    # Decision distribution and replays (Appendix C, "Decision distribution", "Estimation").
    decisions_per_seat: int = Field(default=90, ge=1)
    selfplay_max_deals: int = Field(default=2_000, ge=1)  # choice: a cap for rare deciders
    continuations: int = Field(default=4, ge=1)
    opponents: int = Field(default=9, ge=2)
    worlds: int = Field(default=10, ge=2)
    max_amounts: int = Field(default=6, ge=3)
    world_attempts: int = Field(default=24, ge=1)  # choice: rejection-sampling attempts
    # Opponent dependence: cross-fit over the two halves of the worlds (choice).
    opponent_cross_fit: bool = True
    # State space (Appendix C, "State space").
    state_space_deals: int = Field(default=3_000, ge=1)
    # Information (Section 3.1; numbers of opponents and search worlds are choices).
    info_opponents: int = Field(default=9, ge=1)
    info_deals: int = Field(default=40, ge=1)
    search_worlds: int = Field(default=8, ge=1)
    # Rerun diagnostic (Appendix C, "Estimation": about two-thirds, independent population).
    rerun: bool = True
    rerun_fraction: float = Field(default=2 / 3, gt=0.0, le=1.0)

    @model_validator(mode="after")
    def _tier1_fits(self) -> AxisBudget:
        if self.tier1_size > self.population_size:
            raise ValueError(
                f"tier1_size {self.tier1_size} exceeds population_size {self.population_size}"
            )
        return self

    def scaled(self, fraction: float) -> AxisBudget:
        """This budget with its per-game sample sizes scaled by ``fraction`` (at least 1 each,
        worlds kept even): decisions per seat, information deals, state-space deals."""

        def cut(n: int) -> int:
            return max(1, round(n * fraction))

        return self.model_copy(
            update={
                "name": f"{self.name}x{fraction:.2f}",
                "decisions_per_seat": cut(self.decisions_per_seat),
                "info_deals": cut(self.info_deals),
                "state_space_deals": cut(self.state_space_deals),
                "rerun": False,
            }
        )


class ScreeningBudget(BaseModel):
    """How much simulation the six screening axes get (all choices; Appendix C, "Selection
    basis", leaves them open).  Sized so that 2,000 games take minutes on two cores."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    random_deals: int = Field(default=1_500, ge=2)  # state space, temporal depth, risk
    card_deals: int = Field(default=60, ge=2)  # information sensitivity: card deals ...
    plays_per_card_deal: int = Field(default=4, ge=2)  # ... times random plays of each
    opponents: int = Field(default=8, ge=2)  # opponent modelling: random opponents ...
    deals_per_opponent: int = Field(default=40, ge=2)  # ... times common deals
    brittleness_deals: int = Field(default=200, ge=2)  # deals replayed with one flipped move


AXIS_BUDGETS: dict[str, AxisBudget] = {
    "paper": AxisBudget(name="paper"),
    "quick": AxisBudget(
        name="quick",
        population_size=40,
        tier1_size=20,
        ranking_deals=16,
        std_pairs=8,
        std_deals=16,
        decisions_per_seat=12,
        selfplay_max_deals=300,
        continuations=2,
        opponents=4,
        worlds=6,
        world_attempts=12,
        state_space_deals=600,
        info_opponents=3,
        info_deals=12,
        search_worlds=4,
    ),
}

SCREENING_BUDGETS: dict[str, ScreeningBudget] = {
    "paper": ScreeningBudget(name="paper"),
    "quick": ScreeningBudget(
        name="quick",
        random_deals=300,
        card_deals=20,
        plays_per_card_deal=3,
        opponents=4,
        deals_per_opponent=12,
        brittleness_deals=40,
    ),
}


def axis_budget(name: str) -> AxisBudget:
    """The axis budget called ``name``; ``ValueError`` names the choices otherwise."""
    try:
        return AXIS_BUDGETS[name]
    except KeyError:
        raise ValueError(
            f"unknown axis budget {name!r}; choose one of: {', '.join(sorted(AXIS_BUDGETS))}"
        ) from None


def screening_budget(name: str) -> ScreeningBudget:
    """The screening budget called ``name``; ``ValueError`` names the choices otherwise."""
    try:
        return SCREENING_BUDGETS[name]
    except KeyError:
        raise ValueError(
            f"unknown screening budget {name!r}; choose one of: "
            f"{', '.join(sorted(SCREENING_BUDGETS))}"
        ) from None
