"""The ``werewolf`` group's release: a Werewolf tournament published as a versioned,
hash-attested bundle (issue 47, item 4).

Why it exists: the generated benchmark's release (``releases.contents.publish_release``) is
built around two-player, zero-sum matches (complete pairs, chip conservation, the Section 6
analysis); a Werewolf tournament is eight players in two teams, so its release has its own
tables and gates and the same store, bundle, redaction scan, identity and verification
(``releases.store.publish``, ``releases.bundle``).

Tables (declared in ``quality/schema.py``):

- ``werewolf_games``, ``werewolf_seats``, ``werewolf_decisions``: the tournament
  (``arena.werewolf.tables``); the decisions without their wall-clock column (``latency_s``)
  and with their free text redacted of credentials, URL credentials and this machine's folders
  (``releases.contents.redacted``);
- ``werewolf_ratings`` (per model and role), ``werewolf_overall`` (per model),
  ``werewolf_win_rates`` (per team and role) and ``werewolf_fit`` (the intercept, the games,
  the bootstrap's size and seed): ``engines.stats.werewolf.role_ratings`` of the seats;
- ``werewolf_players``: every player, a model of the roster or a built-in bot with its
  habits; ``roster``: the roster's models that played (as ``releases.contents`` releases it).

Gates, in the integrity card's order (:func:`werewolf_gates`; the redaction scan comes last):

1. ``schema``: every table and column declared and typed as declared (``quality.schema``);
2. ``attestation``: every game is of this engine version, and replays from its deal, rules and
   moves to its recorded winner, reason and length with every rule's invariant holding
   (``engines.werewolf.conformance``); its decisions are its moves; its seats its deal;
3. ``balance``: every game deals the deck's roles and every player played (the ratings'
   design, ``engines.stats.werewolf.design``);
4. ``forfeits``: no model forfeited more than ``max_forfeit_rate`` of its turns (the
   generated release's ``parse_fallbacks``);
5. ``reproduction``: the released ratings equal their refit from the released seats with the
   recorded bootstrap size and seed.

The manifest records ``"benchmark": "werewolf"`` and the engine version
``engines.werewolf.rules.ENGINE_VERSION``; the id is content-addressed as every release's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arena.secrets import environment_secrets
from arena.werewolf.tables import DECISION_TEXT, game_moves, replayed
from engines.stats.werewolf import role_ratings
from engines.werewolf.conformance import violations
from engines.werewolf.roles import NAMES
from engines.werewolf.rules import ENGINE_VERSION
from engines.werewolf.state import Move
from quality.gates import GateResult
from quality.redaction import HostPaths
from quality.schema import schema_gate
from releases.bundle import ReleaseContext
from releases.contents import documents, redacted, released_roster, roster_records
from releases.store import Published, publish

BENCHMARK = "werewolf"
"""The ``benchmark`` the manifest of the group's release records."""

GAMES = "werewolf_games"
SEATS = "werewolf_seats"
DECISIONS = "werewolf_decisions"
RATINGS = "werewolf_ratings"
OVERALL = "werewolf_overall"
WIN_RATES = "werewolf_win_rates"
FIT = "werewolf_fit"
PLAYERS = "werewolf_players"
ROSTER = "roster"
GATE_NAMES = ("schema", "attestation", "balance", "forfeits", "reproduction")
DEFAULT_MAX_FORFEIT_RATE = 0.25
WALL_CLOCK = ("latency_s",)


def rating_tables(seats: pd.DataFrame, n_boot: int, seed: int) -> dict[str, pd.DataFrame]:
    """The role-decomposed ratings of a seat table (``engines.stats.werewolf.role_ratings``
    with ``n_boot`` replicates from ``numpy.random.default_rng(seed)``) as four tables."""
    fitted = role_ratings(seats, n_boot, np.random.default_rng(seed))
    fit = pd.DataFrame(
        [
            {
                "games": fitted.games,
                "alpha": fitted.alpha,
                "alpha_ci_low": fitted.alpha_interval[0],
                "alpha_ci_high": fitted.alpha_interval[1],
                "n_boot": n_boot,
                "seed": seed,
            }
        ]
    ).astype({"games": "int64", "n_boot": "int64", "seed": "int64"})
    win_rates = fitted.win_rates.astype({"seats": "int64"})
    return {RATINGS: fitted.ratings, OVERALL: fitted.overall, WIN_RATES: win_rates, FIT: fit}


def released_decisions(
    decisions: pd.DataFrame, secrets: tuple[str, ...] | None = None, host: HostPaths | None = None
) -> pd.DataFrame:
    """The decisions as released: no wall-clock column, the free text redacted."""
    secrets = environment_secrets() if secrets is None else secrets
    host = HostPaths.of() if host is None else host
    kept = decisions.drop(columns=list(WALL_CLOCK), errors="ignore").reset_index(drop=True)
    for column in DECISION_TEXT:
        if column in kept.columns:
            values = [redacted(v, secrets, host) for v in kept[column]]
            kept[column] = pd.Series(values, index=kept.index, dtype=kept[column].dtype)
    return kept


