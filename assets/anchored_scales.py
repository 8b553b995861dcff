"""Stage: scores against a fixed reference field (issue 19): ``anchored_scales``,
``episode_adaptation`` and ``program_track``.

Thin: each asset calls one function.

- ``anchored_scales``: the tournament's whole corpus (every status, so budget stops and
  incomplete runs are seen) scored against the reference field
  (``engines.stats.anchored.scales_with_flags``): anchored rating, 0-100 score, calibrated Elo,
  provisional flags. A roster whose members play other settings than the field fixes is named
  in the metadata; a corpus without the field leaves every entrant provisional with the reason.
- ``episode_adaptation``: the roster's built-in players (and the planted ``adaptive`` bot) each
  play multi-hand episodes against the fixed exploitable ``overfolder``
  (``arena.tournament.runner.run_episode_tournament``), and so do the roster's LLM players that
  the config names (``llm_players``, default all; ``llm_episodes`` episode pairs each, default
  1, since every hand is paid for), with every request kept
  (``arena.tournament.recorded_episodes``: their moves in
  ``<data>/episodes/llm/episode_moves.parquet``, their calls, tokens and cost in the metadata);
  the value is the adaptation table (``engines.stats.adaptation.adaptation_table``),
  per-episode and per-hand figures are metadata.
- ``program_track``: the handwritten programs of ``arena/ablations/programs`` and the roster's
  program entries take the admission test and play the field
  (``arena.tournament.reference_play.play_program_track``); the value is the track table
  (``engines.stats.program_track.program_track``), the authoring runs are metadata.
"""

from pathlib import Path
from typing import Any

import dagster as dg
import numpy as np
import pandas as pd
from pydantic import Field

from arena.games import resolve_games
from arena.roster import ApiEntry, BuiltinEntry, ProgramEntry, Roster
from arena.tournament.recorded_episodes import EPISODE_MOVES, run_recorded_episodes
from arena.tournament.reference_play import (
    ADAPTIVE,
    EXPLOITABLE,
    episode_roster,
    play_program_track,
)
from arena.tournament.runner import run_episode_tournament
from assets.metadata import column_schema, markdown_table
from assets.partitions import concat_partitions
from assets.resources import ProjectPaths, RunProfile
from assets.roster import roster_from_table
from engines.stats.adaptation import adaptation_table, per_episode
from engines.stats.anchored import scales_with_flags
from engines.stats.program_track import program_track as track_table
from engines.stats.provisional import ProvisionalRules
from engines.stats.reference_field import reference_field, roster_mismatches
from engines.tournament.episodes import EpisodeConfig
from engines.tournament.records import MATCH_SCHEMA

GROUP_NAME = "statistics"
HANDWRITTEN = Path(__file__).resolve().parents[1] / "arena" / "ablations" / "programs"


class AnchoredConfig(dg.Config):
    """The reference field and the resampling of the anchored scales."""

    field: str = Field(default="gbg-builtin-v1", description="reference field (name-vN)")
    bootstrap: int | None = Field(default=None, description="replicates (default: profile's B)")
    seed: int = Field(default=0, description="seed of the bootstrap")
    min_pairs: int = Field(default=10, description="complete runs against the field to rank")


