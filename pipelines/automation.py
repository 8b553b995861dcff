"""Scheduled and event-driven refreshes.

- ``nightly_refresh``: every night at 02:00 UTC the main job refreshes the whole graph. The
  release id is derived from the inputs, so a night whose inputs did not change republishes
  nothing new; a night after a roster, engine or config change publishes a new release.
- ``roster_sensor``: watches the roster file (``$GENSTRAT_ROSTER``, else the demo roster). When
  its content changes it requests a run of the main job with that roster; the tournament's
  corpus is resumable and keyed by match, so only the matches of newly added players (their
  block) are played, and the refits downstream follow. The cursor holds the file's hash and
  its player names, so each new player is reported once.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import dagster as dg

from arena.roster import load_roster, roster_json
from assets.roster import DEMO_ROSTER
from pipelines.jobs import main_job

ROSTER_ENV_VAR = "GENSTRAT_ROSTER"

nightly_refresh = dg.ScheduleDefinition(
    name="nightly_refresh",
    job=main_job,
    cron_schedule="0 2 * * *",
    execution_timezone="UTC",
    description="Refresh the whole graph nightly; a release is published when inputs changed.",
    default_status=dg.DefaultScheduleStatus.STOPPED,
)


def roster_path() -> Path:
    """The roster file the sensor watches."""
    return Path(os.environ.get(ROSTER_ENV_VAR) or DEMO_ROSTER)


@dg.sensor(
    name="roster_sensor",
    job=main_job,
    minimum_interval_seconds=60,
    description="Schedule matches for newly added players (a later block) and the refits.",
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
        run_config={"ops": {"roster": {"config": {"path": str(path)}}}},
        tags={"genstrat/roster_sha256": digest, "genstrat/new_players": ",".join(added)},
    )
    return dg.SensorResult(
        run_requests=[request],
        cursor=json.dumps({"hash": digest, "players": names}),
    )


SCHEDULES: list[dg.ScheduleDefinition] = [nightly_refresh]
SENSORS: list[dg.SensorDefinition] = [roster_sensor]