def werewolf_release_tables(
    tournament: Mapping[str, pd.DataFrame],
    ratings: Mapping[str, pd.DataFrame],
    roster: pd.DataFrame | None,
    secrets: tuple[str, ...] | None = None,
) -> dict[str, pd.DataFrame]:
    """The tables of a release (module docstring) from the tournament's tables
    (``werewolf_games``, ``werewolf_seats``, ``werewolf_decisions``, ``werewolf_players``), its
    rating tables (:func:`rating_tables`) and the roster table (only its models that played are
    released)."""
    seats = tournament[SEATS]
    tables = {
        GAMES: tournament[GAMES].reset_index(drop=True),
        SEATS: seats.reset_index(drop=True),
        DECISIONS: released_decisions(tournament[DECISIONS], secrets),
        PLAYERS: tournament[PLAYERS].reset_index(drop=True),
        **{
            name: ratings[name].reset_index(drop=True)
            for name in (RATINGS, OVERALL, WIN_RATES, FIT)
        },
    }
    if roster is not None and not roster.empty:
        played = set(seats["player"].astype(str))
        kept = roster.loc[roster["name"].astype(str).isin(played)].reset_index(drop=True)
        if not kept.empty:
            tables[ROSTER] = released_roster(kept)
    return tables


def _moves_of(decisions: pd.DataFrame) -> dict[str, list[tuple[int, str, str]]]:
    """Per game, the decisions as (ply, seat name, action), in ply order."""
    out: dict[str, list[tuple[int, str, str]]] = {}
    ordered = decisions.sort_values(["game_id", "ply"], kind="stable")
    for game, ply, seat, action in zip(
        ordered["game_id"], ordered["ply"], ordered["seat"], ordered["action"], strict=True
    ):
        out.setdefault(str(game), []).append((int(ply), str(seat), str(action)))
    return out


def attestation(tables: Mapping[str, pd.DataFrame]) -> GateResult:
    """Gate 2 of the module docstring."""
    games = tables.get(GAMES)
    if games is None or games.empty:
        return GateResult(False, {"games": 0}, "the release has no werewolf_games")
    decisions = _moves_of(tables[DECISIONS]) if DECISIONS in tables else {}
    seats = tables.get(SEATS)
    seat_roles: dict[str, list[str]] = {}
    if seats is not None:
        for game, group in seats.sort_values(["game_id", "seat"]).groupby("game_id"):
            seat_roles[str(game)] = [str(r) for r in group["role"]]
    problems: list[str] = []
    for row in games.to_dict("records"):
        game = str(row["game_id"])
        if str(row["engine_version"]) != ENGINE_VERSION:
            problems.append(f"{game}: engine {row['engine_version']}, not {ENGINE_VERSION}")
            continue
        try:
            state = replayed(row)
        except ValueError as exc:
            problems.append(f"{game}: its moves do not replay ({exc})")
            continue
        recorded = (str(row["winner"]), str(row["end_reason"]), int(row["days"]))
        found = (str(state.winner), str(state.end_reason), state.day)
        if not state.is_over or found != recorded:
            problems.append(f"{game}: replays to {found}, recorded {recorded}")
        problems += [f"{game}: {v}" for v in violations(state)[:3]]
        moves: list[Move] = game_moves(row)
        said = [(m.ply, NAMES[m.seat], m.action) for m in moves]
        if DECISIONS in tables and decisions.get(game, []) != said:
            problems.append(f"{game}: its decisions are not its moves")
        if seats is not None and seat_roles.get(game) != [str(r) for r in row["roles"]]:
            problems.append(f"{game}: its seats do not hold its deal")
    figures = {"games": len(games), "problems": problems[:10]}
    if problems:
        return GateResult(False, figures, f"{len(problems)} problem(s); {problems[0]}")
    return GateResult(True, figures, f"{len(games)} game(s) replay to their recorded outcome")


def balance(tables: Mapping[str, pd.DataFrame]) -> GateResult:
    """Gate 3 of the module docstring."""
    from engines.stats.werewolf import design

    seats = tables.get(SEATS)
    if seats is None or seats.empty:
        return GateResult(False, {"seats": 0}, "the release has no werewolf_seats")
    try:
        d = design(seats)
    except ValueError as exc:
        return GateResult(False, {"seats": len(seats)}, str(exc))
    named = set(tables[PLAYERS]["name"].astype(str)) if PLAYERS in tables else set(d.models)
    idle = sorted(named - set(d.models))
    unknown = sorted(set(d.models) - named)
    figures = {"games": len(d.games), "players": len(d.models), "idle": idle, "unknown": unknown}
    if unknown:
        return GateResult(False, figures, f"seat(s) held by unlisted player(s) {unknown}")
    if idle:
        return GateResult(False, figures, f"player(s) {idle} held no seat")
    return GateResult(True, figures, f"{len(d.games)} game(s) deal the deck to the players")


