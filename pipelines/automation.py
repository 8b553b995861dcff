"""How the graph refreshes itself: declarative automation, and what starts it.

One mechanism for every way a refresh starts (DESIGN.md, "used by"): the three root assets
(``reference_games``, ``seed_pool``, ``roster``: ``main_job``) are materialized, and every other
asset follows by its ``AutomationCondition`` (``follow``: Dagster's ``eager`` condition, started
only by the deps a refresh reaches it through last, or once after its own last run failed, held
back while anything upstream is in progress or failed or an upstream blocking check fails, so
that a refresh runs each asset once, after everything above it). When ``benchmark_games``
writes the benchmark's games into the dynamic partition set, their ``axis_scores``,
``match_corpus`` and ``match_moves`` partitions are newly missing and materialize, one run per
game; the unpartitioned assets downstream wait until every partition is in, then follow, up to
``release_bundle``.

- ``follow_upstream`` (on as shipped): Dagster's automation-condition sensor, which evaluates
  the conditions on the daemon every ``$GENSTRAT_AUTOMATION_INTERVAL_S`` seconds (default 30)
  and launches what is due.  Nothing is due until the roots have run.
- ``nightly_refresh`` (schedule, 02:00 UTC; turn it on): a run of ``main_job`` (the roots), with
  the roster the roster sensor watches. The release id is derived from the inputs, so a night
  whose inputs did not change republishes nothing new.
- ``roster_sensor`` (turn it on to follow roster edits): when the roster file's validated
  content changes, requests ``roster`` with that file; the tournament's corpus is resumable
  and keyed by match, so only the matches of newly added players are played, and the refits
  downstream follow.
- ``refresh_tags`` (on as shipped): tags the runs the UI and ``follow_upstream`` launch with
  their refresh.
- ``dead_runs`` (on as shipped): marks failed the runs whose process is gone
  (``fail_dead_runs``; ``make run`` does the same when it starts), so that a killed refresh's
  assets are requested again.
- ``make run`` (``pipelines/run_main.py``) and the UI (``main_job``'s "Materialize all",
  ``roots(*)`` in the asset graph, an asset's "Materialize"): materializing the roots, or any
  asset, starts the same cascade below it; ``refresh`` below runs it without a daemon,
  evaluating the same conditions as the daemon's sensor does (``_evaluate``) and executing
  what they request, in this process.

Every run of one refresh carries the tag ``genstrat/refresh`` (the UI's runs page filters on
it), so a refresh is visible as one unit: the schedule, the sensor and ``make run`` set it on
the runs they launch; ``refresh_tags`` sets it on a run of the roots launched from the UI
(``manual-<run id>``) and on every run ``follow_upstream`` launches (the latest refresh started
before it).
"""

from __future__ import annotations

import functools
import hashlib
import json
import operator
import os
import socket
import uuid
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import dagster as dg

from arena.roster import load_roster, roster_json
from assets.resources import RosterFile
from pipelines.dagster_private import AUTOMATION_CONDITION_TAG, GRPC_INFO_TAG, evaluate_conditions
from pipelines.jobs import MAIN_JOB_NAME, ROOT_ASSETS, ROOT_KEYS, main_job

INTERVAL_ENV_VAR = "GENSTRAT_AUTOMATION_INTERVAL_S"
REFRESH_TAG = "genstrat/refresh"
# On every run the follow_upstream sensor launches: Dagster's own tag on a run that
# declarative automation launched.
AUTOMATION_TAGS = {AUTOMATION_CONDITION_TAG: "true"}

# How often the daemon evaluates the automation conditions (a deployment setting). The
# daemon's own loop runs every 5 s, so a shorter interval would not be kept.
DEFAULT_INTERVAL_S = 30
INTERVAL_RANGE_S = (5, 86_400)

# What the automation conditions are evaluated on, by the daemon's sensor and by ``refresh``:
# every asset with its checks (the UI shows the selection as ``*``).
AUTOMATED = dg.AssetSelection.all()

FOLLOW_LABEL = "follow upstream"
CHECK_LABEL = "with its asset"


def _by_name(keys: Iterable[dg.AssetKey]) -> list[dg.AssetKey]:
    """``keys`` once each, in the order of their names (a condition's children, stably)."""
    return sorted(set(keys), key=lambda key: key.to_user_string())


