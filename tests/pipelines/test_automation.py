"""The nightly schedule and the roster sensor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import dagster as dg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.automation import nightly_refresh, roster_sensor
from pipelines.definitions import defs

# The code location, as the daemon hands it to a schedule's or a sensor's context.
REPOSITORY = defs.get_repository_def()

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

    first = roster_sensor(dg.build_sensor_context(cursor=None, repository_def=REPOSITORY))
    assert isinstance(first, dg.SensorResult)
    (request,) = first.run_requests or []
    assert request.tags["genstrat/new_players"] == "random,heuristic"
    assert request.run_config == {"ops": {"roster": {"config": {"path": str(path)}}}}

    same = roster_sensor(dg.build_sensor_context(cursor=first.cursor, repository_def=REPOSITORY))
    assert isinstance(same, dg.SkipReason)

    path.write_text(ROSTER + "  - {name: search-2, kind: builtin, agent: search}\n")
    later = roster_sensor(dg.build_sensor_context(cursor=first.cursor, repository_def=REPOSITORY))
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
    result = roster_sensor(dg.build_sensor_context(cursor=None, repository_def=REPOSITORY))
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
    first = roster_sensor(dg.build_sensor_context(cursor=None, repository_def=REPOSITORY))
    assert isinstance(first, dg.SensorResult)

    path.write_text(path.read_text() + "# a comment changes nothing that plays\n")
    assert isinstance(
        roster_sensor(dg.build_sensor_context(cursor=first.cursor, repository_def=REPOSITORY)),
        dg.SkipReason,
    )

    program.write_text("def act(observation, legal_actions, rng):\n    return legal_actions[-1]\n")
    edited = roster_sensor(dg.build_sensor_context(cursor=first.cursor, repository_def=REPOSITORY))
    assert isinstance(edited, dg.SensorResult)
    (request,) = edited.run_requests or []
    assert request.tags["genstrat/new_players"] == ""  # same players, new code


def test_the_nightly_tick_requests_the_roots_with_a_refresh_tag() -> None:
    from datetime import UTC, datetime

    from pipelines.automation import REFRESH_TAG, ROOT_KEYS

    context = dg.build_schedule_context(
        scheduled_execution_time=datetime(2026, 12, 3, 2, tzinfo=UTC), repository_def=REPOSITORY
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
    result = roster_sensor(dg.build_sensor_context(cursor=None, repository_def=REPOSITORY))
    assert isinstance(result, dg.SensorResult)
    (request,) = result.run_requests or []
    assert list(request.asset_selection or []) == [dg.AssetKey("roster")]


def test_every_asset_but_the_roots_follows_upstream() -> None:
    from pipelines.automation import ROOT_ASSETS, follows_of
    from pipelines.definitions import ON_REQUEST, stage_assets

    graph = defs.resolve_asset_graph()
    plan = follows_of(stage_assets())
    on_request = {key for asset in stage_assets(ON_REQUEST) for key in asset.keys}
    for key in graph.get_all_asset_keys():
        condition = graph.get(key).automation_condition
        if key in on_request or key.to_user_string() in ROOT_ASSETS:
            assert condition is None, key
        else:
            assert condition == plan.condition(key), key
            if key.to_user_string() in ("match_corpus", "match_moves"):
                # partitioned by the set benchmark_games writes, and downstream of it: the
                # tournament reads each game's spec from there (its identity is carried)
                assert dg.AssetKey("benchmark_games") in plan.upstream[key]
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


def test_the_nightly_tick_reads_the_sensor_roster_and_lists_the_root_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import UTC, datetime

    from pipelines.automation import ROOT_KEYS

    path = tmp_path / "roster.yaml"
    path.write_text(ROSTER, encoding="utf-8")
    monkeypatch.setenv("GENSTRAT_ROSTER", str(path))
    context = dg.build_schedule_context(
        scheduled_execution_time=datetime(2026, 12, 3, 2, tzinfo=UTC), repository_def=REPOSITORY
    )
    request = nightly_refresh.evaluate_tick(context).run_requests[0]  # type: ignore[index]
    assert request.run_config == {"ops": {"roster": {"config": {"path": str(path)}}}}
    # the checks are listed, so the UI's "Preview tick result" launches them too
    graph = defs.resolve_asset_graph()
    expected = dg.AssetSelection.checks_for_assets(*ROOT_KEYS).resolve_checks(graph)
    assert expected and set(request.asset_check_keys or []) == expected

    sensor = roster_sensor(dg.build_sensor_context(cursor=None, repository_def=REPOSITORY))
    assert isinstance(sensor, dg.SensorResult)
    (sensed,) = sensor.run_requests or []
    assert sensed.run_config == request.run_config
    assert set(sensed.asset_check_keys or []) == {
        k for k in expected if k.asset_key.path == ["roster"]
    }


def test_without_a_roster_setting_the_nightly_tick_reads_the_demo_roster(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from datetime import UTC, datetime

    from assets.roster import DEMO_ROSTER

    monkeypatch.delenv("GENSTRAT_ROSTER", raising=False)
    context = dg.build_schedule_context(
        scheduled_execution_time=datetime(2026, 12, 3, 2, tzinfo=UTC), repository_def=REPOSITORY
    )
    request = nightly_refresh.evaluate_tick(context).run_requests[0]  # type: ignore[index]
    assert request.run_config == {"ops": {"roster": {"config": {"path": str(DEMO_ROSTER)}}}}


@given(st.integers(min_value=5, max_value=86_400))
def test_every_automation_interval_in_range_is_kept(seconds: int) -> None:
    from pipelines.automation import INTERVAL_ENV_VAR, automation_interval_s

    assert automation_interval_s({INTERVAL_ENV_VAR: str(seconds)}) == seconds
    assert automation_interval_s({INTERVAL_ENV_VAR: f" {seconds}\n"}) == seconds


@given(
    st.one_of(
        st.integers(max_value=4).map(str),
        st.integers(min_value=86_401).map(str),
        st.floats(allow_nan=True).map(str),
        st.text().filter(lambda s: bool(s.strip()) and not (s.isascii() and s.strip().isdigit())),
    )
)
def test_an_automation_interval_out_of_range_is_refused_in_one_line(raw: str) -> None:
    from pipelines.automation import INTERVAL_ENV_VAR, automation_interval_s

    with pytest.raises(ValueError, match=INTERVAL_ENV_VAR) as refused:
        automation_interval_s({INTERVAL_ENV_VAR: raw})
    assert "from 5 to 86400" in str(refused.value)


def test_the_automation_interval_defaults_to_30_s_and_sets_the_sensors() -> None:
    from pipelines.automation import INTERVAL_ENV_VAR, automation_interval_s

    assert automation_interval_s({}) == automation_interval_s({INTERVAL_ENV_VAR: " "}) == 30
    for name in ("follow_upstream", "refresh_tags", "dead_runs"):
        assert defs.resolve_sensor_def(name).minimum_interval_seconds == automation_interval_s()


def _run(run_id: str, assets: list[str] | None, **tags: str) -> dg.DagsterRun:
    return dg.DagsterRun(
        job_name="__ASSET_JOB",
        run_id=run_id,
        tags=tags,
        asset_selection=frozenset(dg.AssetKey(a) for a in assets) if assets else None,
    )


def test_follow_upstream_runs_join_the_latest_refresh_started_before_them() -> None:
    from pipelines.automation import AUTOMATION_TAGS, REFRESH_TAG, refreshes_of

    automated = {**AUTOMATION_TAGS, "dagster/from_automation_condition": "true"}
    runs = [
        _run("before-any-refresh", ["accepted_games"], **automated),
        _run("ui-roots-0000000000", ["reference_games", "seed_pool", "roster"]),
        _run("a1", ["accepted_games"], **automated),
        _run("by-hand-000000000000", ["leaderboards"]),  # one asset from the UI: a refresh
        _run("nightly", ["reference_games", "seed_pool", "roster"], **{REFRESH_TAG: "n-1"}),
        _run("a2", ["axis_scores"], **automated),
        _run("whole-job-000000000000", None),  # main_job launched whole: no asset selection
        _run("a3", ["accepted_games"], **automated),
    ]
    found, current = refreshes_of(runs[:3], None)
    assert found == {"ui-roots-0000000000": "manual-ui-roots-000", "a1": "manual-ui-roots-000"}
    # the rest in a later tick, from the refresh current at the end of the first
    later, current = refreshes_of(runs[3:], current)
    assert later == {
        "by-hand-000000000000": "manual-by-hand-0000",
        "a2": "n-1",
        "whole-job-000000000000": "manual-whole-job-00",
        "a3": "manual-whole-job-00",
    }
    assert current == "manual-whole-job-00"
    # going over runs already tagged changes nothing (the sensor may start over)
    tagged = [
        _run(r.run_id, [k.path[0] for k in r.asset_selection or []], **r.tags, **{REFRESH_TAG: t})
        for r in runs[1:3]
        for t in [found[r.run_id]]
    ]
    assert refreshes_of(tagged, None) == ({}, "manual-ui-roots-000")


def in_process(assets: list[dg.AssetsDefinition]) -> tuple[dg.Definitions, dg.DagsterInstance, Any]:
    """Definitions of ``assets``, an ephemeral instance, and a ``run_one`` for ``refresh``
    that executes each run in this process."""
    defs_ = dg.Definitions(assets=assets)
    instance = dg.DagsterInstance.ephemeral()
    job = defs_.resolve_implicit_global_asset_job_def()

    def run_one(partition: str | None, assets: list[dg.AssetKey], tags: object) -> bool:
        return job.execute_in_process(
            instance=instance, asset_selection=assets, partition_key=partition
        ).success

    return defs_, instance, run_one


GAMES = dg.StaticPartitionsDefinition(["g1", "g2"])


@dg.asset(name="roster")
def _roster() -> None: ...


@dg.asset(name="reference_games")
def _reference_games() -> None: ...


@dg.asset(name="match_corpus", deps=["roster"], partitions_def=GAMES)
def _match_corpus() -> None: ...


@dg.asset(name="complete_pairs", deps=["match_corpus"])
def _complete_pairs() -> None: ...


@dg.asset(name="leaderboards", deps=["complete_pairs"])
def _leaderboards() -> None: ...


@dg.asset(
    name="release_bundle", deps=["roster", "reference_games", "complete_pairs", "leaderboards"]
)
def _release_bundle() -> None: ...


SHAPE = [_roster, _reference_games, _match_corpus, _complete_pairs, _leaderboards, _release_bundle]


def test_a_roster_change_reaches_the_release_once_after_the_matches() -> None:
    """The shape of the real graph (a root feeding the release directly and through the
    per-game corpus): the release must not run on the new roster and the old corpus."""
    from pipelines.automation import refresh, with_automation

    roots = [dg.AssetKey("roster"), dg.AssetKey("reference_games")]
    defs_, instance, run_one = in_process(with_automation(SHAPE, roots=roots))

    first = refresh(defs_, instance, run_one, roots=roots)
    assert first is not None
    assert [list(w.runs) for w in first.waves] == [[None], ["g1", "g2"], [None]]

    then = refresh(defs_, instance, run_one, roots=[dg.AssetKey("roster")])
    assert then is not None
    assert [w.runs for w in then.waves] == [
        {None: [dg.AssetKey("roster")]},
        {"g1": [dg.AssetKey("match_corpus")], "g2": [dg.AssetKey("match_corpus")]},
        {None: [dg.AssetKey(k) for k in ("complete_pairs", "leaderboards", "release_bundle")]},
    ]


def test_assets_missing_at_the_first_evaluation_follow_roots_materialized_before_it() -> None:
    """The UI's way on a fresh instance: the roots materialize before the sensor's first tick
    (its switch and the Materialize button are seconds apart, the sensor ticks every 30 s).
    The first evaluation only observes (rule 9 of ``follow``), the second requests what the
    roots lead to, and the cascade goes on from there; Dagster's ``eager`` alone would forget
    the missing assets at the first evaluation and request nothing, ever."""
    from pipelines.automation import AUTOMATED, requested, with_automation

    roots = [dg.AssetKey("roster"), dg.AssetKey("reference_games")]
    defs_, instance, run_one = in_process(with_automation(SHAPE, roots=roots))
    keys = sorted(defs_.resolve_asset_graph().get_all_asset_keys(), key=lambda k: k.path)
    assert run_one(None, roots, {})  # before any evaluation

    evaluation = dg.evaluate_automation_conditions(defs_, instance, asset_selection=AUTOMATED)
    assert requested(evaluation, keys).empty
    evaluation = dg.evaluate_automation_conditions(
        defs_, instance, asset_selection=AUTOMATED, cursor=evaluation.cursor
    )
    first = requested(evaluation, keys)
    assert first.runs == {
        "g1": [dg.AssetKey("match_corpus")],
        "g2": [dg.AssetKey("match_corpus")],
    }
    for partition, assets in first.runs.items():
        assert run_one(partition, assets, {})
    evaluation = dg.evaluate_automation_conditions(
        defs_, instance, asset_selection=AUTOMATED, cursor=evaluation.cursor
    )
    assert requested(evaluation, keys).runs == {
        None: [dg.AssetKey(k) for k in ("complete_pairs", "leaderboards", "release_bundle")]
    }


def test_an_asset_ignores_deps_whose_updates_reach_it_through_another() -> None:
    from pipelines.automation import followed_deps

    k = dg.AssetKey
    deps = {
        k("roster"): set(),
        k("benchmark_games"): set(),
        k("match_corpus"): {k("roster")},
        k("leaderboards"): {k("match_corpus")},
        k("ablations"): {k("benchmark_games"), k("leaderboards"), k("roster")},
    }
    plan = followed_deps(deps, {k("benchmark_games"): {k("match_corpus")}}, [k("roster")])
    # roster: through leaderboards, and a root among other deps; benchmark_games: it writes
    # match_corpus's partitions, so its change reaches ablations through leaderboards too
    assert plan.ignored[k("ablations")] == {k("roster"), k("benchmark_games")}
    assert plan.ignored[k("match_corpus")] == frozenset()  # a root is its only dep
    assert plan.depth[k("ablations")] == 3
    with pytest.raises(ValueError, match="cycle"):
        followed_deps({k("a"): {k("b")}, k("b"): {k("a")}}, {}, [])


def test_in_the_real_graph_the_last_assets_follow_only_their_last_deps() -> None:
    from pipelines.automation import follows_of
    from pipelines.definitions import stage_assets

    k = dg.AssetKey
    plan = follows_of(stage_assets())
    graph = defs.resolve_asset_graph()

    def followed(name: str) -> set[dg.AssetKey]:
        return set(graph.get(k(name)).parent_keys) - plan.ignored[k(name)]

    # the parents no other parent leads to (leaderboards reaches it through ablations)
    assert followed("release_bundle") == {
        k("ablations"),
        k("benchmark_axes"),
        k("capability_profiles"),
        k("match_moves"),
        # the reference-field stage; episode_adaptation and program_track, which only the
        # roster leads to, update one wave after the roots and are not followed
        k("anchored_scales"),
        # issue 17: the validity checks of Sections 6-7 and Appendix E
        k("validity_checks"),
    }
    assert followed("anchored_scales") == {k("match_corpus")}
    assert {k("episode_adaptation"), k("program_track")} <= plan.ignored[k("release_bundle")]
    assert followed("ablations") == {k("leaderboards")}
    # the roster (a roster change alone plays the new players) and the games' specs
    assert followed("match_corpus") == {k("roster"), k("benchmark_games")}
    assert plan.depth[k("release_bundle")] == max(plan.depth.values())


def test_the_refresh_tags_sensor_tags_a_ui_refresh_across_ticks() -> None:
    from pipelines.automation import AUTOMATION_TAGS, REFRESH_TAG, refresh_tags

    instance = dg.DagsterInstance.ephemeral()
    job = dg.Definitions(assets=SHAPE).resolve_implicit_global_asset_job_def()

    def run(assets: list[dg.AssetsDefinition], **tags: str) -> str:
        keys = [asset.key for asset in assets]
        return job.execute_in_process(instance=instance, asset_selection=keys, tags=tags).run_id

    def refresh_of(run_id: str) -> str | None:
        found = instance.get_run_by_id(run_id)
        assert found is not None
        return found.tags.get(REFRESH_TAG)

    roots = run([_roster, _reference_games])  # the UI's Materialize button: no tags
    followers = [run([_leaderboards], **AUTOMATION_TAGS)]
    tick = dg.build_sensor_context(instance=instance)
    refresh_tags(tick)
    by_hand = run([_leaderboards])  # one asset from the UI: a refresh of its own
    after = run([_leaderboards], **AUTOMATION_TAGS)  # what follows it
    later = refresh_tags(dg.build_sensor_context(instance=instance, cursor=tick.cursor))
    assert isinstance(later, dg.SkipReason) and "2 new runs, 2 tagged," in str(later.skip_message)
    assert {refresh_of(r) for r in [roots, *followers]} == {f"manual-{roots[:12]}"}
    assert refresh_of(by_hand) == refresh_of(after) == f"manual-{by_hand[:12]}"


def test_a_run_still_going_is_tagged_once_when_it_ends_and_listed_once_under_its_refresh() -> None:
    from pipelines.automation import AUTOMATION_TAGS, REFRESH_TAG, refresh_tags

    instance = dg.DagsterInstance.ephemeral()
    nightly = dg.DagsterRun(job_name="main_job", run_id="n" * 36, tags={REFRESH_TAG: "n-1"})
    going = dg.DagsterRun(
        job_name="__ASSET_JOB",
        run_id="q" * 36,
        status=dg.DagsterRunStatus.STARTED,
        tags=AUTOMATION_TAGS,
    )
    instance.add_run(nightly)
    instance.add_run(going)
    tick = dg.build_sensor_context(instance=instance)
    first = refresh_tags(tick)
    assert isinstance(first, dg.SkipReason)
    assert "0 tagged, 1 to tag when they end" in str(first.skip_message)
    stored = instance.get_run_by_id(going.run_id)
    assert stored is not None and REFRESH_TAG not in stored.tags  # not while it goes on
    # it ends (its record rewritten with its new status)
    instance.delete_run(going.run_id)
    instance.add_run(going.with_status(dg.DagsterRunStatus.SUCCESS))
    second = dg.build_sensor_context(instance=instance, cursor=tick.cursor)
    later = refresh_tags(second)
    assert "1 tagged, 0 to tag when they end" in str(later.skip_message)
    stored = instance.get_run_by_id(going.run_id)
    assert stored is not None and stored.tags[REFRESH_TAG] == "n-1"
    # the runs page's filter on the refresh lists each run once
    listed = instance.get_runs(filters=dg.RunsFilter(tags={REFRESH_TAG: "n-1"}))
    assert sorted(run.run_id for run in listed) == sorted([nightly.run_id, going.run_id])
    again = refresh_tags(dg.build_sensor_context(instance=instance, cursor=second.cursor))
    assert "0 new runs, 0 tagged, 0 to tag" in str(again.skip_message)


@dg.asset(name="games", deps=["roster"])
def _games() -> None: ...


@dg.asset(name="match_corpus", deps=["games"], partitions_def=GAMES)
def _later_corpus() -> None: ...


@dg.asset(name="episodes", deps=["roster"])
def _episodes() -> None: ...


@dg.asset(name="release_bundle", deps=["episodes", "leaderboards"])
def _release_after_all() -> None: ...


def test_a_dep_only_the_roots_lead_to_does_not_release_before_the_per_game_stage() -> None:
    """``episodes`` (like ``episode_adaptation``) is done one wave after the roots, while the
    per-game corpus is only requested in the next evaluation: the release must wait for it,
    not run on the old corpus first (it did: two releases per refresh, the first stale)."""
    from pipelines.automation import refresh, with_automation

    shape = [_roster, _games, _later_corpus, _episodes, _complete_pairs, _leaderboards]
    roots = [dg.AssetKey("roster")]
    defs_, instance, run_one = in_process(
        with_automation([*shape, _release_after_all], roots=roots)
    )

    for _ in range(2):  # a first refresh, and one over materialized data
        done = refresh(defs_, instance, run_one, roots=roots)
        assert done is not None
        release = dg.AssetKey("release_bundle")
        with_release = [i for i, w in enumerate(done.waves) if release in w.runs.get(None, [])]
        assert with_release == [len(done.waves) - 1], [w.runs for w in done.waves]
        corpus = [i for i, w in enumerate(done.waves) if set(w.runs) == {"g1", "g2"}]
        assert corpus and corpus[0] < with_release[0]


WRITTEN = dg.DynamicPartitionsDefinition(name="benchmark_games")


@dg.asset(name="benchmark_games", deps=["roster"])
def _writer(context) -> None:  # unannotated: dagster cannot read a postponed annotation
    context.instance.add_dynamic_partitions("benchmark_games", ["g1", "g2"])


@dg.asset(name="axis_scores", deps=["benchmark_games"], partitions_def=WRITTEN)
def _axis_scores() -> None: ...


@dg.asset(name="benchmark_axes", deps=["axis_scores"])
def _benchmark_axes() -> None: ...


@dg.asset(name="accepted_games", deps=["roster"])
def _accepted() -> None: ...


@dg.asset(name="screening", deps=["accepted_games"])
def _screening() -> None: ...


@dg.asset(name="release_bundle", deps=["screening", "benchmark_axes"])
def _release_after_axes() -> None: ...


@pytest.mark.slow  # over 5 s: make test only
def test_the_release_waits_for_partitions_requested_with_it_in_other_runs() -> None:
    """``screening`` is done while the new benchmark's per-game partitions are requested by
    the same evaluation: they run in runs of their own (``will_be_requested`` does not see
    them), so the release must wait for them rather than run first and again after."""
    from pipelines.automation import refresh, with_automation

    shape = [_roster, _writer, _axis_scores, _benchmark_axes, _accepted, _screening]
    roots = [dg.AssetKey("roster")]
    defs_, instance, run_one = in_process(
        with_automation([*shape, _release_after_axes], roots=roots)
    )

    release = dg.AssetKey("release_bundle")
    for _ in range(3):  # a fresh instance, then with every partition already there
        done = refresh(defs_, instance, run_one, roots=roots)
        assert done is not None
        with_release = [i for i, w in enumerate(done.waves) if release in w.runs.get(None, [])]
        assert with_release == [len(done.waves) - 1], [w.runs for w in done.waves]
        per_game = [i for i, w in enumerate(done.waves) if {"g1", "g2"} <= set(w.runs)]
        assert per_game and max(per_game) < with_release[0]


@dg.asset(name="match_corpus", deps=["roster"], partitions_def=WRITTEN)
def _written_corpus() -> None: ...


@dg.asset(name="benchmark_games", deps=["accepted_games"])
def _writer_after_the_pool(context) -> None:  # unannotated: as ``_writer``
    context.instance.add_dynamic_partitions("benchmark_games", ["g1", "g2"])


@pytest.mark.slow  # over 5 s: make test only
@pytest.mark.parametrize(
    "above",
    [[_writer], [_accepted, _writer_after_the_pool]],
    ids=["writer-after-the-root", "writer-in-a-run-with-its-dep"],
)
def test_a_game_is_played_and_measured_in_one_run_after_the_partition_writer(
    above: list[dg.AssetsDefinition],
) -> None:
    """``match_corpus`` follows only the roster, but its partitions are the games the writer
    (``benchmark_games``) writes: it waits for the writer, so that a refresh of the roots never
    plays the old games while the writer is due, and each game's matches and axes are requested
    together (one run per game, not two); also when the writer runs in one run with its own
    dep (``accepted_games`` here, as the screening in the product)."""
    from pipelines.automation import refresh, with_automation

    shape = [_roster, *above, _axis_scores, _written_corpus, _benchmark_axes]
    roots = [dg.AssetKey("roster")]
    defs_, instance, run_one = in_process(with_automation(shape, roots=roots))
    corpus, axes = dg.AssetKey("match_corpus"), dg.AssetKey("axis_scores")
    writer = dg.AssetKey("benchmark_games")

    for _ in range(3):  # a fresh instance, then with every partition already there
        done = refresh(defs_, instance, run_one, roots=roots)
        assert done is not None
        waves = [w.runs for w in done.waves]
        (written,) = [i for i, runs in enumerate(waves) if writer in runs.get(None, [])]
        with_corpus = [i for i, runs in enumerate(waves) if any(corpus in a for a in runs.values())]
        assert with_corpus == [written + 1], waves
        assert waves[written + 1] == {"g1": [axes, corpus], "g2": [axes, corpus]}, waves


def test_the_refresh_evaluates_as_dagster_does_and_reads_the_games_once_per_evaluation() -> None:
    """``refresh`` evaluates the conditions as ``dg.evaluate_automation_conditions`` does (the
    same runs requested, tick after tick, on two instances refreshed alike), but serializes
    its cursor in the evaluation's partition context: the dynamic partitions (the benchmark
    games) are read from the database a few times per evaluation, where Dagster's testing
    function reads them once per serialized subset."""
    from pipelines.automation import AUTOMATED, _evaluate, requested, with_automation

    roots = [dg.AssetKey("roster")]
    shape = with_automation([_roster, _writer, _axis_scores, _benchmark_axes], roots=roots)
    ours, theirs = in_process(shape), in_process(shape)
    keys = sorted(ours[0].resolve_asset_graph().get_all_asset_keys(), key=lambda k: k.path)
    reads = {"ours": 0, "theirs": 0}

    def counted(instance: dg.DagsterInstance, side: str) -> None:
        read = instance.get_dynamic_partitions

        def get_dynamic_partitions(partitions_def_name: str) -> Any:
            reads[side] += 1
            return read(partitions_def_name)

        instance.get_dynamic_partitions = get_dynamic_partitions  # type: ignore[method-assign]

    counted(ours[1], "ours")
    counted(theirs[1], "theirs")
    mine = _evaluate(ours[0], ours[1])
    dagsters = dg.evaluate_automation_conditions(theirs[0], theirs[1], asset_selection=AUTOMATED)
    waves: list[dict[str | None, list[dg.AssetKey]]] = []
    for _ in range(4):  # the roots, the writer, the two games, the benchmark's table
        wave = requested(mine, keys).runs if waves else {None: roots}
        assert wave == (requested(dagsters, keys).runs if waves else {None: roots})
        waves.append(wave)
        for run_one in (ours[2], theirs[2]):
            for partition, assets in wave.items():
                assert run_one(partition, assets, {})
        before = dict(reads)
        mine = _evaluate(ours[0], ours[1], cursor=mine.cursor)
        dagsters = dg.evaluate_automation_conditions(
            theirs[0], theirs[1], asset_selection=AUTOMATED, cursor=dagsters.cursor
        )
        # one read per definition and evaluation (the evaluation's queryer), a few more for the
        # games the last runs wrote; Dagster's function: 81 to 112 reads here
        assert reads["ours"] - before["ours"] <= 3, reads
    assert [list(w) for w in waves[1:]] == [[None], ["g1", "g2"], [None]]
    assert requested(mine, keys).empty and requested(dagsters, keys).empty
    assert reads["theirs"] > 20 * reads["ours"], reads


def _ladder(rungs: int) -> list[dg.AssetsDefinition]:
    """``roster``, then ``rungs`` diamonds one above the other (``a{i}`` and ``b{i}`` on the
    previous rung's join, ``c{i}`` on both): 2 ** rungs paths from the last join to the root."""

    def asset(name: str, deps: list[str]) -> dg.AssetsDefinition:
        @dg.asset(name=name, deps=deps)
        def _materialize() -> None: ...

        return _materialize

    assets, below = [_roster], "roster"
    for i in range(rungs):
        assets += [asset(f"a{i}", [below]), asset(f"b{i}", [below])]
        assets.append(asset(f"c{i}", [f"a{i}", f"b{i}"]))
        below = f"c{i}"
    return assets


def test_a_follower_evaluates_its_upstream_once_per_asset_not_once_per_path() -> None:
    """Waiting while anything above is busy costs one condition per upstream asset: over a
    ladder of diamonds the last join's evaluation grows with the rungs, not with the 2 ** rungs
    paths (nesting ``any_deps_match`` per level evaluated every path: the real graph's
    evaluation walked 4,530 condition nodes that way, 2,647 now)."""
    from pipelines.automation import AUTOMATED, with_automation

    def evaluated_nodes(rungs: int) -> int:
        roots = [dg.AssetKey("roster")]
        defs_ = dg.Definitions(assets=with_automation(_ladder(rungs), roots=roots))
        result = dg.evaluate_automation_conditions(
            defs_, dg.DagsterInstance.ephemeral(), asset_selection=AUTOMATED
        )
        (last,) = [r for r in result.results if r.key == dg.AssetKey(f"c{rungs - 1}")]

        def count(node: Any) -> int:
            return 1 + sum(count(child) for child in node.child_results)

        return count(last)

    small, large = evaluated_nodes(3), evaluated_nodes(6)
    # 6 rungs have twice the upstream assets of 3 (and 8 times the paths)
    assert large < 2.5 * small, (small, large)


# --- checks requested with their asset; nothing below a partition set before it is written ---


@dg.asset(name="accepted_games", deps=["roster"])
def _checked_pool() -> None: ...


@dg.asset_check(asset="accepted_games", blocking=True)
def _pool_conforms() -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=True)


