"""Stage: the ``werewolf`` group, Game Arena's social-deduction environment beside the
two-player benchmark (issue 47, item 4; docs/WEREWOLF.md).

Three steps in group ``werewolf``, thin over the arena, the statistics and the release:

- ``werewolf_games`` (with ``werewolf_seats``, ``werewolf_decisions``, ``werewolf_players``):
  the roster's models (its API entries; the config's ``models`` to choose some) and the
  config's built-in bots play a balanced schedule (``engines.werewolf.schedule``: blocks of
  eight games, every seat every role once a block, seat counts varied across blocks) through
  ``arena.werewolf.games.run_games``, with the lineup, response cache
  (``<data>/werewolf/cache.sqlite``) and budgets of a tournament; each game's transcript is
  written to ``<data>/werewolf/transcripts/<game>.json``; the tables are
  ``arena.werewolf.tables``'.  Blocking check: every game replays from its moves to its
  recorded outcome with the rules' invariants holding (the release's ``attestation`` gate);
- ``werewolf_ratings`` (with ``werewolf_overall``, ``werewolf_win_rates``, ``werewolf_fit``):
  the role-decomposed ratings of the seats with bootstrap intervals and the plain win rates
  (``engines.stats.werewolf``, via ``releases.werewolf.rating_tables``);
- ``werewolf_release``: those tables published as a versioned, hash-attested release into the
  same store as every release, past its gates (``releases.werewolf``); its manifest records
  ``"benchmark": "werewolf"``; blocking check ``published_release_verifies``.

The group plays models for real money and time, so it is materialized on request, outside the
refresh's automation and the main job (``pipelines/definitions.py``, ``ON_REQUEST``).
"""

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import dagster as dg
import pandas as pd
from pydantic import Field

from arena.llm.cache import ResponseCache
from arena.roster import ApiEntry, Roster
from arena.werewolf.games import (
    BotEntry,
    bot_entry,
    bot_spec,
    run_games,
    transcript,
    werewolf_seats,
)
from arena.werewolf.prompts import DEFAULT_CONTEXT_CHARS
from arena.werewolf.tables import tournament_tables
from assets.metadata import markdown_table
from assets.release import ReleaseConfig, gates_markdown, verify_published
from assets.resources import ProjectPaths, RunProfile
from assets.roster import roster_from_table
from engines.werewolf.rules import DISCUSSION_ROUNDS, MAX_DAYS, STATEMENT_CHARS, WerewolfRules
from engines.werewolf.schedule import balanced_schedule
from releases.contents import published_row
from releases.werewolf import (
    DECISIONS,
    FIT,
    GAMES,
    OVERALL,
    PLAYERS,
    RATINGS,
    SEATS,
    WIN_RATES,
    attestation,
    player_table,
    publish_werewolf_release,
    rating_tables,
    werewolf_release_tables,
)

GROUP_NAME = "werewolf"
DEFAULT_BOTS = ("rule", "random")


class WerewolfTournamentConfig(dg.Config):
    """Who plays the group's tournament, how many games, and the rules."""

    models: list[str] | None = Field(
        default=None, description="the roster's models that play (default: every API model)"
    )
    bots: list[str] = Field(
        default=list(DEFAULT_BOTS),
        description="built-in bots: KIND or NAME=KIND[:HABIT=false,...] (kinds random, rule)",
    )
    blocks: int | None = Field(
        default=None,
        ge=1,
        le=10_000,
        description="blocks of eight games (default: four per player, four complete groups)",
    )
    seed: int = Field(default=47, ge=0, le=2**63 - 1, description="schedule and play seed")
    discussion_rounds: int = Field(default=2, ge=DISCUSSION_ROUNDS[0], le=DISCUSSION_ROUNDS[1])
    max_days: int = Field(default=10, ge=MAX_DAYS[0], le=MAX_DAYS[1])
    statement_chars: int = Field(default=600, ge=STATEMENT_CHARS[0], le=STATEMENT_CHARS[1])
    context_chars: int = Field(default=DEFAULT_CONTEXT_CHARS, ge=1000, le=10_000_000)
    offline: bool = Field(default=False, description="answers from the response cache only")

    def rules(self) -> WerewolfRules:
        return WerewolfRules(self.discussion_rounds, self.max_days, self.statement_chars)


class WerewolfRatingsConfig(dg.Config):
    """The bootstrap of the role ratings."""

    n_boot: int = Field(default=400, ge=1, le=100_000, description="bootstrap replicates")
    seed: int = Field(default=47, ge=0, le=2**63 - 1, description="bootstrap seed")


