"""How the graph refreshes itself: declarative automation, and what starts it.

One mechanism for every way a refresh starts (DESIGN.md, "used by"): the three root assets
(``reference_games``, ``seed_pool``, ``roster``) are materialized, and every other asset follows
by its ``AutomationCondition`` (``FOLLOW``: Dagster's ``eager`` condition, held back while an
upstream blocking check fails). When ``benchmark_games`` writes the benchmark's games into the
dynamic partition set, their ``axis_scores``, ``match_corpus`` and ``match_moves`` partitions
are newly missing and materialize; the unpartitioned assets downstream wait until every
partition is in, then follow, up to ``release_bundle``.

- ``nightly_refresh`` (schedule, 02:00 UTC): requests the roots. The release id is derived from
  the inputs, so a night whose inputs did not change republishes nothing new.
- ``roster_sensor``: when the roster file's validated content changes, requests ``roster``
  with that file; the tournament's corpus is resumable and keyed by match, so only the matches
  of newly added players are played, and the refits downstream follow.
- ``follow_upstream``: the automation-condition sensor that evaluates ``FOLLOW`` on the daemon.
- ``make run`` (``pipelines/run_main.py``) and the UI: materializing the roots starts the same
  cascade; ``refresh`` below runs it without a daemon, evaluating the same conditions with
  ``dg.evaluate_automation_conditions`` and executing what they request, in this process.

Every run of one refresh carries the tag ``genstrat/refresh`` (the UI's runs page filters on
it), so a refresh is visible as one unit.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import dagster as dg

from arena.roster import load_roster, roster_json
from assets.roster import DEMO_ROSTER
from pipelines.jobs import MAIN_JOB_NAME, main_job

ROSTER_ENV_VAR = "GENSTRAT_ROSTER"
REFRESH_TAG = "genstrat/refresh"

# The assets nothing upstream of them updates: a refresh starts here.
ROOT_ASSETS: tuple[str, ...] = ("reference_games", "seed_pool", "roster")
ROOT_KEYS = [dg.AssetKey(name) for name in ROOT_ASSETS]

# What the automation conditions are evaluated on, by the daemon's sensor and by ``refresh``.
AUTOMATED = dg.AssetSelection.all() | dg.AssetSelection.all_asset_checks()

FOLLOW = (
    dg.AutomationCondition.eager() & dg.AutomationCondition.all_deps_blocking_checks_passed()
).with_label("follow upstream")


def with_automation(assets: Iterable[dg.AssetsDefinition]) -> list[dg.AssetsDefinition]:
    """``assets`` with ``FOLLOW`` on every asset but the roots (the code location's policy)."""

    def policy(spec: dg.AssetSpec) -> dg.AssetSpec:
        if spec.key in ROOT_KEYS:
            return spec
        return spec.replace_attributes(automation_condition=FOLLOW)

    return [asset.map_asset_specs(policy) for asset in assets]


def new_refresh_id() -> str:
    return uuid.uuid4().hex[:12]


@dg.schedule(
    name="nightly_refresh",
    job=main_job,
    cron_schedule="0 2 * * *",
    execution_timezone="UTC",
    description="Refresh the whole graph nightly: the roots run, everything else follows.",
    default_status=dg.DefaultScheduleStatus.STOPPED,
)
def nightly_refresh(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    stamp = context.scheduled_execution_time.strftime("%Y%m%dT%H%M")
    return dg.RunRequest(
        run_key=f"nightly-{stamp}",
        asset_selection=ROOT_KEYS,
        tags={REFRESH_TAG: f"nightly-{stamp}"},
    )


def roster_path() -> Path:
    """The roster file the sensor watches."""
    return Path(os.environ.get(ROSTER_ENV_VAR) or DEMO_ROSTER)


@dg.sensor(
    name="roster_sensor",
    job=main_job,
    minimum_interval_seconds=60,
    description="Play newly added players' matches (a later block); the refits follow.",
    default_status=dg.DefaultSensorStatus.STOPPED,
)
def roster_sensor(context: dg.SensorEvaluationContext) -> dg.SensorResult | dg.SkipReason:
    path = roster_path()
    try:
        roster = load_roster(path)
    except (OSError, ValueError) as exc:
        return dg.SkipReason(f"roster {path} unreadable: {exc}")
    # the validated roster, canonical: it carries each program player's code SHA-256, so an
    # edited program triggers a run too (and a comment or whitespace edit does not)
    digest = hashlib.sha256(roster_json(roster).encode("utf-8")).hexdigest()
    previous = json.loads(context.cursor) if context.cursor else {"hash": None, "players": []}
    if previous["hash"] == digest:
        return dg.SkipReason(f"roster {path} unchanged")
    names = [p.name for p in roster.players]
    added = [n for n in names if n not in previous["players"]]
    request = dg.RunRequest(
        run_key=digest,
        asset_selection=[dg.AssetKey("roster")],
        run_config={"ops": {"roster": {"config": {"path": str(path)}}}},
        tags={
            "genstrat/roster_sha256": digest,
            "genstrat/new_players": ",".join(added),
            REFRESH_TAG: f"roster-{digest[:12]}",
        },
    )
    return dg.SensorResult(
        run_requests=[request],
        cursor=json.dumps({"hash": digest, "players": names}),
    )


follow_upstream = dg.AutomationConditionSensorDefinition(
    "follow_upstream",
    target=AUTOMATED,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.STOPPED,
    run_tags={"genstrat/trigger": "automation"},
    description="Materialize what the roots' updates make due (the FOLLOW condition).",
)

SCHEDULES: list[dg.ScheduleDefinition] = [nightly_refresh]
SENSORS: list[dg.SensorDefinition] = [roster_sensor, follow_upstream]


# --- a refresh without a daemon --------------------------------------------------------------


@dataclass(frozen=True)
class Wave:
    """What one evaluation of the automation conditions requests: per partition key (None for
    the unpartitioned assets), the assets to materialize."""

    runs: dict[str | None, list[dg.AssetKey]]

    @property
    def empty(self) -> bool:
        return not self.runs


def requested(result: Any, keys: Iterable[dg.AssetKey]) -> Wave:
    """The runs an evaluation result asks for: one per partition key, unpartitioned first."""
    runs: dict[str | None, list[dg.AssetKey]] = defaultdict(list)
    for key in keys:
        for partition in sorted(result.get_requested_partitions(key), key=lambda p: p or ""):
            runs[partition].append(key)
    ordered = dict(sorted(runs.items(), key=lambda item: (item[0] is not None, item[0] or "")))
    return Wave({pk: sorted(v, key=lambda k: k.to_user_string()) for pk, v in ordered.items()})


RunOne = Callable[[str | None, list[dg.AssetKey], Mapping[str, str]], bool]


@dataclass
class Refresh:
    """A refresh run by ``refresh``: its id and the waves it ran."""

    refresh_id: str
    waves: list[Wave] = field(default_factory=list)


def refresh(
    defs: dg.Definitions,
    instance: dg.DagsterInstance,
    run_one: RunOne,
    *,
    roots: list[dg.AssetKey] | None = None,
    refresh_id: str | None = None,
    on_wave: Callable[[Wave], None] | None = None,
    max_waves: int = 50,
) -> Refresh | None:
    """Materialize ``roots`` and then whatever the automation conditions request, wave after
    wave, until nothing more is due: the daemon's cascade, in the caller's process.

    ``run_one(partition_key, assets, tags)`` executes one run and says whether it succeeded;
    the first failure stops the refresh (``None``).  The conditions are evaluated once before
    the roots run, so that their update is what the next evaluation sees (the daemon's sensor
    has such a previous tick).
    """
    done = Refresh(refresh_id or new_refresh_id())
    tags = {REFRESH_TAG: done.refresh_id}
    keys = sorted(defs.resolve_asset_graph().get_all_asset_keys(), key=lambda k: k.to_user_string())
    evaluate = partial(dg.evaluate_automation_conditions, defs, instance, asset_selection=AUTOMATED)
    cursor = evaluate().cursor
    wave = Wave({None: list(roots if roots is not None else ROOT_KEYS)})
    for _ in range(max_waves):
        if on_wave is not None:
            on_wave(wave)
        for partition_key, assets in wave.runs.items():
            if not run_one(partition_key, assets, tags):
                return None
        done.waves.append(wave)
        evaluation = evaluate(cursor=cursor)
        cursor = evaluation.cursor
        wave = requested(evaluation, keys)
        if wave.empty:
            return done
    raise RuntimeError(f"the refresh did not settle after {max_waves} waves")


__all__ = [
    "FOLLOW",
    "MAIN_JOB_NAME",
    "REFRESH_TAG",
    "ROOT_ASSETS",
    "SCHEDULES",
    "SENSORS",
    "refresh",
    "with_automation",
]
