"""Stage: ``match_corpus`` and ``match_moves``, the tournament on one benchmark game per partition.

Thin: ``arena.tournament.runner.run_tournament`` plays the roster's schedule on the
partition's game into ``<data>/tournament/<game>/`` (its journal makes a re-materialization
after a crash resume where it stopped, and its response cache means no model is asked twice);
the asset returns the two tables, one row per match (DESIGN match schema) and one row per move
(DESIGN move schema).  Runs per matchup come from the profile.

Blocking checks, per partition: zero-sum per match, every match's spec hash equal to its
benchmark game's, no duplicate match ids.  Games come from ``assets.partitions`` (see there for
the demo source and how to rewire to ``benchmark_games``).
"""

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import dagster as dg
import pandas as pd
from pydantic import Field

from arena.games import resolve_games
from arena.progress import ProgressReporter
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament
from assets.metadata import column_schema, contract_check
from assets.partitions import BENCHMARK_GAMES
from assets.resources import ProjectPaths, RunProfile
from assets.roster import GROUP_NAME, roster_from_table
from engines.tournament import corpus_checks

CHECK_NAMES = ("zero_sum", "spec_hash_matches_game", "unique_match_ids")


class TournamentConfig(dg.Config):
    """Settings of a tournament step (the profile gives the runs per matchup)."""

    parallel: int = Field(default=64, ge=1, description="matches in flight (LLM players)")
    retry_failed: bool = Field(default=False, description="replay recorded timeouts/errors")
    runs: int | None = Field(default=None, ge=1, description="override the profile's runs")


def partition_folder(data: Path, token: str) -> Path:
    """The tournament folder (journal, response cache, tables) of one game's partition."""
    return data / "tournament" / quote(token, safe="-_.")


@dg.multi_asset(
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
    check_specs=[
        dg.AssetCheckSpec(name, asset="match_corpus", blocking=True) for name in CHECK_NAMES
    ],
)
def match_corpus(
    context: dg.AssetExecutionContext,
    config: TournamentConfig,
    roster: pd.DataFrame,
    profile: RunProfile,
    paths: ProjectPaths,
) -> Iterator[dg.Output[pd.DataFrame] | dg.AssetCheckResult]:
    token = context.partition_key
    games = resolve_games([token])
    runs = config.runs or profile.get().runs_per_matchup
    folder = partition_folder(paths.data_path(), token)
    with ProgressReporter(token, unit="matches", out=context.log.info) as reporter:
        summary = run_tournament(
            roster_from_table(roster),
            games,
            runs,
            folder,
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
    yield dg.Output(
        matches,
        output_name="match_corpus",
        metadata={
            "dagster/row_count": len(matches),
            "statuses": statuses,
            "played_now": summary.played,
            "resumed": summary.resumed,
            "folder": dg.MetadataValue.path(str(folder)),
        },
    )
    yield dg.Output(moves, output_name="match_moves", metadata={"dagster/row_count": len(moves)})
    expected = {token: games[0].spec.spec_hash}
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


ASSETS: list[dg.AssetsDefinition] = [match_corpus]
CHECKS: list[dg.AssetChecksDefinition] = [
    contract_check("match_moves", partitions_def=BENCHMARK_GAMES)
]
