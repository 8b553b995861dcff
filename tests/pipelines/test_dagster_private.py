"""Dagster's private API, as ``pipelines/dagster_private.py`` uses it: each name is still there
with the shape the project relies on.  A Dagster upgrade that moves or reshapes one fails here,
naming it; the rest of the project imports none of it (the last test greps for that)."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys

import dagster as dg

from pipelines import dagster_private
from tests.support import REPO_ROOT


def parameters(function: object) -> set[str]:
    return set(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_the_evaluator_and_the_cursor_take_what_evaluate_conditions_passes() -> None:
    evaluator = dagster_private.AutomationConditionEvaluator
    assert {
        "asset_graph",
        "instance",
        "entity_keys",
        "evaluation_time",
        "emit_backfills",
        "logger",
        "cursor",
        "evaluation_id",
    } <= parameters(evaluator.__init__)
    assert callable(evaluator.evaluate)
    cursor = dagster_private.AssetDaemonCursor.empty()
    assert cursor.evaluation_id == 0
    assert {
        "evaluation_timestamp",
        "newly_observe_requested_asset_keys",
        "evaluation_id",
        "condition_cursors",
        "asset_graph",
    } <= parameters(cursor.with_updates)


def test_the_step_scheduler_has_what_the_dask_executor_drives() -> None:
    active = dagster_private.ActiveExecution
    for method in (
        "get_steps_to_execute",
        "get_known_state",
        "plan_events_iterator",
        "handle_event",
        "verify_complete",
        "mark_interrupted",
    ):
        assert callable(getattr(active, method)), method
    assert isinstance(active.is_complete, property)
    assert dagster_private.RetryMode.DISABLED is not None


def test_the_tags_are_dagsters_own() -> None:
    assert dagster_private.AUTOMATION_CONDITION_TAG == "dagster/from_automation_condition"
    # a hidden tag (a leading dot), which a hand-written "dagster/grpc_info" never matched
    assert dagster_private.GRPC_INFO_TAG == ".dagster/grpc_info"


@dg.asset
def upstream() -> int:
    return 1


@dg.asset(deps=[upstream], automation_condition=dg.AutomationCondition.eager())
def downstream() -> int:
    return 2


def test_an_evaluation_requests_what_the_public_function_requests() -> None:
    """``evaluate_conditions`` against ``dg.evaluate_automation_conditions``, tick by tick, on a
    graph whose second tick requests something (``upstream`` materialized in between)."""
    defs = dg.Definitions(assets=[upstream, downstream])
    instance = dg.DagsterInstance.ephemeral()
    selection = dg.AssetSelection.all()
    mine = dagster_private.evaluate_conditions(defs, instance, selection)
    theirs = dg.evaluate_automation_conditions(defs=defs, instance=instance)
    assert mine.total_requested == theirs.total_requested == 0
    assert dg.materialize([upstream], instance=instance).success
    mine = dagster_private.evaluate_conditions(defs, instance, selection, cursor=mine.cursor)
    theirs = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=theirs.cursor)
    assert mine.total_requested == theirs.total_requested == 1
    assert mine.get_requested_partitions(downstream.key) == {None}


PRIVATE = re.compile(r"dagster\._")


def test_no_other_python_file_of_the_project_names_dagsters_private_api() -> None:
    """``grep -rn "dagster\\._" --include=*.py`` outside the virtualenv: this module only."""
    listed = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    naming = sorted(
        path
        for path in listed
        if (REPO_ROOT / path).is_file()
        and PRIVATE.search((REPO_ROOT / path).read_text(encoding="utf-8", errors="replace"))
    )
    assert naming == ["pipelines/dagster_private.py"], naming


def test_the_automation_module_loads_without_the_code_location() -> None:
    """No import circle between ``pipelines.automation`` and ``pipelines.definitions``: the
    automation imports without the code location, which imports it."""
    probe = "import sys, pipelines.automation; print('pipelines.definitions' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False"