def follow(
    ignored: Iterable[dg.AssetKey],
    upstream: Iterable[dg.AssetKey],
    writer: dg.AssetKey | None = None,
    writer_upstream: Iterable[dg.AssetKey] = (),
    set_writers: Iterable[dg.AssetKey] = (),
) -> dg.AutomationCondition[Any]:
    """The condition of an asset that follows upstream: Dagster's ``eager`` (run when a dep
    updated, or when newly missing; not while a dep is missing or in progress, nor while this
    one is), except that

    1. an update of an ``ignored`` dep does not start it (that update reaches it through
       another dep, see ``followed_deps``);
    2. it waits while anything ``upstream`` (every asset above it) is in progress (queued
       runs count) or due to run in another run (a partitioned asset requested now, or one
       whose deps updated and that a later evaluation requests), so that a refresh reaches it
       once, after everything above it;
    3. it waits while an upstream blocking check fails;
    4. an asset missing when the conditions are first evaluated is requested once its deps are
       there and nothing above it is busy (Dagster's ``eager`` forgets it: its ``handled``
       includes the first evaluation).  The roots may well have materialized before the
       sensor's first tick (the UI's switch and its button are seconds apart, the sensor ticks
       every 30 s), and their update, older than the first tick, would start nothing;
    5. an asset partitioned by a set that ``writer`` writes (``match_corpus`` and
       ``benchmark_games``) also waits while the writer, or anything above it
       (``writer_upstream``), is in progress or due: the writer may change the partition set,
       and waiting lets the asset's partitions be requested with the writer's other followers
       (``axis_scores``), so that a refresh plays and measures each game in one run; it
       waits for the writer's blocking checks too, as those followers do;
    6. an asset below a partitioned asset (``benchmark_axes`` below ``axis_scores``) also waits
       while the writer of that asset's partition set (``set_writers``) is requested now or
       missing: until the writer has run, the partitioned asset has no partitions, or not the
       new ones, and nothing would say it is busy (an empty subset is neither in progress nor
       due), so the asset below would run on a partition set about to change: on a fresh
       instance, ``benchmark_axes`` ran on no games at all;
    7. an asset whose latest run failed, whoever launched that run (a refresh killed mid-way,
       a run from the UI), is requested again once it is ready, once: the retry is spent when
       it is requested, and given back when the asset or one of its deps updates.  Dagster's
       ``eager`` never requests it again (the failed request was "handled"), and what was due
       below it waited for ever;
    8. it also waits while anything upstream failed (rule 2's "pending"): what is below a
       failed game must not run on that game's old table, or on none;
    9. nothing is requested at the first evaluation of the conditions, which only observes:
       ``refresh`` runs no request of that evaluation (the roots come first), and an asset it
       had requested counted as requested ("handled") at the next one and was never requested
       again (a killed refresh's game, or ``episode_adaptation`` after a ``roster`` materialized
       by hand).  The daemon's first tick after the conditions change therefore requests nothing
       and the next one what it would have (rule 4 keeps the missing assets for it).

    "Anything above" is one ``asset_matches`` per upstream asset.  Nesting ``any_deps_match``
    once per level says the same (what an upstream asset's condition is does not depend on the
    path it is reached by: ``will_be_requested`` and ``initial_evaluation`` look at the root
    asset, ``since`` and ``or`` evaluate every child on the whole subset, and the partitioned
    assets have only unpartitioned assets above them), but Dagster evaluates it once per
    upstream *path*: 4,530 condition nodes in an evaluation of the real graph, against 2,647
    this way, and 0.58 to 0.83 CPU seconds against 0.34 to 0.54 (a ``tiny`` instance).
    """
    above = _by_name(upstream)
    if not above:
        raise ValueError("an asset that follows upstream needs at least one asset above it")
    updated = dg.AutomationCondition.any_deps_updated()
    skip = _by_name(ignored)
    if skip:
        updated = updated.ignore(dg.AssetSelection.assets(*skip)).with_label("any_deps_updated")
    # in progress, or due (its deps updated since it was last requested or updated) and not
    # requested into this asset's own run now: ``will_be_requested`` sees a dep requested by
    # this evaluation only when it can run in the same run (the same partitioning), so a
    # partitioned dep, or one due for a later evaluation, makes it wait
    handled = (
        dg.AutomationCondition.newly_requested() | dg.AutomationCondition.newly_updated()
    ).with_label("handled")
    # (not ``since_last_handled``: its ``initial_evaluation`` compares the partitioning of the
    # asset's last request with that of the asset evaluated, another one here, so below a
    # partitioned asset it was true at every evaluation and reset the ``since``: a missing or
    # failed game did not wait for the pool stage above it)
    due = dg.AutomationCondition.any_deps_updated().since(handled)
    failed = dg.AutomationCondition.execution_failed()
    pending = dg.AutomationCondition.in_progress() | (
        (due | failed) & ~dg.AutomationCondition.will_be_requested()
    )
    waits_on = [dg.AutomationCondition.asset_matches(key, pending) for key in above]
    if writer is not None:
        waits_on += [
            dg.AutomationCondition.asset_matches(key, pending)
            for key in [writer, *_by_name(writer_upstream)]
        ]
        # and for the writer's blocking checks, as a dep's (rule 3): the writer's followers
        # that are its deps (``axis_scores``) wait for them, and a daemon's tick that falls
        # after the writer's step and before its checks' in the same run would otherwise
        # request the games' matches in one evaluation and their axes in the next
        checked = dg.AutomationCondition.all_checks_match(
            dg.AutomationCondition.check_passed() | dg.AutomationCondition.will_be_requested(),
            blocking_only=True,
        ).with_label("blocking checks passed")
        waits_on.append(dg.AutomationCondition.asset_matches(writer, ~checked))
    rewrites = (
        dg.AutomationCondition.will_be_requested() | dg.AutomationCondition.missing()
    ).with_label("writing a partition set above")
    waits_on += [
        dg.AutomationCondition.asset_matches(key, rewrites) for key in _by_name(set_writers)
    ]
    busy = functools.reduce(operator.or_, waits_on)
    # Dagster's ``eager`` (its trigger, then what it waits for), the waits of rules 2 to 6, and
    # rule 9; ``ready`` is everything but the trigger
    ready = (
        dg.AutomationCondition.in_latest_time_window()
        & ~dg.AutomationCondition.any_deps_missing()
        & ~dg.AutomationCondition.any_deps_in_progress()
        & ~dg.AutomationCondition.in_progress()
        & ~busy.with_label("upstream in progress")
        & dg.AutomationCondition.all_deps_blocking_checks_passed()
        & ~dg.AutomationCondition.initial_evaluation()
    ).with_label("ready")
    due_here = (dg.AutomationCondition.newly_missing() | updated).since(handled)
    # rule 7: failed, and not requested again since it failed (and since the asset or a dep
    # last updated).  A request shows as ``newly_requested`` at the next evaluation; it was a
    # retry if the failure had been seen before that evaluation (a first request whose run
    # failed before the next evaluation shows the failure only at that one: ``newly_true``)
    renewed = (
        dg.AutomationCondition.newly_updated() | dg.AutomationCondition.any_deps_updated()
    ).with_label("updated")
    failed_since = failed.since(renewed).with_label("failed since updated")
    retried = (
        (dg.AutomationCondition.newly_requested() & failed_since & ~failed_since.newly_true())
        .since(renewed)
        .with_label("retried since updated")
    )
    retry = (failed & ~retried).with_label("failed, not retried")
    return ((due_here | retry) & ready).with_label(FOLLOW_LABEL)


