"""``make run``: refresh the whole asset graph in the project's Dagster instance.

The refresh is the one the daemon runs (``pipelines.automation``): the root assets (a run of
``main_job``, as its page's "Materialize all" and the nightly schedule launch it), then wave
after wave what their automation conditions request (the benchmark's games as partitions once
``benchmark_games`` has chosen them, then everything downstream), each a run of the assets'
own job as ``follow_upstream`` launches it, executed in this process (no per-step processes to
start) against the instance at ``$DAGSTER_HOME``.  Every run carries the refresh's
``genstrat/refresh`` tag, so the UI (``make ui``) shows the refresh as one unit with its full
event logs. The console shows one line per finished step with its time, then a summary; a
failure ends in one line naming the step and the reason, and exit status 1 (2 for a set-up
problem).  A refresh whose runs all succeed but that did not publish a release
(``release_bundle`` not reached) ends the same way, its line naming what was not refreshed and
what holds it.

Before it refreshes, it marks failed the runs a killed process left unfinished
(``pipelines.automation.fail_dead_runs``; one line per run): otherwise the assets of such a run
stay "in progress" for ever and nothing below them runs again.  Each run it executes carries
``genstrat/process``, naming this process, so that the next refresh can tell.

SIGTERM (a scheduler's stop, a timeout) and SIGINT (Ctrl-C) stop the refresh at the next step
boundary: one line saying so, the runs so far kept in the instance with their event logs (the
interrupted one marked failed), and exit status 128 + the signal's number (143, 130).  A
refresh started with SIGINT ignored (a background job of a script) keeps ignoring SIGINT but
still stops on SIGTERM.

Usage: ``python -m pipelines.run_main`` (the profile comes from ``$GENSTRAT_PROFILE``).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import dagster as dg
import pandas as pd

from assets.run_profiles import Profile, get_profile

try:
    from pipelines.automation import (
        PROCESS_TAG,
        REFRESH_TAG,
        UNFINISHED,
        Wave,
        fail_dead_runs,
        new_refresh_id,
        process_identity,
        refresh,
    )
except ValueError as exc:  # a deployment setting the code location reads when it loads
    if __name__ != "__main__":
        raise
    print(f"genstrat run: error: {exc}", file=sys.stderr)
    sys.exit(2)
from pipelines.jobs import MAIN_JOB_NAME, ROOT_KEYS

# Console loggers print only what would stop the run; everything is in the instance's event log.
QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
# What a refresh publishes: a refresh whose runs succeeded without materializing it fails.
RELEASE_KEY = dg.AssetKey("release_bundle")


class SetupError(Exception):
    """The environment is not ready for a run (exit status 2)."""


class Interrupted(BaseException):
    """A signal asked the refresh to stop (exit status 128 + its number).  A BaseException,
    like KeyboardInterrupt, so that no ``except Exception`` on the way reports it as a failure."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.name = signal.Signals(signum).name


def raise_interrupted(signum: int, _frame: object) -> None:
    raise Interrupted(signum)