def roster_settings(roster: pd.DataFrame) -> dict[str, tuple[str, dict[str, Any]]]:
    """Built-in players as {name: (agent, params)}."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for entry in roster_from_table(roster).players:
        if isinstance(entry, BuiltinEntry):
            out[entry.name] = (entry.agent, dict(entry.params))
    return out


def build_anchored_scales(
    matches: pd.DataFrame, roster: pd.DataFrame, config: AnchoredConfig, n_boot: int
) -> tuple[pd.DataFrame, dict[str, Any]]:
    field = reference_field(config.field)
    mismatches = roster_mismatches(field, roster_settings(roster))
    if mismatches:
        raise ValueError(
            f"the roster does not play the reference field {field.key} as defined: "
            + "; ".join(mismatches)
        )
    table, note = scales_with_flags(
        matches,
        field,
        np.random.default_rng(config.seed),
        n_boot,
        ProvisionalRules(min_pairs=config.min_pairs),
    )
    metadata: dict[str, Any] = {
        "dagster/row_count": len(table),
        "field": field.key,
        "field_fingerprint": field.fingerprint(),
        "anchor": field.anchor,
        "bootstrap": n_boot,
        "anchored_scales": dg.MetadataValue.md(markdown_table(table)),
        "note": note or "none",
    }
    return table, metadata


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    metadata={"dagster/column_schema": column_schema("anchored_scales")},
    description=(
        "Every player scored against a versioned reference field: rating in chips/game "
        "(uniform random = 0), 0-100 score (GameBench 2), calibrated Elo with a first-mover "
        "term, clustered-bootstrap intervals; provisional entrants flagged with the reason."
    ),
)
def anchored_scales(
    config: AnchoredConfig,
    profile: RunProfile,
    roster: pd.DataFrame,
    match_corpus: dict[str, pd.DataFrame],
) -> dg.Output[pd.DataFrame]:
    matches = concat_partitions(match_corpus, MATCH_SCHEMA.names)
    n_boot = config.bootstrap or profile.get().bootstrap_resamples
    table, metadata = build_anchored_scales(matches, roster, config, n_boot)
    return dg.Output(table, metadata=metadata)


class EpisodeAssetConfig(dg.Config):
    """Episodes of the roster's built-ins against the exploitable bot."""

    games: list[str] = Field(default=["kuhn", "leduc"], description="games of the episodes")
    hands: int = Field(default=20, description="hands per episode")
    episodes: int = Field(default=8, description="episode pairs per player and game")
    stacks: str = Field(default="reset", description="reset | carried")
    reveal: str = Field(default="showdown", description="showdown | all")
    bootstrap: int | None = Field(default=None, description="replicates (default: profile's B)")
    seed: int = Field(default=0, description="seed of the bootstrap")
    llm_players: list[str] = Field(
        default=["*"], description="roster LLM players that play episodes too ('*': all)"
    )
    llm_episodes: int = Field(default=1, ge=1, description="episode pairs per LLM and game")


def episode_llms(roster: Roster, chosen: list[str]) -> list[str]:
    """The roster's LLM players named in ``chosen`` ('*': all of them), in roster order
    (``ValueError`` for a name that is not an LLM player of the roster)."""
    api = [p.name for p in roster.players if isinstance(p, ApiEntry)]
    for name in chosen:
        if name != "*" and name not in api:
            raise ValueError(f"episode llm_players: {name!r} is not an LLM player of the roster")
    return [n for n in api if "*" in chosen or n in chosen]


def build_episode_adaptation(
    roster: pd.DataFrame,
    config: EpisodeAssetConfig,
    folder: Path,
    n_boot: int,
    generation: str = "default",
) -> tuple[pd.DataFrame, dict[str, Any]]:
    episode = EpisodeConfig(
        hands=config.hands,
        stacks=config.stacks,  # type: ignore[arg-type]
        reveal=config.reveal,  # type: ignore[arg-type]
    )
    players = episode_roster(roster_from_table(roster))
    builtins = [p.name for p in players.players if isinstance(p, BuiltinEntry)]
    pairs = [(name, EXPLOITABLE) for name in builtins if name != EXPLOITABLE]
    games = resolve_games(config.games, generation)
    path, stopped = run_episode_tournament(players, pairs, games, config.episodes, episode, folder)
    hands = pd.read_parquet(path)
    llms = episode_llms(players, config.llm_players)
    usage: dict[str, dict[str, float]] = {}
    if llms:
        run = run_recorded_episodes(
            players, [(n, EXPLOITABLE) for n in llms], games, config.llm_episodes, episode,
            folder / "llm",
        )  # fmt: skip
        hands = pd.concat([hands, pd.read_parquet(run.hands_path)], ignore_index=True)
        stopped |= run.stopped
        usage = run.usage
    table = adaptation_table(hands, n_boot, np.random.default_rng(config.seed))
    episodes = per_episode(hands)
    summary = (
        episodes.groupby(["game", "first", "second"])["margin_per_hand"]
        .agg(["count", "mean"])
        .reset_index()
    )
    metadata: dict[str, Any] = {
        "dagster/row_count": len(table),
        "exploitable": EXPLOITABLE,
        "adaptive": ADAPTIVE,
        "hands_played": len(hands),
        "stopped": "; ".join(f"{k}: {v}" for k, v in sorted(stopped.items())) or "none",
        "episode_adaptation": dg.MetadataValue.md(
            markdown_table(table[table["quantity"] == "change"])
        ),
        "episodes": dg.MetadataValue.md(markdown_table(summary)),
    }
    if llms:
        spent = pd.DataFrame.from_dict(usage, orient="index").rename_axis("player").reset_index()
        metadata |= {
            "llm_players": ", ".join(llms),
            "llm_usage": dg.MetadataValue.md(markdown_table(spent)),
            "llm_calls": int(spent["calls"].sum()) if len(spent) else 0,
            "llm_cost_usd": float(spent["cost_usd"].sum()) if len(spent) else 0.0,
            "llm_moves": dg.MetadataValue.path(str(folder / "llm" / EPISODE_MOVES)),
        }
    return table, metadata


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    metadata={"dagster/column_schema": column_schema("episode_adaptation")},
    description=(
        "Multi-hand episodes (history visible, mirrored seats) of the roster's built-ins and a "
        "planted adaptive bot against a fixed exploitable bot: the change of margin over the "
        "hands, with intervals over episode pairs."
    ),
)
def episode_adaptation(
    config: EpisodeAssetConfig, paths: ProjectPaths, profile: RunProfile, roster: pd.DataFrame
) -> dg.Output[pd.DataFrame]:
    n_boot = config.bootstrap or profile.get().bootstrap_resamples
    table, metadata = build_episode_adaptation(
        roster, config, paths.data_path() / "episodes", n_boot, profile.get().generation
    )
    return dg.Output(table, metadata=metadata)


