"""The release gates over tables: plain functions that return ``(passed, figures, message)``.

Why it exists: DESIGN.md ("Stages") puts blocking gates in front of ``release_bundle``, and a
release's integrity card records each gate with its verdict and figures (GameBench 2,
Section 3). Each function here checks one property of the data contracts (DESIGN.md, "Data
contracts"), names the first offending row in its message, and never raises for bad data;
it raises ``ValueError`` only when a table lacks the columns the gate needs.

The corpus checks are written once, in ``engines.tournament.corpus_checks`` (the asset checks of
``match_corpus`` and ``complete_pairs`` use them too); here they are only put in gate form:

- :func:`fallback_rates`: parse-fallback rate per model within a bound.
- :func:`rulebook_consistency`: every game's rulebook states every item of its spec.
- :func:`game_attestation`: each game's spec hash is the SHA-256 of its spec, under the
  frozen engine version.
- :func:`match_attestation`: each match row's spec hash and engine version match the frozen
  games it was played on.
- :func:`zero_sum`: chip conservation and the margin identity of every match.
- :func:`complete_pairs`: every run is two seat-swapped deals, both complete.
- :func:`reproduction`: tables recomputed from the released data equal the published ones
  (every published number can be recomputed from the bundle alone).

The great_expectations suites are in ``quality.expectations``, the redaction scan in
``quality.redaction`` and the manifest check in ``quality.attestation``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from engines.gbg import GameSpec, consistency_errors, rulebook
from engines.tournament import corpus_checks
from engines.tournament.corpus_checks import CheckResult, require_columns
from engines.tournament.schedule import preset_game_seed

# The bound on parse fallbacks: three times the worst model of the GENSTRAT paper (0.33% of
# moves, Section 4 and Appendix J). A model above it is measured on its parser, not its play.
DEFAULT_MAX_FALLBACK_RATE = corpus_checks.MAX_FALLBACK_RATE


class GateResult(NamedTuple):
    """The verdict of one gate: whether it passed, its figures (JSON-able), one line of text."""

    passed: bool
    figures: dict[str, Any]
    message: str

    def as_dict(self) -> dict[str, Any]:
        """The integrity-card form: ``{"passed", "figures", "message"}``."""
        return {"passed": self.passed, "figures": self.figures, "message": self.message}

    @classmethod
    def of(cls, check: CheckResult) -> GateResult:
        """The gate form of a corpus check's result."""
        return cls(check.passed, check.figures, check.message)


def game_label(frame: pd.DataFrame) -> pd.Series:
    """A readable name for each game row: ``seed N``, or the preset name."""
    if "game_seed" in frame.columns:
        return "seed " + frame["game_seed"].astype(str)
    if "seed" in frame.columns:
        return "seed " + frame["seed"].astype(str)
    if "name" in frame.columns:
        return frame["name"].astype(str)
    return pd.Series([f"row {k}" for k in range(len(frame))], index=frame.index)


def fallback_rates(
    matches: pd.DataFrame, max_rate: float = DEFAULT_MAX_FALLBACK_RATE
) -> GateResult:
    """Each model's share of its moves that were parse fallbacks is at most ``max_rate``
    (``engines.tournament.corpus_checks.fallback_bound``)."""
    return GateResult.of(corpus_checks.fallback_bound(matches, max_rate))