@dg.asset(name="screening", deps=["accepted_games"])
def _checked_screening() -> None: ...


@dg.asset_check(asset="screening", blocking=True)
def _screening_sound() -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=True)


@dg.asset(name="selection", deps=["screening"])
def _selection() -> None: ...


@dg.asset_check(asset="selection", blocking=True)
def _selection_fails() -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=False)


@dg.asset(name="report", deps=["selection"])
def _report() -> None: ...


def checked_refresh(checks: list[dg.AssetChecksDefinition]) -> tuple[Any, dg.DagsterInstance]:
    from pipelines.automation import checks_with_automation, refresh, with_automation

    roots = [dg.AssetKey("roster")]
    assets = with_automation(
        [_roster, _checked_pool, _checked_screening, _selection, _report], roots=roots
    )
    defs_ = dg.Definitions(assets=assets, asset_checks=checks_with_automation(checks, assets))
    instance = dg.DagsterInstance.ephemeral()
    job = defs_.resolve_implicit_global_asset_job_def()

    def run_one(partition: str | None, selection: list[dg.AssetKey], tags: object) -> bool:
        job.execute_in_process(
            instance=instance, asset_selection=selection, partition_key=partition,
            raise_on_error=False,
        )  # fmt: skip
        return True  # a failed blocking check fails the run; the refresh goes on to show it

    return refresh(defs_, instance, run_one, roots=roots), instance


