"""Jobs of the code location.

``main_job`` is the refresh of the whole graph, as one launch: it materializes the three root
assets (``reference_games``, ``seed_pool``, ``roster``) with their checks, and every other asset
follows by its automation condition (``pipelines/automation.py``, the ``follow_upstream``
sensor, on as shipped), up to ``release_bundle``.  The rest of the graph cannot be in one
run: the benchmark's games are partitions that ``benchmark_games`` writes during the refresh,
and a job holding them would open the UI's "Materialize all" on a backfill of the partitions
that exist at launch (none on a fresh instance).  So its page's "Materialize all" launches one
run of the roots, the nightly schedule targets it, and ``make run`` runs its roots first.  The
profile (``demo``, ``tiny``, ``paper``) is not part of the job: it comes from the ``profile``
resource.

``scaleout_job`` is the graph on ``dagster-dask``'s executor: each step a task on a Dask
cluster (a local cluster by default; a scheduler address in production, see docs/DEPLOY.md).
It must be launched as a reconstructable job (from the UI, the daemon, or
``pipelines.scaleout.scaleout_job``), since Dask workers rebuild the job in their processes.
"""

from __future__ import annotations

import dagster as dg

from pipelines.executors import dask_executor

MAIN_JOB_NAME = "main_job"

# The assets nothing upstream of them updates: a refresh starts here.
ROOT_ASSETS: tuple[str, ...] = ("reference_games", "seed_pool", "roster")
ROOT_KEYS = [dg.AssetKey(name) for name in ROOT_ASSETS]

# issue 18: the ``openspiel`` benchmark group has partitions of its own (one per OpenSpiel game),
# and a job holds one partitions definition: it has its own job, and the graph's jobs leave it
# out.  Each selection reads as a selection string in the UI (``not group:"openspiel"``).
OPENSPIEL_GROUP = "openspiel"
OPENSPIEL_JOB_NAME = "openspiel_job"
# issue 47: the ``werewolf`` group (multiplayer social deduction) is materialized on request with
# its own release: its own job too, and the graph's jobs leave it out.
WEREWOLF_GROUP = "werewolf"
WEREWOLF_JOB_NAME = "werewolf_job"
GRAPH = dg.AssetSelection.all() - dg.AssetSelection.groups(OPENSPIEL_GROUP, WEREWOLF_GROUP)
ROOTS = dg.AssetSelection.assets(*ROOT_KEYS)

main_job = dg.define_asset_job(
    name=MAIN_JOB_NAME,
    selection=ROOTS,
    description=(
        "Refresh the whole graph: materialize the three root assets (reference_games, "
        "seed_pool, roster) and run their checks; every other asset follows by its automation "
        "condition (the follow_upstream sensor), up to release_bundle."
    ),
)

SCALEOUT_JOB_NAME = "scaleout_job"

scaleout_job = dg.define_asset_job(
    name=SCALEOUT_JOB_NAME,
    selection=GRAPH,
    executor_def=dask_executor,
    description="The whole graph on a Dask cluster (distributed executor).",
)

openspiel_job = dg.define_asset_job(
    name=OPENSPIEL_JOB_NAME,
    selection=dg.AssetSelection.groups(OPENSPIEL_GROUP),
    description="The openspiel benchmark group: OpenSpiel's games, their tournament and "
    "leaderboard (a partition per game).",
)

werewolf_job = dg.define_asset_job(
    name=WEREWOLF_JOB_NAME,
    selection=dg.AssetSelection.groups(WEREWOLF_GROUP),
    description="The werewolf group: games between the roster's players with balanced roles, "
    "role-decomposed ratings and the group's own release.",
)

JOBS = [main_job, scaleout_job, openspiel_job, werewolf_job]
