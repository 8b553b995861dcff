"""Stage: ``complete_pairs``, the runs whose two seat-swapped deals both completed (Section 5).

Thin: ``engines.tournament.pairs.complete_pairs`` drops timeouts and errors and keeps only runs
whose two deals both completed, over every game's partition of ``match_corpus``; the counts of
what was dropped and why are metadata.  This is the table the statistics stages fit.

Blocking checks (release gates, from ``engines.tournament.corpus_checks`` as the release's own
gates are): both seats present in every run (two deals, seats swapped, one play seed), no
duplicate match ids across games, and every model's parse-fallback rate over
the whole corpus within ``MAX_FALLBACK_RATE`` (the paper's worst model fell back on 0.33% of its
moves; the bound is set at three times that, since a small corpus makes rates noisy).
"""

from collections.abc import Mapping

import dagster as dg
import pandas as pd

from assets.metadata import markdown_table
from assets.partitions import concat_partitions
from assets.roster import GROUP_NAME
from engines.tournament import corpus_checks
from engines.tournament.corpus_checks import MAX_FALLBACK_RATE, CheckResult
from engines.tournament.pairs import (
    complete_pairs as keep_complete_pairs,
)
from engines.tournament.records import MATCH_SCHEMA


def all_matches(
    match_corpus: pd.DataFrame | Mapping[str, pd.DataFrame], name: str = "match_corpus"
) -> pd.DataFrame:
    """Every game's matches as one table; ``ValueError`` when no partition of ``name`` has a
    match."""
    matches = concat_partitions(match_corpus, MATCH_SCHEMA.names)
    if matches.empty:
        raise ValueError(f"{name} has no matches in any partition")
    return matches


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    description="Runs whose two seat-swapped deals both completed, across every benchmark game; "
    "counts of dropped deals by reason.",
)
def complete_pairs(match_corpus: dict[str, pd.DataFrame]) -> dg.Output[pd.DataFrame]:
    matches = all_matches(match_corpus)
    kept, dropped = keep_complete_pairs(matches)
    rates = corpus_checks.fallback_rates(matches)
    return dg.Output(
        kept,
        metadata={
            "dagster/row_count": len(kept),
            "matches": len(matches),
            "runs_kept": int(kept["run_id"].nunique()) if len(kept) else 0,
            "dropped": sum(dropped.values()),
            "dropped_by_reason": dg.MetadataValue.json(dropped),
            "fallback_rates": dg.MetadataValue.md(markdown_table(rates)),
        },
    )


def _result(check: CheckResult, **extra: float) -> dg.AssetCheckResult:
    problems = check.problems
    metadata: dict[str, str | float] = {
        "problems": "; ".join(problems[:20]) or "none",
        "count": len(problems),
        **extra,
    }
    return dg.AssetCheckResult(passed=check.passed, metadata=metadata)


@dg.asset_check(
    asset=complete_pairs,
    blocking=True,
    description="Every run is two deals with the seats swapped and one play seed.",
)
def both_seats_in_every_run(complete_pairs: pd.DataFrame) -> dg.AssetCheckResult:
    return _result(corpus_checks.paired_runs(complete_pairs))


@dg.asset_check(
    asset=complete_pairs,
    blocking=True,
    description="No match id appears twice, across every game.",
)
def unique_match_ids(complete_pairs: pd.DataFrame) -> dg.AssetCheckResult:
    return _result(corpus_checks.unique_match_ids(complete_pairs))


@dg.asset_check(
    asset=complete_pairs,
    blocking=True,
    additional_ins={"match_corpus": dg.AssetIn()},
    description=f"Every model's parse-fallback rate over the whole corpus is at most "
    f"{MAX_FALLBACK_RATE:.2%}.",
)
def fallback_rate_within_bound(
    complete_pairs: pd.DataFrame, match_corpus: dict[str, pd.DataFrame]
) -> dg.AssetCheckResult:
    matches = all_matches(match_corpus)
    check = corpus_checks.fallback_bound(matches, MAX_FALLBACK_RATE)
    return _result(check, bound=MAX_FALLBACK_RATE)


ASSETS: list[dg.AssetsDefinition] = [complete_pairs]
CHECKS: list[dg.AssetChecksDefinition] = [
    both_seats_in_every_run,
    unique_match_ids,
    fallback_rate_within_bound,
]
