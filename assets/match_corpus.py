"""Stage: ``match_corpus`` and ``match_moves``, the tournament on one benchmark game per partition.

Thin: the arena plays the roster's schedule on the partition's game into
``<data>/tournament/<game>/`` (its journal makes a re-materialization after a crash resume where
it stopped, and its response cache means no model is asked twice); the asset returns the two
tables, one row per match (DESIGN match schema) and one row per move (DESIGN move schema).
Runs per matchup come from the profile.

A game's tournament is a graph of steps, so that a cluster can spread one game's matches
(``arena.tournament.shards``): ``plan_matches`` deals the matches still to play into ``steps``
shares (the config's ``steps``, default 1), one ``play_matches`` step per share (a dynamic
fan-out: on the Dask executor each is a task on any worker), and ``collect_matches`` reads every
step's journal, writes the tables and runs the checks (``run_tournament`` on the folder, which
then has nothing left to play). The tables do not depend on ``steps``.

A partition's game is the one ``benchmark_games`` recorded for its key, spec and all (the
game's identity is carried, never re-derived: a seed alone names no game without its generation
configuration; ``arena.games.catalogued_game``). A preset (``kuhn``, ``leduc``) needs no
configuration and may be a partition without being selected.

Blocking checks, per partition: zero-sum per match, every match's spec hash equal to the
``spec_hash`` that ``benchmark_games`` records for the game (read from its column, not
recomputed from the spec the tournament played, so a corpus of another game fails by name), no
duplicate match ids.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import dagster as dg
import pandas as pd
from pydantic import Field

from arena.games import catalogue_from_table, catalogued_game
from arena.progress import ProgressReporter
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from arena.tournament.shards import Share, plan_shares, play_share
from assets.metadata import column_schema, contract_check
from assets.partitions import BENCHMARK_GAMES
from assets.resources import ProjectPaths, RunProfile
from assets.roster import GROUP_NAME, roster_from_table
from engines.tournament import corpus_checks
from engines.tournament.schedule import Game

CHECK_NAMES = ("zero_sum", "spec_hash_matches_game", "unique_match_ids")
CHECK_SPECS = [dg.AssetCheckSpec(name, asset="match_corpus", blocking=True) for name in CHECK_NAMES]
# Where the steps' own values (a share, what a step played) are kept: pipelines/io_managers.py.
STEP_IO_MANAGER = "step_io_manager"
MAX_STEPS = 256


class TournamentConfig(dg.Config):
    """Settings of a tournament step (the profile gives the runs per matchup)."""

    parallel: int = Field(default=64, ge=1, description="matches in flight (LLM players)")
    retry_failed: bool = Field(default=False, description="replay recorded timeouts/errors")
    runs: int | None = Field(default=None, ge=1, description="override the profile's runs")
    steps: int = Field(
        default=1,
        ge=1,
        le=MAX_STEPS,
        description="play steps a game's matches are dealt into (a cluster runs them at once)",
    )


def partition_folder(data: Path, token: str) -> Path:
    """The tournament folder (journal, response cache, tables) of one game's partition."""
    return data / "tournament" / quote(token, safe="-_.")


def benchmark_game(benchmark_games: pd.DataFrame, token: str) -> Game:
    """The game of partition ``token`` as ``benchmark_games`` holds it (a preset if unlisted)."""
    return catalogued_game(token, catalogue_from_table(benchmark_games), "benchmark_games")


def recorded_hash(benchmark_games: pd.DataFrame, game: Game) -> str:
    """The spec hash ``benchmark_games`` records for ``game`` (the game's own for a preset that
    it does not list): what the corpus check holds the played matches to."""
    listed = benchmark_games.loc[benchmark_games["game"].astype(str) == game.token, "spec_hash"]
    return str(listed.iloc[0]) if len(listed) else game.spec.spec_hash