def test_on_a_fresh_instance_a_blocking_check_does_not_cost_a_wave() -> None:
    """A dep with a blocking check, requested now, takes its follower into its run: its check
    is requested with it (``with_its_asset``) and runs first there. Without a condition on the
    check, nothing below it ran before its check had passed once, so a fresh instance took a
    wave per checked level (here three waves after the roots instead of one)."""
    done, instance = checked_refresh([_pool_conforms, _screening_sound])
    assert done is not None
    names = [{a.to_user_string() for a in w.runs[None]} for w in done.waves]
    assert names == [{"roster"}, {"accepted_games", "screening", "selection", "report"}]
    for check in (_pool_conforms, _screening_sound):  # requested with their assets, they ran
        (key,) = check.check_keys
        assert instance.event_log_storage.get_latest_asset_check_execution_by_key([key])


def test_a_failing_blocking_check_stops_its_followers_in_the_same_run() -> None:
    """Requesting a follower into its dep's run does not get past the dep's blocking check:
    the check fails in that run and the follower is not materialized, then or later."""
    done, instance = checked_refresh([_pool_conforms, _screening_sound, _selection_fails])
    assert done is not None
    assert instance.get_latest_materialization_event(dg.AssetKey("selection")) is not None
    assert instance.get_latest_materialization_event(dg.AssetKey("report")) is None