@dataclass(frozen=True)
class Follows:
    """Per asset: the deps whose updates do not start it, how many levels of ancestors it has
    (the longest path up to a root, counting the partition sets written as edges), the assets
    above it (its deps, theirs, and so on), the asset that writes its partition set (if
    another one does), and the writers of the partition sets of the partitioned assets above
    it."""

    ignored: dict[dg.AssetKey, frozenset[dg.AssetKey]]
    depth: dict[dg.AssetKey, int]
    upstream: dict[dg.AssetKey, frozenset[dg.AssetKey]]
    writer: dict[dg.AssetKey, dg.AssetKey] = field(default_factory=dict)
    set_writers: dict[dg.AssetKey, frozenset[dg.AssetKey]] = field(default_factory=dict)

    def condition(self, key: dg.AssetKey) -> dg.AutomationCondition[Any]:
        """``follow`` for ``key``, as the code location sets it."""
        writer = self.writer.get(key)
        return follow(
            self.ignored[key],
            self.upstream[key],
            writer=writer,
            writer_upstream=self.upstream[writer] if writer is not None else (),
            set_writers=self.set_writers.get(key, frozenset()),
        )


def followed_deps(
    deps: Mapping[dg.AssetKey, set[dg.AssetKey]],
    writes_partitions_of: Mapping[dg.AssetKey, set[dg.AssetKey]],
    roots: Iterable[dg.AssetKey],
) -> Follows:
    """Which dep updates start each asset, so that a refresh starts it once, from its last dep.

    An asset ignores the updates of a dep that another of its deps descends from (the update
    reaches it later through that one: ``release_bundle`` ignores ``complete_pairs``, which
    ``leaderboards`` descends from), those of a root when it has deps other than roots (a
    refresh starts at the roots and reaches it through the others), and those of a dep only
    roots lead to when a deeper dep descends from those roots too (``episode_adaptation``, from
    ``roster`` alone, beside ``ablations``: a refresh updates the first one wave after the roots,
    long before the rest, and reaches the asset through the second); but an asset whose
    partition set another asset writes keeps following the roots that writer does not descend
    from (``match_corpus`` follows ``roster`` beside ``benchmark_games``: waiting for everything
    above it, a refresh still starts it once). ``writes_partitions_of``
    adds the edges the graph does not declare: ``benchmark_games`` writes the partition set of
    ``match_corpus``, so a new benchmark reaches ``ablations`` through ``leaderboards``.
    """
    root_set = set(roots)
    feeds = {key: set(parents) for key, parents in deps.items()}
    for writer, written in writes_partitions_of.items():
        for key in written:
            feeds.setdefault(key, set()).add(writer)
    ancestors: dict[dg.AssetKey, set[dg.AssetKey]] = {}
    depth: dict[dg.AssetKey, int] = {}

    def visit(key: dg.AssetKey, path: tuple[dg.AssetKey, ...]) -> None:
        if key in ancestors:
            return
        if key in path:
            raise ValueError(f"the asset graph has a cycle through {key.to_user_string()}")
        found: set[dg.AssetKey] = set()
        levels = 0
        for parent in feeds.get(key, set()):
            visit(parent, (*path, key))
            found |= {parent} | ancestors[parent]
            levels = max(levels, 1 + depth[parent])
        ancestors[key], depth[key] = found, levels

    for key in list(feeds):
        visit(key, ())

    def roots_of(key: dg.AssetKey) -> set[dg.AssetKey]:
        return ({key} | ancestors.get(key, set())) & root_set

    written_by = {key: w for w, written in writes_partitions_of.items() for key in written}
    ignored: dict[dg.AssetKey, frozenset[dg.AssetKey]] = {}
    for key, parents in deps.items():
        shadowed = {p for p in parents if any(p in ancestors[o] for o in parents if o != p)}
        if parents - root_set:
            # except a root the writer of the asset's partition set does not descend from:
            # the tournament follows the roster (a roster change alone plays the new players)
            # and reads its games from benchmark_games, which writes its partitions
            own = ancestors.get(written_by[key], set()) if key in written_by else None
            shadowed |= {r for r in parents & root_set if own is None or r in own}
        # a dep only roots lead to, when a deeper dep descends from those roots too
        # (``episode_adaptation`` beside ``ablations``): a refresh updates it one wave after the
        # roots, long before the rest, and reaches this asset later through the deeper one
        shadowed |= {
            p
            for p in parents - root_set
            if ancestors[p] <= root_set
            and any(depth[o] > depth[p] and roots_of(p) <= roots_of(o) for o in parents)
        }
        ignored[key] = frozenset(shadowed)
    # (a writer that is a dep already is waited for as one)
    writers = {
        key: w
        for w, written in writes_partitions_of.items()
        for key in written
        if w not in deps.get(key, set())
    }
    upstream: dict[dg.AssetKey, frozenset[dg.AssetKey]] = {}

    def above(key: dg.AssetKey) -> frozenset[dg.AssetKey]:  # the declared deps only
        if key not in upstream:
            parents = deps.get(key, set())
            upstream[key] = frozenset(parents).union(*(above(p) for p in parents))
        return upstream[key]

    for key in deps:
        above(key)
    written_by = {key: w for w, written in writes_partitions_of.items() for key in written}
    set_writers = {
        key: frozenset(written_by[p] for p in upstream[key] if p in written_by) for key in deps
    }
    return Follows(
        ignored=ignored, depth=depth, upstream=upstream, writer=writers, set_writers=set_writers
    )


