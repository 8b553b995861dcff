"""The checks of a match corpus (paper, Section 5 "Prompting and corpus"; Appendix J).

Why it exists: the same properties guard the corpus in three places (the blocking checks of
``match_corpus`` per game, those of ``complete_pairs``, and the release gates in front of
``release_bundle``), and a corpus must not pass in one place and fail in another. Each check
is written once, here, as a pure function of a table that returns a :class:`CheckResult`:
every problem (one line each, for asset-check metadata), small JSON-able figures (for a
release's integrity card) and one message line (a count and the first problem). A check never
raises for bad data; it raises ``ValueError`` only when the table lacks a column it needs.

- :func:`zero_sum`: chips are conserved and ``margin_alice`` is alice's gain minus bob's, in
  every decided match (timeouts and errors carry no result);
- :func:`spec_hashes`: every match's spec hash is its game's (and, for a release, its engine
  version the frozen one);
- :func:`unique_match_ids`: no match id appears twice;
- :func:`paired_runs`: every run is exactly two decided deals with the seats swapped (the
  "complete pairs" of the paper; both seats of every run present);
- :func:`fallback_bound`: each model's parse-fallback rate (:func:`fallback_rates`) is within a
  bound; the paper's worst model fell back on 0.33% of its moves, the default bound is three
  times that, since a small corpus makes rates noisy.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from engines.gbg.spec import SEATS
from engines.tournament.pairs import RUN_KEY, run_sizes
from engines.tournament.records import DECIDED_STATUSES

PAPER_WORST_FALLBACK_RATE = 0.0033
MAX_FALLBACK_RATE = round(3 * PAPER_WORST_FALLBACK_RATE, 6)
# Chip deltas are whole chips in the engine; the tolerance only absorbs float storage.
CHIP_TOLERANCE = 1e-9


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: its problems (empty when it passed), figures and message."""

    problems: tuple[str, ...]
    figures: dict[str, Any]
    message: str

    @property
    def passed(self) -> bool:
        return not self.problems