def tournament_inputs(
    context: dg.OpExecutionContext,
    config: TournamentConfig,
    roster: pd.DataFrame,
    benchmark_games: pd.DataFrame,
    profile: RunProfile,
    paths: ProjectPaths,
) -> dict[str, Any]:
    """The arguments every step of a game's tournament plays with."""
    token = context.partition_key
    return {
        "roster": roster_from_table(roster),
        "games": [benchmark_game(benchmark_games, token)],
        "runs": config.runs or profile.get().runs_per_matchup,
        "folder": partition_folder(paths.data_path(), token),
    }


@dg.op(out=dg.DynamicOut(io_manager_key=STEP_IO_MANAGER))
def plan_matches(
    context: dg.OpExecutionContext,
    config: TournamentConfig,
    roster: pd.DataFrame,
    benchmark_games: pd.DataFrame,
    profile: RunProfile,
    paths: ProjectPaths,
) -> Iterator[dg.DynamicOutput[dict[str, Any]]]:
    """Deal the game's matches still to play into ``steps`` shares (one output each)."""
    shares = plan_shares(
        **tournament_inputs(context, config, roster, benchmark_games, profile, paths),
        steps=config.steps,
        retry_failed=config.retry_failed,
    )
    total = sum(len(share.match_ids) for share in shares)
    context.log.info(f"{context.partition_key}: {total} matches to play in {len(shares)} steps")
    for share in shares:
        yield dg.DynamicOutput(share.as_dict(), mapping_key=f"step{share.step}")


@dg.op(out=dg.Out(io_manager_key=STEP_IO_MANAGER))
def play_matches(
    context: dg.OpExecutionContext,
    config: TournamentConfig,
    roster: pd.DataFrame,
    benchmark_games: pd.DataFrame,
    share: dict[str, Any],
    profile: RunProfile,
    paths: ProjectPaths,
) -> dict[str, Any]:
    """Play one share of the game's matches into its step's journal."""
    chosen = Share.from_dict(share)
    label = f"{context.partition_key} step {chosen.step + 1}/{chosen.steps}"
    with ProgressReporter(label, unit="matches", out=context.log.info) as reporter:
        reporter.set(0, len(chosen.match_ids))
        done = [0, 0]

        def on_match(moves: int) -> None:
            done[0] += 1
            done[1] += moves
            reporter.set(done[0], len(chosen.match_ids), moves=done[1])

        result = play_share(
            **tournament_inputs(context, config, roster, benchmark_games, profile, paths),
            share=chosen,
            parallel=config.parallel,
            on_match=on_match,
        )
    return {"step": chosen.step, "played": result.played, "skipped": result.skipped}