class ProgramTrackConfig(dg.Config):
    """Which games the programs play the field on, and how long."""

    field: str = Field(default="gbg-builtin-v1", description="reference field (name-vN)")
    games: list[str] = Field(default=["kuhn", "leduc"], description="games of the track")
    runs: int = Field(default=8, description="runs per (program or member, opponent, game)")
    bootstrap: int | None = Field(default=None, description="replicates (default: profile's B)")
    seed: int = Field(default=0, description="seed of the bootstrap")


def track_programs(roster: pd.DataFrame) -> dict[str, tuple[str, Path]]:
    """The handwritten programs (author ``handwritten``) and the roster's programs (author:
    the entry's family, else its name)."""
    programs = {p.stem: ("handwritten", p) for p in sorted(HANDWRITTEN.glob("*.py"))}
    for entry in roster_from_table(roster).players:
        if isinstance(entry, ProgramEntry):
            programs[entry.name] = (entry.family or entry.name, Path(entry.path))
    return programs


def build_program_track(
    roster: pd.DataFrame,
    config: ProgramTrackConfig,
    folder: Path,
    n_boot: int,
    generation: str = "default",
) -> tuple[pd.DataFrame, dict[str, Any]]:
    field = reference_field(config.field)
    games = resolve_games(config.games, generation)
    attempts, matches = play_program_track(
        track_programs(roster), field, games, config.runs, folder
    )
    runs, table = track_table(attempts, matches, field, n_boot, np.random.default_rng(config.seed))
    metadata: dict[str, Any] = {
        "dagster/row_count": len(table),
        "field": field.key,
        "authoring_runs": dg.MetadataValue.md(markdown_table(runs)),
        "program_track": dg.MetadataValue.md(markdown_table(table)),
    }
    return table, metadata


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    metadata={"dagster/column_schema": column_schema("program_track")},
    description=(
        "The program track: authors scored 0-100 against the reference field by the programs "
        "they write (failed submissions 0), per game and overall."
    ),
)
def program_track(
    config: ProgramTrackConfig, paths: ProjectPaths, profile: RunProfile, roster: pd.DataFrame
) -> dg.Output[pd.DataFrame]:
    n_boot = config.bootstrap or profile.get().bootstrap_resamples
    table, metadata = build_program_track(
        roster, config, paths.data_path() / "program_track", n_boot, profile.get().generation
    )
    return dg.Output(table, metadata=metadata)


ASSETS = [anchored_scales, episode_adaptation, program_track]
CHECKS: list[dg.AssetChecksDefinition] = []