def follows_of(
    assets: Iterable[dg.AssetsDefinition], roots: Iterable[dg.AssetKey] = ROOT_KEYS
) -> Follows:
    """``followed_deps`` of ``assets``' graph, with the partition sets their writers write (a
    dynamic partition set named after an asset is written by that asset, assets/partitions.py).
    """
    specs = [spec for asset in assets for spec in asset.specs]
    keys = {spec.key for spec in specs}
    deps = {spec.key: {dep.asset_key for dep in spec.deps} & keys for spec in specs}
    writes: dict[dg.AssetKey, set[dg.AssetKey]] = defaultdict(set)
    for spec in specs:
        partitions = spec.partitions_def
        if isinstance(partitions, dg.DynamicPartitionsDefinition) and partitions.name:
            writer = dg.AssetKey(partitions.name)
            if writer in keys and writer != spec.key:
                writes[writer].add(spec.key)
    return followed_deps(deps, writes, roots)


def with_its_asset(asset: dg.AssetKey) -> dg.AutomationCondition[Any]:
    """The condition of a check of ``asset``: requested when ``asset`` is requested.

    Dagster's ``all_deps_blocking_checks_passed`` lets an asset join the run of a dep that is
    requested now only if the dep's blocking checks are requested now too (they run first in
    that run, and a failure stops it there). A check without a condition is never requested,
    so on a fresh instance, where no check has passed yet, every level below a blocking check
    waited for the next evaluation: a ``tiny`` refresh took 10 runs in 8 waves on a fresh
    instance and 6 runs in 4 waves on a refreshed one; with this, 6 in 4 on both."""
    return (
        dg.AutomationCondition.any_deps_match(dg.AutomationCondition.will_be_requested())
        .allow(dg.AssetSelection.assets(asset))
        .with_label(CHECK_LABEL)
    )


