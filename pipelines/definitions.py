"""The code location: one root ``Definitions`` for the whole GENSTRAT asset graph.

One code location, named ``genstrat`` wherever it is loaded: ``workspace.yaml`` points here
(``python_module: pipelines.definitions``, what ``dagster-webserver``, ``dagster-daemon`` and
``dagster job launch -w workspace.yaml`` read), and so does ``[tool.dg.project]`` in
``pyproject.toml`` (what ``dg dev``, i.e. ``make ui``, ``dg check defs`` and ``dg list defs``
read); Dagster finds the module-level ``defs``. It is built from explicit per-stage lists, and
the cross-cutting policy (IO manager, resources, executor, jobs, automation conditions,
schedules, sensors, the catalog's conventions) is applied here, once.

To add a stage:

1. write ``assets/<stage>.py`` exporting ``ASSETS`` and ``CHECKS`` (lists, possibly empty);
2. import it below and append it to ``STAGES`` (in pipeline order);
3. run ``GENSTRAT_UPDATE_SNAPSHOTS=1 pytest tests/pipelines/test_definitions.py`` and commit the
   updated ``tests/pipelines/asset_graph.snapshot.json`` so the change to the graph is reviewed.

Loading this module does no I/O: resources read their environment variables inside runs.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from datetime import timedelta
from types import ModuleType

import dagster as dg

from assets import (
    ablations,
    anchored_scales,
    axes,
    capability_profiles,
    complete_pairs,
    leaderboards,
    match_corpus,
    openspiel,
    pool,
    reference_games,
    release,
    roster,
    validity,
    werewolf,
)
from assets.metadata import TABLE_KINDS, table_name
from assets.resources import LocalModel, ProjectPaths, RosterFile, RunProfile
from pipelines.automation import SCHEDULES, SENSORS, checks_with_automation, with_automation
from pipelines.io_managers import ParquetIOManager, StepValueIOManager
from pipelines.jobs import JOBS

# The stages of the asset graph, in pipeline order (DESIGN.md, "Stages"). Each module exports
# ``ASSETS`` and ``CHECKS``. A stage joins the release by its asset key in
# assets/release.py ``RELEASE_INPUTS``.
STAGES: tuple[ModuleType, ...] = (
    reference_games,
    pool,
    axes,
    roster,
    match_corpus,
    complete_pairs,
    leaderboards,
    capability_profiles,
    validity,
    ablations,
    anchored_scales,  # issue 19: scores against a reference field, episodes, program track
    openspiel,  # issue 18: the openspiel benchmark group (OpenSpiel's games, own partitions)
    werewolf,  # issue 47: the werewolf group (its tournament, role ratings and release)
    release,
)

# issue 18: stages materialized on request (their own job, pipelines/jobs.py), outside the
# refresh's automation: the openspiel group has partitions of its own, which the main job
# cannot hold.
ON_REQUEST: tuple[ModuleType, ...] = (openspiel, werewolf)

# Steps of a run launched from the UI, a schedule or a sensor run one after another in the run's
# own process, as ``make run`` runs them (pipelines/run_main.py). The stages that need both
# cores use a process pool inside their step (the pool, the axes, the tournament's workers), so
# a process per step bought no parallelism: it cost each step a fork, a fresh instance and a
# rebuilt execution plan, three to five times a small step's own time (the roots of the ``tiny``
# profile: 44 s a run with a process per step, 10 s in-process; docs/ARCHITECTURE.md).
EXECUTOR = dg.in_process_executor


# Who answers for the assets, and how fresh the nightly refresh keeps them: a day and a bit
# (the refresh runs at 02:00 UTC and takes minutes to hours with the paper profile).
OWNERS = ["team:genstrat-maintainers"]
NIGHTLY_FRESHNESS = dg.FreshnessPolicy.time_window(
    fail_window=timedelta(hours=30), warn_window=timedelta(hours=26)
)


def with_conventions(assets: Sequence[dg.AssetsDefinition]) -> list[dg.AssetsDefinition]:
    """``assets`` with their owners, the nightly freshness expectation, links to their code
    (the asset page's "code references") and, for a table (``TABLE_KINDS``), its catalog name
    (``dagster/table_name``, ``genstrat.<asset>``)."""

    def policy(spec: dg.AssetSpec) -> dg.AssetSpec:
        spec = spec.replace_attributes(owners=OWNERS, freshness_policy=NIGHTLY_FRESHNESS)
        if set(spec.kinds) != TABLE_KINDS:
            return spec
        return spec.merge_attributes(
            metadata={"dagster/table_name": table_name(spec.key.to_user_string())}
        )

    with warnings.catch_warnings():  # code references and freshness are Dagster's beta APIs
        warnings.simplefilter("ignore", dg.BetaWarning)
        mapped = [asset.map_asset_specs(policy) for asset in assets]
        return list(dg.with_source_code_references(mapped))  # type: ignore[arg-type]


def stage_assets(stages: Sequence[ModuleType] = STAGES) -> list[dg.AssetsDefinition]:
    """Every asset of every stage, in stage order."""
    return [asset for stage in stages for asset in stage.ASSETS]


def stage_checks(stages: Sequence[ModuleType] = STAGES) -> list[dg.AssetChecksDefinition]:
    """Every asset check of every stage, in stage order."""
    return [check for stage in stages for check in stage.CHECKS]


def build_resources() -> dict[str, dg.ConfigurableResource | dg.ConfigurableIOManager]:
    """The resources every stage may ask for, keyed by resource name."""
    paths = ProjectPaths()
    return {
        "paths": paths,
        "profile": RunProfile(),
        "local_llm": LocalModel(),
        "roster_file": RosterFile(),
        "io_manager": ParquetIOManager(paths=paths),
        "step_io_manager": StepValueIOManager(paths=paths),
    }


def build_definitions(stages: Sequence[ModuleType] = STAGES) -> dg.Definitions:
    """The root Definitions for ``stages`` with the project's cross-cutting policy applied."""
    automated = with_automation(stage_assets([s for s in stages if s not in ON_REQUEST]))
    return dg.Definitions(
        assets=with_conventions(
            [*automated, *stage_assets([s for s in stages if s in ON_REQUEST])]
        ),
        asset_checks=checks_with_automation(stage_checks(stages), automated),
        jobs=JOBS,
        schedules=SCHEDULES,
        sensors=SENSORS,
        resources=build_resources(),
        executor=EXECUTOR,
    )


defs = build_definitions()
