"""Stage: the ``openspiel`` benchmark group, OpenSpiel's classic games beside the generated
benchmark (issue 18).

Three assets in group ``openspiel``, thin over the arena and the statistics:

- ``openspiel_games``: the profile's ``openspiel_games`` (or the config's ``games``), each
  loaded and checked (``engines.openspiel``: two players, zero-sum, sequential), one row per
  game; it writes the keys of the dynamic partitions ``openspiel_games``
  (``assets.partitions.OPENSPIEL_GAMES``);
- ``openspiel_match_corpus``, one partition per game: the roster's tournament on that game,
  played by ``arena.tournament.runner.run_tournament`` into ``<data>/openspiel/<game>/``
  (journal, moves), the profile's runs per matchup, paired seats (a colour swap in a
  perfect-information game, the same cards and dice in the others).  Only players that play
  OpenSpiel games are scheduled: ``random``, ``mcts``, ``stockfish`` (chess) and LLM players;
  a roster with fewer than two of them is refused in one line.  Blocking checks: zero-sum,
  every match's spec hash and engine version those of its game, no duplicate match ids;
- ``openspiel_leaderboards``: the complete pairs of every game's partition, fitted by the same
  analysis as the generated benchmark's ``leaderboards`` (``assets.leaderboards``: the overall
  leaderboard, per-game strengths, head-to-head tables, Bradley-Terry, robustness refits),
  with a blocking check that every run is two deals with the seats swapped.

A Dagster job holds one partitions definition, so the group is materialized on request
through its own job, ``openspiel_job`` (``pipelines/jobs.py``), outside ``main_job`` and the
refresh's automation (``pipelines/definitions.py``, ``ON_REQUEST``).

The complexity axes (``engines.axes``) are defined on a generated game's structure (its rounds,
menus and information sets as GBG describes them), so they do not run on OpenSpiel games: this
group has no ``axis_scores`` and its analysis no capability profiles.
"""

from collections.abc import Iterator, Mapping
from urllib.parse import quote

import dagster as dg
import pandas as pd
from pydantic import Field

from arena.games import resolve_games
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament, tournament_schedule
from assets.leaderboards import StatsConfig, build_leaderboards
from assets.partitions import OPENSPIEL_GAMES, concat_partitions
from assets.resources import ProjectPaths, RunProfile
from assets.roster import roster_from_table
from engines.openspiel.spec import is_openspiel_token
from engines.tournament import corpus_checks
from engines.tournament.pairs import complete_pairs
from engines.tournament.records import MATCH_SCHEMA

GROUP_NAME = "openspiel"

CORPUS_CHECKS = ("zero_sum", "spec_hash_matches_game", "unique_match_ids")


class OpenSpielGamesConfig(dg.Config):
    """Which OpenSpiel games the group plays (default: the profile's ``openspiel_games``)."""

    games: list[str] | None = Field(
        default=None, description="openspiel:<name>[(<params>)] tokens; default: the profile's"
    )


class OpenSpielTournamentConfig(dg.Config):
    """Runs per matchup (default: the profile's ``runs_per_matchup``)."""

    runs: int | None = Field(default=None, ge=1, description="override the profile's runs")