def _checks_with_its_asset(
    definition: dg.AssetsDefinition, keys: Iterable[dg.AssetKey]
) -> dg.AssetsDefinition:
    """``definition`` with ``with_its_asset`` on each of its checks of an asset in ``keys``.

    Dagster has no public way to set a check's condition after the check is defined (only at
    ``@asset_check`` or ``AssetCheckSpec``, in the stages, which should not carry the code
    location's policy); this rebuilds the definition from its attributes, as Dagster's own
    repository does when it turns an ``AssetsDefinition`` into an ``AssetChecksDefinition``."""
    chosen = set(keys)
    specs = definition.node_check_specs_by_output_name
    if not any(spec.asset_key in chosen for spec in specs.values()):
        return definition
    attributes = definition.get_attributes_dict()
    attributes["check_specs_by_output_name"] = {
        name: (
            spec._replace(automation_condition=with_its_asset(spec.asset_key))
            if spec.asset_key in chosen
            else spec
        )
        for name, spec in specs.items()
    }
    with warnings.catch_warnings():  # the constructor's ``execution_type`` is a beta parameter
        warnings.simplefilter("ignore", dg.BetaWarning)
        return type(definition)(**attributes)


def with_automation(
    assets: Iterable[dg.AssetsDefinition], roots: Iterable[dg.AssetKey] = ROOT_KEYS
) -> list[dg.AssetsDefinition]:
    """``assets`` with ``follow`` on every asset but the roots, and ``with_its_asset`` on the
    checks they define (the code location's policy; ``checks_with_automation`` for the checks
    defined apart)."""
    assets, root_set = list(assets), set(roots)
    plan = follows_of(assets, root_set)
    keys = [key for asset in assets for key in asset.keys]

    def policy(spec: dg.AssetSpec) -> dg.AssetSpec:
        if spec.key in root_set:
            return spec
        return spec.replace_attributes(automation_condition=plan.condition(spec.key))

    return [_checks_with_its_asset(asset.map_asset_specs(policy), keys) for asset in assets]


def checks_with_automation(
    checks: Iterable[dg.AssetChecksDefinition], assets: Iterable[dg.AssetsDefinition]
) -> list[dg.AssetChecksDefinition]:
    """``checks`` with ``with_its_asset`` on each check of one of ``assets`` (those of
    ``with_automation``); the checks of other assets as they are."""
    keys = [key for asset in assets for key in asset.keys]
    return [_checks_with_its_asset(check, keys) for check in checks]  # type: ignore[misc]


def automation_interval_s(environ: Mapping[str, str] = os.environ) -> int:
    """Seconds between two evaluations of the automation conditions: ``$GENSTRAT_AUTOMATION_
    INTERVAL_S`` (a whole number in ``INTERVAL_RANGE_S``), else ``DEFAULT_INTERVAL_S``.

    Read when the code location is loaded, since a sensor's interval is part of its definition.
    """
    raw = environ.get(INTERVAL_ENV_VAR, "").strip()
    if not raw:
        return DEFAULT_INTERVAL_S
    low, high = INTERVAL_RANGE_S
    seconds = int(raw) if raw.isascii() and raw.isdigit() else None
    if seconds is None or not low <= seconds <= high:
        raise ValueError(
            f"{INTERVAL_ENV_VAR}={raw[:40]!r} is not a whole number of seconds from {low} to "
            f"{high}; unset it for the default ({DEFAULT_INTERVAL_S})"
        )
    return seconds


