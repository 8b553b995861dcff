"""Run profiles: how big a materialization of the asset graph is.

DESIGN.md ("Profiles") names two: ``demo``, the default main job, which runs in minutes on a
laptop with the built-in bots and no API keys (its default roster; any profile plays the LLM
players of a roster that ``$GENSTRAT_ROSTER`` names); and ``paper``, the sizes of the GENSTRAT paper
(12,351 sampled seeds, 2,000 accepted games, 50 benchmark games, up to 20 runs per matchup,
B = 2,000 bootstrap resamples). The profile is chosen by the environment variable
``GENSTRAT_PROFILE`` (default ``demo``) and recorded in every release.

The axis and screening budgets are referred to by name (``quick`` or ``paper``); their numbers
(population size, replays per decision, ...) live with the axes in ``engines/axes`` so that the
science has a single source for them.

The move ``protocol`` (``arena.llm.protocols``) says how LLM players answer: ``paper`` (one
answer, the paper's fallback, no rethink) in the paper profile, so its margins and fallback
rates compare with the paper's; ``arena`` (Game Arena's rethink, the roster's K) in the demo.
The ``roster`` asset applies it to the roster, so it is part of every LLM player's fingerprint
and is recorded with the roster and the release's profile.

Editions (docs/EDITIONS.md): an edition is a numbered draw of benchmark games from seeds that no
earlier edition of the profile used. Edition ``e`` samples the seeds
``seed_start + (e - 1) * seed_count`` up to ``seed_count`` further, so editions are disjoint by
construction (the release store's seed ledger checks it again). The profile's
:class:`EditionPolicy` says which edition is current: a fixed one (the demo's and tiny's: edition
1, so ``make run`` is reproducible), or a new one every ``cadence_days`` from ``epoch`` (the
paper's: weekly), while the nightly refreshes in between add players to the current edition.
``$GENSTRAT_EDITION`` (or the ``profile`` resource's ``edition``) chooses one explicitly, and
``$GENSTRAT_COMPLEXITY`` the generator's complexity dial of an edition (the saturation watch's
answer to a field the benchmark no longer separates), and ``$GENSTRAT_PRIVATE_GAMES`` how many
games of each edition are kept private (``arena.heldout``). The
profile and edition name where a materialization's data lives (:meth:`Profile.data_namespace`),
so profiles and editions materialized into one data folder never read each other's tables.

This module is pure data and reads the environment only when :func:`get_profile` is called.
"""

from __future__ import annotations

import os
from datetime import UTC, date, datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from engines.gbg.generator import GenerationConfig, named_config

PROFILE_ENV_VAR = "GENSTRAT_PROFILE"
EDITION_ENV_VAR = "GENSTRAT_EDITION"
COMPLEXITY_ENV_VAR = "GENSTRAT_COMPLEXITY"
PRIVATE_ENV_VAR = "GENSTRAT_PRIVATE_GAMES"
MAX_PRIVATE_GAMES = 100
DEFAULT_PROFILE = "demo"
# The largest edition number accepted: a typo guard (a weekly cadence reaches it in 190 years).
MAX_EDITION = 10_000

ProfileName = Literal["demo", "paper", "tiny", "tiny-paper"]
BudgetName = Literal["quick", "paper"]
ProtocolName = Literal["paper", "arena"]


