"""``make run``: materialize every asset of the main job into the project's Dagster instance.

The run is executed in this process (no per-step processes to start) against the instance at
``$DAGSTER_HOME``, so it appears in the Dagster UI (``make ui``) with its full event log. The
console shows one line per finished step with its time, then a summary; a failure ends in one
line naming the step and the reason, and exit status 1 (2 for a set-up problem).

Usage: ``python -m pipelines.run_main`` (the profile comes from ``$GENSTRAT_PROFILE``).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dagster as dg
import pandas as pd

from assets.run_profiles import Profile, get_profile
from pipelines.jobs import MAIN_JOB_NAME

# Console loggers print only what would stop the run; everything is in the instance's event log.
QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


class SetupError(Exception):
    """The environment is not ready for a run (exit status 2)."""


def _summarize_reference_games(frame: pd.DataFrame) -> list[str]:
    width = max((len(name) for name in frame["name"]), default=4)
    return [
        f"  {row.name:<{width}}  {row.spec_hash}  rulebook {row.rulebook_chars:>6,} chars"
        for row in frame.itertuples(index=False)
    ]


def _summarize_release(frame: pd.DataFrame) -> list[str]:
    lines = []
    for row in frame.to_dict("records"):
        lines.append(f"  release {row.get('release_id')} published at {row.get('path')}")
        lines.append(f"  verify it: genstrat release verify {row.get('release_id')}")
    return lines


def _summarize_leaderboard(frame: pd.DataFrame) -> list[str]:
    top = frame.sort_values("rank").head(5)
    return [
        f"  {int(r['rank']):>2}. {r['model']:<16} {r['alpha']:+.3f} chips/game "
        f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]"
        for r in top.to_dict("records")
    ]


# Asset-specific lines for the final summary, keyed by asset key (user string).
SUMMARIES: dict[str, Callable[[pd.DataFrame], list[str]]] = {
    "reference_games": _summarize_reference_games,
    "leaderboards": _summarize_leaderboard,
    "release_bundle": _summarize_release,
}


def check_environment() -> tuple[dg.DagsterInstance, Profile]:
    """The persistent instance at ``$DAGSTER_HOME`` and the chosen profile, or ``SetupError``."""
    home = os.environ.get("DAGSTER_HOME")
    if not home:
        raise SetupError(
            "DAGSTER_HOME is not set; use `make run` (it sets DAGSTER_HOME to ./.dagster_home) "
            "or export DAGSTER_HOME=<absolute folder holding a copy of dagster.yaml>"
        )
    if not (Path(home) / "dagster.yaml").is_file():
        raise SetupError(
            f"no dagster.yaml in DAGSTER_HOME={home}; run `make install` (it copies the "
            "project's dagster.yaml there) or copy it yourself"
        )
    try:
        profile = get_profile()
    except ValueError as exc:
        raise SetupError(str(exc)) from None
    return dg.DagsterInstance.get(), profile


class StepProgress:
    """Prints one line per finished step; steps run one after another in this process."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.last = time.perf_counter()

    def finished(self, step_key: str, ok: bool) -> None:
        now = time.perf_counter()
        self.done += 1
        verdict = "ok" if ok else "FAILED"
        print(
            f"  [{self.done}/{self.total}] {step_key:<44} {verdict:<6} {now - self.last:7.2f} s",
            flush=True,
        )
        self.last = now

    def hooks(self) -> set[dg.HookDefinition]:
        @dg.success_hook(name="genstrat_progress_success")
        def on_success(context: dg.HookContext) -> None:
            self.finished(context.step_key or context.op.name, ok=True)

        @dg.failure_hook(name="genstrat_progress_failure")
        def on_failure(context: dg.HookContext) -> None:
            self.finished(context.step_key or context.op.name, ok=False)

        return {on_success, on_failure}


def _innermost_message(error: object) -> str:
    """The first line of the deepest cause of a Dagster error record."""
    while getattr(error, "cause", None) is not None:
        error = error.cause  # type: ignore[attr-defined]
    message = str(getattr(error, "message", error)).strip()
    return message.splitlines()[0] if message else "unknown error"


def failure_line(result: dg.ExecuteInProcessResult) -> str | None:
    """One sentence naming what failed in the run, or ``None`` if everything passed."""
    for evaluation in result.get_asset_check_evaluations():
        if not evaluation.passed:
            problems = evaluation.metadata.get("problems")
            detail = f": {problems.value}" if problems is not None else ""
            key = evaluation.asset_key.to_user_string()
            return f"check {key}/{evaluation.check_name} failed{detail}"
    for event in result.get_step_failure_events():
        data = event.step_failure_data
        reason = _innermost_message(data.error) if data.error else "no error recorded"
        return f"step {event.step_key} failed: {reason}"
    if not result.success:
        return "the run failed (see the run's event log in the Dagster UI)"
    return None


def summary_lines(result: dg.ExecuteInProcessResult) -> list[str]:
    """Per materialized asset: its row count and file, plus asset-specific lines."""
    lines: list[str] = []
    for event in result.get_asset_materialization_events():
        materialization = event.materialization
        key = materialization.asset_key.to_user_string()
        metadata = materialization.metadata
        rows = metadata.get("dagster/row_count")
        path = metadata.get("path")
        row_text = f"{rows.value} rows" if rows is not None else "materialized"
        lines.append(f"{key}: {row_text}" + (f" -> {path.value}" if path is not None else ""))
        summarize = SUMMARIES.get(key)
        if summarize is not None:
            lines.extend(summarize(result.asset_value(key)))
    return lines