@dg.op(
    out={
        "match_corpus": dg.Out(),
        "match_moves": dg.Out(),
        **{spec.get_python_identifier(): dg.Out(is_required=False) for spec in CHECK_SPECS},
    }
)
def collect_matches(
    context: dg.OpExecutionContext,
    config: TournamentConfig,
    roster: pd.DataFrame,
    benchmark_games: pd.DataFrame,
    played: list[dict[str, Any]],
    profile: RunProfile,
    paths: ProjectPaths,
) -> Iterator[dg.Output[pd.DataFrame] | dg.AssetCheckResult]:
    """Every step's matches as the two tables (and whatever no step played, played here)."""
    token = context.partition_key
    inputs = tournament_inputs(context, config, roster, benchmark_games, profile, paths)
    folder = inputs["folder"]
    with ProgressReporter(token, unit="matches", out=context.log.info) as reporter:
        summary = run_tournament(
            **inputs,
            parallel=config.parallel,
            retry_failed=config.retry_failed,
            progress=lambda p: reporter.set(
                p.done, p.total, already=p.done - p.played, moves=p.moves
            ),
        )
    for name, message in summary.stopped.items():
        context.log.warning(f"{name}: {message}")
    refusals = [
        f"program {name!r} not admitted: {reason}"
        for name, games in summary.not_admitted.items()
        for reason in games.values()
    ]
    for message in refusals:
        context.log.warning(f"{token}: {message}")
    matches = pd.read_parquet(folder / MATCHES)
    moves = pd.read_parquet(folder / MOVES)
    if not summary.finished:
        causes = "; ".join([*summary.stopped.values(), *refusals]) or "see the log"
        raise RuntimeError(
            f"{summary.scheduled - summary.recorded} of {summary.scheduled} matches on {token} "
            f"were not played ({causes}); "
            "materialize again once the cause is fixed"
        )
    statuses = ", ".join(f"{n} {s}" for s, n in summary.status_counts.items())
    in_steps = sum(int(step["played"]) for step in played)
    yield dg.Output(
        matches,
        output_name="match_corpus",
        metadata={
            "dagster/row_count": len(matches),
            "statuses": statuses,
            "played_now": summary.played + in_steps,
            "play_steps": len(played),
            "resumed": summary.resumed - in_steps,
            "folder": dg.MetadataValue.path(str(folder)),
        },
    )
    yield dg.Output(moves, output_name="match_moves", metadata={"dagster/row_count": len(moves)})
    expected = {token: recorded_hash(benchmark_games, inputs["games"][0])}
    for name, check in (
        ("zero_sum", corpus_checks.zero_sum(matches)),
        ("spec_hash_matches_game", corpus_checks.spec_hashes(matches, expected, "game")),
        ("unique_match_ids", corpus_checks.unique_match_ids(matches)),
    ):
        problems = check.problems
        yield dg.AssetCheckResult(
            asset_key="match_corpus",
            check_name=name,
            passed=check.passed,
            metadata={"problems": "; ".join(problems[:20]) or "none", "count": len(problems)},
        )


TOURNAMENT_OPS = ("plan_matches", "play_matches", "collect_matches")


def tournament_config(config: TournamentConfig) -> dict[str, Any]:
    """The asset's config (``ops: {match_corpus: {config: ...}}``) given to each of its steps
    (Dagster hands the mapping the validated config as a dict)."""
    values = config.model_dump() if isinstance(config, dg.Config) else dict(config)
    return {name: {"config": values} for name in TOURNAMENT_OPS}


@dg.graph_multi_asset(
    name="match_corpus",
    outs={
        "match_corpus": dg.AssetOut(
            group_name=GROUP_NAME,
            kinds={"pandas", "parquet"},
            description="Every match (a single deal) of the benchmark game: players, seats, "
            "chips, status, fallbacks, rethinks, tokens, cost.",
            metadata={"dagster/column_schema": column_schema("match_corpus")},
        ),
        "match_moves": dg.AssetOut(
            group_name=GROUP_NAME,
            kinds={"pandas", "parquet"},
            description="Every move of those matches: menu, prompt hash, raw reply, action, "
            "fallback and rethink flags, latency, tokens, reasoning.",
            metadata={"dagster/column_schema": column_schema("match_moves")},
        ),
    },
    partitions_def=BENCHMARK_GAMES,
    group_name=GROUP_NAME,
    check_specs=CHECK_SPECS,
    config=dg.ConfigMapping(config_fn=tournament_config),
)
def match_corpus(roster: pd.DataFrame, benchmark_games: pd.DataFrame) -> dict[str, Any]:
    shares = plan_matches(roster, benchmark_games)
    played = shares.map(lambda share: play_matches(roster, benchmark_games, share))
    collected = collect_matches(roster, benchmark_games, played.collect())
    return {
        "match_corpus": collected.match_corpus,
        "match_moves": collected.match_moves,
        **{
            spec.get_python_identifier(): getattr(collected, spec.get_python_identifier())
            for spec in CHECK_SPECS
        },
    }


ASSETS: list[dg.AssetsDefinition] = [match_corpus]
CHECKS: list[dg.AssetChecksDefinition] = [
    contract_check("match_moves", partitions_def=BENCHMARK_GAMES)
]