def test_every_check_of_an_automated_asset_is_requested_with_its_asset() -> None:
    from pipelines.automation import CHECK_LABEL, ROOT_ASSETS

    graph = defs.resolve_asset_graph()
    automated = {
        key for key in graph.get_all_asset_keys() if graph.get(key).automation_condition
    } | {dg.AssetKey(name) for name in ROOT_ASSETS}
    checks = [key for key in graph.asset_check_keys if key.asset_key in automated]
    assert len(checks) >= 15
    for key in checks:
        condition = graph.get(key).automation_condition
        assert condition is not None and condition.get_label() == CHECK_LABEL, key


def test_nothing_below_a_partitioned_asset_runs_before_its_partition_set_is_written() -> None:
    """``benchmark_axes`` is below ``axis_scores``, whose partitions ``benchmark_games`` writes.
    On a fresh instance the set is empty, so nothing said ``axis_scores`` was busy: the first
    evaluation, before any root had run, requested ``benchmark_axes`` (on no games), and so did
    the evaluation that requested the writer. It now waits until the writer has run and the
    new partitions are in."""
    from pipelines.automation import AUTOMATED, refresh, requested, with_automation

    roots = [dg.AssetKey("roster")]
    shape = [_roster, _writer, _axis_scores, _benchmark_axes]
    defs_, instance, run_one = in_process(with_automation(shape, roots=roots))
    keys = sorted(defs_.resolve_asset_graph().get_all_asset_keys(), key=lambda k: k.path)
    first = dg.evaluate_automation_conditions(defs_, instance, asset_selection=AUTOMATED)
    assert requested(first, keys).empty  # a fresh instance: nothing before the roots
    done = refresh(defs_, instance, run_one, roots=roots)
    assert done is not None
    axes = dg.AssetKey("benchmark_axes")
    assert [w.runs for w in done.waves] == [
        {None: roots},
        {None: [dg.AssetKey("benchmark_games")]},
        {"g1": [dg.AssetKey("axis_scores")], "g2": [dg.AssetKey("axis_scores")]},
        {None: [axes]},
    ]


