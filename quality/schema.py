"""The data dictionary: every table GENSTRAT stores or releases, every column, its type and unit.

Why it exists: DESIGN.md ("Data contracts", "Release bundle") and STYLE.md ("one schema
declaration that feeds the Parquet types, the Dagster column metadata, the expectations and the
release's data dictionary"). :data:`TABLES` is that declaration. It feeds:

- the release's ``SCHEMA.md`` and ``schema.json`` (``releases.dictionary``);
- the Dagster column metadata of every stored table (``dagster/column_schema``, with the
  descriptions, set by the Parquet IO manager and the assets' definitions);
- the Parquet types of a release: a column the data leave untyped (Arrow ``null``: every value
  missing) is written with its declared type, and an integer column that pandas turned into
  floats by a missing value is written as integers again (:func:`conform`);
- the ``schema`` gate (:func:`schema_gate`): every column of a released table is declared and
  has its declared type. The great_expectations suites (``quality.expectations``) name only
  declared columns; a test holds the two together.

Column types are logical (:data:`COLUMN_TYPES`); :func:`type_matches` says which Arrow types
stand for each (``string`` is Arrow ``string`` or ``large_string``, whatever the pandas
version writes). Columns of the match and move tables, the axis scores, the leaderboard and the
profile are taken from the engines' own lists (``MATCH_SCHEMA``, ``MOVE_SCHEMA``,
``AXIS_SCORE_COLUMNS``, ``LEADERBOARD_COLUMNS``, ``PROFILE_COLUMNS``), so they cannot drift
apart; a declared column may be absent from a table (e.g. the wall-clock columns, left out of a
release), never the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from engines.axes.benchmark import AXIS_SCORE_COLUMNS
from engines.axes.names import AXES
from engines.axes.screening import SCREENING_AXES
from engines.gbg.seed_pool import FEATURES
from engines.stats.capability import PROFILE_COLUMNS
from engines.stats.leaderboard import LEADERBOARD_COLUMNS
from engines.stats.pairwise import PAIRWISE_COLUMNS
from engines.tournament.records import MATCH_SCHEMA, MOVE_SCHEMA
from quality.gates import GateResult

ColumnType = Literal["string", "int64", "uint64", "float64", "bool", "list<string>"]
COLUMN_TYPES: tuple[ColumnType, ...] = (
    "string",
    "int64",
    "uint64",
    "float64",
    "bool",
    "list<string>",
)

# The Arrow type a column of each logical type is written with when the data leave it untyped.
WRITTEN_TYPES: dict[ColumnType, pa.DataType] = {
    "string": pa.large_string(),
    "int64": pa.int64(),
    "uint64": pa.uint64(),
    "float64": pa.float64(),
    "bool": pa.bool_(),
    "list<string>": pa.list_(pa.string()),
}


@dataclass(frozen=True)
class Column:
    """One column: name, logical type, what it holds, and its unit ("" when it has none)."""

    name: str
    type: ColumnType
    description: str
    unit: str = ""


@dataclass(frozen=True)
class Table:
    """One table: its name (the asset key, and ``tables/<name>.parquet`` in a release), what a
    row is, where it comes from, and its columns in order."""

    name: str
    description: str
    source: str
    columns: tuple[Column, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"{self.name} declares no column {name!r}")


def col(name: str, type_: ColumnType, description: str, unit: str = "") -> Column:
    return Column(name, type_, description, unit)


CHIPS = "chips"
CHIPS_PER_GAME = "chips/game"
SHARE = "share (0-1)"
SHA256 = "hex SHA-256"
RANK = "rank (1 = first)"

_ARROW_TYPES: dict[str, ColumnType] = {
    "string": "string",
    "large_string": "string",
    "int64": "int64",
    "uint64": "uint64",
    "double": "float64",
    "bool": "bool",
    "list<item: string>": "list<string>",
}


def _logical(kind: pa.DataType) -> ColumnType:
    return _ARROW_TYPES[str(kind)]


def from_arrow(schema: pa.Schema, described: Mapping[str, tuple[str, str]]) -> tuple[Column, ...]:
    """Columns of an engine's Arrow schema with their (description, unit); every column of the
    schema must be described (``KeyError`` names the first that is not)."""
    return tuple(
        col(f.name, _logical(f.type), described[f.name][0], described[f.name][1]) for f in schema
    )


# --- games -----------------------------------------------------------------------------------

_SPEC = (
    col("spec_hash", "string", "SHA-256 of the canonical spec JSON (the game's identity)", SHA256),
    col("spec_json", "string", "the GameSpec as canonical JSON"),
)
_RULEBOOK = (
    col("rulebook", "string", "the natural-language rulebook the players are given"),
    col("rulebook_chars", "int64", "length of the rulebook", "characters"),
)
_ENGINE = col("engine_version", "string", "version of the game engine that rendered/played it")
_FEATURE_COLUMNS = tuple(
    col(f"has_{k}", "bool", f"the game has a {k.replace('_', ' ')} phase")
    if k != "branch"
    else col("has_branch", "bool", "the game's phase graph has a conditional branch")
    for k in FEATURES
)
_SIZES = (
    col("metric", "string", "showdown metric (how hands are compared)"),
    col("deck_size", "int64", "cards in the deck", "cards"),
    col("hand_size", "int64", "cards dealt to each player at the start", "cards"),
    col("phases", "int64", "phases in the game's phase graph"),
    col("betting_rounds", "int64", "betting phases"),
)

REFERENCE_GAMES = Table(
    "reference_games",
    "one row per preset game (Kuhn, Leduc, heads-up limit hold'em, the paper's seed 4643)",
    "asset reference_games",
    (
        col("name", "string", "preset name, as accepted by the CLI"),
        *_SPEC,
        *_RULEBOOK,
        _ENGINE,
    ),
)

SEED_POOL = Table(
    "seed_pool",
    "one row per screened generator seed, accepted or not (paper, Section 3)",
    "asset seed_pool",
    (
        col("seed", "int64", "generator seed"),
        col("accepted", "bool", "the game passed the acceptance filter"),
        col("reasons", "string", "comma-separated rejection reasons (empty when accepted)"),
        col("error", "string", "the generator's or engine's error, when screening failed"),
        *_SPEC,
        col("rulebook_chars", "int64", "length of the rulebook", "characters"),
        col("repairs", "string", "the generator's repairs of the drawn spec (JSON list)"),
        col("moves_per_player", "float64", "mean decisions per player in random play", "moves"),
        col(
            "seat_win_share",
            "float64",
            "share of decided random deals won by the likelier seat",
            SHARE,
        ),
        col(
            "extreme_branch_share",
            "float64",
            "share of branch conditions that almost never or almost always hold",
            SHARE,
        ),
        col(
            "rare_phase_share", "float64", "share of phases random play almost never reaches", SHARE
        ),
        col("branch_conditions", "int64", "conditional branches evaluated in random play"),
        col(
            "inert_phases",
            "string",
            "inert phases with their reasons (JSON list; only a configuration that rejects "
            "them, such as paper, records it)",
        ),
        *_FEATURE_COLUMNS,
        *_SIZES,
        col(
            "config_hash",
            "string",
            "SHA-256 of the generation config (manifest: generation_configs)",
            SHA256,
        ),
        col("generator_version", "int64", "version of the game generator"),
        col("private", "bool", "an edition's held-out game (never in a release: arena.heldout)"),
    ),
)

ACCEPTED_GAMES = Table(
    "accepted_games",
    "one row per accepted game of the pool",
    "asset accepted_games",
    (
        col("seed", "int64", "generator seed"),
        *_SPEC,
        *_RULEBOOK,
        *_SIZES,
        *_FEATURE_COLUMNS,
        _ENGINE,
        col("private", "bool", "an edition's held-out game (never in a release: arena.heldout)"),
    ),
)

# --- axes ------------------------------------------------------------------------------------

_SCREENING_DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "state_space": ("log10 of the coarse information states random play reaches", "log10 states"),
    "temporal_depth": ("mean number of later decisions at a decision, in random play", "decisions"),
    "information_sensitivity": ("share of the chip lead's variance due to the cards", SHARE),
    "opponent_modelling": ("share of an L0 seat's chip-lead variance due to its opponent", SHARE),
    "risk": ("SD of the chip lead under random play over the chips in play", "per chip in play"),
    "brittleness": (
        "mean |change| of the chip lead when one decision changes, over its SD",
        "per SD",
    ),
}
_SCREENING = tuple(col(a, "float64", *_SCREENING_DESCRIPTIONS[a]) for a in SCREENING_AXES)

SCREENING_AXES_TABLE = Table(
    "screening_axes",
    "the six screening axes of every accepted game (Appendix C, selection basis)",
    "asset screening_axes",
    (
        col("seed", "int64", "generator seed"),
        _SPEC[0],
        *_SCREENING,
        col("budget", "string", "screening budget (quick | paper)"),
    ),
)

BENCHMARK_GAMES = Table(
    "benchmark_games",
    "the benchmark: farthest-point selection on the min-max normalised screening axes, in "
    "selection order (Section 4)",
    "asset benchmark_games",
    (
        col("order", "int64", "position in the selection (0 = first chosen)"),
        col("game", "string", "game token (the seed as text)"),
        col("seed", "int64", "generator seed"),
        *_SPEC,
        col(
            "distance",
            "float64",
            "distance to the games chosen before it when chosen",
            "normalised units",
        ),
        *_SCREENING,
        *(
            col(f"norm_{a}", "float64", f"{a}, min-max normalised over the pool", SHARE)
            for a in SCREENING_AXES
        ),
        col("private", "bool", "an edition's held-out game (never in a release: arena.heldout)"),
    ),
)

AXIS_DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "state_space": (
        "state space: log10 of the information states reached in random play",
        "log10 states",
    ),
    "temporal": ("temporal contingency: share of the decision table's variance", SHARE),
    "opponent": ("opponent dependence: chip lead over STD_g", "per STD_g"),
    "information": ("private information: chip lead over STD_g", "per STD_g"),
    "precision": ("precision: loss from a near-best action over STD_g", "per STD_g"),
}
_DIAGNOSTICS: dict[str, tuple[ColumnType, str, str]] = {
    "std_g": ("float64", "STD_g: SD of the chip lead between two population members", CHIPS),
    "decisions_alice": (
        "int64",
        "Alice's decisions sampled from population self-play",
        "decisions",
    ),
    "decisions_bob": ("int64", "Bob's decisions sampled from population self-play", "decisions"),
    "replays": ("int64", "action replays simulated", "replays"),
    "world_fallback_share": (
        "float64",
        "share of sampled worlds that fell back to the true cards",
        SHARE,
    ),
    "search_world_fallback_share": ("float64", "the same, in the search for a best action", SHARE),
    "budget": ("string", "axis budget (quick | paper)", ""),
    "seed": ("int64", "simulation seed", ""),
    "seconds": ("float64", "computing time of the axes", "seconds"),
    "rerun_seconds": ("float64", "computing time of the rerun", "seconds"),
    "engine_version": ("string", "version of the game engine", ""),
    "axes_version": ("string", "version of the axes' code", ""),
}


def _axis_score_column(name: str) -> Column:
    if name in AXIS_DESCRIPTIONS:
        return col(name, "float64", *AXIS_DESCRIPTIONS[name])
    for prefix, what in (
        ("se_", "sampling error (standard error) of"),
        ("rerun_", "the rerun at about 2/3 of the budget on an independent population draw:"),
        ("alice_", "Alice's seat:"),
        ("bob_", "Bob's seat:"),
    ):
        axis = name.removeprefix(prefix)
        if name.startswith(prefix) and axis in AXES:
            description, unit = AXIS_DESCRIPTIONS[axis]
            return col(name, "float64", f"{what} {description.split(':')[0]}", unit)
    if name in _DIAGNOSTICS:
        kind, description, unit = _DIAGNOSTICS[name]
        return col(name, kind, description, unit)
    fixed = {
        "rulebook_chars": col(
            "rulebook_chars",
            "int64",
            "length of the rulebook served to the players (the verbosity regressor, App. E)",
            "characters",
        ),
        "game": col("game", "string", "game token (a generator seed as text, or a preset name)"),
        "name": col("name", "string", "the game's name in its spec"),
        "spec_hash": _SPEC[0],
        "selected": col("selected", "bool", "the game is in the benchmark selection"),
    }
    return fixed[name]


_AXIS_SCORE_COLUMNS = tuple(_axis_score_column(c) for c in AXIS_SCORE_COLUMNS)

AXIS_SCORES = Table(
    "axis_scores",
    "one row per benchmark game: the five axes, their sampling errors, both seats, the rerun "
    "and the per-game diagnostics (Section 3.1, Appendix C); per game in the pipeline, all "
    "games in a release",
    "asset axis_scores (partitions concatenated)",
    _AXIS_SCORE_COLUMNS,
)

BENCHMARK_AXES = Table(
    "benchmark_axes",
    "axis_scores with each axis z-scored over the benchmark games (sample SD)",
    "asset benchmark_axes",
    (
        *_AXIS_SCORE_COLUMNS,
        *(col(f"z_{a}", "float64", f"{a} z-scored over the benchmark games", "SD") for a in AXES),
    ),
)

AXIS_DIAGNOSTICS = Table(
    "axis_diagnostics",
    "Table 3 and Appendix D per axis: sampling error, seat agreement, rerun correlation, VIF",
    "engines.axes.benchmark.diagnostics_tables(benchmark_axes)['per_axis']",
    (
        col("axis", "string", "axis name"),
        col(
            "median_sampling_error",
            "float64",
            "median over games of the axis's sampling error",
            "axis units",
        ),
        col(
            "seat_agreement",
            "float64",
            "Spearman's rho over games of Alice's and Bob's values (empty for state space)",
        ),
        col("rerun_correlation", "float64", "Spearman's rho over games of the axis and its rerun"),
        col("vif", "float64", "variance inflation factor of the axis among the five"),
    ),
)

AXIS_CORRELATIONS = Table(
    "axis_correlations",
    "Appendix D: Spearman's rho over the benchmark games of every pair of axes",
    "engines.axes.benchmark.diagnostics_tables(benchmark_axes)['pairs']",
    (
        col("axis_a", "string", "first axis"),
        col("axis_b", "string", "second axis"),
        col("rho", "float64", "Spearman's rho over games"),
    ),
)

# --- tournament ------------------------------------------------------------------------------

ROSTER = Table(
    "roster",
    "one row per player of the tournament (Section 5, 'Models'); keys are named, never stored",
    "asset roster",
    (
        col("name", "string", "player name, as in the corpus"),
        col("kind", "string", "builtin | openai | anthropic | gemini | program"),
        col("model", "string", "built-in agent, the provider's model id or the program file"),
        col("endpoint", "string", "API root URL (empty for built-ins)"),
        col("api_key_env", "string", "NAME of the environment variable holding the key"),
        col("settings", "string", "request settings / agent parameters / limits (JSON)"),
        col("response_format", "string", "JSON mode of the requests"),
        col("rethinks", "int64", "retries after an unparsable or illegal reply"),
        col("block", "string", "tournament block"),
        col("family", "string", "model family (optional)"),
        col("variant", "string", "variant within the family (optional)"),
        col("input_per_mtok", "float64", "price of input tokens", "USD per million tokens"),
        col("output_per_mtok", "float64", "price of output tokens", "USD per million tokens"),
        col("path", "string", "a program's file (else empty)"),
        col("code_sha256", "string", "SHA-256 of a program's code (else empty)", SHA256),
        col("fingerprint", "string", "hash of what determines the player's play"),
        col("roster_json", "string", "the whole roster, canonical JSON"),
    ),
)

# issue 18: the games of the openspiel benchmark group (asset openspiel_games), in its release.
OPENSPIEL_GAMES = Table(
    "openspiel_games",
    "one row per OpenSpiel game of the openspiel benchmark group (issue 18)",
    "asset openspiel_games",
    (
        col("game", "string", "game token, openspiel:<name>[(<params>)]"),
        col("game_seed", "int64", "the game's tournament seed (the match table's game_seed)"),
        col("openspiel_name", "string", "OpenSpiel's short name of the game"),
        col("spec_hash", "string", "SHA-256 of the game's canonical spec", SHA256),
        col("engine_version", "string", "adapter and OpenSpiel versions the game is played under"),
        col("perfect_information", "bool", "whether the game has perfect information"),
        col("protocol", "string", "the move protocol (parser, rethinks, illegal-move rule)"),
        col("move_cap", "int64", "moves after which a game is adjudicated (empty: none)", "moves"),
    ),
)

# issue 46: the rethinks of the openspiel group's release, per game and player.
OPENSPIEL_RETHINKS = Table(
    "openspiel_rethinks",
    "one row per (OpenSpiel game, player) of the openspiel group's release: the rethinks the "
    "game's protocol allowed the player and those it played (issue 46)",
    "asset openspiel_release (from match_corpus, match_moves and openspiel_games)",
    (
        col("game", "string", "game token, openspiel:<name>[(<params>)]"),
        col("player", "string", "player name (roster)"),
        col("protocol", "string", "the game's move protocol (engines.openspiel.spec.PROTOCOLS)"),
        col(
            "rethinks_allowed",
            "int64",
            "retries allowed per move after an unparsable or illegal reply (0: a built-in "
            "agent, never asked again)",
            "retries",
        ),
        col("moves", "int64", "the player's moves in the game's released matches", "moves"),
        col("rethinks", "int64", "retries the player took in those moves", "retries"),
        col("rethinks_per_move", "float64", "rethinks over moves"),
        col("most_in_one_move", "int64", "the most retries in one move", "retries"),
    ),
)

# issue 46: every chess game of the openspiel group's release in PGN (and pgn/<match_id>.pgn).
CHESS_PGN = Table(
    "chess_pgn",
    "one row per chess match of the openspiel group's release: the game in Portable Game "
    "Notation (also the file pgn/<match_id>.pgn), replayed on OpenSpiel (issue 46)",
    "asset openspiel_release (from match_corpus and match_moves; engines.openspiel.pgn)",
    (
        col("match_id", "string", "the match (match_corpus.match_id)"),
        col("game", "string", "game token, openspiel:chess[(<params>)]"),
        col("run_id", "string", "the run (both seat-swapped deals)"),
        col("run_index", "int64", "run number within the matchup"),
        col("deal", "int64", "deal within the run (0, 1: seats swapped)"),
        col("white", "string", "the player with White (Bob: OpenSpiel's player 1)"),
        col("black", "string", "the player with Black (Alice: OpenSpiel's player 0)"),
        col("status", "string", "the match's status (complete | forfeit | timeout | error)"),
        col("result", "string", "PGN result: 1-0 | 0-1 | 1/2-1/2 | * (no result)"),
        col(
            "termination",
            "string",
            "PGN Termination: normal | adjudication (move cap) | rules infraction (forfeit) | "
            "unterminated",
        ),
        col("plies", "int64", "half-moves played", "moves"),
        col("final_fen", "string", "the final position in Forsyth-Edwards Notation"),
        col("pgn", "string", "the game in PGN (export format)"),
        col("path", "string", "the game's file in the release"),
    ),
)

# issue 46: one metric per game family in the openspiel group (engines.stats.families).
FAMILY_RATINGS = Table(
    "family_ratings",
    "one row per (game family, model) of the openspiel group: the family's own metric, fitted on "
    "that family's games alone (issue 46): Bradley-Terry Elo for win/draw/loss families, big "
    "blinds per 100 hands for chip families; never a fit across families or units",
    "asset openspiel_leaderboards (engines.stats.families.family_ratings)",
    (
        col("family", "string", "the game family (OpenSpiel's short name: chess, go, ...)"),
        col("unit", "string", "what a deal's result is counted in: result (+1, 0, -1) | chips"),
        col("metric", "string", "elo (result families) | bb_per_100 (chip families)"),
        col("model", "string", "model (roster name)"),
        col(
            "value",
            "float64",
            "the metric: Elo above the family's anchor, or big blinds won per 100 hands",
            "Elo | big blinds per 100 hands",
        ),
        col("ci_low", "float64", "2.5% bootstrap percentile (runs resampled)", "as value"),
        col("ci_high", "float64", "97.5% bootstrap percentile (runs resampled)", "as value"),
        col("rank", "int64", "rank within the family (1 = best)", "rank"),
        col("deals", "int64", "the model's deals in the family", "deals"),
        col("anchor", "string", "the model at Elo 0: the family's lowest (empty: chips)"),
        col(
            "z",
            "float64",
            "the value standardised within the family (mean 0, population sd 1 over its models)",
            "family standard deviations",
        ),
        col("games", "string", "the family's games, comma-separated"),
    ),
)
FAMILY_SUMMARY = Table(
    "family_summary",
    "one row per model: the cross-family summary, the mean of its per-family standardised "
    "values (family_ratings.z) over the families it played, every family weighing the same "
    "(issue 46; engines.stats.families)",
    "asset openspiel_leaderboards (engines.stats.families.family_summary)",
    (
        col("model", "string", "model (roster name)"),
        col("summary", "float64", "mean z over the families played", "family standard deviations"),
        col("rank", "int64", "rank by summary (1 = best)", "rank"),
        col("families", "int64", "families played", "families"),
        col("family_list", "string", "the families played, comma-separated"),
    ),
)

# issue 47: the werewolf group's tournament, ratings and release (assets/werewolf.py,
# releases/werewolf.py).
_WW = "a Werewolf game"
WEREWOLF_TABLES: tuple[Table, ...] = (
    Table(
        "werewolf_games",
        "one row per Werewolf game of the werewolf group's tournament: deal, players, outcome, "
        "rules and moves (which replay the game and every seat's view)",
        "asset werewolf_games (arena.werewolf.tables)",
        (
            col("game_id", "string", "game id in the schedule: b<block>g<game>"),
            col("block", "int64", "schedule block (eight games, every seat every role once)"),
            col("play_seed", "uint64", "seed of the seats' generators"),
            col("players", "list<string>", "the player at each seat, P1 to P8"),
            col("roles", "list<string>", "the role dealt to each seat, P1 to P8"),
            col("winner", "string", "werewolves | village"),
            col("end_reason", "string", "werewolves_dead | parity | day_limit"),
            col("days", "int64", "days the game lasted", "days"),
            col("decisions", "int64", "decisions taken", "decisions"),
            col("forfeits", "int64", "turns forfeited by the harness", "decisions"),
            col("rules", "string", "the rules (discussion rounds, days, statement cap), JSON"),
            col("moves", "string", "every move (ply, seat, kind, day, action), JSON"),
            col("engine_version", "string", "Werewolf engine version the game was played under"),
        ),
    ),
    Table(
        "werewolf_seats",
        "one row per seat of " + _WW + ": who held it in which role, whether its team won",
        "asset werewolf_games (arena.werewolf.tables)",
        (
            col("game_id", "string", "game id"),
            col("seat", "int64", "seat index (0 = P1)"),
            col("player", "string", "player (roster model or built-in bot name)"),
            col("role", "string", "werewolf | seer | doctor | villager"),
            col("team", "string", "werewolves | village"),
            col("won", "bool", "whether the seat's team won"),
            col("end_reason", "string", "why the game ended"),
            col("days", "int64", "days the game lasted", "days"),
            col("forfeits", "int64", "the seat's forfeited turns", "decisions"),
        ),
    ),
    Table(
        "werewolf_decisions",
        "one row per decision of " + _WW + ": request, options, action, the statement as said "
        "and as heard, replies, retries, forfeit and usage",
        "asset werewolf_games (arena.werewolf.games.decision_row)",
        (
            col("game_id", "string", "game id"),
            col("ply", "int64", "decision number in the game (0 = first)"),
            col("day", "int64", "day (or night) of the decision"),
            col("seat", "string", "seat name, P1 to P8"),
            col("player", "string", "player"),
            col("role", "string", "the seat's role"),
            col("kind", "string", "nominate | protect | inspect | speak | vote"),
            col("options", "list<string>", "legal actions (empty for a statement)"),
            col("action", "string", "the action played (a statement as given)"),
            col("said", "string", "the statement as the player gave it (empty: not a statement)"),
            col("heard", "string", "the statement after the moderator's filter"),
            col("raw_response", "string", "the model's last reply (empty for bots)"),
            col("earlier_responses", "list<string>", "replies that earned a retry, in order"),
            col("verdict", "string", "the parser's verdict on the first reply"),
            col("rethinks", "int64", "retries after an unreadable or illegal reply", "retries"),
            col("forfeit", "string", "why the turn was forfeited (empty: it was not)"),
            col("prompt_sha256", "string", "SHA-256 of the prompt", SHA256),
            col("prompt_chars", "int64", "characters of the user message", "characters"),
            col("omitted_lines", "int64", "log lines truncation left out", "lines"),
            col("calls", "int64", "provider requests made", "requests"),
            col("cached", "bool", "whether the reply came from the response cache"),
            col("input_tokens", "int64", "input tokens billed", "tokens"),
            col("output_tokens", "int64", "output tokens billed", "tokens"),
            col("reasoning_tokens", "int64", "reasoning tokens billed", "tokens"),
            col("cost_usd", "float64", "cost of the requests", "USD"),
            col("latency_s", "float64", "time of the requests (left out of releases)", "seconds"),
            col("reasoning", "string", "the reasoning the provider returned"),
        ),
    ),
    Table(
        "werewolf_ratings",
        "one row per (model, role): the model's skill in that role, its contribution to its "
        "team's log-odds of winning (a team-outcome logistic model, docs/WEREWOLF.md)",
        "asset werewolf_ratings (engines.stats.werewolf.role_ratings)",
        (
            col("model", "string", "player"),
            col("role", "string", "werewolf | seer | doctor | villager"),
            col("skill", "float64", "skill in the role (0 = the average model)", "logits"),
            col("ci_low", "float64", "2.5% bootstrap percentile (games resampled)", "logits"),
            col("ci_high", "float64", "97.5% bootstrap percentile (games resampled)", "logits"),
            col("seats", "int64", "seats held in the role", "seats"),
            col("win_rate", "float64", "plain win rate in the role", SHARE),
        ),
    ),
    Table(
        "werewolf_overall",
        "one row per model: its role-weighted skill (the deck's proportions 2:1:1:4)",
        "asset werewolf_ratings (engines.stats.werewolf.role_ratings)",
        (
            col("model", "string", "player"),
            col("overall", "float64", "role-weighted skill", "logits"),
            col("ci_low", "float64", "2.5% bootstrap percentile", "logits"),
            col("ci_high", "float64", "97.5% bootstrap percentile", "logits"),
            col("seats", "int64", "seats held", "seats"),
            col("win_rate", "float64", "plain win rate", SHARE),
            col("rank", "int64", "rank by overall skill", RANK),
        ),
    ),
    Table(
        "werewolf_win_rates",
        "one row per (team, role) and per team (role all): the plain win rate over every seat",
        "asset werewolf_ratings (engines.stats.werewolf.win_rates)",
        (
            col("team", "string", "werewolves | village"),
            col("role", "string", "a role, or all"),
            col("seats", "int64", "seats counted", "seats"),
            col("win_rate", "float64", "share of those seats whose team won", SHARE),
        ),
    ),
    Table(
        "werewolf_fit",
        "one row: the rating fit's intercept (the village's log-odds between average players), "
        "games and bootstrap",
        "asset werewolf_ratings (engines.stats.werewolf.role_ratings)",
        (
            col("games", "int64", "games fitted", "games"),
            col("alpha", "float64", "intercept: the village's log-odds", "logits"),
            col("alpha_ci_low", "float64", "2.5% bootstrap percentile", "logits"),
            col("alpha_ci_high", "float64", "97.5% bootstrap percentile", "logits"),
            col("n_boot", "int64", "bootstrap replicates", "replicates"),
            col("seed", "int64", "seed of the bootstrap's generator"),
        ),
    ),
    Table(
        "werewolf_players",
        "one row per player of the werewolf group's tournament: a roster model or a built-in bot",
        "asset werewolf_games",
        (
            col("name", "string", "player name"),
            col("kind", "string", "model | bot"),
            col("spec", "string", "a bot's kind and habits, KIND[:HABIT=false,...]"),
        ),
    ),
)

_SEAT_DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "fallbacks": ("moves that fell back to a default action (unparsable reply)", "moves"),
    "rethinks": ("retries after an unparsable or illegal reply", "retries"),
    "moves": ("decisions taken", "moves"),
    "input_tokens": ("input tokens billed", "tokens"),
    "output_tokens": ("output tokens billed", "tokens"),
    "reasoning_tokens": ("reasoning tokens billed", "tokens"),
    "cost_usd": ("cost of the requests", "USD"),
    "calls": ("provider requests made", "requests"),
}
_MATCH_DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "match_id": ("match id (hash of the game, players, run, deal and engine version)", ""),
    "game": ("game token (a generator seed as text, or a preset name)", ""),
    "game_seed": ("game seed (a preset's tournament seed for presets)", ""),
    "spec_hash": ("SHA-256 of the game's canonical spec", SHA256),
    "engine_version": ("engine version the deal was played under", ""),
    "block": ("tournament block", ""),
    "run_id": ("run id: the two seat-swapped deals of a run share it", ""),
    "run_index": ("run number within the matchup on this game (0 = first)", ""),
    "deal": ("deal within the run (0, 1: seats swapped)", ""),
    "play_seed": ("seed of the deal's chance, shared by the run's two deals", ""),
    "alice": ("player in the Alice seat", ""),
    "bob": ("player in the Bob seat", ""),
    "alice_fingerprint": ("fingerprint of Alice's player (roster)", ""),
    "bob_fingerprint": ("fingerprint of Bob's player (roster)", ""),
    "alice_chip_delta": ("Alice's change in chips", CHIPS),
    "bob_chip_delta": ("Bob's change in chips", CHIPS),
    "margin_alice": ("Alice's gain minus Bob's (the chip lead)", CHIPS),
    "status": ("complete | forfeit | timeout | error", ""),
    "error": ("why the match failed or was forfeited (empty when complete)", ""),
    "n_moves": ("decisions in the deal, both seats", "moves"),
    **{
        f"{name}_{seat}": (f"{seat.title()}'s {text}", unit)
        for name, (text, unit) in _SEAT_DESCRIPTIONS.items()
        for seat in ("alice", "bob")
    },
    "started_at": ("when the match started (UTC, ISO 8601; left out of releases)", ""),
    "finished_at": ("when the match finished (UTC, ISO 8601; left out of releases)", ""),
    "duration_s": ("wall-clock time of the match (left out of releases)", "seconds"),
}
MATCH_COLUMNS = from_arrow(MATCH_SCHEMA, _MATCH_DESCRIPTIONS)

MATCH_CORPUS = Table(
    "match_corpus",
    "one row per match (a single deal) of the tournament, any status (DESIGN match schema)",
    "asset match_corpus",
    MATCH_COLUMNS,
)
COMPLETE_PAIRS = Table(
    "complete_pairs",
    "the counted matches of runs whose two seat-swapped deals both completed (Section 5); "
    "the table the statistics fit",
    "asset complete_pairs (the replay rule applied in a release)",
    MATCH_COLUMNS,
)
SUPERSEDED_MATCHES = Table(
    "superseded_matches",
    "matches superseded by a replay under a newer engine version (kept, not counted)",
    "asset complete_pairs (rows the replay rule does not count)",
    MATCH_COLUMNS,
)

_MOVE_DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "match_id": ("the match (complete_pairs.match_id)", ""),
    "index": ("move number within the match (0 = first)", ""),
    "seat": ("alice | bob", ""),
    "player": ("player name (roster)", ""),
    "model": ("built-in agent, provider model id or program", ""),
    "settings": ("the player's request settings (JSON)", ""),
    "phase": ("phase of the game at the decision", ""),
    "legal_actions": ("the legal action menu shown", ""),
    "prompt_sha256": ("SHA-256 of the prompt sent (empty for bots)", SHA256),
    "raw_response": ("the reply as received (credentials redacted)", ""),
    "earlier_responses": ("replies before the last rethink (credentials redacted)", ""),
    "verdict": ("what the parser made of the reply: ok | unparsable | illegal | none", ""),
    "action": ("the action played", ""),
    "fallback": ("the action is the fallback (no legal action could be read)", ""),
    "rethinks": ("retries after an unparsable or illegal reply", "retries"),
    "latency_s": ("time to obtain the move", "seconds"),
    "input_tokens": ("input tokens billed", "tokens"),
    "output_tokens": ("output tokens billed", "tokens"),
    "reasoning_tokens": ("reasoning tokens billed", "tokens"),
    "cost_usd": ("cost of the requests", "USD"),
    "calls": ("provider requests made", "requests"),
    "cached": ("the reply came from the response cache", ""),
    "reasoning": ("the provider's reasoning text, if it returns one (credentials redacted)", ""),
    "cached_input_tokens": ("input tokens read from the provider's prompt cache", "tokens"),
}

MATCH_MOVES = Table(
    "match_moves",
    "one row per move (DESIGN move schema): menu, prompt hash, raw reply, action, fallback "
    "and rethinks, latency (in the pipeline; left out of a release), tokens, reasoning",
    "asset match_moves (partitions concatenated; in a release, the moves of the released "
    "matches with credentials redacted)",
    from_arrow(MOVE_SCHEMA, _MOVE_DESCRIPTIONS),
)

# --- statistics ------------------------------------------------------------------------------

_LEADERBOARD_DESCRIPTIONS: dict[str, tuple[ColumnType, str, str]] = {
    "model": ("string", "model (roster name)", ""),
    "alpha": ("float64", "strength: sum-to-zero least squares on chip margins", CHIPS_PER_GAME),
    "ci_low": ("float64", "2.5% clustered-bootstrap percentile of alpha", CHIPS_PER_GAME),
    "ci_high": ("float64", "97.5% clustered-bootstrap percentile of alpha", CHIPS_PER_GAME),
    "rank": ("int64", "rank by alpha", RANK),
    "matches": ("int64", "single-deal matches in complete runs", "matches"),
    "tier": ("int64", "tier: a new one starts past a non-overlap of intervals", ""),
}
LEADERBOARD = tuple(col(c, *_LEADERBOARD_DESCRIPTIONS[c]) for c in LEADERBOARD_COLUMNS)
_SUBSET = col("subset", "string", "the refit: which games, block or models it uses")


def _refit(name: str, description: str) -> Table:
    return Table(
        name,
        description,
        f"engines.stats.analysis.analyse(...).tables['{name}']",
        (_SUBSET, *LEADERBOARD),
    )


LEADERBOARDS = Table(
    "leaderboards",
    "the overall leaderboard (Table 1): strength in chips/game with 95% bootstrap interval",
    "asset leaderboards (= analyse(...).tables['leaderboard'])",
    LEADERBOARD,
)

_PROFILE_DESCRIPTIONS: dict[str, tuple[ColumnType, str, str]] = {
    "model": ("string", "model", ""),
    "term": ("string", "intercept, an axis (z-scored) or verbosity", ""),
    "coef": ("float64", "OLS coefficient of the per-game strength", "chips/game per SD"),
    "ci_low": ("float64", "2.5% clustered-bootstrap percentile", "chips/game per SD"),
    "ci_high": ("float64", "97.5% clustered-bootstrap percentile", "chips/game per SD"),
    "p_value": ("float64", "two-sided bootstrap p", ""),
    "q_value": ("float64", "Benjamini-Hochberg q over the model x axis entries", ""),
    "significant": ("bool", "q below the analysis's q (0.05)", ""),
}
PROFILE = tuple(col(c, *_PROFILE_DESCRIPTIONS[c]) for c in PROFILE_COLUMNS)

CAPABILITY_PROFILES = Table(
    "capability_profiles",
    "capability profiles (Section 7, Figure 7): per-model slopes of the per-game strength on "
    "the z-scored axes, bootstrap intervals, BH q",
    "asset capability_profiles (= analyse(...).tables['profile'])",
    PROFILE,
)

ABLATIONS = Table(
    "ablations",
    "the ablations (Section 8) as one long table: disclosed vs hidden programs, thinking "
    "budget, judge, authoring",
    "asset ablations",
    (
        col("ablation", "string", "programs | thinking_budget | judge | authoring"),
        col("quantity", "string", "what is estimated (e.g. lambda_disclosed, disclosure_effect)"),
        col("subject", "string", "whom or what it is estimated for"),
        col("estimate", "float64", "the estimate (chips/game, slope or efficiency, per quantity)"),
        col("ci_low", "float64", "2.5% bootstrap percentile"),
        col("ci_high", "float64", "97.5% bootstrap percentile"),
        col("n", "int64", "observations behind it (deals or pairs)"),
    ),
)

VALIDITY_CHECKS = Table(
    "validity_checks",
    "validity checks beside the paper's figures: the whole-strategy opponent check and the "
    "screening-vs-final composite agreement (Appendix C)",
    "asset validity_checks",
    (
        col("check", "string", "the check"),
        col("figure", "string", "what is measured"),
        col("ours", "string", "our value, as printed"),
        col("paper", "string", "the paper's value, as printed"),
    ),
)

# --- anchored scales, episodes, program track (issue 19) ------------------------------------
_INTERVAL = "95% clustered-bootstrap percentile"
ANCHORED_SCALES = Table(
    "anchored_scales",
    "every player scored against a versioned reference field: rating in chips/game (anchor = "
    "uniform random = 0), 0-100 expected share of points against the field (GameBench 2), Elo "
    "calibrated to the anchor with a first-mover term; provisional entrants are flagged with "
    "the reason and not ranked",
    "asset anchored_scales (= engines.stats.anchored.scales_with_flags(...))",
    (
        col("field", "string", "reference field and version (name-vN)"),
        col("model", "string", "player name"),
        col("role", "string", "entrant | reference"),
        col("status", "string", "ranked | provisional | reference"),
        col("rank", "int64", "rank by score among ranked entrants (empty otherwise)", RANK),
        col(
            "rating", "float64", "anchored rating (chips/game, anchor at its value)", CHIPS_PER_GAME
        ),
        col("rating_low", "float64", f"rating, {_INTERVAL} (2.5%)", CHIPS_PER_GAME),
        col("rating_high", "float64", f"rating, {_INTERVAL} (97.5%)", CHIPS_PER_GAME),
        col("score", "float64", "expected share of points against the field", "points (0-100)"),
        col("score_low", "float64", f"score, {_INTERVAL} (2.5%)", "points (0-100)"),
        col("score_high", "float64", f"score, {_INTERVAL} (97.5%)", "points (0-100)"),
        col("elo", "float64", "Bradley-Terry logit on the Elo scale, calibrated", "Elo"),
        col("elo_low", "float64", f"Elo, {_INTERVAL} (2.5%)", "Elo"),
        col("elo_high", "float64", f"Elo, {_INTERVAL} (97.5%)", "Elo"),
        col("complete_pairs", "int64", "complete runs against the field's members", "runs"),
        col("missing_blocks", "int64", "(member, game) matchups without a complete run"),
        col("reason", "string", "why the entrant is provisional (empty when ranked)"),
    ),
)
# --- editions (issue 39): scores on one scale across editions, the saturation watch ---------
EDITION_SCORES = Table(
    "edition_scores",
    "every player's anchored scores in each edition of the profile (this release's edition and "
    "each earlier one's latest release in the store): one reference field, so one scale",
    "releases.editions.edition_tables (the anchored_scales of each edition, stacked)",
    (col("edition", "int64", "edition number"), *ANCHORED_SCALES.columns),
)
EDITION_SATURATION = Table(
    "edition_saturation",
    "how well each edition still separates the field (the saturation watch) and the verdict "
    "for the next edition (docs/EDITIONS.md)",
    "engines.stats.editions.edition_saturation(...)",
    (
        col("edition", "int64", "edition number"),
        col("players", "int64", "entrants judged (ranked, with a finite rating)"),
        col("top", "string", "the best of them by anchored rating"),
        col("spread", "float64", "best minus worst anchored rating", CHIPS_PER_GAME),
        col("sd", "float64", "standard deviation of the ratings (ddof 0)", CHIPS_PER_GAME),
        col("tiers", "int64", "tiers of the ratings (overlapping intervals share a tier)"),
        col("games", "int64", "games on which the top entrant has a complete run", "games"),
        col("swept_games", "int64", "of those, games where it won every paired deal", "games"),
        col("swept_share", "float64", "swept_games / games"),
        col("top_score", "float64", "the top entrant's score against the field", "points (0-100)"),
        col("floor_score", "float64", "the lowest entrant's score", "points (0-100)"),
        col("saturated", "bool", "the edition no longer separates the field"),
        col("action", "string", "harder | more evidence | keep"),
        col("complexity", "float64", "the generator's complexity dial of this edition"),
        col("next_complexity", "float64", "the dial the rule gives the next edition"),
        col("reasons", "string", "why (one sentence per rule that fired; empty to keep)"),
    ),
)
HELDOUT_GAMES = Table(
    "heldout_games",
    "the edition's private games: a salted commitment to each spec and the aggregate scores "
    "only (no spec, rulebook, seed or transcript), revealed by a later edition",
    "releases.heldout.heldout_table",
    (
        col("edition", "int64", "edition number"),
        col("label", "string", "the private game's label (private-1, ...)"),
        col("commitment", "string", "SHA-256(salt || canonical spec JSON)", SHA256),
        col("model", "string", "player name"),
        col("runs", "int64", "complete runs it played on the game", "runs"),
        col("mean_margin", "float64", "its mean chip margin per deal on the game", CHIPS),
    ),
)
REVEALED_GAMES = Table(
    "revealed_games",
    "private games of earlier editions, revealed: release verify checks each spec and salt "
    "against the commitment the earlier release published",
    "releases.heldout.revealed_table",
    (
        col("edition", "int64", "the edition that kept the game private"),
        col("label", "string", "its label in that edition's heldout_games"),
        col("seed", "int64", "its (secret) generator seed"),
        col("spec_hash", "string", "SHA-256 of the spec JSON", SHA256),
        col("spec_json", "string", "the game's canonical spec (JSON)"),
        col("salt", "string", "the commitment's salt (hex)"),
        col("commitment", "string", "SHA-256(salt || spec JSON), as published", SHA256),
    ),
)
EPISODE_ADAPTATION = Table(
    "episode_adaptation",
    "multi-hand episodes against the fixed exploitable bot: the change of a player's margin "
    "over the hands of an episode (adaptation), early and late means, per game",
    "asset episode_adaptation (= engines.stats.adaptation.adaptation_table(...))",
    (
        col("game", "string", "game token"),
        col("player", "string", "the player whose margin is measured"),
        col("opponent", "string", "its opponent"),
        col("quantity", "string", "change | early | late | late_minus_early"),
        col("estimate", "float64", "chip margin per hand (change: fitted last minus first)", CHIPS),
        col("ci_low", "float64", "2.5% bootstrap percentile over episode pairs", CHIPS),
        col("ci_high", "float64", "97.5% bootstrap percentile over episode pairs", CHIPS),
        col("episode_pairs", "int64", "mirrored episode pairs"),
        col("hands", "int64", "decided hands"),
    ),
)
PROGRAM_TRACK = Table(
    "program_track",
    "the program track: authors scored 0-100 against the reference field by the programs "
    "they write (GameBench 2: failed submissions 0, speed refusals in no score), per game and "
    "overall",
    "asset program_track (= engines.stats.program_track.program_track(...)[1])",
    (
        col("track", "string", "programs"),
        col("author", "string", "who wrote the programs (model or handwritten)"),
        col("game", "string", "game token, or (overall)"),
        col("authoring_runs", "int64", "authoring runs (first answer and its repairs)"),
        col("admitted", "int64", "runs that ended with an admitted program"),
        col("failed", "int64", "runs that ended without a working program (score 0)"),
        col("speed_rejected", "int64", "runs refused only by the speed check (no score)"),
        col("harness_failed", "int64", "runs without a reply (no score, flagged)"),
        col("repair_turns", "int64", "repair turns over the runs"),
        col("score", "float64", "mean over counted runs", "points (0-100)"),
        col("ci_low", "float64", "2.5% bootstrap percentile", "points (0-100)"),
        col("ci_high", "float64", "97.5% bootstrap percentile", "points (0-100)"),
        col("status", "string", "ranked | provisional"),
        col("rank", "int64", "rank of the overall score among ranked authors", RANK),
        col("reason", "string", "why the author is provisional"),
    ),
)


_PAIRWISE_DESCRIPTIONS: dict[str, tuple[ColumnType, str, str]] = {
    "row": ("string", "first model", ""),
    "column": ("string", "second model", ""),
    "mean_margin": ("float64", "mean chip margin of row minus column, seats balanced", CHIPS),
    "ci_low": ("float64", "2.5% paired-cluster bootstrap percentile", CHIPS),
    "ci_high": ("float64", "97.5% paired-cluster bootstrap percentile", CHIPS),
    "significant": ("bool", "the interval excludes 0", ""),
    "paired_deals": ("int64", "paired deals (runs) the two played", "runs"),
    "games": ("int64", "games on which the two met", "games"),
}


def _analysis(name: str, description: str, *columns: Column) -> Table:
    return Table(
        name, description, f"engines.stats.analysis.analyse(...).tables['{name}']", columns
    )


ANALYSIS_TABLES: tuple[Table, ...] = (
    Table(
        "per_game_alpha",
        "Table 12: strength of each model estimated from the deals of one game alone (long "
        "form of the games x models grid)",
        "analyse(...).tables['per_game_alpha'], one row per cell",
        (
            col("game_seed", "int64", "game seed"),
            col("model", "string", "model"),
            col(
                "alpha",
                "float64",
                "per-game strength, sum-to-zero over the models on the game",
                CHIPS_PER_GAME,
            ),
        ),
    ),
    Table(
        "per_game_margin",
        "Table 11: mean chip margin of each model on each game over the rows played (long form)",
        "analyse(...).tables['per_game_margin'], one row per cell",
        (
            col("game_seed", "int64", "game seed"),
            col("model", "string", "model"),
            col("mean_margin", "float64", "mean chip margin of the model on the game", CHIPS),
        ),
    ),
    _analysis(
        "pairwise",
        "Tables 9-10: head-to-head mean margins with bootstrap intervals and paired deals per "
        "model pair (the analysis's pairwise_margin and paired_deals matrices are its pivots)",
        *(col(c, *_PAIRWISE_DESCRIPTIONS[c]) for c in PAIRWISE_COLUMNS),
    ),
    _analysis(
        "bradley_terry",
        "Appendix E: Bradley-Terry fit on the win indicator (ties dropped)",
        col("model", "string", "model"),
        col("theta", "float64", "Bradley-Terry strength (log-odds scale)", "log-odds"),
        col("rank", "int64", "rank by theta", RANK),
        col("wins", "int64", "deals won", "deals"),
        col("losses", "int64", "deals lost", "deals"),
        col("alpha", "float64", "the margin leaderboard's alpha, for comparison", CHIPS_PER_GAME),
    ),
    _analysis(
        "leave_one_game_out",
        "Appendix E.1: the leaderboard refit with one game dropped, against the full ranking",
        col("dropped_game", "int64", "seed of the game left out"),
        col("kendall_tau", "float64", "Kendall's tau with the full ranking"),
        col("spearman", "float64", "Spearman's rho with the full ranking"),
        col("max_rank_shift", "int64", "largest change of a model's rank", "places"),
        col("tiers_intact", "bool", "no model left its tier"),
    ),
    _analysis(
        "game_subsets",
        "Appendix E.1: refits on random subsets of games, per subset size",
        col("games", "int64", "games in each subset", "games"),
        col("subsets", "int64", "random subsets drawn", "subsets"),
        col("median_spearman", "float64", "median Spearman's rho with the full ranking"),
        col("p5_spearman", "float64", "5th percentile of Spearman's rho"),
        col("median_kendall", "float64", "median Kendall's tau with the full ranking"),
        col("p5_kendall", "float64", "5th percentile of Kendall's tau"),
    ),
    _refit("block_leaderboard", "Table 7: the leaderboard refit on one tournament block"),
    _refit(
        "without_model_leaderboard",
        "Table 8: the leaderboard refit without one model (the bottom one by default)",
    ),
    Table(
        "axis_slopes",
        "Appendix E: slope of each model's per-game strength on each z-scored axis alone (the "
        "matrix behind the composite weights; long form)",
        "analyse(...).tables['axis_slopes'], one row per cell",
        (
            col("model", "string", "model"),
            col("axis", "string", "axis"),
            col("slope", "float64", "OLS slope on the z-scored axis", "chips/game per SD"),
        ),
    ),
    _analysis(
        "composite_weights",
        "Appendix E: weights of the composite complexity score (first principal component of "
        "the slopes, unit absolute sum, temporal positive)",
        col("axis", "string", "axis"),
        col("weight", "float64", "weight of the z-scored axis"),
    ),
    _analysis(
        "composite_scores",
        "Appendix E: composite complexity score of each game",
        col("game_seed", "int64", "game seed"),
        col("score", "float64", "composite complexity (weighted sum of z-scored axes)", "SD"),
    ),
    _refit(
        "hardest_leaderboard",
        "Table 4: the leaderboard on the hardest games by composite complexity",
    ),
    _refit(
        "most_temporal_leaderboard",
        "Table 5: the leaderboard on the games highest on the temporal axis",
    ),
    _analysis(
        "half_split",
        "Appendix E: weights learned on a random half of the games, spread of the leaderboard "
        "on the hardest games of the other half, per split",
        col("split", "int64", "split number"),
        col(
            "spread",
            "float64",
            "top minus bottom alpha on the held-out hardest games",
            CHIPS_PER_GAME,
        ),
    ),
    _refit("temporal_tertiles", "Section 6: leaderboards within tertiles of the temporal axis"),
    _refit("composite_tertiles", "Table 6: leaderboards within tertiles of composite complexity"),
    _analysis(
        "variance_decomposition",
        "Appendix F: model main effect and model x game interaction of the per-game strengths, "
        "observed, noise and noise-corrected, with bootstrap intervals",
        col("quantity", "string", "sigma2_M | sigma2_MG | ratio_MG_M"),
        col("observed", "float64", "observed variance (or ratio)", "(chips/game)^2"),
        col("noise", "float64", "estimation noise (paired-cluster bootstrap)", "(chips/game)^2"),
        col("corrected", "float64", "observed minus noise", "(chips/game)^2"),
        col(
            "ci_low",
            "float64",
            "2.5% bootstrap percentile of the corrected value",
            "(chips/game)^2",
        ),
        col(
            "ci_high",
            "float64",
            "97.5% bootstrap percentile of the corrected value",
            "(chips/game)^2",
        ),
        col("models", "string", "all, or without the model left out"),
    ),
    _analysis(
        "factor_loadings",
        "Appendix G.1: loading of each model on the first factor of the standardized per-game "
        "strengths",
        col("model", "string", "model"),
        col("loading", "float64", "loading on the first factor"),
    ),
    _analysis(
        "factor_axes",
        "Section 7: correlation of the games' factor scores with each axis",
        col("axis", "string", "axis"),
        col("spearman", "float64", "Spearman's rho over games"),
        col("pearson", "float64", "Pearson's r over games"),
    ),
    _analysis(
        "factor_residuals",
        "Section 7: correlation of two models' per-game strengths after removing the factor",
        col("model_a", "string", "first model"),
        col("model_b", "string", "second model"),
        col("r", "float64", "Pearson's r of the residuals"),
        col("p_value", "float64", "two-sided p"),
        col("q_value", "float64", "Benjamini-Hochberg q over the model pairs"),
        col("significant", "bool", "q below 0.05"),
    ),
    _analysis(
        "jaggedness",
        "Section 7, Appendix H: local jaggedness of each model (leave-one-game-out smooth "
        "surface over the axes, noise-corrected residual SD)",
        col("model", "string", "model"),
        col(
            "jaggedness",
            "float64",
            "J_m, noise-corrected residual SD",
            "payoff scale under random play",
        ),
        col(
            "raw_rms",
            "float64",
            "RMS of the leave-one-out residuals",
            "payoff scale under random play",
        ),
        col(
            "noise_rms", "float64", "RMS of the estimation noise", "payoff scale under random play"
        ),
        col("r2", "float64", "share of the variation across games the surface explains"),
        col("games", "int64", "games used", "games"),
    ),
    _analysis(
        "verbosity",
        "robustness to rulebook verbosity: the coefficient of log10 rulebook length as a "
        "sixth regressor of the profile (only when the axis scores carry rulebook_chars)",
        *PROFILE,
    ),
    _analysis(
        "verbosity_changes",
        "robustness to rulebook verbosity: change of each axis slope when verbosity is added",
        col("model", "string", "model"),
        col("term", "string", "axis"),
        col(
            "coef_with_verbosity",
            "float64",
            "slope with verbosity in the regression",
            "chips/game per SD",
        ),
        col("coef_without", "float64", "slope of the profile", "chips/game per SD"),
        col("change", "float64", "with minus without", "chips/game per SD"),
        col(
            "axis_length_spearman",
            "float64",
            "Spearman's rho of the axis and rulebook length over games",
        ),
    ),
    # --- validity checks of issue 17 (composite alternatives, Table 1's dagger, fallbacks) ---
    _analysis(
        "composite_alternatives",
        "Appendix E: the slopes' composite, the unweighted mean of the z-scored axes and the "
        "multivariate-coefficient composite, each with its hardest-games and tertile spreads",
        col("score", "string", "slopes | unweighted_mean | multivariate"),
        col("rho_with_slopes", "float64", "Spearman's rho over games with the slopes' composite"),
        col("hardest_spread", "float64", "leaderboard spread on its k highest games", "chips/game"),
        col("spread_ratio", "float64", "hardest_spread over the spread on every game"),
        col("tertile_1_spread", "float64", "spread on its lowest tertile", "chips/game"),
        col("tertile_2_spread", "float64", "spread on its middle tertile", "chips/game"),
        col("tertile_3_spread", "float64", "spread on its highest tertile", "chips/game"),
    ),
    _analysis(
        "late_block",
        "Table 1's dagger: each model's first tournament block, and whether it is a later one",
        col("model", "string", "model"),
        col("first_block", "string", "the earliest block the model played in"),
        col("late", "bool", "joined after the corpus's first block"),
    ),
    _analysis(
        "rethink_fallback",
        "per model: moves, fallback moves (unparsable replies, Appendix A) and rethinks, "
        "from the match table's seat columns",
        col("model", "string", "model"),
        col("matches", "int64", "matches played (either seat)", "matches"),
        col("moves", "int64", "moves made", "moves"),
        col("fallbacks", "int64", "moves played by the fallback rule", "moves"),
        col("rethinks", "int64", "rethink requests", "requests"),
        col("fallback_share", "float64", "fallbacks over moves", SHARE),
        col("rethinks_per_move", "float64", "rethinks over moves"),
    ),
    Table(
        "analysis_summary",
        "the analysis's headline figures (models, games, spreads, Kendall's tau of the refits, "
        "factor share, ...), one row each; a list gives one row per element",
        "analyse(...).summary",
        (
            col("figure", "string", "name of the figure (list elements as name.1, name.2, ...)"),
            col("value", "float64", "its value when numeric"),
            col(
                "text",
                "string",
                "its value when text (a block, a model, why a part was not estimable)",
            ),
        ),
    ),
)

TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        REFERENCE_GAMES,
        SEED_POOL,
        ACCEPTED_GAMES,
        SCREENING_AXES_TABLE,
        BENCHMARK_GAMES,
        AXIS_SCORES,
        BENCHMARK_AXES,
        AXIS_DIAGNOSTICS,
        AXIS_CORRELATIONS,
        ROSTER,
        OPENSPIEL_GAMES,
        OPENSPIEL_RETHINKS,
        CHESS_PGN,
        FAMILY_RATINGS,
        FAMILY_SUMMARY,
        MATCH_CORPUS,
        COMPLETE_PAIRS,
        SUPERSEDED_MATCHES,
        MATCH_MOVES,
        LEADERBOARDS,
        CAPABILITY_PROFILES,
        ABLATIONS,
        VALIDITY_CHECKS,
        ANCHORED_SCALES,
        EDITION_SCORES,
        EDITION_SATURATION,
        HELDOUT_GAMES,
        REVEALED_GAMES,
        EPISODE_ADAPTATION,
        PROGRAM_TRACK,
        *WEREWOLF_TABLES,
        *ANALYSIS_TABLES,
    )
}
"""Every declared table by name."""


def declared(name: str) -> Table:
    """The declaration of table ``name``; ``ValueError`` if it has none."""
    try:
        return TABLES[name]
    except KeyError:
        raise ValueError(
            f"table {name!r} is not declared; declare it and its columns in quality/schema.py"
        ) from None


def type_matches(declared_type: ColumnType, kind: pa.DataType) -> bool:
    """Whether Arrow type ``kind`` stands for the logical ``declared_type``."""
    strings = (pa.types.is_string, pa.types.is_large_string)
    if declared_type == "string":
        return any(test(kind) for test in strings)
    if declared_type == "list<string>":
        return (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and any(
            test(kind.value_type) for test in strings
        )
    return bool(kind == WRITTEN_TYPES[declared_type])


def _untyped(kind: pa.DataType) -> bool:
    """Arrow ``null``, or a list of ``null`` (every list empty)."""
    if pa.types.is_null(kind):
        return True
    return bool(
        (pa.types.is_list(kind) or pa.types.is_large_list(kind))
        and pa.types.is_null(kind.value_type)
    )


def _integral(column: pa.ChunkedArray) -> bool:
    values = column.drop_null().to_numpy()
    return bool(np.all(np.isfinite(values)) and np.all(values == np.round(values)))


def _castable(wanted: ColumnType, kind: pa.DataType, column: pa.ChunkedArray) -> bool:
    """Whether a column of Arrow type ``kind`` is written as the declared ``wanted`` type: an
    untyped column always; a column of whole numbers declared an integer type when every value
    fits it (floating point because pandas marks a missing integer NaN, or another integer
    width or sign)."""
    if _untyped(kind):
        return True
    if wanted not in ("int64", "uint64") or kind == WRITTEN_TYPES[wanted]:
        return False
    if pa.types.is_floating(kind) and not _integral(column):
        return False
    if not (pa.types.is_floating(kind) or pa.types.is_integer(kind)):
        return False
    try:
        pc.cast(column, WRITTEN_TYPES[wanted], safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True


def conform(name: str, table: pa.Table) -> pa.Table:
    """``table`` as a release writes it: untyped columns (Arrow ``null``, every value missing;
    or lists that are all empty) get their declared type, and columns of whole numbers declared
    an integer type get it when every value fits (:func:`_castable`). Everything else is left
    as it is (the ``schema`` gate names it); an undeclared table is returned unchanged."""
    spec = TABLES.get(name)
    if spec is None:
        return table
    kinds = {c.name: c.type for c in spec.columns}
    for index, field in enumerate(table.schema):
        wanted = kinds.get(field.name)
        if wanted is None or not _castable(wanted, field.type, table.column(index)):
            continue
        target = WRITTEN_TYPES[wanted]
        column = pc.cast(table.column(index), target, safe=True)
        table = table.set_column(index, field.with_type(target), column)
    return table


def arrow_table(name: str, frame: pd.DataFrame) -> pa.Table:
    """The Arrow table a release writes for ``frame`` (no index; :func:`conform`)."""
    return conform(name, pa.Table.from_pandas(frame, preserve_index=False))


def schema_problems(name: str, frame: pd.DataFrame) -> list[str]:
    """What breaks the declaration of table ``name`` in ``frame`` as it would be written: an
    undeclared table or column, a column of another type, a column left untyped."""
    if name not in TABLES:
        return [f"{name}: not declared in quality/schema.py"]
    spec = TABLES[name]
    kinds = {c.name: c.type for c in spec.columns}
    schema = arrow_table(name, frame).schema
    undeclared = [f.name for f in schema if f.name not in kinds]
    problems = []
    if undeclared:
        problems.append(f"{name}: undeclared column(s) {', '.join(undeclared)}")
    for field in schema:
        wanted = kinds.get(field.name)
        if wanted is None:
            continue
        if _untyped(field.type):
            problems.append(f"{name}.{field.name}: untyped (Arrow {field.type}), declared {wanted}")
        elif not type_matches(wanted, field.type):
            problems.append(f"{name}.{field.name}: Arrow {field.type}, declared {wanted}")
    return problems


def schema_gate(name: str, frame: pd.DataFrame) -> GateResult:
    """Gate: every column of table ``name`` is declared and typed as declared."""
    problems = schema_problems(name, frame)
    figures = {"columns": len(frame.columns), "problems": problems[:10]}
    if problems:
        return GateResult(False, figures, f"{len(problems)} schema problem(s); {problems[0]}")
    return GateResult(True, figures, f"{name}: {len(frame.columns)} declared column(s)")