def openspiel_table(tokens: list[str]) -> pd.DataFrame:
    """One row per game: token, OpenSpiel name, spec hash, engine version, the protocol and the
    move cap; ``ValueError`` (one line) for a token that is not a playable OpenSpiel game."""
    for token in tokens:
        if not is_openspiel_token(token):
            raise ValueError(f"{token!r} is not an OpenSpiel game (write openspiel:<name>)")
    rows = []
    for game in resolve_games(tokens):
        spec = game.spec
        rows.append(
            {
                "game": game.token,
                "game_seed": game.game_seed,
                "openspiel_name": spec.short_name,  # type: ignore[union-attr]
                "spec_hash": spec.spec_hash,
                "engine_version": game.engine_version,
                "perfect_information": bool(spec.perfect_information),  # type: ignore[union-attr]
                "protocol": spec.protocol.name,  # type: ignore[union-attr]
                "move_cap": spec.move_cap,  # type: ignore[union-attr]
            }
        )
    return pd.DataFrame(rows)


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    description="The OpenSpiel games of the openspiel benchmark group (the profile's "
    "openspiel_games): name, spec hash, engine version, protocol, move cap.",
)
def openspiel_games(
    context: dg.AssetExecutionContext, config: OpenSpielGamesConfig, profile: RunProfile
) -> dg.Output[pd.DataFrame]:
    tokens = list(config.games) if config.games is not None else list(profile.get().openspiel_games)
    if not tokens:
        raise ValueError(
            f"profile {profile.get().name!r} names no OpenSpiel games (openspiel_games); "
            "choose the paper profile or set this asset's config games"
        )
    frame = openspiel_table(tokens)
    keys = list(frame["game"])
    instance = context.instance
    stale = set(instance.get_dynamic_partitions(OPENSPIEL_GAMES.name or "")) - set(keys)
    for key in sorted(stale):
        instance.delete_dynamic_partition(OPENSPIEL_GAMES.name or "", key)
    instance.add_dynamic_partitions(OPENSPIEL_GAMES.name or "", keys)
    return dg.Output(frame, metadata={"dagster/row_count": len(frame), "games": ", ".join(keys)})


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    partitions_def=OPENSPIEL_GAMES,
    deps=[openspiel_games],
    check_specs=[
        dg.AssetCheckSpec(name, asset="openspiel_match_corpus", blocking=True)
        for name in CORPUS_CHECKS
    ],
    description="Every match of the roster's tournament on one OpenSpiel game (paired seats, "
    "the match schema of the generated benchmark).",
)
def openspiel_match_corpus(
    context: dg.AssetExecutionContext,
    config: OpenSpielTournamentConfig,
    roster: pd.DataFrame,
    profile: RunProfile,
    paths: ProjectPaths,
) -> Iterator[dg.Output[pd.DataFrame] | dg.AssetCheckResult]:
    token = context.partition_key
    players = roster_from_table(roster)
    games = resolve_games([token])
    if not tournament_schedule(players, games, 1):
        raise ValueError(
            f"no two players of the roster play {token} (OpenSpiel games take random, mcts, "
            "stockfish on chess, and LLM players)"
        )
    folder = paths.data_path() / "openspiel" / quote(token, safe="-_.")
    summary = run_tournament(players, games, config.runs or profile.get().runs_per_matchup, folder)
    if not summary.finished:
        causes = "; ".join(summary.stopped.values()) or "see the log"
        raise RuntimeError(
            f"{summary.scheduled - summary.recorded} of {summary.scheduled} matches on {token} "
            f"were not played ({causes}); materialize again once the cause is fixed"
        )
    matches = pd.read_parquet(folder / MATCHES)
    yield dg.Output(
        matches,
        metadata={
            "dagster/row_count": len(matches),
            "statuses": ", ".join(f"{n} {s}" for s, n in summary.status_counts.items()),
            "moves": dg.MetadataValue.path(str(folder / MOVES)),
        },
    )
    game = games[0]
    for name, check in (
        ("zero_sum", corpus_checks.zero_sum(matches)),
        (
            "spec_hash_matches_game",
            corpus_checks.spec_hashes(
                matches, {token: game.spec.spec_hash}, "game", engine_version=game.engine_version
            ),
        ),
        ("unique_match_ids", corpus_checks.unique_match_ids(matches)),
    ):
        yield dg.AssetCheckResult(
            asset_key="openspiel_match_corpus",
            check_name=name,
            passed=check.passed,
            metadata={"problems": "; ".join(check.problems[:20]) or "none"},
        )


def openspiel_pairs(corpus: pd.DataFrame | Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The complete pairs of every game's partition; ``ValueError`` when there are none."""
    matches = concat_partitions(corpus, MATCH_SCHEMA.names)
    if matches.empty:
        raise ValueError("openspiel_match_corpus has no matches in any partition")
    kept, _ = complete_pairs(matches)
    if kept.empty:
        raise ValueError("openspiel_match_corpus has no run with both deals complete")
    return kept


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    check_specs=[
        dg.AssetCheckSpec("both_seats_in_every_run", asset="openspiel_leaderboards", blocking=True)
    ],
    description="Leaderboard of the OpenSpiel games (the same analysis as the generated "
    "benchmark's leaderboards, without the complexity axes).",
)
def openspiel_leaderboards(
    config: StatsConfig, openspiel_match_corpus: dict[str, pd.DataFrame]
) -> Iterator[dg.Output[pd.DataFrame] | dg.AssetCheckResult]:
    pairs = openspiel_pairs(openspiel_match_corpus)
    table, metadata = build_leaderboards(pairs, config)
    metadata["games"] = ", ".join(sorted(pairs["game"].unique()))
    metadata["runs"] = int(pairs["run_id"].nunique())
    yield dg.Output(table, metadata=metadata)
    check = corpus_checks.paired_runs(pairs)
    yield dg.AssetCheckResult(
        check_name="both_seats_in_every_run",
        passed=check.passed,
        metadata={"problems": "; ".join(check.problems[:20]) or "none"},
    )


ASSETS: list[dg.AssetsDefinition] = [
    openspiel_games,
    openspiel_match_corpus,
    openspiel_leaderboards,
]
CHECKS: list[dg.AssetChecksDefinition] = []