def test_the_real_graph_requests_nothing_on_a_fresh_instance_before_the_roots() -> None:
    from pipelines.automation import _evaluate, requested

    keys = sorted(defs.resolve_asset_graph().get_all_asset_keys(), key=lambda k: k.path)
    with dg.DagsterInstance.ephemeral() as instance:
        assert requested(_evaluate(defs, instance), keys).empty


@dg.asset_check(asset="benchmark_games", blocking=True)
def _games_sound() -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=True)


def test_a_game_waits_for_the_writers_blocking_checks_as_its_axes_do() -> None:
    """A daemon's tick can fall between the writer's step and its blocking check's in one run.
    ``axis_scores`` (the writer is its dep) waits for the check; ``match_corpus`` (the writer
    only writes its partition set) waits too, so that each game's matches and axes are still
    requested together when the check has passed, not in two evaluations."""
    from pipelines.automation import AUTOMATED, checks_with_automation, requested, with_automation

    roots = [dg.AssetKey("roster")]
    assets = with_automation([_roster, _writer, _axis_scores, _written_corpus], roots=roots)
    defs_ = dg.Definitions(
        assets=assets, asset_checks=checks_with_automation([_games_sound], assets)
    )
    keys = sorted(defs_.resolve_asset_graph().get_all_asset_keys(), key=lambda k: k.path)
    job = defs_.resolve_implicit_global_asset_job_def()
    with dg.DagsterInstance.ephemeral() as instance:
        cursor = dg.evaluate_automation_conditions(
            defs_, instance, asset_selection=AUTOMATED
        ).cursor
        assert job.execute_in_process(instance=instance, asset_selection=roots).success

        def evaluate() -> dict[str | None, list[dg.AssetKey]]:
            nonlocal cursor
            found = dg.evaluate_automation_conditions(
                defs_, instance, asset_selection=AUTOMATED, cursor=cursor
            )
            cursor = found.cursor
            return requested(found, keys).runs

        writer = dg.AssetKey("benchmark_games")
        assert evaluate() == {None: [writer]}
        # the writer's step has run, its check has not (the run goes on)
        instance.add_dynamic_partitions("benchmark_games", ["g1", "g2"])
        instance.report_runless_asset_event(dg.AssetMaterialization(writer))
        assert evaluate() == {}
        (check,) = _games_sound.check_keys
        instance.report_runless_asset_event(
            dg.AssetCheckEvaluation(asset_key=writer, check_name=check.name, passed=True)
        )
        both = [dg.AssetKey("axis_scores"), dg.AssetKey("match_corpus")]
        assert evaluate() == {"g1": both, "g2": both}


