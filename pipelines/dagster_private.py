"""Every use of Dagster's private API (``dagster._*``) in the project, and nothing else.

The rest of the project speaks only ``import dagster as dg``.  What is here has no public
equivalent in the pinned Dagster (``constraints.txt``); ``tests/pipelines/test_dagster_private.py``
imports each name and checks the signatures the project relies on, so an upgrade that moves or
reshapes one fails there, by name, and not in the middle of a refresh.

- ``evaluate_conditions``: one evaluation of the automation conditions, as the daemon's
  ``AutomationConditionSensorDefinition`` runs it, with the new cursor serialized in the
  evaluation's own partition context.  The public ``dg.evaluate_automation_conditions``
  serializes the cursor against the bare instance, so every subset of a dynamically partitioned
  asset (the benchmark games') asks the database for the partitions again: about 8,500 queries
  in a ``tiny`` refresh, a quarter of its time.  ``make run`` (``pipelines.automation.refresh``)
  uses this.
- ``ActiveExecution`` and ``RetryMode``: the step scheduler of Dagster's own executors, which
  ``pipelines/dask_execution.py`` drives.
- ``GRPC_INFO_TAG``: the tag Dagster's default run launcher sets on a run it launched through a
  code server (the daemon's, on the daemon's machine); ``AUTOMATION_CONDITION_TAG``: the tag
  (``dagster/from_automation_condition``) on every run declarative automation launches.

Behaviour of Dagster's internals that the project works around (no API is used for it):
Dagster's in-process execution holds SIGINT and SIGTERM for the length of a run and afterwards
gives SIGTERM whatever SIGINT does (``dagster/_utils/interrupts.py``), so a process started with
SIGINT ignored ignores SIGTERM after its first in-process run.  ``pipelines/run_main.py``
(``SignalWatch``) and ``tests/support.py`` (``signals_kept``) put the handlers back;
``tests/test_signals.py`` fails when a Dagster release stops doing it.
"""

from __future__ import annotations

import logging
from typing import Any

import dagster as dg
from dagster._core.definitions.asset_daemon_cursor import AssetDaemonCursor
from dagster._core.definitions.declarative_automation.automation_condition_evaluator import (
    AutomationConditionEvaluator,
)
from dagster._core.execution.plan.active import ActiveExecution
from dagster._core.execution.retries import RetryMode
from dagster._core.storage.tags import AUTOMATION_CONDITION_TAG, GRPC_INFO_TAG
from dagster._serdes import deserialize_value, serialize_value

LOGGER = logging.getLogger("genstrat.refresh")


def evaluate_conditions(
    defs: dg.Definitions,
    instance: dg.DagsterInstance,
    selection: dg.AssetSelection,
    cursor: Any = None,
) -> dg.EvaluateAutomationConditionsResult:
    """The automation conditions of ``selection`` (its assets and checks) evaluated once, from
    ``cursor`` (the previous result's; None for the first evaluation), as the daemon's sensor
    evaluates them: ``dg.evaluate_automation_conditions``'s result, the new cursor serialized in
    the evaluation's partition context (see the module docstring)."""
    graph = defs.resolve_asset_graph()
    # round-tripped, as the daemon stores it between ticks
    previous = (
        deserialize_value(serialize_value(cursor), AssetDaemonCursor)
        if cursor
        else AssetDaemonCursor.empty()
    )
    keys = selection.resolve(graph) | selection.resolve_checks(graph)
    evaluator = AutomationConditionEvaluator(
        asset_graph=graph,
        instance=instance,
        entity_keys={k for k in keys if graph.get(k).automation_condition is not None}
        | graph.automatable_asset_job_keys,
        evaluation_time=None,
        emit_backfills=False,
        logger=LOGGER,
        cursor=previous,
        evaluation_id=previous.evaluation_id,
    )
    results, requested_subsets = evaluator.evaluate()
    with dg.partition_loading_context(
        effective_dt=evaluator.evaluation_time, dynamic_partitions_store=evaluator.instance_queryer
    ) as context:
        updated = previous.with_updates(
            evaluation_timestamp=evaluator.evaluation_time.timestamp(),
            newly_observe_requested_asset_keys=[],
            evaluation_id=previous.evaluation_id + 1,
            condition_cursors=[result.get_new_cursor() for result in results],
            asset_graph=graph,
        )
        return dg.EvaluateAutomationConditionsResult(
            cursor=updated,
            requested_subsets=requested_subsets,
            results=results,
            partition_loading_context=context,
        )


__all__ = [
    "AUTOMATION_CONDITION_TAG",
    "GRPC_INFO_TAG",
    "ActiveExecution",
    "AssetDaemonCursor",
    "AutomationConditionEvaluator",
    "RetryMode",
    "evaluate_conditions",
]