def chosen_models(roster: Roster, names: list[str] | None) -> Roster:
    """The roster's API models named by ``names`` (default: all of them); ``ValueError`` (one
    line) for a name that is not an API model of the roster."""
    models = [p for p in roster.players if isinstance(p, ApiEntry)]
    if names is None:
        return roster.model_copy(update={"players": models})
    known = {p.name: p for p in models}
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ValueError(
            f"werewolf models {', '.join(unknown)} are not API models of the roster "
            f"(its models: {', '.join(sorted(known)) or 'none'})"
        )
    return roster.model_copy(update={"players": [known[n] for n in names]})


def play_tournament(
    config: WerewolfTournamentConfig,
    roster: Roster | None,
    folder: Any,
    environ: dict[str, str] | None = None,
    progress: Any = None,
) -> dict[str, pd.DataFrame]:
    """The ``werewolf_games`` step as a plain function: the tournament's four tables
    (module docstring), transcripts and response cache in ``folder``.  ``ValueError`` (one
    line) for a bad bot, a name used twice, or fewer than two players."""
    bots: dict[str, BotEntry] = {}
    for text in config.bots:
        name, entry = bot_entry(text)
        if name in bots:
            raise ValueError(f"bot name {name!r} is used twice")
        bots[name] = entry
    models = chosen_models(roster, config.models) if roster is not None else None
    names = [p.name for p in models.players] if models is not None else []
    players = [*names, *bots]
    if len(players) < 2:
        raise ValueError(f"a werewolf tournament needs at least two players, got {players}")
    blocks = config.blocks or 4 * len(players)
    schedule = balanced_schedule(players, blocks, config.seed)
    rules = config.rules()
    folder.mkdir(parents=True, exist_ok=True)

    async def main() -> list[dict[str, Any]]:
        cache = ResponseCache(folder / "cache.sqlite", offline=config.offline)
        seats, lineup = werewolf_seats(
            models if names else None,
            bots,
            cache,
            random.Random(config.seed),
            rules,
            environ,
            config.context_chars,
        )
        try:
            records = await run_games(
                schedule, seats, rules, folder / "transcripts", progress=progress
            )
        finally:
            if lineup is not None:
                await lineup.aclose()
            cache.close()
        return [transcript(r) for r in records]

    docs = asyncio.run(main())
    tables = tournament_tables(docs)
    tables[PLAYERS] = player_table(names, {n: bot_spec(e) for n, e in bots.items()})
    return tables


@dg.multi_asset(
    group_name=GROUP_NAME,
    outs={
        GAMES: dg.AssetOut(
            kinds={"pandas", "parquet"},
            description="One row per Werewolf game: deal, players, outcome, rules, moves.",
        ),
        SEATS: dg.AssetOut(
            kinds={"pandas", "parquet"},
            description="One row per seat of every Werewolf game: player, role, team, won.",
        ),
        DECISIONS: dg.AssetOut(
            kinds={"pandas", "parquet"},
            description="Every decision of every Werewolf game, with replies and forfeits.",
        ),
        PLAYERS: dg.AssetOut(
            kinds={"pandas", "parquet"},
            description="The players of the Werewolf tournament: roster models and bots.",
        ),
    },
    check_specs=[dg.AssetCheckSpec("games_replay", asset=GAMES, blocking=True)],
    description="The werewolf group's tournament: the roster's models and the built-in bots "
    "on a balanced schedule (docs/WEREWOLF.md).",
)
def werewolf_games(
    context: dg.AssetExecutionContext,
    config: WerewolfTournamentConfig,
    roster: pd.DataFrame,
    paths: ProjectPaths,
) -> Iterator[dg.Output[pd.DataFrame] | dg.AssetCheckResult]:
    parsed = roster_from_table(roster) if not roster.empty else None
    folder = paths.data_path() / "werewolf"

    def progress(done: int, total: int) -> None:
        if done == total or done % 8 == 0:
            context.log.info(f"werewolf: {done} of {total} games played")

    tables = play_tournament(config, parsed, folder, progress=progress)
    games = tables[GAMES]
    wins = games["winner"].value_counts().to_dict()
    yield dg.Output(
        games,
        output_name=GAMES,
        metadata={
            "dagster/row_count": len(games),
            "wins": ", ".join(f"{k} {v}" for k, v in sorted(wins.items())),
            "forfeits": int(games["forfeits"].sum()),
            "transcripts": dg.MetadataValue.path(str(folder / "transcripts")),
        },
    )
    for name in (SEATS, DECISIONS, PLAYERS):
        yield dg.Output(
            tables[name], output_name=name, metadata={"dagster/row_count": len(tables[name])}
        )
    check = attestation(tables)
    yield dg.AssetCheckResult(
        asset_key=GAMES,
        check_name="games_replay",
        passed=check.passed,
        metadata={"summary": check.message},
    )


