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
- ``openspiel_leaderboards``: one metric per game family, never a fit across units (issue 46;
  ``engines.stats.families``): each family (OpenSpiel's short name) fitted on its own games,
  Bradley-Terry Elo anchored at the family's lowest player for win/draw/loss families, big
  blinds per 100 hands for hold'em, each with run-bootstrap intervals; the cross-family summary
  (per-family standardised values, averaged over the families a model played) in its metadata;
  a blocking check that every run is two deals with the seats swapped. Its value is the
  ``family_ratings`` table. Its metadata also holds each family's anchored scales against the
  family's reference field, every entrant ranked and partial ones flagged
  (``engines.stats.openspiel_fields``), and, when the chess field's four Stockfish levels
  played, chess Elo calibrated on that measured ladder with intervals, the ladder's reference
  and whether it rises with the settings (``engines.stats.calibration``).
- ``openspiel_release``: the group's tables published as versioned, hash-attested releases
  into the same release store, by the same machinery as ``release_bundle``
  (``releases.contents.publish_release``: the replay rule, redacted transcripts, the analysis
  recomputed from the released pairs with the settings ``openspiel_leaderboards`` recorded and
  the ``reproduction`` gate, the data dictionary, the README dataset card, the integrity card,
  write-audit-publish). That machinery fits the Section 6 analysis over every game of a
  release in one fit, so the group publishes **one release per unit** (:func:`unit_groups`:
  the win/draw/loss games in one, hold'em's chips in another), and a release whose games mix
  units is refused before any gate (``gate units failed``). Each release's tables carry the
  generated benchmark's names where they hold the same thing, so the same gates and readers
  apply: ``openspiel_games``, ``match_corpus`` (every partition), ``complete_pairs``,
  ``match_moves`` (the journal's moves of the released matches, redacted), ``leaderboards``
  (and the analysis tables: per game, head to head, Bradley-Terry, ...), ``roster`` (the
  players that played, with the rethinks their games allowed), plus ``family_ratings`` and
  ``family_summary`` (its families, equal to ``openspiel_leaderboards``' rows),
  ``openspiel_rethinks`` and, when chess was played, ``chess_pgn`` with ``pgn/*.pgn``. The
  gates are ``quality.release_gates``' (schema, parse fallbacks, zero-sum, complete pairs, the
  matches attested to the ``openspiel_games``' spec hashes and engine version, reproduction,
  redaction). The manifest records ``"benchmark": "openspiel"`` and the OpenSpiel engine
  version; the id is content-addressed as every release's. A failing gate raises
  ``GateFailed`` naming it, and the store is left as it was (a release of another unit
  published before it stays published).

A Dagster job holds one partitions definition, so the group is materialized on request
through its own job, ``openspiel_job`` (``pipelines/jobs.py``), outside ``main_job`` and the
refresh's automation (``pipelines/definitions.py``, ``ON_REQUEST``).

The complexity axes (``engines.axes``) are defined on a generated game's structure (its rounds,
menus and information sets as GBG describes them), so they do not run on OpenSpiel games: this
group has no ``axis_scores`` and its analysis no capability profiles.
"""

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import dagster as dg
import numpy as np
import pandas as pd
from pydantic import Field

from arena.games import resolve_games
from arena.tournament.journal import MATCHES, MOVES
from arena.tournament.runner import run_tournament, tournament_schedule
from assets.complete_pairs import all_matches
from assets.leaderboards import ANALYSIS_SETTINGS, StatsConfig
from assets.metadata import RELEASE_KINDS, markdown_table
from assets.partitions import OPENSPIEL_GAMES, concat_partitions
from assets.release import ReleaseConfig, analysis_settings, release_metadata, verify_published
from assets.resources import ProjectPaths, RunProfile
from assets.roster import roster_from_table
from engines.openspiel.spec import PROTOCOLS, is_openspiel_token
from engines.stats.analysis import analyse
from engines.stats.calibration import calibration_summary, calibration_table
from engines.stats.families import (
    GameUnit,
    family_generator,
    family_ratings,
    family_summary,
    unit_problems,
)
from engines.stats.openspiel_fields import CHESS_LADDER, family_anchored_tables
from engines.tournament import corpus_checks
from engines.tournament.pairs import complete_pairs
from engines.tournament.records import MATCH_SCHEMA, MOVE_SCHEMA
from quality.schema import TABLES, declared
from releases.analysis import AnalysisSettings
from releases.contents import publish_release, published_row

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


def tournament_folder(paths: ProjectPaths, token: str) -> Path:
    """Where the tournament of game ``token`` keeps its journal and moves."""
    return paths.data_path() / "openspiel" / quote(token, safe="-_.")


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
    if tokens:
        frame = openspiel_table(tokens)
    else:  # nothing to do under this profile: an empty table, and no partitions to play
        frame = pd.DataFrame(columns=[c.name for c in TABLES["openspiel_games"].columns])
        context.log.info(
            f"profile {profile.get().name!r} names no OpenSpiel games (openspiel_games): "
            "nothing to play; choose the paper profile or set this asset's config games"
        )
    keys = list(frame["game"])
    instance = context.instance
    stale = set(instance.get_dynamic_partitions(OPENSPIEL_GAMES.name or "")) - set(keys)
    for key in sorted(stale):
        instance.delete_dynamic_partition(OPENSPIEL_GAMES.name or "", key)
    instance.add_dynamic_partitions(OPENSPIEL_GAMES.name or "", keys)
    games = ", ".join(keys) or f"none: profile {profile.get().name!r} names no OpenSpiel games"
    return dg.Output(frame, metadata={"dagster/row_count": len(frame), "games": games})


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
    folder = tournament_folder(paths, token)
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
    kept, _ = complete_pairs(all_matches(corpus, "openspiel_match_corpus"))
    if kept.empty:
        raise ValueError("openspiel_match_corpus has no run with both deals complete")
    return kept


def game_units(tokens: Sequence[str]) -> dict[str, GameUnit]:
    """Each game's family (OpenSpiel's short name) and the unit its results are counted in:
    ``result`` when OpenSpiel bounds a player's utility within [-1, 1] (a win, a draw or a loss:
    chess, Go, Hex, connect four, breakthrough, liar's dice), else ``chips`` (hold'em, whose big
    blind, the larger of its ``blind`` parameter, divides the metric)."""
    from engines.openspiel import parse_openspiel

    units = {}
    for token in tokens:
        spec = parse_openspiel(str(token))
        game = spec.game
        if game.min_utility() >= -1 and game.max_utility() <= 1:
            units[str(token)] = GameUnit(spec.family, "result")
        else:
            blind = str(spec.params.get("blind", "1"))
            units[str(token)] = GameUnit(spec.family, "chips", max(int(b) for b in blind.split()))
    return units


def unit_groups(tokens: Sequence[str]) -> dict[str, list[str]]:
    """The games by the unit their results are counted in (:func:`game_units`), in order."""
    groups: dict[str, list[str]] = {}
    for token, unit in game_units(tokens).items():
        groups.setdefault(unit.unit, []).append(token)
    return dict(sorted(groups.items()))


def family_tables(
    pairs: pd.DataFrame, settings: AnalysisSettings
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-family ratings and the cross-family summary of complete pairs
    (``engines.stats.families``), with the settings' bootstrap size and seed."""
    units = game_units(sorted(pairs["game"].astype(str).unique()))
    ratings = family_ratings(pairs, units, settings.config.n_boot, settings.seed)
    return ratings, family_summary(ratings)


def calibration_metadata(
    matches: pd.DataFrame, pairs: pd.DataFrame, settings: AnalysisSettings
) -> dict[str, Any]:
    """The anchored scales of every family against its reference field and, when the chess
    field's Stockfish ladder played, chess Elo calibrated on it (issue 46, item 2;
    ``engines.stats.openspiel_fields``, ``engines.stats.calibration``), as metadata: the
    tables, the ladder's reference and whether it rises with the settings, or why not."""
    n_boot, seed = settings.config.n_boot, settings.seed
    units = game_units(sorted(matches["game"].astype(str).unique()))
    anchored, notes = family_anchored_tables(matches, units, n_boot, seed)
    out: dict[str, Any] = {
        "family_anchored": dg.MetadataValue.md(markdown_table(anchored)),
        "family_anchored_notes": "; ".join(f"{f}: {n}" for f, n in notes.items()) or "none",
    }
    chess = [g for g, u in units.items() if u.family == "chess"]
    played = set(pairs["alice"].astype(str)) | set(pairs["bob"].astype(str))
    missing = [level for level in CHESS_LADDER.levels if level not in played]
    if not chess:
        out["chess_calibration"] = "no chess game"
    elif missing:
        out["chess_calibration"] = f"the Stockfish ladder did not play: {', '.join(missing)}"
    else:
        subset = pairs.loc[pairs["game"].astype(str).isin(chess)]
        table = calibration_table(subset, CHESS_LADDER, n_boot, family_generator(seed, "ladder"))
        summary = calibration_summary(table)
        out["chess_calibration"] = dg.MetadataValue.md(markdown_table(table))
        out["chess_calibration_reference"] = str(summary["reference"])
        out["chess_ladder_monotone"] = bool(summary["monotone"])
    return out


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    check_specs=[
        dg.AssetCheckSpec("both_seats_in_every_run", asset="openspiel_leaderboards", blocking=True)
    ],
    description="Ratings of the OpenSpiel games, one metric per game family (issue 46): "
    "Bradley-Terry Elo for win/draw/loss families, big blinds per 100 hands for hold'em, each "
    "fitted on its family alone, with the cross-family summary in the metadata.",
)
def openspiel_leaderboards(
    config: StatsConfig, openspiel_match_corpus: dict[str, pd.DataFrame]
) -> Iterator[dg.Output[pd.DataFrame] | dg.AssetCheckResult]:
    pairs = openspiel_pairs(openspiel_match_corpus)
    ratings, summary = family_tables(pairs, config.analysis_settings())
    metadata: dict[str, Any] = {
        "dagster/row_count": len(ratings),
        "families": ", ".join(sorted(ratings["family"].unique())),
        "games": ", ".join(sorted(pairs["game"].unique())),
        "runs": int(pairs["run_id"].nunique()),
        "family_ratings": dg.MetadataValue.md(markdown_table(ratings.drop(columns=["games"]))),
        "family_summary": dg.MetadataValue.md(markdown_table(summary)),
        # the settings the group's release recomputes its analysis with
        ANALYSIS_SETTINGS: dg.MetadataValue.json(config.analysis_settings().as_json()),
        **calibration_metadata(
            all_matches(openspiel_match_corpus, "openspiel_match_corpus"),
            pairs,
            config.analysis_settings(),
        ),
    }
    yield dg.Output(ratings, metadata=metadata)
    check = corpus_checks.paired_runs(pairs)
    yield dg.AssetCheckResult(
        check_name="both_seats_in_every_run",
        passed=check.passed,
        metadata={"problems": "; ".join(check.problems[:20]) or "none"},
    )


BENCHMARK = "openspiel"
"""The ``benchmark`` the manifest of the group's release records."""


def tournament_moves(paths: ProjectPaths, tokens: list[str]) -> pd.DataFrame:
    """The moves the tournaments of these games journalled (``<data>/openspiel/<game>/``);
    ``ValueError`` (one line) for a game whose tournament left no moves file."""
    frames = []
    for token in tokens:
        path = tournament_folder(paths, token) / MOVES
        if not path.is_file():
            raise ValueError(
                f"{token}: no moves journal at {path}; materialize openspiel_match_corpus "
                "for it again"
            )
        frames.append(pd.read_parquet(path))
    return concat_partitions(dict(zip(tokens, frames, strict=True)), MOVE_SCHEMA.names)


RETHINKS = "openspiel_rethinks"
"""The release's table of rethinks per game and player: what each game's protocol allowed and
what was played (issue 46, item 6)."""


def asked_players(roster: pd.DataFrame) -> set[str]:
    """The roster's players whose moves are asked of a model (``ApiEntry``): in an OpenSpiel
    game they get the game's protocol's rethinks (``arena.llm.player.LLMPlayer.decide``), not
    the roster's; built-in agents and programs are never asked again."""
    from arena.roster import ApiEntry

    return {p.name for p in roster_from_table(roster).players if isinstance(p, ApiEntry)}


def allowed_rethinks(games: pd.DataFrame) -> dict[str, int]:
    """Per game token: the rethinks its protocol allows a model after an unparsable or illegal
    reply (``engines.openspiel.spec.PROTOCOLS``)."""
    return {
        str(g): PROTOCOLS[str(p)].rethinks
        for g, p in zip(games["game"], games["protocol"], strict=True)
    }


def rethink_table(
    games: pd.DataFrame, matches: pd.DataFrame, moves: pd.DataFrame, asked: set[str]
) -> pd.DataFrame:
    """One row per (game, player) of the released matches: the game's protocol, the rethinks
    it allowed the player per move (its protocol's for a model, 0 for a built-in agent), the
    moves and rethinks the match table records for the player, and the most in one move (from
    the moves table). ``ValueError`` (one line) when a move took more rethinks than its game
    allowed: the record would contradict the protocol."""
    allowed = allowed_rethinks(games)
    protocol = dict(zip(games["game"].astype(str), games["protocol"].astype(str), strict=True))
    seats = []
    for seat in ("alice", "bob"):
        part = matches[["match_id", "game", seat, f"moves_{seat}", f"rethinks_{seat}"]]
        seats.append(part.set_axis(["match_id", "game", "player", "moves", "rethinks"], axis=1))
    per_seat = pd.concat(seats, ignore_index=True)
    game_of = dict(zip(matches["match_id"], matches["game"].astype(str), strict=True))
    moved = moves.loc[moves["match_id"].isin(game_of)]
    most: dict[tuple[str, str], int] = {}
    for match_id, player, n in zip(
        moved["match_id"], moved["player"], moved["rethinks"], strict=True
    ):
        key = (game_of[match_id], str(player))
        most[key] = max(most.get(key, 0), int(n))
    rows = []
    for (game, player), group in per_seat.groupby(["game", "player"], sort=True):
        game, player = str(game), str(player)
        limit = allowed[game] if player in asked else 0
        n_moves, n_rethinks = int(group["moves"].sum()), int(group["rethinks"].sum())
        top = most.get((game, player), 0)
        if top > limit:
            raise ValueError(
                f"{player} took {top} rethinks in one move of {game}, whose protocol "
                f"{protocol[game]} allows {limit}"
            )
        rows.append(
            {
                "game": game,
                "player": player,
                "protocol": protocol[game],
                "rethinks_allowed": limit,
                "moves": n_moves,
                "rethinks": n_rethinks,
                "rethinks_per_move": n_rethinks / n_moves if n_moves else 0.0,
                "most_in_one_move": top,
            }
        )
    return pd.DataFrame(rows, columns=list(declared(RETHINKS).names))


def released_roster(roster: pd.DataFrame, rethinks: pd.DataFrame) -> pd.DataFrame:
    """The roster's players that played, each model's ``rethinks`` the most any of its games'
    protocols allowed it (``openspiel_rethinks`` has them per game): the roster's own count
    (the profile's move protocol, 0 under the paper's) is not what an OpenSpiel game gives a
    model. Built-in agents keep the roster's value (they are never asked again)."""
    played = set(rethinks["player"])
    kept = roster.loc[roster["name"].isin(played)].reset_index(drop=True)
    asked = asked_players(roster)
    most = rethinks.groupby("player")["rethinks_allowed"].max()
    values = [
        int(most[name]) if name in asked else int(value)
        for name, value in zip(kept["name"], kept["rethinks"], strict=True)
    ]
    return kept.assign(rethinks=pd.Series(values, index=kept.index, dtype="int64"))


PGN = "chess_pgn"
"""The release's table of chess games in PGN (issue 46, item 4); ``releases.contents`` writes
each as ``pgn/<match_id>.pgn``."""


def chess_pgn_table(
    games: pd.DataFrame, matches: pd.DataFrame, moves: pd.DataFrame
) -> pd.DataFrame:
    """One row per match of a chess game (any status, in match-table order): who had White and
    Black, the result and how the game ended, its plies and final FEN, the game in PGN
    (``engines.openspiel.pgn.match_pgn``, replayed on OpenSpiel from the play seed) and the
    release path of its ``.pgn`` file. ``ValueError`` (one line) when a game's token no longer
    gives the spec hash the games table recorded, or a match's moves do not replay."""
    from engines.openspiel import parse_openspiel
    from engines.openspiel.pgn import match_pgn

    chess = games.loc[games["openspiel_name"] == "chess"]
    by_match = {
        str(k): g.sort_values("index").to_dict("records")
        for k, g in moves.groupby("match_id", sort=False)
    }
    rows = []
    for token, spec_hash in zip(chess["game"], chess["spec_hash"], strict=True):
        spec = parse_openspiel(str(token))
        if spec.spec_hash != spec_hash:
            raise ValueError(f"{token}: spec hash {spec.spec_hash[:12]}, recorded {spec_hash[:12]}")
        for match in matches.loc[matches["game"] == token].to_dict("records"):
            match_id = str(match["match_id"])
            try:
                text, summary = match_pgn(spec, match, by_match.get(match_id, []))
            except ValueError as exc:
                raise ValueError(f"match {match_id} of {token}: {exc}") from None
            rows.append(
                {
                    "match_id": match_id,
                    "game": str(token),
                    "run_id": match["run_id"],
                    "run_index": int(match["run_index"]),
                    "deal": int(match["deal"]),
                    "white": match["bob"],
                    "black": match["alice"],
                    "status": match["status"],
                    **summary,
                    "pgn": text,
                    "path": f"pgn/{match_id}.pgn",
                }
            )
    return pd.DataFrame(rows, columns=list(declared(PGN).names))


FAMILY_RATINGS = "family_ratings"
FAMILY_SUMMARY = "family_summary"


def pooled_unit_problems(games: Sequence[str]) -> list[str]:
    """The unit check of a release's pooled fits (``leaderboards`` and the analysis tables the
    release recomputes from ``complete_pairs``: every game in one fit): a problem when its games
    are counted in more than one unit (``engines.stats.families.unit_problems``)."""
    units = game_units(games)
    fit = "leaderboards (and the release's pooled analysis)"
    return unit_problems({fit: {g: u.unit for g, u in units.items()}})


def openspiel_release_tables(
    games: pd.DataFrame,
    corpus: pd.DataFrame | Mapping[str, pd.DataFrame],
    roster: pd.DataFrame,
    moves: pd.DataFrame,
    settings: AnalysisSettings | None = None,
) -> dict[str, pd.DataFrame]:
    """The tables of one release of the group, whose games are all counted in one unit
    (:func:`unit_groups`; ``ValueError`` naming the units otherwise), under the generated
    benchmark's names where they hold the same thing (the gates and the analysis key on them):
    the games, every match of every partition, the complete pairs, the moves, the leaderboard
    (the Section 6 fit of these games, as the release recomputes it with ``settings``), the
    ratings of each family and their summary (:func:`family_tables`), the rethinks per game and
    player (:func:`rethink_table`), the roster's players that played with the rethinks their
    games allowed (:func:`released_roster`), and every chess game in PGN when chess was played
    (:func:`chess_pgn_table`)."""
    problems = pooled_unit_problems(list(games["game"].astype(str)))
    if problems:
        raise ValueError(f"one release per unit: {problems[0]}")
    settings = settings or analysis_settings(None)
    matches = concat_partitions(corpus, MATCH_SCHEMA.names)
    pairs = openspiel_pairs(corpus)
    board = analyse(pairs, rng=np.random.default_rng(settings.seed), config=settings.config)
    ratings, summary = family_tables(pairs, settings)
    rethinks = rethink_table(games, matches, moves, asked_players(roster))
    tables = {
        "openspiel_games": games,
        "match_corpus": matches,
        "complete_pairs": pairs,
        "match_moves": moves,
        "leaderboards": board.tables["leaderboard"],
        FAMILY_RATINGS: ratings,
        FAMILY_SUMMARY: summary,
        RETHINKS: rethinks,
        "roster": released_roster(roster, rethinks),
    }
    if (games["openspiel_name"] == "chess").any():
        tables[PGN] = chess_pgn_table(games, matches, moves)
    return tables


def engine_version_of(games: pd.DataFrame) -> str:
    """The one engine version the group's games are played under; ``ValueError`` otherwise."""
    versions = sorted(set(games["engine_version"].astype(str)))
    if len(versions) != 1:
        raise ValueError(f"the OpenSpiel games have {len(versions)} engine versions, not one")
    return str(versions[0])


def build_openspiel_release(
    tables: Mapping[str, pd.DataFrame],
    profile: Mapping[str, Any],
    config: ReleaseConfig,
    settings: AnalysisSettings | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Publish ``tables`` (:func:`openspiel_release_tables`) into the store past every gate, as
    the benchmark ``openspiel`` under the games' engine version, and return the published row
    and metadata. Before any gate, the ``units`` check: a release whose games are counted in
    more than one unit is refused (``GateFailed`` ``gate units failed: ...``), since the release
    recomputes its pooled analysis over all its games; then the release gates (``GateFailed``
    naming a failed gate). A refused release leaves the store as it was."""
    from releases.store import GateFailed

    problems = pooled_unit_problems(list(tables["openspiel_games"]["game"].astype(str)))
    if problems:
        raise GateFailed(f"gate units failed: {problems[0]}; publish one release per unit")
    store = config.store_path()
    settings = settings or analysis_settings(None)
    published, recorded = publish_release(
        tables,
        profile,
        store,
        max_fallback_rate=config.max_fallback_rate,
        analysis=settings,
        benchmark=BENCHMARK,
        engine_version=engine_version_of(tables["openspiel_games"]),
    )
    return published_row(published), release_metadata(published, recorded, store, settings)


def build_openspiel_releases(
    games: pd.DataFrame,
    corpus: Mapping[str, pd.DataFrame],
    roster: pd.DataFrame,
    moves: pd.DataFrame,
    profile: Mapping[str, Any],
    config: ReleaseConfig,
    settings: AnalysisSettings | None = None,
    ratings: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The ``openspiel_release`` asset as a plain function: one release per unit the group's
    games are counted in (:func:`unit_groups`: the win/draw/loss games, and hold'em's chips),
    each with its own games, matches, moves, pooled fit and family ratings, so that no released
    fit reads two units; the published rows (one per release) and each release's metadata.
    ``ratings``: the ``openspiel_leaderboards`` value, which each release's family ratings must
    equal (``ValueError`` otherwise: the asset was fitted with other settings or data)."""
    settings = settings or analysis_settings(None)
    rows, metadata = [], []
    for tokens in unit_groups(list(games["game"].astype(str))).values():
        chosen = games.loc[games["game"].isin(tokens)].reset_index(drop=True)
        parts = {t: corpus[t] for t in tokens}
        ids = set(concat_partitions(parts, MATCH_SCHEMA.names)["match_id"])
        mine = moves.loc[moves["match_id"].isin(ids)].reset_index(drop=True)
        tables = openspiel_release_tables(chosen, parts, roster, mine, settings)
        if ratings is not None:
            expected = ratings.loc[ratings["family"].isin(tables[FAMILY_RATINGS]["family"])]
            _same_ratings(expected.reset_index(drop=True), tables[FAMILY_RATINGS])
        row, meta = build_openspiel_release(tables, profile, config, settings)
        rows.append(row)
        metadata.append(meta)
    return pd.concat(rows, ignore_index=True), metadata


def _same_ratings(expected: pd.DataFrame, released: pd.DataFrame) -> None:
    """``ValueError`` (one line) unless a release's family ratings are the asset's."""
    columns = ["family", "model", "value", "ci_low", "ci_high", "rank"]
    left = expected[columns].reset_index(drop=True)
    right = released[columns].reset_index(drop=True)
    if not left.equals(right):
        raise ValueError(
            "the release's family ratings differ from openspiel_leaderboards': materialize "
            "openspiel_leaderboards again before the release"
        )


@dg.asset(
    group_name=GROUP_NAME,
    kinds=set(RELEASE_KINDS),
    description="The openspiel group's versioned, hash-attested releases, one per unit its "
    "games are counted in (results; hold'em's chips), each with its games, corpus, complete "
    "pairs, redacted transcripts, leaderboard and analysis tables, family ratings, roster, "
    "published into the release store past the release gates by the same machinery as "
    'release_bundle; their manifests record "benchmark": "openspiel".',
)
def openspiel_release(
    context: dg.AssetExecutionContext,
    config: ReleaseConfig,
    profile: RunProfile,
    paths: ProjectPaths,
    roster: pd.DataFrame,
    openspiel_games: pd.DataFrame,
    openspiel_match_corpus: dict[str, pd.DataFrame],
    openspiel_leaderboards: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    moves = tournament_moves(paths, sorted(openspiel_match_corpus))
    settings = analysis_settings(context.instance, "openspiel_leaderboards")
    value, metadata = build_openspiel_releases(
        openspiel_games,
        openspiel_match_corpus,
        roster,
        moves,
        profile.get().model_dump(mode="json"),
        config,
        settings,
        ratings=openspiel_leaderboards,
    )
    for meta in metadata:
        verb = "published" if meta["newly_published"] else "already published"
        context.log.info(f"{verb} release {meta['release_id']} at {meta['release_path'].path}")
    first = dict(metadata[0])
    if len(metadata) > 1:  # one release per unit: every id and path
        first["release_ids"] = ", ".join(str(m["release_id"]) for m in metadata)
    return dg.Output(value, metadata=first)


@dg.asset_check(
    asset=openspiel_release,
    name="published_release_verifies",
    blocking=True,
    description="The published release, read back from the store, verifies (what `genstrat "
    "release verify` checks), as release_bundle's check of the same name.",
)
def openspiel_release_verifies(openspiel_release: pd.DataFrame) -> dg.AssetCheckResult:
    return verify_published(openspiel_release)


ASSETS: list[dg.AssetsDefinition] = [
    openspiel_games,
    openspiel_match_corpus,
    openspiel_leaderboards,
    openspiel_release,
]
CHECKS: list[dg.AssetChecksDefinition] = [openspiel_release_verifies]