def new_refresh_id() -> str:
    return uuid.uuid4().hex[:12]


def roster_path() -> Path:
    """The roster file of the deployment: ``$GENSTRAT_ROSTER``, else the demo roster (the
    ``roster_file`` resource's default, so the file ``roster`` reads without run config)."""
    return RosterFile().file()


def root_checks(repository: dg.RepositoryDefinition) -> list[dg.AssetCheckKey]:
    """The checks of the root assets in the code location ``repository`` (a schedule's or a
    sensor's ``context.repository_def``); blocking: ``follow`` waits for them to pass."""
    found = dg.AssetSelection.checks_for_assets(*ROOT_KEYS).resolve_checks(repository.asset_graph)
    return sorted(found, key=lambda key: key.to_user_string())


def root_request(
    assets: list[dg.AssetKey],
    *,
    tags: Mapping[str, str],
    run_key: str,
    roster: Path,
    repository: dg.RepositoryDefinition,
) -> dg.RunRequest:
    """A run of root ``assets`` reading ``roster``, with their checks (in ``repository``)
    listed explicitly.

    Listed, not left implied: the UI's "Preview tick result" / "Test sensor" dialogs launch a
    request with exactly the checks it lists, and a root run without its checks would hold the
    whole cascade back (``follow`` waits for the roots' blocking checks to pass).
    """
    return dg.RunRequest(
        run_key=run_key,
        asset_selection=assets,
        asset_check_keys=[key for key in root_checks(repository) if key.asset_key in assets],
        run_config={"ops": {"roster": {"config": {"path": str(roster)}}}},
        tags=dict(tags),
    )