@dg.multi_asset(
    group_name=GROUP_NAME,
    ins={"werewolf_seats": dg.AssetIn()},
    outs={
        RATINGS: dg.AssetOut(
            kinds={"pandas", "parquet"},
            description="Per model and role: skill with its bootstrap interval (a team-outcome "
            "logistic model) and the plain win rate.",
        ),
        OVERALL: dg.AssetOut(
            kinds={"pandas", "parquet"}, description="Per model: role-weighted skill, rank."
        ),
        WIN_RATES: dg.AssetOut(
            kinds={"pandas", "parquet"}, description="Plain win rates per team and role."
        ),
        FIT: dg.AssetOut(
            kinds={"pandas", "parquet"},
            description="The fit's intercept, games and bootstrap size and seed.",
        ),
    },
    description="Werewolf ratings that separate skill from role luck (engines.stats.werewolf).",
)
def werewolf_ratings(
    config: WerewolfRatingsConfig, werewolf_seats: pd.DataFrame
) -> Iterator[dg.Output[pd.DataFrame]]:
    tables = rating_tables(werewolf_seats, config.n_boot, config.seed)
    fit = tables[FIT].iloc[0]
    yield dg.Output(
        tables[RATINGS],
        output_name=RATINGS,
        metadata={
            "dagster/row_count": len(tables[RATINGS]),
            "ratings": dg.MetadataValue.md(markdown_table(tables[RATINGS])),
            "intercept": f"{fit['alpha']:.3f} [{fit['alpha_ci_low']:.3f}, "
            f"{fit['alpha_ci_high']:.3f}]",
        },
    )
    for name in (OVERALL, WIN_RATES, FIT):
        yield dg.Output(
            tables[name],
            output_name=name,
            metadata={
                "dagster/row_count": len(tables[name]),
                "table": dg.MetadataValue.md(markdown_table(tables[name])),
            },
        )


def build_werewolf_release(
    tournament: dict[str, pd.DataFrame],
    ratings: dict[str, pd.DataFrame],
    roster: pd.DataFrame | None,
    profile: dict[str, Any],
    config: ReleaseConfig,
    settings: dict[str, Any] | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The ``werewolf_release`` asset as a plain function: publish, and the published row and
    metadata.  ``GateFailed`` names a failing gate; the store is then as it was."""
    tables = werewolf_release_tables(tournament, ratings, roster)
    store = config.store_path()
    published, gates = publish_werewolf_release(
        tables, profile, store, max_forfeit_rate=config.max_fallback_rate, settings=settings
    )
    entry = published.entry
    metadata = {
        "dagster/row_count": 1,
        "release_id": published.release_id,
        "release_path": dg.MetadataValue.path(str(published.path)),
        "store": dg.MetadataValue.path(str(store)),
        "newly_published": published.new,
        "archive_sha256": entry["archive"]["sha256"],
        "files": entry["files"],
        "bytes": entry["bytes"],
        "gates": dg.MetadataValue.md(gates_markdown(gates)),
    }
    return published_row(published), metadata


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    description="The werewolf group's versioned, hash-attested release: games, seats, "
    "decisions (redacted), role ratings with intervals, win rates, players and roster, "
    'published into the release store past its gates; its manifest records "benchmark": '
    '"werewolf".',
)
def werewolf_release(
    context: dg.AssetExecutionContext,
    config: ReleaseConfig,
    profile: RunProfile,
    roster: pd.DataFrame,
    werewolf_games: pd.DataFrame,
    werewolf_seats: pd.DataFrame,
    werewolf_decisions: pd.DataFrame,
    werewolf_players: pd.DataFrame,
    werewolf_ratings: pd.DataFrame,
    werewolf_overall: pd.DataFrame,
    werewolf_win_rates: pd.DataFrame,
    werewolf_fit: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    tournament = {
        GAMES: werewolf_games,
        SEATS: werewolf_seats,
        DECISIONS: werewolf_decisions,
        PLAYERS: werewolf_players,
    }
    ratings = {
        RATINGS: werewolf_ratings,
        OVERALL: werewolf_overall,
        WIN_RATES: werewolf_win_rates,
        FIT: werewolf_fit,
    }
    rules = json.loads(str(werewolf_games["rules"].iloc[0])) if len(werewolf_games) else {}
    value, metadata = build_werewolf_release(
        tournament, ratings, roster, profile.get().model_dump(mode="json"), config, rules
    )
    verb = "published" if metadata["newly_published"] else "already published"
    context.log.info(f"{verb} werewolf release {metadata['release_id']}")
    return dg.Output(value, metadata=metadata)


@dg.asset_check(
    asset=werewolf_release,
    name="published_release_verifies",
    blocking=True,
    description="The published release, read back from the store, verifies (what `genstrat "
    "release verify` checks).",
)
def werewolf_release_verifies(werewolf_release: pd.DataFrame) -> dg.AssetCheckResult:
    return verify_published(werewolf_release)


ASSETS: list[dg.AssetsDefinition] = [werewolf_games, werewolf_ratings, werewolf_release]
CHECKS: list[dg.AssetChecksDefinition] = [werewolf_release_verifies]