def forfeits(tables: Mapping[str, pd.DataFrame], max_rate: float) -> GateResult:
    """Gate 4 of the module docstring."""
    decisions = tables.get(DECISIONS)
    if decisions is None or decisions.empty:
        return GateResult(True, {"players": {}}, "not applicable: no decisions")
    rates = decisions.assign(f=decisions["forfeit"].notna()).groupby("player")["f"].mean()
    figures = {"max_rate": max_rate, "players": {str(k): float(v) for k, v in rates.items()}}
    over = [(str(k), float(v)) for k, v in rates.items() if v > max_rate]
    if over:
        name, rate = over[0]
        return GateResult(False, figures, f"{name} forfeited {rate:.1%} of its turns")
    return GateResult(True, figures, f"every player forfeited at most {max_rate:.0%}")


def reproduction(tables: Mapping[str, pd.DataFrame]) -> GateResult:
    """Gate 5 of the module docstring."""
    if FIT not in tables or SEATS not in tables:
        return GateResult(False, {}, "the release has no werewolf_fit or werewolf_seats")
    fit = tables[FIT].iloc[0]
    try:
        again = rating_tables(tables[SEATS], int(fit["n_boot"]), int(fit["seed"]))
    except ValueError as exc:
        return GateResult(False, {}, f"the seats cannot be refitted: {exc}")
    differ = []
    for name, frame in again.items():
        released = tables.get(name)
        if released is None or not _same(released, frame):
            differ.append(name)
    figures = {"tables": sorted(again), "differ": differ}
    if differ:
        return GateResult(False, figures, f"{differ[0]} differs from its refit from the seats")
    return GateResult(True, figures, "the ratings equal their refit from the released seats")


def _same(left: pd.DataFrame, right: pd.DataFrame) -> bool:
    if list(left.columns) != list(right.columns) or len(left) != len(right):
        return False
    for column in left.columns:
        a, b = left[column].reset_index(drop=True), right[column].reset_index(drop=True)
        if pd.api.types.is_float_dtype(a) and pd.api.types.is_float_dtype(b):
            if not np.allclose(a.to_numpy(), b.to_numpy(), rtol=1e-9, atol=1e-12, equal_nan=True):
                return False
        elif not a.astype(str).equals(b.astype(str)):
            return False
    return True


def werewolf_gates(
    tables: Mapping[str, pd.DataFrame], max_forfeit_rate: float = DEFAULT_MAX_FORFEIT_RATE
) -> dict[str, GateResult]:
    """Every gate of the module docstring over the release's ``tables``, by name."""
    problems = [p for name, frame in tables.items() for p in _schema_problems(name, frame)]
    schema = (
        GateResult(False, {"problems": problems[:10]}, problems[0])
        if problems
        else GateResult(True, {"tables": len(tables)}, f"{len(tables)} declared table(s)")
    )
    return {
        "schema": schema,
        "attestation": attestation(tables),
        "balance": balance(tables),
        "forfeits": forfeits(tables, max_forfeit_rate),
        "reproduction": reproduction(tables),
    }


def _schema_problems(name: str, frame: pd.DataFrame) -> list[str]:
    result = schema_gate(name, frame)
    return [] if result.passed else [result.message]


def publish_werewolf_release(
    tables: Mapping[str, pd.DataFrame],
    profile: Mapping[str, Any],
    store: Path,
    *,
    max_forfeit_rate: float = DEFAULT_MAX_FORFEIT_RATE,
    settings: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[Published, dict[str, GateResult]]:
    """Publish ``tables`` (:func:`werewolf_release_tables`) into ``store`` past every gate
    (write, audit, publish: ``releases.store.publish`` raises ``GateFailed`` naming the first
    failing gate and leaves the store as it was); the published release and its gates.
    ``settings``: the tournament's settings (rules, schedule), recorded in the manifest with
    the profile's."""
    gates = werewolf_gates(tables, max_forfeit_rate)
    context = ReleaseContext(
        benchmark=BENCHMARK,
        engine_version=ENGINE_VERSION,
        profile=str(profile["name"]),
        profile_settings={
            **{k: v for k, v in profile.items() if k != "name"},
            "werewolf": dict(settings or {}),
        },
        roster=roster_records(tables),
        results={"games": len(tables[GAMES])},
        title="GENSTRAT Werewolf release",
    )
    published = publish(tables, documents(tables), {}, context, store, gates=gates, environ=environ)
    return published, gates


def player_table(models: Sequence[str], bots: Mapping[str, str]) -> pd.DataFrame:
    """``werewolf_players``: each model of the roster (``kind`` ``model``, ``spec`` empty) and
    each built-in bot (``kind`` ``bot``, ``spec`` as ``KIND[:HABIT=false,...]``), by name."""
    rows = [{"name": m, "kind": "model", "spec": ""} for m in models]
    rows += [{"name": n, "kind": "bot", "spec": s} for n, s in bots.items()]
    return pd.DataFrame(rows, columns=["name", "kind", "spec"])
