"""The release gates over tables: plain functions that return ``(passed, figures, message)``.

Why it exists: DESIGN.md ("Stages") puts blocking gates in front of ``release_bundle``, and a
release's integrity card records each gate with its verdict and figures (GameBench 2,
Section 3). Each function here checks one property of the data contracts (DESIGN.md, "Data
contracts"), names the first offending row in its message, and never raises for bad data;
it raises ``ValueError`` only when a table lacks the columns the gate needs.

- :func:`fallback_rates`: parse-fallback rate per model within a bound.
- :func:`rulebook_consistency`: every game's rulebook states every item of its spec.
- :func:`game_attestation`: each game's spec hash is the SHA-256 of its spec, under the
  frozen engine version.
- :func:`match_attestation`: each match row's spec hash and engine version match the frozen
  games it was played on.
- :func:`zero_sum`: chip conservation and the margin identity of every match.
- :func:`complete_pairs`: every run is two seat-swapped deals, both complete.

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
from engines.tournament.pairs import PAPER_WORST_FALLBACK_RATE
from engines.tournament.records import DECIDED_STATUSES
from engines.tournament.schedule import preset_game_seed

# The bound on parse fallbacks: three times the worst model of the GENSTRAT paper (0.33% of
# moves, Section 4 and Appendix J), as in the complete_pairs check. A model above it is
# measured on its parser, not its play.
DEFAULT_MAX_FALLBACK_RATE = round(3 * PAPER_WORST_FALLBACK_RATE, 6)
# Chip deltas are whole chips in the engine; the tolerance only absorbs float storage.
CHIP_TOLERANCE = 1e-9
RUN_KEY = ("game_seed", "run_id", "play_seed")


class GateResult(NamedTuple):
    """The verdict of one gate: whether it passed, its figures (JSON-able), one line of text."""

    passed: bool
    figures: dict[str, Any]
    message: str

    def as_dict(self) -> dict[str, Any]:
        """The integrity-card form: ``{"passed", "figures", "message"}``."""
        return {"passed": self.passed, "figures": self.figures, "message": self.message}


def require_columns(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    """Raise ``ValueError`` naming the columns ``frame`` lacks for the gate ``what``."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} needs column(s) {', '.join(missing)}, which the table lacks")


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
    """Each model's share of its moves that were parse fallbacks is at most ``max_rate``.

    A model's moves in a match are ``moves_alice``/``moves_bob`` when the table has them, else
    half of ``n_moves`` (the two seats of a heads-up deal take turns). The rate is the model's
    fallbacks over its moves, summed over every match it played in either seat.
    """
    require_columns(
        matches, ("alice", "bob", "n_moves", "fallbacks_alice", "fallbacks_bob"), "fallback_rates"
    )
    if matches.empty:
        return GateResult(True, {"max_rate": max_rate, "models": 0}, "no matches to check")
    half = pd.to_numeric(matches["n_moves"], errors="coerce").astype(float) / 2.0
    seats = []
    for seat in ("alice", "bob"):
        moves_column = f"moves_{seat}"
        moves = matches[moves_column].astype(float) if moves_column in matches else half
        seats.append(
            pd.DataFrame(
                {
                    "model": matches[seat].astype(str).to_numpy(),
                    "fallbacks": pd.to_numeric(matches[f"fallbacks_{seat}"], errors="coerce")
                    .astype(float)
                    .to_numpy(),
                    "moves": moves.to_numpy(),
                }
            )
        )
    totals = pd.concat(seats).groupby("model", sort=True)[["fallbacks", "moves"]].sum()
    rates = (totals["fallbacks"] / totals["moves"].where(totals["moves"] > 0)).fillna(0.0)
    worst = str(rates.idxmax())
    figures = {
        "max_rate": max_rate,
        "models": len(rates),
        "fallbacks": int(totals["fallbacks"].sum()),
        "rates": {str(m): round(float(r), 6) for m, r in rates.items()},
        "worst_model": worst,
        "worst_rate": round(float(rates[worst]), 6),
    }
    over = rates[rates > max_rate]
    if not over.empty:
        return GateResult(
            False,
            figures,
            f"{len(over)} model(s) above the {max_rate:.2%} parse-fallback bound; worst "
            f"{worst} at {rates[worst]:.2%} ({int(totals.loc[worst, 'fallbacks'])} fallbacks)",
        )
    return GateResult(
        True,
        figures,
        f"every model within {max_rate:.2%} parse fallbacks (worst {worst} at {rates[worst]:.2%})",
    )


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
    spec hash) and its ``engine_version`` is the frozen engine version."""
    require_columns(
        matches, ("match_id", "game_seed", "spec_hash", "engine_version"), "match_attestation"
    )
    expected = matches["game_seed"].map(lambda s: frozen.get(int(s)))
    unknown = expected.isna()
    wrong_hash = ~unknown & (expected != matches["spec_hash"].astype(str))
    wrong_engine = matches["engine_version"].astype(str) != engine_version
    figures = {
        "matches": len(matches),
        "engine_version": engine_version,
        "unknown_games": int(unknown.sum()),
        "spec_hash_mismatches": int(wrong_hash.sum()),
        "engine_version_mismatches": int(wrong_engine.sum()),
    }
    for mask, what in (
        (unknown, "was played on a game outside the frozen set"),
        (wrong_hash, "has a spec_hash that differs from its frozen game"),
        (wrong_engine, f"has an engine_version other than the frozen {engine_version}"),
    ):
        if mask.any():
            row = matches.loc[mask].iloc[0]
            return GateResult(
                False,
                figures,
                f"{int(mask.sum())} match(es) fail attestation; match {row['match_id']} "
                f"(seed {row['game_seed']}) {what}",
            )
    return GateResult(True, figures, f"all {len(matches)} matches attest to the frozen inputs")


def zero_sum(matches: pd.DataFrame) -> GateResult:
    """Chips are conserved (``alice_chip_delta + bob_chip_delta == 0``) and
    ``margin_alice == alice_chip_delta - bob_chip_delta`` in every match."""
    require_columns(
        matches,
        ("match_id", "alice_chip_delta", "bob_chip_delta", "margin_alice"),
        "zero_sum",
    )
    alice = pd.to_numeric(matches["alice_chip_delta"], errors="coerce").to_numpy(dtype=float)
    bob = pd.to_numeric(matches["bob_chip_delta"], errors="coerce").to_numpy(dtype=float)
    margin = pd.to_numeric(matches["margin_alice"], errors="coerce").to_numpy(dtype=float)
    missing = ~(np.isfinite(alice) & np.isfinite(bob) & np.isfinite(margin))
    leak = ~missing & (np.abs(alice + bob) > CHIP_TOLERANCE)
    wrong_margin = ~missing & ~leak & (np.abs(margin - (alice - bob)) > CHIP_TOLERANCE)
    figures = {
        "matches": len(matches),
        "missing_values": int(missing.sum()),
        "not_conserved": int(leak.sum()),
        "margin_mismatches": int(wrong_margin.sum()),
    }
    ids = matches["match_id"].to_numpy()
    if missing.any():
        return GateResult(False, figures, f"match {ids[missing][0]}: a chip column is missing")
    if leak.any():
        k = int(np.flatnonzero(leak)[0])
        return GateResult(
            False,
            figures,
            f"{int(leak.sum())} match(es) create or destroy chips; match {ids[k]}: "
            f"alice {alice[k]:+g} + bob {bob[k]:+g} != 0",
        )
    if wrong_margin.any():
        k = int(np.flatnonzero(wrong_margin)[0])
        return GateResult(
            False,
            figures,
            f"{int(wrong_margin.sum())} margin(s) wrong; match {ids[k]}: margin_alice "
            f"{margin[k]:+g} != {alice[k]:+g} - {bob[k]:+g}",
        )
    return GateResult(True, figures, f"all {len(matches)} matches are zero-sum")


def complete_pairs(pairs: pd.DataFrame) -> GateResult:
    """Every run (game seed, run id, play seed) is exactly two deals with the seats swapped,
    both with status ``complete``."""
    require_columns(pairs, (*RUN_KEY, "alice", "bob", "status"), "complete_pairs")
    if pairs.empty:
        return GateResult(True, {"runs": 0, "deals": 0}, "no runs to check")
    frame = pairs.sort_values([*RUN_KEY, "alice"], kind="stable").reset_index(drop=True)
    group = frame.groupby(list(RUN_KEY), sort=False, dropna=False)
    size = group["status"].transform("size")
    complete = (
        frame["status"].isin(DECIDED_STATUSES).groupby([frame[k] for k in RUN_KEY]).transform("all")
    )
    first = group.cumcount().eq(0)
    n_runs = int(first.sum())
    problems: list[str] = []

    def name(k: int) -> str:
        return f"run {frame.at[k, 'run_id']} (seed {frame.at[k, 'game_seed']})"

    for k in np.flatnonzero(first & size.ne(2)):
        problems.append(f"{name(int(k))} has {size.iat[k]} deal(s), not 2")
    for k in np.flatnonzero(first & size.eq(2) & ~complete):
        statuses = frame.loc[int(k) : int(k) + 1, "status"].astype(str)
        problems.append(f"{name(int(k))} is not complete (status {', '.join(statuses)})")
    paired = np.flatnonzero(first & size.eq(2) & complete)
    one, two = frame.iloc[paired], frame.iloc[paired + 1]
    alice, bob = one["alice"].to_numpy(), one["bob"].to_numpy()
    swapped = (alice == two["bob"].to_numpy()) & (bob == two["alice"].to_numpy())
    for k in paired[~swapped]:
        problems.append(f"{name(int(k))}: its two deals do not swap the seats")
    for k in paired[swapped & (alice == bob)]:
        problems.append(f"{name(int(k))}: the same model sits in both seats")
    figures = {"runs": n_runs, "deals": len(pairs), "bad_runs": len(problems)}
    if problems:
        message = f"{len(problems)} run(s) not complete pairs; {problems[0]}"
        return GateResult(False, figures, message)
    return GateResult(True, figures, f"all {n_runs} runs are complete seat-swapped pairs")