# --- a refresh after a failure or a root materialized by hand (issue 43, item 1) -------------


def test_a_refresh_after_a_root_materialized_by_hand_reaches_the_release() -> None:
    """``roster`` materialized by hand (the OpenSpiel recipe's first step), then a refresh: its
    first evaluation, before the roots run, used to request the per-game corpus (missing, its
    dep there), ``refresh`` did not run that request, and the next evaluation counted it as
    handled: the corpus was never requested and nothing below it ran."""
    from pipelines.automation import refresh, with_automation

    roots = [dg.AssetKey("roster"), dg.AssetKey("reference_games")]
    defs_, instance, run_one = in_process(with_automation(SHAPE, roots=roots))
    assert run_one(None, [dg.AssetKey("roster")], {})  # by hand

    done = refresh(defs_, instance, run_one, roots=roots)
    assert done is not None
    assert [list(w.runs) for w in done.waves] == [[None], ["g1", "g2"], [None]]
    assert dg.AssetKey("release_bundle") in done.waves[-1].runs[None]


FAILING: set[str] = set()  # partitions of _flaky_corpus that fail when materialized


@dg.asset(name="match_corpus", deps=["roster"], partitions_def=GAMES)
def _flaky_corpus(context) -> None:  # unannotated: as ``_writer``
    if context.partition_key in FAILING:
        raise RuntimeError(f"game {context.partition_key} failed")