Selection = list[dg.AssetKey] | None


@dataclass
class Plan:
    """The in-process runs that materialize the main job.

    A job without partitioned assets is one run of everything (``before`` is None and nothing
    else is set).  Otherwise (one partitions definition: one partition per benchmark game): a
    run of the unpartitioned assets upstream of the partitioned ones, one run per partition key
    of the partitioned assets, then a run of everything downstream (which reads every
    partition).  The partition keys are read after the upstream run, because the benchmark's
    games are a dynamic partition set that ``benchmark_games`` writes.
    """

    before: Selection
    partitioned: list[dg.AssetKey] = field(default_factory=list)
    downstream: list[dg.AssetKey] = field(default_factory=list)
    partitions_def: Any = None

    def partition_keys(self, instance: dg.DagsterInstance) -> list[str]:
        if self.partitions_def is None:
            return []
        return list(self.partitions_def.get_partition_keys(dynamic_partitions_store=instance))


def execution_plan(job: dg.JobDefinition, graph: Any) -> Plan:
    """Split the main job into the runs of a ``Plan``."""
    keys = set(job.asset_layer.executable_asset_keys)
    partitioned = {k for k in keys if graph.get(k).partitions_def is not None}
    if not partitioned:
        return Plan(before=None)
    partitions_defs = {graph.get(k).partitions_def for k in partitioned}
    if len(partitions_defs) != 1:
        raise SetupError("the main job's partitioned assets must share one partitions definition")
    downstream: set[dg.AssetKey] = set()
    frontier = list(partitioned)
    while frontier:
        for child in graph.get(frontier.pop()).child_keys:
            if child not in downstream:
                downstream.add(child)
                frontier.append(child)
    downstream -= partitioned
    before = keys - partitioned - downstream
    return Plan(
        before=sorted(before),
        partitioned=sorted(partitioned),
        downstream=sorted(downstream & keys),
        partitions_def=partitions_defs.pop(),
    )


def plan_steps(
    selection: Selection,
    graph: Any,
    checks: Sequence[dg.AssetChecksDefinition],
) -> int:
    """How many steps one run of ``selection`` takes (a multi-asset is one step; standalone
    checks count)."""
    keys = set(selection if selection is not None else graph.get_all_asset_keys())
    total = len({id(graph.get(k).assets_def) for k in keys if graph.get(k).is_executable})
    return total + sum(1 for c in checks if any(ck.asset_key in keys for ck in c.check_keys))


def main() -> int:
    started = time.perf_counter()
    try:
        instance, profile = check_environment()
    except SetupError as exc:
        print(f"genstrat run: error: {exc}", file=sys.stderr)
        return 2
    try:
        from pipelines.definitions import defs

        job = defs.resolve_job_def(MAIN_JOB_NAME)
        graph = defs.resolve_asset_graph()
        plan = execution_plan(job, graph)
    except Exception as exc:  # a broken code location: say so in one line
        print(
            f"genstrat run: error: could not load the code location: {exc!s}".splitlines()[0]
            + " (details: dagster definitions validate -w workspace.yaml)",
            file=sys.stderr,
        )
        return 1

    checks = list(defs.asset_checks or [])
    if plan.partitions_def is None:
        total = len(job.nodes)
    else:
        total = plan_steps(plan.before, graph, checks) + plan_steps(plan.downstream, graph, checks)
    progress = StepProgress(total=total)
    print(
        f"genstrat: materializing {MAIN_JOB_NAME} (profile {profile.name}) into "
        f"{instance.root_directory}",
        flush=True,
    )
    lines: list[str] = []
    run_ids: list[str] = []
    hooked = job.with_hooks(progress.hooks())

    def run(partition_key: str | None, selection: Selection) -> bool:
        result = hooked.execute_in_process(
            instance=instance,
            run_config=QUIET_RUN_CONFIG,
            tags={"genstrat/profile": profile.name},
            raise_on_error=False,
            partition_key=partition_key,
            asset_selection=selection,
        )
        run_ids.append(result.run_id)
        problem = failure_line(result)
        if problem is not None:
            where = f"partition {partition_key}, " if partition_key else ""
            print(f"genstrat run: error: {problem} ({where}run {result.run_id})", file=sys.stderr)
            return False
        lines.extend(
            f"{line} [{partition_key}]" if partition_key and not line.startswith(" ") else line
            for line in summary_lines(result)
        )
        return True

    with instance:
        if not run(None, plan.before):
            return 1
        if plan.partitions_def is not None:
            keys = plan.partition_keys(instance)
            progress.total += len(keys) * plan_steps(plan.partitioned, graph, checks)
            print(f"genstrat: {len(keys)} benchmark games: {', '.join(keys)}", flush=True)
            for key in keys:
                if not run(key, plan.partitioned):
                    return 1
            if plan.downstream and not run(None, plan.downstream):
                return 1
        for line in lines:
            print(line)
    elapsed = time.perf_counter() - started
    print(f"genstrat: run {', '.join(run_ids)} succeeded in {elapsed:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
