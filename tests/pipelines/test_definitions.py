"""The code location loads, validates with Dagster's own loader, and has the reviewed shape.

The asset graph (assets, their dependencies, partitions, checks, jobs, schedules, sensors and
resources) is compared with ``asset_graph.snapshot.json`` so that a structural change shows up in
review. After an intended change, refresh the snapshot with::

    GENSTRAT_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/pipelines/test_definitions.py

and commit the updated JSON with the change.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import dagster as dg
import pytest
import yaml

from pipelines.definitions import STAGES, build_definitions, defs
from tests.e2e.dagster_processes import LOCATION
from tests.support import REPO_ROOT, ProjectEnv

SNAPSHOT = Path(__file__).with_name("asset_graph.snapshot.json")
UPDATE_ENV_VAR = "GENSTRAT_UPDATE_SNAPSHOTS"


def describe_partitions(partitions_def: dg.PartitionsDefinition | None) -> Any:
    """A JSON-able description of a partitions definition (``None`` when unpartitioned)."""
    if partitions_def is None:
        return None
    if isinstance(partitions_def, dg.StaticPartitionsDefinition):
        return {"static": list(partitions_def.get_partition_keys())}
    if isinstance(partitions_def, dg.DynamicPartitionsDefinition):
        return {"dynamic": partitions_def.name}
    if isinstance(partitions_def, dg.MultiPartitionsDefinition):
        return {
            "multi": {
                dim.name: describe_partitions(dim.partitions_def)
                for dim in partitions_def.partitions_defs
            }
        }
    return {type(partitions_def).__name__: str(partitions_def)}


def asset_graph_snapshot(definitions: dg.Definitions) -> dict[str, Any]:
    """The reviewed structure of ``definitions`` as plain, sorted JSON data."""
    graph = definitions.resolve_asset_graph()
    check_specs = [
        spec
        for definition in [*(definitions.assets or []), *(definitions.asset_checks or [])]
        if isinstance(definition, dg.AssetsDefinition)
        for spec in definition.check_specs
    ]
    checks_by_asset: dict[str, list[dict[str, Any]]] = {}
    for check in sorted(check_specs, key=lambda spec: spec.name):
        checks_by_asset.setdefault(check.asset_key.to_user_string(), []).append(
            {"name": check.name, "blocking": check.blocking}
        )
    assets = {
        spec.key.to_user_string(): {
            "deps": sorted(dep.asset_key.to_user_string() for dep in spec.deps),
            "group": spec.group_name,
            "kinds": sorted(spec.kinds),
            "table_name": spec.metadata.get("dagster/table_name"),
            "partitions": describe_partitions(spec.partitions_def),
            "checks": checks_by_asset.get(spec.key.to_user_string(), []),
        }
        for spec in definitions.resolve_all_asset_specs()
    }
    # Asset jobs (from dg.define_asset_job) carry their AssetSelection as ``selection``.
    selections = {job.name: getattr(job, "selection", None) for job in definitions.jobs or []}
    jobs = {
        name: {
            "assets": sorted(key.to_user_string() for key in selection.resolve(graph)),
            "checks": sorted(
                f"{key.asset_key.to_user_string()}:{key.name}"
                for key in selection.resolve_checks(graph)
            ),
        }
        if isinstance(selection, dg.AssetSelection)
        else {"op_job": True}
        for name, selection in selections.items()
    }
    schedules = {
        schedule.name: {
            "status": schedule.default_status.value,
            "target": schedule.job_name,
            "description": schedule.description,
        }
        for schedule in definitions.schedules or []
    }
    sensors = {
        sensor.name: {
            "status": sensor.default_status.value,
            # what the UI shows as the sensor's target: a job, or a selection string
            "target": sensor.job_name
            if sensor.has_jobs
            else (str(sensor.asset_selection) if sensor.asset_selection else None),
            "description": sensor.description,
        }
        for sensor in definitions.sensors or []
    }
    return {
        "assets": dict(sorted(assets.items())),
        "jobs": dict(sorted(jobs.items())),
        "schedules": dict(sorted(schedules.items())),
        "sensors": dict(sorted(sensors.items())),
        "resources": sorted((definitions.resources or {}).keys()),
    }


def test_definitions_load_and_resolve() -> None:
    dg.Definitions.validate_loadable(defs)
    assert defs.resolve_job_def("main_job") is not None
    for spec in defs.resolve_all_asset_specs():
        assert spec.group_name and spec.group_name != "default", f"{spec.key} needs a group"
        assert spec.kinds, f"{spec.key} needs kinds"


def test_the_shipped_automation_needs_only_the_schedule_turned_on() -> None:
    """As shipped, the automation sensor runs (a run of the roots is all a refresh needs) and
    the schedule waits to be turned on; every selection reads as a selection string."""
    sensors = {sensor.name: sensor for sensor in defs.sensors or []}
    assert sensors["follow_upstream"].default_status == dg.DefaultSensorStatus.RUNNING
    assert str(sensors["follow_upstream"].asset_selection) == "*"
    (schedule,) = defs.schedules or []
    assert schedule.default_status == dg.DefaultScheduleStatus.STOPPED
    assert schedule.job_name == "main_job"
    for job in defs.jobs or []:
        selection = getattr(job, "selection", None)
        assert isinstance(selection, dg.AssetSelection), job.name
        assert "Selection(" not in str(selection), (job.name, str(selection))


def test_the_job_page_materializes_unpartitioned_roots_only() -> None:
    """``main_job``'s "Materialize all" launches one run, not a backfill dialog: the UI opens
    one for a job with a partitioned asset (on a fresh instance, of no partitions)."""
    graph = defs.resolve_asset_graph()
    main = defs.resolve_job_def("main_job")
    keys = {key.to_user_string() for key in main.asset_layer.executable_asset_keys}
    assert keys == {"reference_games", "seed_pool", "roster"}
    assert all(graph.get(dg.AssetKey(key)).partitions_def is None for key in keys)
    assert all(not graph.get(dg.AssetKey(key)).parent_keys for key in keys)


def test_one_code_location_name_everywhere() -> None:
    """``dg dev`` (``[tool.dg.project]``), ``workspace.yaml`` and the tests name one location."""
    import tomllib

    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["dg"]["project"]
    workspace = yaml.safe_load((REPO_ROOT / "workspace.yaml").read_text())
    (entry,) = workspace["load_from"]
    assert entry["python_module"]["location_name"] == LOCATION == "genstrat"
    assert project["code_location_name"] == LOCATION
    assert entry["python_module"]["module_name"] == project["code_location_target_module"]


def test_every_stage_exports_assets_and_checks() -> None:
    for stage in STAGES:
        assert isinstance(stage.ASSETS, list) and stage.ASSETS, stage.__name__
        assert isinstance(stage.CHECKS, list), stage.__name__


def test_building_definitions_reads_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # Resources resolve GENSTRAT_DATA / GENSTRAT_PROFILE inside runs; building must not need them.
    for name in ("GENSTRAT_DATA", "GENSTRAT_PROFILE", "DAGSTER_HOME"):
        monkeypatch.delenv(name, raising=False)
    assert asset_graph_snapshot(build_definitions()) == asset_graph_snapshot(defs)


@pytest.mark.slow  # over 5 s: make test only
def test_dagster_validates_the_workspace(project_env: ProjectEnv) -> None:
    """Both descriptions of the code location load it: ``workspace.yaml`` (what deployments'
    webserver and daemon read) and ``[tool.dg]`` (what ``dg dev``, i.e. ``make ui``, reads),
    without Dagster's warnings about superseded commands or an ignored ``dagster.yaml``."""
    venv = Path(sys.executable).parent
    env = {**os.environ, "VIRTUAL_ENV": str(venv.parent), "PATH": f"{venv}:{os.environ['PATH']}"}
    for command, success in (
        ([str(venv / "dagster"), "definitions", "validate", "-w", "workspace.yaml"],
         "All code locations passed validation"),
        ([str(venv / "dg"), "check", "defs"], "All definitions loaded successfully"),
        ([str(venv / "dg"), "list", "defs"], "main_job"),
    ):  # fmt: skip
        completed = subprocess.run(
            command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300
        )
        output = completed.stdout + completed.stderr
        assert completed.returncode == 0, output
        assert success in output
        assert "dagster.yaml file will not be used" not in output
        assert "does not match the virtual environment" not in output


def test_asset_graph_matches_snapshot() -> None:
    current = asset_graph_snapshot(defs)
    if os.environ.get(UPDATE_ENV_VAR) == "1":
        SNAPSHOT.write_text(json.dumps(current, indent=2, sort_keys=False) + "\n")
    assert SNAPSHOT.exists(), f"no snapshot; create it with {UPDATE_ENV_VAR}=1 pytest {__file__}"
    committed = json.loads(SNAPSHOT.read_text())
    assert current == committed, (
        "the asset graph changed. If the change is intended, refresh the snapshot with\n"
        f"    {UPDATE_ENV_VAR}=1 .venv/bin/pytest tests/pipelines/test_definitions.py\n"
        f"and commit {SNAPSHOT.relative_to(REPO_ROOT)}.\n"
        f"current:\n{json.dumps(current, indent=2)}"
    )