def test_a_failed_game_is_requested_again_once_and_nothing_below_runs_before_it() -> None:
    """Ticks of the daemon (one cursor throughout): a game whose run failed, whoever launched
    it, is requested once more, and what is below the games waits for it instead of running
    on the other game's new table and this one's old one; a second failure is not retried
    until an input changes.  Dagster's ``eager`` requested ``complete_pairs`` at once and the
    game never again."""
    from pipelines.automation import AUTOMATED, requested, with_automation

    roots = [dg.AssetKey("roster")]
    shape = [_roster, _flaky_corpus, _complete_pairs]
    defs_ = dg.Definitions(assets=with_automation(shape, roots=roots))
    keys = sorted(defs_.resolve_asset_graph().get_all_asset_keys(), key=lambda k: k.path)
    job = defs_.resolve_implicit_global_asset_job_def()
    corpus, pairs = [dg.AssetKey("match_corpus")], [dg.AssetKey("complete_pairs")]
    with dg.DagsterInstance.ephemeral() as instance:
        cursor = None

        def tick() -> dict[str | None, list[dg.AssetKey]]:
            nonlocal cursor
            found = dg.evaluate_automation_conditions(
                defs_, instance, asset_selection=AUTOMATED, cursor=cursor
            )
            cursor = found.cursor
            return requested(found, keys).runs

        def run(partition: str | None, assets: list[dg.AssetKey]) -> bool:
            return job.execute_in_process(
                instance=instance, asset_selection=assets, partition_key=partition,
                raise_on_error=False,
            ).success  # fmt: skip

        assert tick() == {}
        assert run(None, roots)
        assert tick() == {"g1": corpus, "g2": corpus}
        assert run("g1", corpus) and run("g2", corpus)
        assert tick() == {None: pairs}
        assert run(None, pairs)
        assert tick() == {}

        assert run(None, roots)  # the roster changes; a game fails
        assert tick() == {"g1": corpus, "g2": corpus}
        FAILING.add("g2")
        try:
            assert run("g1", corpus)
            assert not run("g2", corpus)
            assert tick() == {"g2": corpus}  # once more; complete_pairs waits
            assert not run("g2", corpus)
            assert tick() == {}  # failed again: not retried, and complete_pairs still waits
            assert tick() == {}
        finally:
            FAILING.clear()
        assert run(None, roots)  # an input changes: both games again, then the pairs
        assert tick() == {"g1": corpus, "g2": corpus}
        assert run("g1", corpus) and run("g2", corpus)
        assert tick() == {None: pairs}