class SignalWatch:
    """SIGTERM, and SIGINT unless the parent ignores it, stop the refresh (``Interrupted``).

    Dagster's in-process execution holds both signals for the length of a run (one then fails
    the run at the next step boundary) and afterwards gives SIGTERM whatever SIGINT does
    (``pipelines/dagster_private.py`` names where): with SIGINT ignored, SIGTERM was then
    ignored for the rest of the refresh.  ``rearm`` after each run puts these handlers back, and
    ``received`` names a signal that arrived while Dagster held them: every signal a Python
    handler takes, its included, writes its number to the wake-up pipe
    (``signal.set_wakeup_fd``)."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._previous = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        self._sigint = signal.getsignal(signal.SIGINT) != signal.SIG_IGN
        self._handlers = {
            number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)
        }
        self.rearm()

    def rearm(self) -> None:
        signal.signal(signal.SIGTERM, raise_interrupted)
        if self._sigint:
            signal.signal(signal.SIGINT, raise_interrupted)

    def received(self) -> int | None:
        """SIGTERM or SIGINT if one arrived since the last call."""
        try:
            numbers = os.read(self._read, 1024)
        except BlockingIOError:
            return None
        stops = [n for n in numbers if n in (signal.SIGTERM, signal.SIGINT)]
        return stops[0] if stops else None

    def close(self) -> None:
        signal.set_wakeup_fd(self._previous)
        for number, handler in self._handlers.items():
            signal.signal(number, handler)
        os.close(self._read)
        os.close(self._write)


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
            "project's instance/dagster.yaml there) or copy it yourself"
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


def plan_steps(
    selection: list[dg.AssetKey],
    graph: Any,
    checks: Sequence[dg.AssetChecksDefinition],
) -> int:
    """How many steps one run of ``selection`` takes (a multi-asset is one step, a graph-backed
    asset one per op, its fan-outs at their default of one; standalone checks count)."""
    keys = set(selection)
    assets_defs = {
        id(node.assets_def): node.assets_def
        for node in (graph.get(k) for k in keys)
        if node.is_executable
    }
    total = sum(
        len(getattr(a.node_def, "nodes", None) or [a.node_def]) for a in assets_defs.values()
    )
    return total + sum(1 for c in checks if any(ck.asset_key in keys for ck in c.check_keys))


def _names(keys: Iterable[dg.AssetKey], most: int = 4) -> str:
    names = sorted(key.to_user_string() for key in keys)
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def unpublished_line(
    instance: dg.DagsterInstance, graph: Any, refreshed: Mapping[dg.AssetKey, set[str | None]]
) -> str:
    """Why a refresh whose runs all succeeded published no release, in one sentence: how many
    assets above the release it did not refresh (a partitioned one: not every partition), the
    first of them (nothing above them is in that set), and the unfinished runs that hold any
    of them (that planned to materialize it, whoever launched them), or else that nothing
    requested them."""
    above = dg.AssetSelection.assets(RELEASE_KEY).upstream().resolve(graph)

    def complete(key: dg.AssetKey) -> bool:
        if key not in refreshed:
            return False
        partitions = graph.get(key).partitions_def
        if partitions is None:
            return True
        wanted = set(partitions.get_partition_keys(dynamic_partitions_store=instance))
        return wanted <= refreshed[key]

    missing = {key for key in above if not complete(key)}
    first = [
        key
        for key in missing
        if not (dg.AssetSelection.assets(key).upstream().resolve(graph) - {key}) & missing
    ]
    holders = []
    for record in instance.get_run_records(filters=dg.RunsFilter(statuses=list(UNFINISHED))):
        run = record.dagster_run
        planned = instance.all_logs(
            run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION_PLANNED
        )
        keys = {e.dagster_event.asset_key for e in planned if e.dagster_event is not None}
        held = {key for key in keys if key in missing}
        if held:
            where = run.tags.get(PROCESS_TAG, "").split(":")[:2]
            by = f", process {where[1]} on {where[0]}" if len(where) == 2 else ""
            partition = run.tags.get("dagster/partition")
            what = _names(held) + (f" [{partition}]" if partition else "")
            holders.append(f"run {run.run_id[:8]} ({run.status.value}{by}) holds {what}")
    cause = (
        "; ".join(holders)
        if holders
        else "no run holds them and the automation conditions did not request them"
    )
    return (
        f"published no release: {len(missing)} assets were not refreshed, first "
        f"{_names(first)}: {cause}"
    )


def main() -> int:
    watch = SignalWatch()
    try:
        return _refresh(watch)
    except Interrupted as stop:
        print(
            f"genstrat run: interrupted by {stop.name}: the runs finished so far are kept in "
            "the instance with their event logs; `make run` again refreshes in full",
            file=sys.stderr,
        )
        return 128 + stop.signum
    finally:
        watch.close()


def _refresh(watch: SignalWatch) -> int:
    started = time.perf_counter()
    try:
        instance, profile = check_environment()
    except SetupError as exc:
        print(f"genstrat run: error: {exc}", file=sys.stderr)
        return 2
    try:
        from pipelines.definitions import defs

        main_job = defs.resolve_job_def(MAIN_JOB_NAME)
        graph = defs.resolve_asset_graph()
    except Exception as exc:  # a broken code location: say so in one line
        print(
            f"genstrat run: error: could not load the code location: {exc!s}".splitlines()[0]
            + " (details: dagster definitions validate -w workspace.yaml)",
            file=sys.stderr,
        )
        return 1

    checks = list(defs.asset_checks or [])
    progress = StepProgress(total=0)
    refresh_id = new_refresh_id()
    for run, reason in fail_dead_runs(instance, by="genstrat run"):
        partition = run.tags.get("dagster/partition")
        what = _names(run.asset_selection or ()) + (f" [{partition}]" if partition else "")
        print(
            f"genstrat: run {run.run_id[:8]} ({what}) was left {run.status.value} and "
            f"{reason}: marked failed",
            flush=True,
        )
    print(
        f"genstrat: materializing {MAIN_JOB_NAME} (profile {profile.name}, edition "
        f"{profile.edition}) into "
        f"{instance.root_directory}; refresh {refresh_id} ({REFRESH_TAG} in the UI's runs)",
        flush=True,
    )
    lines: list[str] = []
    run_ids: list[str] = []
    refreshed: dict[dg.AssetKey, set[str | None]] = {}
    identity = {PROCESS_TAG: process_identity()}
    hooks = progress.hooks()
    hooked: dict[str, dg.JobDefinition] = {}

    def job_of(partition_key: str | None, selection: list[dg.AssetKey]) -> dg.JobDefinition:
        """``main_job`` for the roots (its Runs tab shows them), else the assets' own job, the
        one ``follow_upstream`` launches them in; with the progress hooks."""
        if partition_key is None and set(selection) <= set(ROOT_KEYS):
            job = main_job
        else:
            found = defs.resolve_implicit_job_def_def_for_assets(selection)
            if found is None:
                raise ValueError(f"no job materializes {_names(selection)}")
            job = found
        if job.name not in hooked:
            hooked[job.name] = job.with_hooks(hooks)
        return hooked[job.name]

    announced: set[str] = set()

    def on_wave(wave: Wave) -> None:
        progress.total += sum(plan_steps(assets, graph, checks) for assets in wave.runs.values())
        games = [key for key in wave.runs if key is not None and key not in announced]
        if games:
            announced.update(games)
            print(f"genstrat: {len(games)} benchmark games: {', '.join(games)}", flush=True)

    def run_one(
        partition_key: str | None, selection: list[dg.AssetKey], tags: Mapping[str, str]
    ) -> bool:
        result = job_of(partition_key, selection).execute_in_process(
            instance=instance,
            run_config=QUIET_RUN_CONFIG,
            tags={
                "genstrat/profile": profile.name,
                "genstrat/edition": str(profile.edition),
                **tags,
                **identity,
            },
            raise_on_error=False,
            partition_key=partition_key,
            asset_selection=selection,
        )
        watch.rearm()
        run_ids.append(result.run_id)
        signum = watch.received()
        if signum is not None:  # the run stopped at a step boundary (or had just ended)
            raise Interrupted(signum)
        problem = failure_line(result)
        if problem is not None:
            where = f"partition {partition_key}, " if partition_key else ""
            print(f"genstrat run: error: {problem} ({where}run {result.run_id})", file=sys.stderr)
            return False
        for event in result.get_asset_materialization_events():
            materialization = event.materialization
            refreshed.setdefault(materialization.asset_key, set()).add(materialization.partition)
        lines.extend(
            f"{line} [{partition_key}]" if partition_key and not line.startswith(" ") else line
            for line in summary_lines(result)
        )
        return True

    with instance:
        done = refresh(defs, instance, run_one, refresh_id=refresh_id, on_wave=on_wave)
        if done is None:
            return 1
        for line in lines:
            print(line)
        if RELEASE_KEY not in refreshed:
            why = unpublished_line(instance, graph, refreshed)
            print(
                f"genstrat run: error: refresh {refresh_id} ({len(run_ids)} runs in "
                f"{len(done.waves)} waves) {why}",
                file=sys.stderr,
            )
            return 1
    elapsed = time.perf_counter() - started
    print(
        f"genstrat: refresh {refresh_id}: {len(run_ids)} runs in {len(done.waves)} waves "
        f"succeeded in {elapsed:.1f} s",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