class AblationRoles(BaseModel):
    """Which roster players take which part in the ablations (paper, Section 8).

    Names are roster player names (LLM players); ``*`` stands for every LLM player of the
    roster (for ``judge``: the first).  ``families`` are (low, high) pairs of the same model at
    a low and a high reasoning setting (``reasoning_effort``, a thinking budget, a token
    budget); roster players with ``family`` set and ``variant`` low/high pair up as well.
    A roster without LLM players leaves every role empty (the ablations then use the built-in
    players and, when one is configured, the local model)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    players: tuple[str, ...] = Field(
        default=("*",), description="play the disclosed and hidden arms"
    )
    authors: tuple[str, ...] = Field(default=(), description="write strategy programs")
    families: tuple[tuple[str, str], ...] = Field(
        default=(), description="thinking-budget families: (low, high) player pairs"
    )
    judge: str | None = Field(default=None, description="scores the move traces")


class EditionPolicy(BaseModel):
    """Which edition of a profile is current (docs/EDITIONS.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cadence_days: int | None = Field(
        default=None,
        ge=1,
        description="days between editions (None: edition 1 unless one is chosen explicitly)",
    )
    epoch: date = Field(
        default=date(2026, 12, 7), description="the day edition 1 starts (with a cadence)"
    )

    def current(self, today: date) -> int:
        """The edition current on ``today``: 1 without a cadence, else one more per
        ``cadence_days`` since ``epoch`` (1 before it)."""
        if self.cadence_days is None or today <= self.epoch:
            return 1
        return 1 + (today - self.epoch).days // self.cadence_days


class Profile(BaseModel):
    """The sizes of one materialization of the asset graph."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: ProfileName
    description: str
    seed_start: int = Field(ge=0, description="first generator seed sampled into the pool")
    seed_count: int = Field(gt=0, description="number of seeds sampled (seed_pool)")
    max_accepted: int = Field(gt=0, description="cap on accepted games kept (accepted_games)")
    # at least the games the analysis's composite complexity fits (a profile of fewer ran
    # every stage up to capability_profiles, which then failed); engines.stats.analysis's
    # MIN_COMPOSITE_GAMES, written out so that loading a profile does not import the statistics
    benchmark_games: int = Field(ge=3, description="farthest-point selection size")
    screening_budget: BudgetName = Field(description="budget of the six screening axes")
    axis_budget: BudgetName = Field(description="budget of the five axes")
    runs_per_matchup: int = Field(gt=0, description="paired deals per (model pair, game)")
    bootstrap_resamples: int = Field(
        gt=0,
        description="B of the ablations' bootstrap intervals (the statistics stages take theirs "
        "from StatsConfig.bootstrap, 2,000 by default; a release records it in `analysis`)",
    )
    ablation_games: int = Field(
        ge=0,
        description="benchmark games the ablations add to their reference games (selection order)",
    )
    # The games the ablations always play and solve (their efficiency anchors); the default
    # (Kuhn and Leduc, the paper's) leaves the field out of the profile's dump.
    ablation_reference_games: tuple[str, ...] = Field(
        default=("kuhn", "leduc"),
        min_length=1,
        description="games the ablations play before the benchmark's (solved: efficiency)",
    )
    generation: Literal["default", "paper"] = Field(
        default="default",
        description="generation configuration of the pool (engines.gbg.generator.CONFIGS)",
    )
    rulebook_style: Literal["compact", "paper"] = Field(
        default="compact",
        description="style of the accepted games' rulebooks (compact, or the paper's Appendix B "
        "style with a worked example for each rule)",
    )
    protocol: ProtocolName = Field(
        default="arena",
        description="move protocol of LLM players: paper (one answer) | arena (rethinks)",
    )
    ablation_roles: AblationRoles = Field(
        default_factory=AblationRoles,
        description="the roster players of the ablations: arms, authors, families, judge",
    )
    # Exact best and worst responses (paper, Section 8: "on five games we solve exactly").
    # Zero (the demo's) leaves the field out of the profile's dump, as ``openspiel_games``.
    ablation_solved_games: int = Field(
        default=0,
        ge=0,
        description="benchmark games the ablations solve exactly: the smallest whose tree fits "
        "the history limit (arena.ablations.runner, engines.solve.sizing)",
    )
    # issue 18: the ``openspiel`` benchmark group (assets/openspiel.py).  Empty (the demo's)
    # leaves the field out of the profile's dump, so a release without the group is unchanged.
    openspiel_games: tuple[str, ...] = Field(
        default=(),
        description="OpenSpiel games of the openspiel benchmark group (openspiel:<name>[(...)])",
    )

    edition: int = Field(
        default=1, ge=1, le=MAX_EDITION, description="the edition: which draw of seeds"
    )
    # The generator's complexity dial of this edition (None: the generation configuration's
    # own, 1.0); a saturated edition is answered by a harder next one (docs/EDITIONS.md).
    # None leaves the field out of the profile's dump.
    complexity: float | None = Field(
        default=None,
        ge=0.5,
        le=4.0,
        description="the generator's complexity dial for this edition (default: the config's)",
    )
    # Zero (every profile but tiny-paper) leaves the field out of the profile's dump.
    private_games: int = Field(
        default=0,
        ge=0,
        le=MAX_PRIVATE_GAMES,
        description="games of the edition kept private: drawn from secret seeds, published as "
        "salted commitments with aggregate scores, revealed by a later edition (arena.heldout)",
    )
    edition_policy: EditionPolicy = Field(
        default_factory=EditionPolicy, description="which edition is current"
    )

    @property
    def first_seed(self) -> int:
        """The first seed of this edition's draw (editions take consecutive, disjoint ranges)."""
        return self.seed_start + (self.edition - 1) * self.seed_count

    @property
    def seed_range(self) -> tuple[int, int]:
        """The seeds this edition may sample: ``[first, stop)``."""
        return self.first_seed, self.first_seed + self.seed_count

    @property
    def data_namespace(self) -> str:
        """Where this profile's edition keeps its data under the data folder."""
        return f"{self.name}/edition-{self.edition}"

    def in_edition(self, edition: int) -> Profile:
        """This profile at ``edition`` (``ValueError`` in one line outside 1..MAX_EDITION)."""
        if not 1 <= edition <= MAX_EDITION:
            raise ValueError(f"edition must be between 1 and {MAX_EDITION:,}, got {edition}")
        return self.model_copy(update={"edition": edition})

    @model_serializer(mode="wrap")
    def _without_empty_openspiel(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        if not self.openspiel_games:
            dumped.pop("openspiel_games", None)
        if not self.ablation_solved_games:
            dumped.pop("ablation_solved_games", None)
        if self.ablation_reference_games == ("kuhn", "leduc"):
            dumped.pop("ablation_reference_games", None)
        if not self.private_games:
            dumped.pop("private_games", None)
        if self.complexity is None:
            dumped.pop("complexity", None)
        return dumped

    def generation_config(self) -> GenerationConfig:
        """The generation configuration of this edition: the named one, at the edition's
        complexity dial when it sets one."""
        config = named_config(self.generation)
        if self.complexity is None or self.complexity == config.complexity:
            return config
        return config.model_copy(update={"complexity": self.complexity})


PROFILES: dict[str, Profile] = {
    "demo": Profile(
        name="demo",
        description="minutes on a laptop: a few hundred seeds, a handful of games, built-in bots",
        seed_start=0,
        seed_count=300,
        max_accepted=60,
        benchmark_games=8,
        screening_budget="quick",
        axis_budget="quick",
        runs_per_matchup=4,
        bootstrap_resamples=200,
        ablation_games=0,
        protocol="arena",
    ),
    # The smallest graph that still exercises every stage: for the tests that run the whole
    # graph to check orchestration (daemon, UI, cluster), not the science.  Three benchmark
    # games, the fewest the composite complexity of the capability profiles takes; twelve
    # accepted games to screen and select them from; the ablations on Kuhn alone (Leduc's
    # 936 situations, asked of each program under eight seeds, were half of a refresh).
    "tiny": Profile(
        name="tiny",
        description="seconds per stage: for orchestration tests of the whole graph",
        seed_start=0,
        seed_count=120,
        max_accepted=12,
        benchmark_games=3,
        screening_budget="quick",
        axis_budget="quick",
        runs_per_matchup=2,
        bootstrap_resamples=50,
        ablation_games=0,
        ablation_reference_games=("kuhn",),
    ),
    # The tiny graph under the paper's generation configuration and rulebook style: the games
    # of the paper's distribution through every stage, in minutes (a smoke test of the paper
    # configuration, and the graph the identity test runs).
    "tiny-paper": Profile(
        name="tiny-paper",
        description="the tiny graph on games of the paper's generation configuration",
        seed_start=0,
        seed_count=160,
        max_accepted=12,
        benchmark_games=3,
        screening_budget="quick",
        axis_budget="quick",
        runs_per_matchup=2,
        bootstrap_resamples=50,
        ablation_games=0,
        ablation_reference_games=("kuhn",),
        generation="paper",
        rulebook_style="paper",
        protocol="paper",
        private_games=1,
    ),
    "paper": Profile(
        name="paper",
        description="the paper's sizes: 12,351 seeds, 2,000 accepted, 50 games, 20 runs",
        seed_start=0,
        seed_count=12_351,
        max_accepted=2_000,
        benchmark_games=50,
        screening_budget="paper",
        axis_budget="paper",
        runs_per_matchup=20,
        bootstrap_resamples=2_000,
        ablation_games=20,
        generation="paper",
        rulebook_style="paper",
        protocol="paper",
        ablation_roles=AblationRoles(players=("*",), authors=("*",), judge="*"),
        ablation_solved_games=5,
        edition_policy=EditionPolicy(cadence_days=7),
        # issue 18: Game Arena's and GameBench 2's classic games, played beside the benchmark
        openspiel_games=(
            "openspiel:chess",
            "openspiel:go(board_size=9)",
            "openspiel:connect_four",
            "openspiel:hex(board_size=7)",
            "openspiel:breakthrough",
            "openspiel:liars_dice",
            "openspiel:hunl",
        ),
    ),
}


def get_profile(
    name: str | None = None, edition: int | str | None = None, today: date | None = None
) -> Profile:
    """Return the profile called ``name``, or the one named by ``$GENSTRAT_PROFILE`` (default
    demo), at ``edition``, else ``$GENSTRAT_EDITION``, else the edition its policy makes current
    on ``today`` (default: the current UTC date).

    Raises ``ValueError`` in one line naming the valid choices for an unknown name or edition.
    """
    chosen = name if name is not None else os.environ.get(PROFILE_ENV_VAR) or DEFAULT_PROFILE
    try:
        profile = PROFILES[chosen]
    except KeyError:
        choices = ", ".join(sorted(PROFILES))
        raise ValueError(
            f"unknown profile {chosen!r} (from {PROFILE_ENV_VAR} or config); "
            f"choose one of: {choices}"
        ) from None
    held = os.environ.get(PRIVATE_ENV_VAR, "").strip()
    if held:
        if not held.isdigit() or int(held) > MAX_PRIVATE_GAMES:
            raise ValueError(
                f"{PRIVATE_ENV_VAR} must be a whole number from 0 to {MAX_PRIVATE_GAMES}, "
                f"got {held!r}"
            )
        profile = profile.model_copy(update={"private_games": int(held)})
    dial = os.environ.get(COMPLEXITY_ENV_VAR, "").strip()
    if dial:
        try:
            profile = profile.model_copy(update={"complexity": float(dial)})
            Profile.model_validate(profile.model_dump())
        except ValueError:
            raise ValueError(
                f"{COMPLEXITY_ENV_VAR} must be a number from 0.5 to 4.0, got {dial!r}"
            ) from None
    wanted = edition if edition is not None else os.environ.get(EDITION_ENV_VAR) or None
    if wanted is None:
        day = today if today is not None else datetime.now(UTC).date()
        return profile.in_edition(profile.edition_policy.current(day))
    text = str(wanted).strip()
    if not text.isdigit():
        raise ValueError(
            f"edition must be a positive whole number (from {EDITION_ENV_VAR} or config), "
            f"got {wanted!r}"
        )
    return profile.in_edition(int(text))