def rulebook_consistency(games: pd.DataFrame) -> GateResult:
    """Every game's rulebook states every item of its spec (``engines.gbg.consistency_errors``).

    A table without a ``rulebook`` column (e.g. ``benchmark_games``) is checked against the
    rulebooks rendered from its specs, which is what the players are shown.
    """
    require_columns(games, ("spec_json",), "rulebook_consistency")
    if games.empty:
        return GateResult(False, {"games": 0, "inconsistent": 0}, "no games to check")
    labels = game_label(games)
    stored = "rulebook" in games.columns
    texts = games["rulebook"] if stored else pd.Series([None] * len(games), index=games.index)
    problems = []
    for label, spec_json, text in zip(labels, games["spec_json"], texts, strict=True):
        try:
            spec = GameSpec.from_json(str(spec_json))
            gaps = consistency_errors(spec, str(text) if stored else rulebook(spec))
        except ValueError as exc:
            gaps = [f"spec does not load: {str(exc).splitlines()[0]}"]
        if gaps:
            problems.append(f"{label}: {gaps[0]}")
    figures = {"games": len(games), "inconsistent": len(problems), "rendered": not stored}
    if problems:
        message = f"{len(problems)} rulebook(s) inconsistent; {problems[0]}"
        return GateResult(False, figures, message)
    return GateResult(True, figures, f"all {len(games)} rulebooks state their spec")


def game_attestation(games: pd.DataFrame, engine_version: str) -> GateResult:
    """Each game row's ``spec_hash`` is the SHA-256 of its ``spec_json`` (the frozen spec), and
    its ``engine_version`` (when the table has one) is the frozen engine version."""
    require_columns(games, ("spec_hash", "spec_json"), "game_attestation")
    labels = game_label(games)
    digests = [hashlib.sha256(str(s).encode("utf-8")).hexdigest() for s in games["spec_json"]]
    bad_hash = [
        label
        for label, digest, stated in zip(labels, digests, games["spec_hash"], strict=True)
        if digest != stated
    ]
    bad_engine: list[str] = []
    if "engine_version" in games.columns:
        bad_engine = [
            f"{label} ({version})"
            for label, version in zip(labels, games["engine_version"], strict=True)
            if str(version) != engine_version
        ]
    figures = {
        "games": len(games),
        "engine_version": engine_version,
        "spec_hash_mismatches": len(bad_hash),
        "engine_version_mismatches": len(bad_engine),
    }
    if bad_hash:
        return GateResult(
            False, figures, f"{bad_hash[0]}: spec_hash is not the SHA-256 of its spec_json"
        )
    if bad_engine:
        return GateResult(
            False,
            figures,
            f"{bad_engine[0]}: engine_version differs from the frozen {engine_version}",
        )
    return GateResult(True, figures, f"all {len(games)} spec hashes attest their specs")


def frozen_spec_hashes(games: pd.DataFrame) -> dict[int, str]:
    """``{game seed: spec_hash}`` of a games table: its ``game_seed`` or ``seed`` column, or for
    a table of presets (no seed column) the tournament's ``game_seed`` of each preset."""
    if "game_seed" in games.columns or "seed" in games.columns:
        seed_column = "game_seed" if "game_seed" in games.columns else "seed"
        require_columns(games, ("spec_hash",), "match_attestation")
        seeds = [int(s) for s in games[seed_column]]
    else:
        require_columns(games, ("spec_json", "spec_hash"), "match_attestation")
        seeds = [preset_game_seed(GameSpec.from_json(str(s))) for s in games["spec_json"]]
    return {seed: str(digest) for seed, digest in zip(seeds, games["spec_hash"], strict=True)}


def match_attestation(
    matches: pd.DataFrame, frozen: Mapping[int, str], engine_version: str
) -> GateResult:
    """Each match row's ``spec_hash`` is the frozen hash of its game (``frozen``: game seed to
    spec hash) and its ``engine_version`` is the frozen engine version
    (``engines.tournament.corpus_checks.spec_hashes``)."""
    check = corpus_checks.spec_hashes(matches, frozen, "game_seed", engine_version)
    return GateResult.of(check)


def zero_sum(matches: pd.DataFrame) -> GateResult:
    """Chips are conserved and ``margin_alice == alice_chip_delta - bob_chip_delta`` in every
    decided match (``engines.tournament.corpus_checks.zero_sum``)."""
    return GateResult.of(corpus_checks.zero_sum(matches))


def complete_pairs(pairs: pd.DataFrame) -> GateResult:
    """Every run (game seed, run id, play seed) is exactly two decided deals with the seats
    swapped (``engines.tournament.corpus_checks.paired_runs``)."""
    return GateResult.of(corpus_checks.paired_runs(pairs))