@dg.asset(name="match_corpus", deps=["roster", "benchmark_games"], partitions_def=WRITTEN)
def _flaky_written_corpus(context) -> None:  # unannotated: as ``_writer``
    if context.partition_key in FAILING:
        raise RuntimeError(f"game {context.partition_key} failed")


def test_a_refresh_after_a_killed_one_plays_each_game_once_after_the_pool() -> None:
    """A refresh killed in its first game's run (that game's axes written, its matches not; the
    other game not started), then a refresh: each game is played and measured once, in the
    wave after the pool stage, then what is below.  A game kept for after the first evaluation
    (rule 9 of ``follow``) or failed (rule 7) was requested with the pool, on the games of the
    refresh before, while "the pool is due" was taken from ``since_last_handled``, which below
    a partitioned asset reset at every evaluation."""
    from pipelines.automation import refresh, with_automation

    shape = [_roster, _accepted, _writer_after_the_pool, _axis_scores, _flaky_written_corpus]
    roots = [dg.AssetKey("roster")]
    defs_, instance, run_one = in_process(with_automation([*shape, _benchmark_axes], roots=roots))
    pool = [dg.AssetKey("accepted_games"), dg.AssetKey("benchmark_games")]
    game = [dg.AssetKey("axis_scores"), dg.AssetKey("match_corpus")]
    assert run_one(None, roots, {}) and run_one(None, pool, {})
    job = defs_.resolve_implicit_global_asset_job_def()
    FAILING.add("g1")
    try:  # (killed) its axes written, its matches not
        killed = job.execute_in_process(
            instance=instance, asset_selection=game, partition_key="g1", raise_on_error=False
        )
    finally:
        FAILING.clear()
    assert not killed.success
    assert [e.asset_key for e in killed.get_asset_materialization_events()] == game[:1]

    done = refresh(defs_, instance, run_one, roots=roots)
    assert done is not None
    assert [w.runs for w in done.waves] == [
        {None: roots},
        {None: pool},
        {"g1": game, "g2": game},
        {None: [dg.AssetKey("benchmark_axes")]},
    ]
