"""Which gates apply to which released table, and the integrity card of a whole release.

Why it exists: the asset graph grows stage by stage, and a release ships whatever tables exist.
This module maps a table's name (its asset key) to the gates that guard it, so that adding a
stage to the release adds its gates without touching the release code:

- game tables (:data:`GAME_TABLES`): rulebook consistency and game attestation;
- match tables (:data:`MATCH_TABLES`): parse fallbacks, zero-sum, match attestation against
  the frozen games (``benchmark_games``, else ``accepted_games`` with the presets of
  ``reference_games``; in the openspiel group's release, ``openspiel_games``), and for
  ``complete_pairs`` the complete-pairs gate;
- every table with a suite in ``quality.expectations.SUITES``: the great_expectations suite
  (a table stored one row per partition, such as ``axis_scores``, is checked with one row per
  game instead, since a release concatenates its partitions: :func:`release_suite`);
- every table: the ``schema`` gate (``quality.schema``: every column declared and typed as
  declared), also over tables released without other gates (the superseded matches).

:func:`release_gates` runs them all and folds the results into one verdict per gate name, with
the figures of each table; a gate with no table to guard is recorded as not applicable (passed).
The redaction scan runs on the files of the bundle and is added by ``releases``.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from quality.expectations import SUITES, Expectation, expectations_gate
from quality.gates import (
    DEFAULT_MAX_FALLBACK_RATE,
    GateResult,
    complete_pairs,
    fallback_rates,
    frozen_spec_hashes,
    game_attestation,
    match_attestation,
    rulebook_consistency,
    unfinished_moves,
    zero_sum,
)
from quality.schema import schema_gate

GAME_TABLES = ("reference_games", "accepted_games", "benchmark_games")
MATCH_TABLES = ("match_corpus", "complete_pairs")
# The gates of a release, in the order of its integrity card (the redaction scan comes last).
GATE_NAMES = (
    "expectations",
    "schema",
    "rulebook_consistency",
    "attestation",
    "parse_fallbacks",
    "zero_sum",
    "complete_pairs",
    "moves",
)


# Where the frozen games come from, first present wins: the benchmark, else the accepted pool,
# else (the openspiel group's release, issue 18) the OpenSpiel games it played.
# The presets of reference_games are frozen inputs too (their hashes are pinned by golden
# tests, and a tournament may play them beside the generated games).
FROZEN_GAME_SOURCES = ("benchmark_games", "accepted_games", "openspiel_games")
PRESET_SOURCE = "reference_games"


def frozen_games(tables: Mapping[str, pd.DataFrame]) -> dict[int, str] | None:
    """``{game seed: spec hash}`` of the games the matches must have been played on: the
    ``benchmark_games``, else the ``accepted_games``, else the ``openspiel_games``, with the
    presets of ``reference_games`` (``None`` when none of them is present)."""
    primary = next((n for n in FROZEN_GAME_SOURCES if n in tables), None)
    names = [n for n in (primary, PRESET_SOURCE) if n is not None and n in tables]
    if not names:
        return None
    frozen: dict[int, str] = {}
    for name in names:
        frozen.update(frozen_spec_hashes(tables[name]))
    return frozen


# Tables stored one row per partition (game): their suites expect one row per partition file; a
# release concatenates the partitions, where the expectation becomes one row per game (column).
ONE_ROW_PER = {"axis_scores": "game"}


def release_suite(name: str, concatenated: bool) -> tuple[Expectation, ...]:
    """The suite of table ``name``; for a concatenated per-partition table, with its one-row
    expectation replaced by the uniqueness of its partition column."""
    suite = SUITES[name]
    if not concatenated or name not in ONE_ROW_PER:
        return suite
    unique: Expectation = ("ExpectColumnValuesToBeUnique", {"column": ONE_ROW_PER[name]})
    return tuple(
        unique if kind == "ExpectTableRowCountToEqual" else (kind, kw) for kind, kw in suite
    )


def table_gates(
    name: str,
    frame: pd.DataFrame,
    *,
    engine_version: str,
    games: Mapping[int, str] | None = None,
    max_fallback_rate: float = DEFAULT_MAX_FALLBACK_RATE,
    with_expectations: bool = True,
    concatenated: bool = False,
) -> dict[str, GateResult]:
    """Every gate that guards the table ``name``, keyed by gate name.

    ``games`` (game seed to spec hash) are the frozen games a match table is attested against;
    without them a match table's attestation is left to the caller (see :func:`release_gates`).
    ``concatenated``: the table holds every partition of a per-partition asset
    (:func:`release_suite`).
    """
    out: dict[str, GateResult] = {}
    if with_expectations and name in SUITES:
        out["expectations"] = expectations_gate(frame, release_suite(name, concatenated), name)
    out["schema"] = schema_gate(name, frame)
    if name in GAME_TABLES:
        out["rulebook_consistency"] = rulebook_consistency(frame)
        out["attestation"] = game_attestation(frame, engine_version)
    if name in MATCH_TABLES:
        out["parse_fallbacks"] = fallback_rates(frame, max_fallback_rate)
        out["zero_sum"] = zero_sum(frame)
        if games is not None:
            out["attestation"] = match_attestation(frame, games, engine_version)
    if name == "complete_pairs":
        out["complete_pairs"] = complete_pairs(frame)
    if name == "match_moves":
        out["moves"] = unfinished_moves(frame)
    return out


def fold(per_table: Mapping[str, Mapping[str, GateResult]]) -> dict[str, GateResult]:
    """One verdict per gate: passed if it passed on every table; figures per table; the message
    of the first failing table (or a count of the tables it passed on)."""
    out: dict[str, GateResult] = {}
    for gate in GATE_NAMES:
        results = {t: r[gate] for t, r in sorted(per_table.items()) if gate in r}
        if not results:
            out[gate] = GateResult(True, {"tables": 0}, "not applicable: no table to check")
            continue
        failed = [(t, r) for t, r in results.items() if not r.passed]
        figures = {t: r.figures for t, r in results.items()}
        if failed:
            table, result = failed[0]
            out[gate] = GateResult(False, figures, f"{table}: {result.message}")
        else:
            names = ", ".join(results)
            out[gate] = GateResult(True, figures, f"passed on {len(results)} table(s): {names}")
    return out


def release_gates(
    tables: Mapping[str, pd.DataFrame],
    *,
    engine_version: str,
    max_fallback_rate: float = DEFAULT_MAX_FALLBACK_RATE,
    with_expectations: bool = True,
    schema_only: Mapping[str, pd.DataFrame] | None = None,
) -> dict[str, GateResult]:
    """Run every gate that applies to ``tables`` and fold the results (see :func:`fold`).

    Tables are as released: a per-partition table holds every partition (:func:`release_suite`).
    ``schema_only``: tables released beside them that only the schema gate checks.
    """
    games = frozen_games(tables)
    per_table: dict[str, dict[str, GateResult]] = {
        name: table_gates(
            name,
            frame,
            engine_version=engine_version,
            games=games,
            max_fallback_rate=max_fallback_rate,
            with_expectations=with_expectations,
            concatenated=True,
        )
        for name, frame in tables.items()
    }
    for name, frame in (schema_only or {}).items():
        per_table[name] = {"schema": schema_gate(name, frame)}
    if games is None:
        for name in MATCH_TABLES:
            if name in per_table:
                per_table[name]["attestation"] = GateResult(
                    False,
                    {"matches": len(tables[name])},
                    "no frozen games (benchmark_games, or accepted_games and reference_games, "
                    "or openspiel_games) to attest the matches to",
                )
    return fold(per_table)


def first_failure(gates: Mapping[str, GateResult]) -> str | None:
    """``gate <name> failed: <message>`` for the first failing gate, or ``None``."""
    for name, result in gates.items():
        if not result.passed:
            return f"gate {name} failed: {result.message}"
    return None