@dg.schedule(
    name="nightly_refresh",
    job=main_job,
    cron_schedule="0 2 * * *",
    execution_timezone="UTC",
    description=(
        "Refresh the whole graph at 02:00 UTC: a run of main_job (the three roots, reading the "
        "roster roster_sensor watches); follow_upstream, on as shipped, materializes every "
        "asset the roots make due, up to release_bundle."
    ),
    default_status=dg.DefaultScheduleStatus.STOPPED,
)
def nightly_refresh(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    stamp = context.scheduled_execution_time.strftime("%Y%m%dT%H%M")
    return root_request(
        ROOT_KEYS,
        run_key=f"nightly-{stamp}",
        roster=roster_path(),  # the roster the sensor watches
        tags={REFRESH_TAG: f"nightly-{stamp}"},
        repository=context.repository_def,
    )


@dg.sensor(
    name="roster_sensor",
    job=main_job,
    minimum_interval_seconds=60,
    description=(
        "When the roster file's content changes, run main_job's roster asset on it: only the "
        "new players' matches are played, and follow_upstream refits what follows."
    ),
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
    repository = context.repository_def
    if repository is None:  # the daemon always passes the code location
        return dg.SkipReason("the sensor was evaluated without its code location")
    names = [p.name for p in roster.players]
    added = [n for n in names if n not in previous["players"]]
    request = root_request(
        [dg.AssetKey("roster")],
        run_key=digest,
        roster=path,
        repository=repository,
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
    minimum_interval_seconds=automation_interval_s(),
    default_status=dg.DefaultSensorStatus.RUNNING,
    # one run per partition key with all its assets, as ``refresh`` runs them (a backfill would
    # split axis_scores from match_corpus into two runs per game and wait for the backfill
    # daemon's 30 s loop)
    emit_backfills=False,
    description=(
        "Evaluate every asset's automation condition and materialize what is due: after a run "
        "of the roots (main_job, the nightly schedule, a Materialize button), everything below "
        "them, one run per benchmark game, up to release_bundle."
    ),
)


def refreshes_of(
    runs: Iterable[dg.DagsterRun], current: str | None
) -> tuple[dict[str, str], str | None]:
    """The refresh each run without a ``genstrat/refresh`` tag belongs to, and the refresh
    current after ``runs`` (oldest first; ``current``: the one before them).

    A run tagged with a refresh starts it (schedule, roster sensor, ``make run``); a run
    launched by ``follow_upstream`` belongs to the current refresh (the latest one started
    before it); any other run (a Materialize button of the UI, ``main_job`` launched from its
    page or by ``dagster job launch``, ``dagster asset materialize``) starts
    ``manual-<run id>``, which the runs ``follow_upstream`` launches after it continue.
    """
    found: dict[str, str] = {}
    for run in runs:
        tagged = run.tags.get(REFRESH_TAG)
        if tagged:
            current = tagged
        elif AUTOMATION_TAGS.items() <= run.tags.items():
            if current:
                found[run.run_id] = current
        else:
            current = found[run.run_id] = f"manual-{run.run_id[:12]}"
    return found, current


@dg.sensor(
    name="refresh_tags",
    minimum_interval_seconds=automation_interval_s(),
    description=(
        f"Tag each run with the refresh it belongs to ({REFRESH_TAG}): a run launched from "
        "the UI or the command line starts one; the runs follow_upstream launches belong to "
        "the latest."
    ),
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def refresh_tags(context: dg.SensorEvaluationContext) -> dg.SkipReason:
    instance = context.instance
    state = json.loads(context.cursor) if context.cursor else {}
    after, current = state.get("after"), state.get("refresh")
    going: dict[str, str] = state.get("going", {})
    # A run is tagged once it has ended. A tag added to a run still going can be lost (Dagster
    # rewrites a run's record from a copy read before the tag was added when its status
    # changes), and adding it again then leaves the tag twice in the tag index, so that the
    # runs page lists that run twice under its refresh. The runs still going wait in the cursor.
    tagged = 0
    for run_id, refresh_id in list(going.items()):
        run = instance.get_run_by_id(run_id)
        if run is None:
            del going[run_id]
        elif run.is_finished:
            del going[run_id]
            instance.add_run_tags(run_id, {REFRESH_TAG: refresh_id})
            tagged += 1
    if after and not instance.has_run(after):
        after = None  # that run was deleted: start over (tagged runs stay as they are)
    records = instance.get_run_records(limit=500, ascending=True, cursor=after)
    found, current = refreshes_of((r.dagster_run for r in records), current)
    for record in records:
        run = record.dagster_run
        if run.run_id not in found:
            continue
        if run.is_finished:
            instance.add_run_tags(run.run_id, {REFRESH_TAG: found[run.run_id]})
            tagged += 1
        else:
            going[run.run_id] = found[run.run_id]
    if records:
        after = records[-1].dagster_run.run_id
    context.update_cursor(json.dumps({"after": after, "refresh": current, "going": going}))
    return dg.SkipReason(
        f"{len(records)} new runs, {tagged} tagged, {len(going)} to tag when they end; "
        f"refresh {current}"
    )


# --- runs whose process is gone --------------------------------------------------------------

# On every run ``make run`` executes: the process that executes it (``process_identity``).
PROCESS_TAG = "genstrat/process"
# Dagster's tag on a run its DefaultRunLauncher launched through a code server (the daemon's,
# on the daemon's machine).
LAUNCHED_TAG = GRPC_INFO_TAG
# The statuses of a run that has not finished and may have a process (a queued run has none).
UNFINISHED = (
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
)
# A process that started this long after a run did is not the run's (its id was reused).
START_SLACK_S = 2.0


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "unknown"


def _started_ticks(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks after boot (``/proc/<pid>/stat``, field
    22); None when there is no such process or it has exited (a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the fields after the command name
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def _started_at(pid: int) -> float | None:
    """When process ``pid`` started, as a Unix time (None when it does not run)."""
    ticks = _started_ticks(pid)
    if ticks is None:
        return None
    btime = next(
        int(line.split()[1])
        for line in Path("/proc/stat").read_text().splitlines()
        if line.startswith("btime ")
    )
    return btime + ticks / os.sysconf("SC_CLK_TCK")


def process_identity(pid: int | None = None) -> str:
    """``<host>:<pid>:<start ticks>:<boot id>`` of process ``pid`` (default: this one), the
    value of ``PROCESS_TAG``: a process id alone may be reused after the process is gone."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{_started_ticks(pid)}:{_boot_id()}"


def gone(instance: dg.DagsterInstance, run: dg.DagsterRun, *, judge_untagged: bool) -> str | None:
    """Why the process executing ``run`` (unfinished) is known to be gone, or None: it runs,
    or it cannot be judged from here.

    A run with ``PROCESS_TAG`` names its process; one of another machine is not judged. Any
    other run that has started names its process in its ``RUN_START`` event (the run worker
    the daemon launched, a ``dagster asset materialize``), without a machine: it is judged
    only when ``judge_untagged`` says it ran on this one.  Nothing is judged without Linux's
    ``/proc`` (no process would be found), nor by a tag that is not ``process_identity``'s."""
    if not Path("/proc/self/stat").exists():
        return None
    tagged = run.tags.get(PROCESS_TAG)
    if tagged:
        host, pid, ticks, boot = [*tagged.split(":", 3), "", "", ""][:4]
        if host != socket.gethostname() or not pid.isdigit() or not boot:
            return None
        if boot != _boot_id():
            return f"its process ({pid} on {host}) ran before the machine restarted"
        if str(_started_ticks(int(pid))) != ticks:
            return f"its process ({pid} on {host}) is gone"
        return None
    if not judge_untagged or run.status not in (
        dg.DagsterRunStatus.STARTED,
        dg.DagsterRunStatus.CANCELING,
    ):
        return None
    starts = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.RUN_START)
    event = starts[-1].dagster_event if starts else None
    if event is None or event.pid is None:
        return None
    started = _started_at(event.pid)
    if started is None or started > starts[-1].timestamp + START_SLACK_S:
        return f"its process ({event.pid}) is gone"
    return None


def local_storage(instance: dg.DagsterInstance) -> bool:
    """Whether the instance's runs are stored on this machine only: Dagster's own storage
    (SQLite, or in memory), not a database other machines share (dagster-postgres)."""
    return type(instance.run_storage).__module__.split(".")[0] == "dagster"


def fail_dead_runs(
    instance: dg.DagsterInstance, *, by: str, launched_here: bool = False
) -> list[tuple[dg.DagsterRun, str]]:
    """Mark failed every unfinished run whose process is gone (``gone``), with a message
    naming the reason and ``by``; return those runs and reasons.

    A run whose process was killed (``kill -9``, the machine's power) stays STARTED for ever:
    Dagster's run monitoring cannot tell a dead run worker of its default launcher, and a
    code server marks failed only the workers it started and saw die.  Meanwhile the assets
    of that run are "in progress" and nothing below them is requested.  ``make run`` calls
    this before it refreshes, the ``dead_runs`` sensor on the daemon.  Untagged runs are
    judged on an instance stored on this machine, and with ``launched_here`` (the daemon's
    sensor) also the runs the daemon launched through its code server, which run on its
    machine: with the queued run coordinator of both shipped instance files the daemon
    launches every run (with the default coordinator the webserver would, maybe elsewhere)."""
    local = local_storage(instance)
    queued = type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
    found = []
    for record in instance.get_run_records(filters=dg.RunsFilter(statuses=list(UNFINISHED))):
        run = record.dagster_run
        judge = local or (launched_here and queued and LAUNCHED_TAG in run.tags)
        reason = gone(instance, run, judge_untagged=judge)
        if reason is None:
            continue
        instance.report_run_failed(run, f"{reason}: run marked failed by {by}")
        found.append((run, reason))
    return found


@dg.sensor(
    name="dead_runs",
    minimum_interval_seconds=automation_interval_s(),
    description=(
        "Mark failed the runs left unfinished by a process that is gone (killed, or its "
        "machine restarted), so that what they held is requested again."
    ),
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def dead_runs(context: dg.SensorEvaluationContext) -> dg.SkipReason:
    found = fail_dead_runs(context.instance, by="the dead_runs sensor", launched_here=True)
    named = ", ".join(f"{run.run_id[:8]} ({reason})" for run, reason in found)
    return dg.SkipReason(f"{len(found)} runs marked failed" + (f": {named}" if named else ""))


SCHEDULES: list[dg.ScheduleDefinition] = [nightly_refresh]
SENSORS: list[dg.SensorDefinition] = [roster_sensor, follow_upstream, refresh_tags, dead_runs]


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


def _evaluate(
    defs: dg.Definitions, instance: dg.DagsterInstance, cursor: Any = None
) -> dg.EvaluateAutomationConditionsResult:
    """The automation conditions of ``AUTOMATED`` evaluated once, from ``cursor`` (None for the
    first evaluation), as the daemon's sensor evaluates them
    (``pipelines.dagster_private.evaluate_conditions``; ``tests/pipelines/test_automation.py``
    holds the runs requested here to the public ``dg.evaluate_automation_conditions``', tick
    by tick)."""
    return evaluate_conditions(defs, instance, AUTOMATED, cursor)


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
    evaluate = partial(_evaluate, defs, instance)
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
    "AUTOMATION_TAGS",
    "CHECK_LABEL",
    "FOLLOW_LABEL",
    "MAIN_JOB_NAME",
    "PROCESS_TAG",
    "REFRESH_TAG",
    "ROOT_ASSETS",
    "SCHEDULES",
    "SENSORS",
    "checks_with_automation",
    "fail_dead_runs",
    "process_identity",
    "refresh",
    "with_automation",
    "with_its_asset",
]
