"""The nightly schedule and the roster sensor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import dagster as dg
import pytest

from pipelines.automation import nightly_refresh, roster_sensor
from pipelines.definitions import defs

ROSTER = """players:
  - {name: random, kind: builtin, agent: random}
  - {name: heuristic, kind: builtin, agent: heuristic}
"""


def test_nightly_schedule_targets_the_main_job_in_utc() -> None:
    assert nightly_refresh.cron_schedule == "0 2 * * *"
    assert nightly_refresh.execution_timezone == "UTC"
    assert nightly_refresh.job_name == "main_job"
    assert defs.resolve_schedule_def("nightly_refresh") is not None


def test_roster_sensor_requests_runs_for_new_players(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text(ROSTER, encoding="utf-8")
    monkeypatch.setenv("GENSTRAT_ROSTER", str(path))

    first = roster_sensor(dg.build_sensor_context(cursor=None))
    assert isinstance(first, dg.SensorResult)
    (request,) = first.run_requests or []
    assert request.tags["genstrat/new_players"] == "random,heuristic"
    assert request.run_config == {"ops": {"roster": {"config": {"path": str(path)}}}}

    same = roster_sensor(dg.build_sensor_context(cursor=first.cursor))
    assert isinstance(same, dg.SkipReason)

    path.write_text(ROSTER + "  - {name: search-2, kind: builtin, agent: search}\n")
    later = roster_sensor(dg.build_sensor_context(cursor=first.cursor))
    assert isinstance(later, dg.SensorResult)
    (request,) = later.run_requests or []
    assert request.tags["genstrat/new_players"] == "search-2"
    assert json.loads(later.cursor or "{}")["players"] == ["random", "heuristic", "search-2"]


def test_roster_sensor_skips_a_broken_roster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text("players: [{name: x, kind: nonsense}]\n", encoding="utf-8")
    monkeypatch.setenv("GENSTRAT_ROSTER", str(path))
    result = roster_sensor(dg.build_sensor_context(cursor=None))
    assert isinstance(result, dg.SkipReason)
    assert "unreadable" in (result.skip_message or "")


def test_roster_sensor_runs_again_when_a_program_player_is_edited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = tmp_path / "fixed.py"
    program.write_text("def act(observation, legal_actions, rng):\n    return legal_actions[0]\n")
    path = tmp_path / "roster.yaml"
    path.write_text(ROSTER + "  - {name: fixed, kind: program, path: fixed.py}\n")
    monkeypatch.setenv("GENSTRAT_ROSTER", str(path))
    first = roster_sensor(dg.build_sensor_context(cursor=None))
    assert isinstance(first, dg.SensorResult)

    path.write_text(path.read_text() + "# a comment changes nothing that plays\n")
    assert isinstance(roster_sensor(dg.build_sensor_context(cursor=first.cursor)), dg.SkipReason)

    program.write_text("def act(observation, legal_actions, rng):\n    return legal_actions[-1]\n")
    edited = roster_sensor(dg.build_sensor_context(cursor=first.cursor))
    assert isinstance(edited, dg.SensorResult)
    (request,) = edited.run_requests or []
    assert request.tags["genstrat/new_players"] == ""  # same players, new code


def test_the_nightly_tick_requests_the_roots_with_a_refresh_tag() -> None:
    from datetime import UTC, datetime

    from pipelines.automation import REFRESH_TAG, ROOT_KEYS

    context = dg.build_schedule_context(
        scheduled_execution_time=datetime(2026, 12, 3, 2, tzinfo=UTC)
    )
    request = nightly_refresh.evaluate_tick(context).run_requests[0]  # type: ignore[index]
    assert list(request.asset_selection or []) == ROOT_KEYS
    assert request.tags[REFRESH_TAG] == "nightly-20261203T0200"


def test_the_roster_sensor_requests_only_the_roster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "roster.yaml"
    path.write_text(ROSTER, encoding="utf-8")
    monkeypatch.setenv("GENSTRAT_ROSTER", str(path))
    result = roster_sensor(dg.build_sensor_context(cursor=None))
    assert isinstance(result, dg.SensorResult)
    (request,) = result.run_requests or []
    assert list(request.asset_selection or []) == [dg.AssetKey("roster")]


def test_every_asset_but_the_roots_follows_upstream() -> None:
    from pipelines.automation import FOLLOW, ROOT_ASSETS

    graph = defs.resolve_asset_graph()
    for key in graph.get_all_asset_keys():
        condition = graph.get(key).automation_condition
        if key.to_user_string() in ROOT_ASSETS:
            assert condition is None, key
        else:
            assert condition == FOLLOW, key
    sensor = defs.resolve_sensor_def("follow_upstream")
    assert isinstance(sensor, dg.AutomationConditionSensorDefinition)


def test_a_wave_is_one_run_per_partition_unpartitioned_first() -> None:
    from pipelines.automation import requested

    class Result:
        wanted: ClassVar[dict[dg.AssetKey, set[str | None]]] = {
            dg.AssetKey("b"): {None},
            dg.AssetKey("a"): {None},
            dg.AssetKey("axis_scores"): {"9", "10"},
            dg.AssetKey("match_corpus"): {"9"},
        }

        def get_requested_partitions(self, key: dg.AssetKey) -> set[str | None]:
            return self.wanted.get(key, set())

    wave = requested(Result(), [*Result.wanted, dg.AssetKey("idle")])
    assert list(wave.runs) == [None, "10", "9"]
    assert wave.runs[None] == [dg.AssetKey("a"), dg.AssetKey("b")]
    assert wave.runs["9"] == [dg.AssetKey("axis_scores"), dg.AssetKey("match_corpus")]
    assert not wave.empty and requested(Result(), []).empty