def unfinished_moves(moves: pd.DataFrame) -> GateResult:
    """A move without an action is the last move of its match: the request that ended the match
    unanswered (a forfeit, retries spent), recorded so that every request is counted
    (``arena.tournament.play.with_unfinished``); anywhere else it is a broken transcript."""
    if moves.empty or "action" not in moves.columns:
        return GateResult(True, {"moves": len(moves), "unfinished": 0}, "no moves to check")
    missing = moves["action"].isna()
    last = moves.groupby("match_id")["index"].transform("max") == moves["index"]
    broken = moves.loc[missing & ~last]
    figures = {"moves": len(moves), "unfinished": int(missing.sum()), "broken": len(broken)}
    if len(broken):
        first = broken.iloc[0]
        return GateResult(
            False,
            figures,
            f"match {first['match_id']} has a move without an action at index "
            f"{int(first['index'])}, before its last move",
        )
    return GateResult(
        True, figures, f"{int(missing.sum())} unfinished moves, each the last of its match"
    )


# Numbers recomputed from the same data by the same code agree to rounding: the fits are
# deterministic, but a BLAS may sum in another order on another machine.
REPRODUCTION_RTOL = 1e-9
REPRODUCTION_ATOL = 1e-12


def table_difference(published: pd.DataFrame, recomputed: pd.DataFrame) -> tuple[str | None, float]:
    """How two tables differ: ``(None, largest absolute numeric difference)`` when they agree
    (same columns and rows, equal text, numbers within the tolerance, missing where the other is
    missing), else ``(what differs first, that difference)``."""
    if list(published.columns) != list(recomputed.columns):
        return f"columns {list(published.columns)} vs {list(recomputed.columns)}", float("nan")
    if len(published) != len(recomputed):
        return f"{len(published)} rows vs {len(recomputed)}", float("nan")
    largest = 0.0
    for column in published.columns:
        a = published[column].reset_index(drop=True)
        b = recomputed[column].reset_index(drop=True)
        numeric = pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b)
        if numeric and not (pd.api.types.is_bool_dtype(a) or pd.api.types.is_bool_dtype(b)):
            x, y = a.to_numpy(dtype=float), b.to_numpy(dtype=float)
            missing = np.isnan(x) | np.isnan(y)
            gap = np.abs(x - y)
            if (np.isnan(x) != np.isnan(y)).any():
                return f"{column}: missing in one table only", float("nan")
            if (gap[~missing] > REPRODUCTION_ATOL + REPRODUCTION_RTOL * np.abs(y[~missing])).any():
                return f"{column} differs by up to {float(gap[~missing].max()):.3g}", float(
                    gap[~missing].max()
                )
            largest = max(largest, float(gap[~missing].max()) if (~missing).any() else 0.0)
        elif not (a.isna() == b.isna()).all() or not (a[a.notna()] == b[b.notna()]).all():
            return f"{column}: values differ", float("nan")
    return None, largest


def reproduction(pairs: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]]) -> GateResult:
    """Gate: each published table (``{name: (published, recomputed)}``) equals the table
    recomputed from the released data (:func:`table_difference`); passed, as not applicable,
    when there is nothing to compare."""
    if not pairs:
        return GateResult(True, {"tables": 0}, "not applicable: nothing recomputed")
    figures: dict[str, Any] = {}
    for name, (published, recomputed) in pairs.items():
        problem, gap = table_difference(published, recomputed)
        shown = gap if np.isfinite(gap) else None  # JSON has no NaN
        figures[name] = {"rows": len(published), "max_abs_difference": shown}
        if problem is not None:
            return GateResult(
                False,
                figures,
                f"{name}: the release's own recomputation differs ({problem}); "
                f"rematerialize {name} from the released data and settings",
            )
    names = ", ".join(pairs)
    return GateResult(True, figures, f"recomputed from the released data: {names}")