def require_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """Raise ``ValueError`` naming the columns ``frame`` lacks for the check ``what``."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} needs column(s) {', '.join(missing)}, which the table lacks")


def _verdict(
    problems: Sequence[str], figures: dict[str, Any], headline: str, ok: str
) -> CheckResult:
    """``headline; first problem`` when anything is wrong, else the ``ok`` line."""
    if problems:
        return CheckResult(tuple(problems), figures, f"{headline}; {problems[0]}")
    return CheckResult((), figures, ok)


def _number(value: float) -> str:
    """A count as a whole number when it is one (half moves stay fractional)."""
    return str(int(value)) if float(value).is_integer() else f"{float(value):g}"


def zero_sum(matches: pd.DataFrame) -> CheckResult:
    """``alice_chip_delta + bob_chip_delta == 0`` and ``margin_alice == alice_chip_delta -
    bob_chip_delta`` in every decided match (a timeout or an error has no result to check)."""
    require_columns(
        matches,
        ("match_id", "status", "alice_chip_delta", "bob_chip_delta", "margin_alice"),
        "zero_sum",
    )
    decided = matches.loc[matches["status"].isin(DECIDED_STATUSES)]
    alice = pd.to_numeric(decided["alice_chip_delta"], errors="coerce").to_numpy(dtype=float)
    bob = pd.to_numeric(decided["bob_chip_delta"], errors="coerce").to_numpy(dtype=float)
    margin = pd.to_numeric(decided["margin_alice"], errors="coerce").to_numpy(dtype=float)
    ids = decided["match_id"].to_numpy()
    missing = ~(np.isfinite(alice) & np.isfinite(bob) & np.isfinite(margin))
    leak = ~missing & (np.abs(alice + bob) > CHIP_TOLERANCE)
    wrong_margin = ~missing & ~leak & (np.abs(margin - (alice - bob)) > CHIP_TOLERANCE)
    problems = [f"match {ids[k]}: a chip column is missing" for k in np.flatnonzero(missing)]
    problems += [
        f"match {ids[k]}: alice {alice[k]:+g} + bob {bob[k]:+g} != 0" for k in np.flatnonzero(leak)
    ]
    problems += [
        f"match {ids[k]}: margin_alice {margin[k]:g} is not {alice[k] - bob[k]:g}"
        for k in np.flatnonzero(wrong_margin)
    ]
    figures = {
        "matches": len(matches),
        "missing_values": int(missing.sum()),
        "not_conserved": int(leak.sum()),
        "margin_mismatches": int(wrong_margin.sum()),
    }
    if missing.any():
        headline = f"{int(missing.sum())} decided match(es) lack a chip value"
    elif leak.any():
        headline = f"{int(leak.sum())} match(es) create or destroy chips"
    else:
        headline = f"{int(wrong_margin.sum())} margin(s) wrong"
    undecided = len(matches) - len(decided)
    ok = f"all {len(matches)} matches are zero-sum"
    if undecided:
        ok = f"all {len(decided)} decided matches are zero-sum ({undecided} without a result)"
    return _verdict(problems, figures, headline, ok)


def _game(value: Hashable) -> str:
    """``game 'kuhn'`` for a game token, ``game 7`` for a game seed."""
    return f"game {value!r}" if isinstance(value, str) else f"game {value}"


def spec_hashes(
    matches: pd.DataFrame,
    expected: Mapping[Any, str],
    key: str = "game",
    engine_version: str | None = None,
) -> CheckResult:
    """Every match was played on a known game (``expected``: the ``key`` column's value, a
    game token or seed, to its spec hash) and carries that game's spec hash; with
    ``engine_version``, every match was also played under that engine version."""
    require_columns(
        matches,
        (key, "spec_hash", *(("engine_version",) if engine_version is not None else ())),
        "spec_hashes",
    )
    want = matches[key].map(lambda value: expected.get(value))
    unknown = want.isna()
    wrong_hash = ~unknown & (want != matches["spec_hash"].astype(str))
    problems: list[str] = []
    for value, rows in matches.loc[unknown].groupby(key, sort=True)[key]:
        problems.append(
            f"{_game(value)} is not a benchmark game: its {len(rows)} match(es) were played "
            "outside the frozen set"
        )
    for value, rows in matches.loc[wrong_hash].groupby(key, sort=True)[key]:
        problems.append(
            f"{_game(value)}: {len(rows)} matches have a spec hash that differs from its "
            f"frozen game ({expected[value]})"
        )
    figures: dict[str, Any] = {
        "matches": len(matches),
        "unknown_games": int(unknown.sum()),
        "spec_hash_mismatches": int(wrong_hash.sum()),
    }
    failing = unknown | wrong_hash
    ok = f"all {len(matches)} matches carry their game's spec hash"
    if engine_version is not None:
        versions = matches["engine_version"].astype(str)
        wrong_engine = versions != engine_version
        if wrong_engine.any():
            stated = ", ".join(sorted(set(versions[wrong_engine])))
            problems.append(
                f"{int(wrong_engine.sum())} match(es) have an engine_version ({stated}) other "
                f"than the frozen {engine_version}"
            )
        figures["engine_version"] = engine_version
        figures["engine_version_mismatches"] = int(wrong_engine.sum())
        failing = failing | wrong_engine
        ok = f"all {len(matches)} matches attest to the frozen inputs"
    headline = f"{int(failing.sum())} match(es) fail attestation"
    return _verdict(problems, figures, headline, ok)


def unique_match_ids(matches: pd.DataFrame) -> CheckResult:
    """No match id appears twice."""
    require_columns(matches, ("match_id",), "unique_match_ids")
    repeated = sorted(set(matches.loc[matches["match_id"].duplicated(), "match_id"]))
    problems = [f"match id {m} appears more than once" for m in repeated]
    figures = {"matches": len(matches), "repeated_ids": len(repeated)}
    headline = f"{len(repeated)} match id(s) appear more than once"
    return _verdict(problems, figures, headline, f"all {len(matches)} match ids are unique")


def paired_runs(pairs: pd.DataFrame) -> CheckResult:
    """Every run (game seed, run id, play seed) is exactly two deals with the seats swapped,
    both decided, and two different models in the seats."""
    require_columns(pairs, (*RUN_KEY, "alice", "bob", "status"), "complete_pairs")
    if pairs.empty:
        return CheckResult((), {"runs": 0, "deals": 0}, "no runs to check")
    frame = pairs.sort_values([*RUN_KEY, "alice"], kind="stable").reset_index(drop=True)
    _, deals, n_decided = run_sizes(frame)
    first = frame.groupby(list(RUN_KEY), sort=False, dropna=False).cumcount().eq(0)
    complete = n_decided.eq(deals)
    n_runs = int(first.sum())
    problems: list[str] = []

    def name(k: int) -> str:
        return f"run {frame.at[k, 'run_id']} (seed {frame.at[k, 'game_seed']})"

    for k in np.flatnonzero(first & deals.ne(2)):
        problems.append(f"{name(int(k))} has {deals.iat[k]} deal(s), not 2")
    for k in np.flatnonzero(first & deals.eq(2) & ~complete):
        statuses = frame.loc[int(k) : int(k) + 1, "status"].astype(str)
        problems.append(f"{name(int(k))} is not complete (status {', '.join(statuses)})")
    paired = np.flatnonzero(first & deals.eq(2) & complete)
    one, two = frame.iloc[paired], frame.iloc[paired + 1]
    alice, bob = one["alice"].to_numpy(), one["bob"].to_numpy()
    swapped = (alice == two["bob"].to_numpy()) & (bob == two["alice"].to_numpy())
    for k in paired[~swapped]:
        problems.append(f"{name(int(k))}: its two deals do not swap the seats")
    for k in paired[swapped & (alice == bob)]:
        problems.append(f"{name(int(k))}: the same model sits in both seats")
    figures = {"runs": n_runs, "deals": len(pairs), "bad_runs": len(problems)}
    headline = f"{len(problems)} run(s) not complete pairs"
    return _verdict(
        problems, figures, headline, f"all {n_runs} runs are complete seat-swapped pairs"
    )


def fallback_rates(matches: pd.DataFrame) -> pd.DataFrame:
    """Per model (sorted): moves, fallbacks (and rethinks, when recorded) and their rates.

    A model's moves in a match are ``moves_alice``/``moves_bob`` when the table has them, else
    half of ``n_moves`` (the two seats of a heads-up deal take turns); the rates are sums over
    every match the model played, in either seat.
    """
    seat_columns = [f"fallbacks_{seat}" for seat in SEATS]
    require_columns(matches, (*SEATS, *seat_columns), "fallback_rates")
    if not all(f"moves_{seat}" in matches for seat in SEATS):
        require_columns(matches, ("n_moves",), "fallback_rates")
    counted = ["fallbacks"]
    if all(f"rethinks_{seat}" in matches for seat in SEATS):
        counted.append("rethinks")
    parts = []
    for seat in SEATS:
        moves_column = f"moves_{seat}"
        if moves_column in matches:
            moves = pd.to_numeric(matches[moves_column], errors="coerce").fillna(0).astype("int64")
        else:
            moves = pd.to_numeric(matches["n_moves"], errors="coerce").astype(float) / 2.0
        part = {"model": matches[seat].astype(str), "moves": moves}
        for what in counted:
            column = pd.to_numeric(matches[f"{what}_{seat}"], errors="coerce")
            part[what] = column.fillna(0).astype("int64")
        parts.append(pd.DataFrame(part))
    summed = pd.concat(parts).groupby("model", as_index=False)[["moves", *counted]].sum()
    moves_or_nan = summed["moves"].where(summed["moves"] > 0)
    for what in counted:
        summed[f"{what[:-1]}_rate"] = (summed[what] / moves_or_nan).fillna(0.0)
    return summed


def fallback_bound(matches: pd.DataFrame, max_rate: float = MAX_FALLBACK_RATE) -> CheckResult:
    """Each model's share of its moves that were parse fallbacks is at most ``max_rate``."""
    rates = fallback_rates(matches)
    if rates.empty:
        return CheckResult((), {"max_rate": max_rate, "models": 0}, "no matches to check")
    by_model = rates.set_index("model")
    worst = str(by_model["fallback_rate"].idxmax())
    worst_rate = float(by_model.at[worst, "fallback_rate"])
    figures = {
        "max_rate": max_rate,
        "models": len(rates),
        "fallbacks": int(rates["fallbacks"].sum()),
        "rates": {str(m): round(float(r), 6) for m, r in by_model["fallback_rate"].items()},
        "worst_model": worst,
        "worst_rate": round(worst_rate, 6),
    }
    over = rates.loc[rates["fallback_rate"] > max_rate]
    problems = [
        f"{row.model}: fallback on {row.fallback_rate:.2%} of {_number(row.moves)} moves "
        f"(bound {max_rate:.2%})"
        for row in over.itertuples(index=False)
    ]
    if problems:
        message = (
            f"{len(problems)} model(s) above the {max_rate:.2%} parse-fallback bound; worst "
            f"{worst} at {worst_rate:.2%} ({int(by_model.at[worst, 'fallbacks'])} fallbacks)"
        )
        return CheckResult(tuple(problems), figures, message)
    message = f"every model within {max_rate:.2%} parse fallbacks"
    return CheckResult((), figures, f"{message} (worst {worst} at {worst_rate:.2%})")
