"""All ablations end to end (paper, Section 8): what the ``ablations`` asset runs.

Steps of ``run_ablations``:

1. players: the built-in players given, a built-in sibling family (``search`` at depth 1 and
   2, family ``search``, variants ``low``/``high``) and, when configured, LLM players (e.g. the
   local model at two budgets); one response cache in ``folder`` makes a rerun free;
2. program opponents: the handwritten programs shipped in ``arena/ablations/programs``
   (author ``handwritten``) and, when authors are configured, programs the authors write
   (``arena.ablations.authoring``; every attempt recorded, admitted ones join as opponents
   on their game, author = the model id);
3. for each (game, program): the procedural reading of the program in each seat (the disclosed
   arm's appendix, made when a disclosed LLM player first needs it; built-in players never
   read it); on games small enough to solve, its estimated policy, the exact best and
   worst responses to it (efficiency anchors) and a ``best-response`` built-in that plays the
   exact best response to the disclosed program (and to a uniform opponent when hidden), and
   the game's equilibrium value (``engines.solve.value``) beside them.  The configured games
   are solved when each seat has at most ``max_situations`` decisions in a tree of at most
   ``max_nodes`` histories (the enumeration's cost; a generated game can have few situations
   and billions of histories); besides them, the
   ``solved_games`` smallest of ``solve_candidates`` (the benchmark games) whose tree has at
   most ``max_histories`` histories (``engines.solve.sizing``) join the ablation and are
   solved whatever their number of situations, as the paper solves five games; when fewer
   benchmark games fit, the smallest of ``solve_reserve`` (the accepted pool's other games,
   drawn from the same distribution) that fit make up the number; the sizes and times of
   every solved game are the ``solved`` table, the gate's view of every candidate the
   ``sizing`` table (its ``source``: benchmark or pool);
4. play both arms on identical deals (``arena.ablations.matches``);
5. the judge scores the LLM players' move traces;
6. the analyses: lambda per arm, the disclosure effect, efficiency, the thinking budget and
   the judge's association with margins, each with bootstrap intervals over deals; and how far
   each rubric's scores track their matched axis, with an interval over games.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arena.ablations.authoring import Attempt, author_program, sha256_text
from arena.ablations.judge import (
    TRACKING_COLUMNS,
    TRACKING_QUANTITY,
    Judgement,
    association,
    judge_moves,
    tracking,
)
from arena.ablations.matches import PROGRAM_PREFIX, ProgramSpec, Seat, play_ablation
from arena.ablations.opponents import (
    ResponseAgent,
    disclosed,
    estimate_policy,
    table_policy,
)
from arena.games import resolve_games
from arena.llm.cache import ResponseCache
from arena.llm.player import LLMPlayer
from arena.programs.player import ProgramPlayer
from arena.programs.procedural_reading import MAX_NODES, reading
from arena.programs.sandbox import Program, admit
from arena.roster import ApiEntry, BuiltinEntry, parse_roster
from arena.tournament.runner import build_lineup
from engines.ablations.arms import disclosure_effect, efficiency_table, fit_lambda, run_margins
from engines.ablations.thinking import thinking_budget
from engines.agents.base import BuiltinPlayer, Player
from engines.agents.equilibrium import count_histories
from engines.gbg.spec import GameSpec
from engines.solve.best_response import (
    MAX_ARRAY_HISTORIES,
    respond,
    respond_arrays,
    uniform_policy,
)
from engines.solve.sizing import estimate_histories, smallest_that_fit
from engines.solve.value import game_value
from engines.stats.bootstrap import Estimate
from engines.tournament.schedule import Game

PROGRAMS = Path(__file__).with_name("programs")
HANDWRITTEN = "handwritten"
RESPONDER = "best-response"
SIBLINGS: tuple[dict[str, Any], ...] = (
    {"name": "search-low", "kind": "builtin", "agent": "search",
     "params": {"depth": 1, "worlds": 4}, "family": "search", "variant": "low"},
    {"name": "search-high", "kind": "builtin", "agent": "search",
     "params": {"depth": 2, "worlds": 4}, "family": "search", "variant": "high"},
)  # fmt: skip


SOLVED_COLUMNS = ("game", "program", "seat", "histories", "infosets", "tree_megabytes",
                  "policy_seconds", "expand_seconds", "solve_seconds")  # fmt: skip
SIZING_COLUMNS = ("game", "source", "estimated_histories", "histories", "chosen", "reason")


@dataclass(frozen=True)
class AblationSettings:
    """What to run.  Player entries are roster entries (dicts, validated as a roster)."""

    games: tuple[str, ...] = ("kuhn", "leduc")
    runs: int = 6
    builtin_players: tuple[dict[str, Any], ...] = ()
    llm_players: tuple[dict[str, Any], ...] = ()
    llm_games: tuple[str, ...] = ("kuhn",)
    llm_runs: int = 1
    authors: tuple[dict[str, Any], ...] = ()
    judge: dict[str, Any] | None = None
    judge_max: int = 24
    bootstrap: int = 200
    seed: int = 0
    policy_seeds: int = 8
    max_situations: int = 2000
    # histories the enumeration of a configured game's situations visits at most (its readings
    # and, to be solved, its policy); a game chosen by the history gate is known to fit
    max_nodes: int = MAX_NODES
    # The exact solving of the paper's "five games" (module step 3): how many of the candidate
    # games to solve, the candidates (benchmark game tokens), the size limit in histories, and
    # the specs of tokens that do not resolve by themselves (a seed of the paper configuration).
    solved_games: int = 0
    solve_candidates: tuple[str, ...] = ()
    solve_reserve: tuple[str, ...] = ()  # accepted games outside the benchmark, if too few fit
    max_histories: int = MAX_ARRAY_HISTORIES
    specs: dict[str, str] = field(default_factory=dict)
    siblings: bool = True
    protocol: str | None = None  # the tournament roster's, so LLM fingerprints match
    rulebook_style: str | None = None  # the tournament roster's too (its prompts)
    rethinks: int = 1
    providers: dict[str, Any] = field(default_factory=dict)  # the roster's provider limits


@dataclass
class AblationResult:
    """Every table of the ablations (see ``summary`` for the headline figures)."""

    matches: pd.DataFrame
    moves: pd.DataFrame
    runs: pd.DataFrame
    authoring: pd.DataFrame
    programs: pd.DataFrame
    lambdas: dict[str, Estimate]
    disclosure: dict[str, Estimate]
    efficiency: pd.DataFrame
    solving: pd.DataFrame
    thinking: pd.DataFrame
    judgements: pd.DataFrame
    association: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    solved: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(SOLVED_COLUMNS)))
    sizing: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(SIZING_COLUMNS)))
    # how far each rubric's scores track their matched axis (arena.ablations.judge.tracking)
    tracking: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=list(TRACKING_COLUMNS))
    )

    def summary(self) -> pd.DataFrame:
        """One long table: ``ablation, quantity, subject, estimate, ci_low, ci_high, n``."""
        rows: list[dict[str, Any]] = []

        def add(ablation: str, quantity: str, subject: str, e: Estimate, n: int) -> None:
            row = {"ablation": ablation, "quantity": quantity, "subject": subject}
            rows.append(row | {"estimate": e.value, "ci_low": e.low, "ci_high": e.high, "n": n})

        paired = int((self.runs["arm"] == "disclosed").sum()) if not self.runs.empty else 0
        for key, e in self.lambdas.items():
            add("programs", key, "rated players", e, paired)
        for key, e in self.disclosure.items():
            add("programs", "disclosure_effect", key, e, paired)
        for r in self.efficiency.itertuples():
            add("programs", f"efficiency_{r.arm}", f"{r.player} vs {r.program} on {r.game}",
                Estimate(r.efficiency, r.ci_low, r.ci_high), int(r.runs))  # fmt: skip
        for r in self.thinking.itertuples():
            add("thinking_budget", "high_minus_low", str(r.family),
                Estimate(r.difference, r.ci_low, r.ci_high), int(r.sibling_pairs))  # fmt: skip
        for r in self.association.itertuples():
            add("judge", f"slope_{r.rubric}", f"{r.axis} {r.tertile} tertile",
                Estimate(r.slope, r.ci_low, r.ci_high), int(r.traces))  # fmt: skip
        for r in self.tracking.itertuples():
            add("judge", f"{TRACKING_QUANTITY}{r.rubric}",
                f"{r.axis} axis, Spearman over traces ({r.games} games)",
                Estimate(r.spearman, r.ci_low, r.ci_high), int(r.traces))  # fmt: skip
        admitted = int(self.authoring["admitted"].sum()) if not self.authoring.empty else 0
        add("authoring", "admitted_attempts", "all authors",
            Estimate(float(admitted), float("nan"), float("nan")), len(self.authoring))  # fmt: skip
        columns = ["ablation", "quantity", "subject", "estimate", "ci_low", "ci_high", "n"]
        return pd.DataFrame(rows, columns=columns)


@dataclass
class _Opponent:
    spec: ProgramSpec
    program: Program
    player: ProgramPlayer
    readings: dict[tuple[str, int], str] = field(default_factory=dict)  # (game, seat)
    responses: dict[str, dict[int, dict[str, str]]] = field(default_factory=dict)
    anchors: dict[str, tuple[float, float]] = field(default_factory=dict)  # game: (best, worst)


def solvable(
    opponent: _Opponent,
    game: Game,
    settings: AblationSettings,
    large: bool = False,
    sizes: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]] | None:
    """Prepare the efficiency anchors when the game is small enough (None if it is not); the
    exact solving rows: per responding seat, the best and worst response values to the
    program and the game's equilibrium value for that seat.  ``large``: a game chosen by the
    history gate (module step 3), solved whatever its number of situations, by the array
    form only (the game value too); each seat's sizes and times are appended to ``sizes``."""
    spec = game.generated
    bound = settings.max_histories if large else settings.max_situations
    timed: dict[int, float] = {}
    tables = {}
    try:
        for s in (0, 1):
            started = time.perf_counter()
            tables[s] = estimate_policy(
                opponent.program, spec, s, settings.policy_seeds, bound,
                settings.max_histories if large else settings.max_nodes,
            )  # fmt: skip
            timed[s] = time.perf_counter() - started
    except ValueError:
        return None
    best: dict[int, dict[str, str]] = {}
    hidden: dict[int, dict[str, str]] = {}
    values: list[tuple[float, float]] = []
    rows: list[dict[str, Any]] = []
    value = float("nan") if large else game_value(spec)
    for program_seat, table in tables.items():
        seat = 1 - program_seat
        top, bottom, size = respond_arrays(spec, seat, table_policy(table), settings.max_histories)
        best[seat] = top.choices
        hidden[seat] = uniform_response(spec, seat, settings.max_histories if large else None)
        values.append((top.value, bottom.value))
        rows.append({"game": game.token, "program": opponent.spec.name,
                     "seat": ("alice", "bob")[seat], "best_response": top.value,
                     "worst_response": bottom.value,
                     "game_value": value if seat == 0 else -value})  # fmt: skip
        if sizes is not None:
            sizes.append({"game": game.token, "program": opponent.spec.name,
                          "seat": ("alice", "bob")[seat], "histories": int(size["histories"]),
                          "infosets": int(size["infosets"]),
                          "tree_megabytes": round(size["tree_megabytes"], 1),
                          "policy_seconds": round(timed[program_seat], 2),
                          "expand_seconds": round(size["expand_seconds"], 2),
                          "solve_seconds": round(size["solve_seconds"], 2)})  # fmt: skip
    opponent.responses[game.token] = best
    opponent.responses["hidden:" + game.token] = hidden
    opponent.anchors[game.token] = (
        sum(v[0] for v in values) / 2,
        sum(v[1] for v in values) / 2,
    )
    return rows


SOLVING_COLUMNS = ("game", "program", "seat", "best_response", "worst_response", "game_value")
_UNIFORM_RESPONSES: dict[tuple[str, int], dict[str, str]] = {}


def uniform_response(spec: GameSpec, seat: int, limit: int | None = None) -> dict[str, str]:
    """The best response of ``seat`` to a uniform opponent (what ``best-response`` plays when
    the program is hidden), once per game and seat whatever the program; with a ``limit``, by
    the array form (a game chosen by the history gate)."""
    key = (spec.spec_hash, seat)
    if key not in _UNIFORM_RESPONSES:
        if limit is None:
            _UNIFORM_RESPONSES[key] = respond(spec, seat, uniform_policy, best=True).choices
        else:
            found = respond_arrays(spec, seat, uniform_policy, limit)[0]
            _UNIFORM_RESPONSES[key] = found.choices
    return _UNIFORM_RESPONSES[key]


def choose_solved(settings: AblationSettings) -> tuple[list[Game], pd.DataFrame]:
    """The ``solved_games`` smallest candidates that fit under ``max_histories`` (module step
    3), completed from ``solve_reserve`` when fewer candidates fit, as games, and the gate's
    table of every game it sized."""
    chosen: list[Game] = []
    tables: list[pd.DataFrame] = []
    for source, tokens in (
        ("benchmark", settings.solve_candidates),
        ("pool", settings.solve_reserve),
    ):
        wanted = settings.solved_games - len(chosen)
        sized = {game for table in tables for game in table["game"]}
        left = tuple(t for t in tokens if t not in sized)
        if wanted >= 1 and left:
            games, table = _smallest_that_fit(settings, left, wanted, source)
            chosen += games
            tables.append(table)
    if not tables:
        return [], pd.DataFrame(columns=list(SIZING_COLUMNS))
    return chosen, pd.concat(tables, ignore_index=True)


def _smallest_that_fit(
    settings: AblationSettings, tokens: Sequence[str], wanted: int, source: str
) -> tuple[list[Game], pd.DataFrame]:
    """The ``wanted`` smallest of ``tokens`` that fit under ``max_histories``, smallest first,
    and the gate's rows for every one of them (``source``: where they come from)."""
    games = {g.token: g for g in _resolve(tokens, settings.specs)}
    sized = smallest_that_fit(
        list(games),
        lambda t: estimate_histories(games[t].generated, seed=settings.seed),
        lambda t, limit: count_histories(games[t].generated, limit),
        settings.max_histories,
        wanted,
    )
    rows = [
        {"game": s.game, "source": source, "estimated_histories": s.estimate,
         "histories": s.histories, "chosen": s.chosen, "reason": s.reason}
        for s in sized
    ]  # fmt: skip
    picked = sorted((s for s in sized if s.chosen), key=lambda s: s.histories or 0)
    return [games[s.game] for s in picked], pd.DataFrame(rows, columns=list(SIZING_COLUMNS))


def _resolve(tokens: Sequence[str], specs: Mapping[str, str]) -> list[Game]:
    """Games from tokens, with the given spec for a token listed in ``specs`` (a benchmark
    game's carried identity: its seed is never generated again)."""
    catalogue = {token: GameSpec.from_json(text) for token, text in specs.items()}
    return resolve_games(list(tokens), catalogue=catalogue)


def run_ablations(
    settings: AblationSettings,
    alpha: Mapping[str, float],
    folder: Path,
    axes: Mapping[str, Mapping[str, float]] | None = None,
    environ: dict[str, str] | None = None,
) -> AblationResult:
    """Run every ablation (see the module steps); files (programs, cache) go to ``folder``."""
    if settings.runs < 1 or settings.llm_runs < 1:
        raise ValueError("runs and llm_runs must be at least 1")
    folder.mkdir(parents=True, exist_ok=True)
    return asyncio.run(_run(settings, alpha, folder, axes, environ))


async def _run(
    settings: AblationSettings,
    alpha: Mapping[str, float],
    folder: Path,
    axes: Mapping[str, Mapping[str, float]] | None,
    environ: dict[str, str] | None,
) -> AblationResult:
    entries = [*settings.builtin_players, *(SIBLINGS if settings.siblings else ())]
    entries += [*settings.llm_players, *settings.authors]
    if settings.judge is not None:
        entries.append(settings.judge)
    # a roster player may take several roles (play, author, judge): it is one player
    unique: dict[str, dict[str, Any]] = {}
    for entry in entries:
        unique.setdefault(str(entry["name"]), entry)  # the first role's entry (its family tag)
    entries = list(unique.values())
    if len(entries) < 2:
        raise ValueError("the ablations need at least two players")
    data: dict[str, Any] = {
        "players": entries,
        "rethinks": settings.rethinks,
        "providers": settings.providers,
    }
    if settings.protocol is not None:
        data["protocol"] = settings.protocol
    if settings.rulebook_style is not None:
        data["rulebook_style"] = settings.rulebook_style
    roster = parse_roster(data, "ablation players")
    games = _resolve(settings.games, settings.specs)
    for game in games:
        if not isinstance(game.spec, GameSpec):
            raise ValueError(f"{game.token!r}: the ablations play generated games only")
    large, sizing = choose_solved(settings)
    listed = {g.token for g in games}
    games += [g for g in large if g.token not in listed]
    large_tokens = {g.token for g in large}
    llm_games = [g for g in games if g.token in settings.llm_games]
    cache = ResponseCache(folder / "cache.sqlite")
    lineup = build_lineup(roster, cache, random.Random(settings.seed), environ)
    opponents: list[_Opponent] = []
    notes: list[str] = []
    try:
        # 2. programs: handwritten, then model-written
        attempts: list[Attempt] = []
        per_game: dict[str, list[_Opponent]] = {g.token: [] for g in games}
        program_rows: list[dict[str, Any]] = []

        def add_program(path: Path, author: str, name: str, on: list[Game]) -> None:
            code = path.read_text(encoding="utf-8")
            spec = ProgramSpec(name, author, str(path), sha256_text(code))
            program = Program(path, secrets=lineup.secrets)
            player = ProgramPlayer(PROGRAM_PREFIX + name, program, secrets=lineup.secrets)
            opponent = _Opponent(spec, program, player)
            opponents.append(opponent)
            for game in on:
                verdict = admit(path, game.generated, seed=settings.seed, secrets=lineup.secrets)
                program_rows.append({"program": name, "author": author, "game": game.token,
                                     "admitted": verdict.admitted, "reason": verdict.reason,
                                     "median_move_ms": verdict.median_move_ms})  # fmt: skip
                if verdict.admitted:
                    per_game[game.token].append(opponent)

        for path in sorted(PROGRAMS.glob("*.py")):
            add_program(path, HANDWRITTEN, path.stem, games)
        for entry in settings.authors:
            author = lineup.players[str(entry["name"])]
            assert isinstance(author, LLMPlayer)
            if author.stopped:
                notes.append(author.stopped)
                continue
            for game in llm_games:
                tried = await author_program(
                    author, game.generated, game.token, folder / "programs"
                )
                attempts.extend(tried)
                if tried and tried[-1].admitted and tried[-1].path:
                    name = f"{author.name}-{game.token}-{tried[-1].code_sha256 or ''}"[:48]
                    add_program(Path(tried[-1].path), author.model, name, [game])
        # 3. readings and efficiency anchors
        anchors: dict[tuple[str, str], tuple[float, float]] = {}
        solving: list[dict[str, Any]] = []
        solved_sizes: list[dict[str, Any]] = []
        solved: set[tuple[str, str]] = set()
        for game in games:
            for opponent in per_game[game.token]:
                exact = solvable(opponent, game, settings, game.token in large_tokens, solved_sizes)
                if exact is not None:
                    solving += exact
                    anchors[(game.token, opponent.spec.name)] = opponent.anchors[game.token]
                    solved.add((game.token, opponent.spec.name))
        # 4. play
        builtin_seats = [
            Seat(e.name, roster.fingerprint(e.name)) for e in roster.players
            if isinstance(e, BuiltinEntry)
        ]  # fmt: skip
        llm_names = {str(e["name"]) for e in settings.llm_players}
        llm_seats = [
            Seat(e.name, roster.fingerprint(e.name), e.model)
            for e in roster.players
            if isinstance(e, ApiEntry) and e.name in llm_names
        ]
        by_key = {o.spec.name: o for o in opponents}

        def reading_of(opponent: _Opponent, game: Game, seat: int) -> str:
            """The program's reading in ``seat``, made when a disclosed LLM first needs it
            (built-in players never read it)."""
            key = (game.token, seat)
            if key not in opponent.readings:
                opponent.readings[key] = reading(
                    opponent.program, game.generated, seat, max_nodes=settings.max_nodes
                )
            return opponent.readings[key]

        def lineup_of(
            arm: str, game: Game, spec: ProgramSpec, program_seat: int
        ) -> dict[str, Player]:
            opponent = by_key[spec.name]
            players: dict[str, Player] = {}
            for name, player in lineup.players.items():
                if arm == "disclosed" and isinstance(player, LLMPlayer):
                    players[name] = disclosed(player, reading_of(opponent, game, program_seat))
                else:
                    players[name] = player
            key = game.token if arm == "disclosed" else "hidden:" + game.token
            if key in opponent.responses:
                players[RESPONDER] = BuiltinPlayer(
                    RESPONDER, ResponseAgent(opponent.responses[key]), model=RESPONDER
                )
            players[opponent.player.name] = opponent.player
            return players

        rows: list[dict[str, Any]] = []
        moves: list[dict[str, Any]] = []
        responder = Seat(RESPONDER, "exact-best-response")
        for game in games:
            specs = [o.spec for o in per_game[game.token]]
            solved_specs = [s for s in specs if (game.token, s.name) in solved]
            for seats, chosen, runs in (
                (builtin_seats, specs, settings.runs),
                ([responder], solved_specs, settings.runs),
                (llm_seats if game in llm_games else [], specs, settings.llm_runs),
            ):
                if seats and chosen:
                    r, m = await play_ablation([game], chosen, seats, lineup_of, runs)
                    rows += r
                    moves += m
        for name, player in lineup.players.items():
            if player.stopped and name in llm_names:
                notes.append(player.stopped)
        for reason in dict.fromkeys(str(r["error"]) for r in rows if r["status"] == "stopped"):
            if reason not in notes:
                notes.append(reason)
        # 5. the judge
        judgements: list[Judgement] = []
        if settings.judge is not None:
            judge = lineup.players[str(settings.judge["name"])]
            assert isinstance(judge, LLMPlayer)
            game_of = {str(r["match_id"]): str(r["game"]) for r in rows}
            traced = [mv for mv in moves if mv.get("raw_response") or mv.get("reasoning")]
            judgements = await judge_moves(judge, traced[: settings.judge_max], game_of)
    finally:
        for opponent in opponents:
            opponent.program.close()
        await lineup.aclose()
        cache.close()
    # 6. analyses
    rng = np.random.default_rng(settings.seed)
    matches = pd.DataFrame(rows)
    runs_table = run_margins(matches) if not matches.empty else run_margins(pd.DataFrame())
    lambdas = fit_lambda(runs_table, alpha, settings.bootstrap, rng) if alpha else {}
    effect = disclosure_effect(runs_table, settings.bootstrap, rng)
    efficiency = efficiency_table(runs_table, anchors, settings.bootstrap, rng)
    families: dict[str, dict[str, str]] = {}
    for e in roster.players:
        if e.family and e.variant and (e.name in llm_names or isinstance(e, BuiltinEntry)):
            families.setdefault(e.family, {})[e.variant] = e.name
    families = {f: v for f, v in families.items() if len(v) >= 2}
    thinking = thinking_budget(runs_table, families, settings.bootstrap, rng)
    judged = pd.DataFrame([j.record() for j in judgements])
    assoc = pd.DataFrame()
    tracked = pd.DataFrame(columns=list(TRACKING_COLUMNS))
    if not judged.empty:
        margin = {str(r["match_id"]): r.get("margin") for r in rows}
        deal = {str(r["match_id"]): str(r["run_id"]) for r in rows}
        judged["margin"] = judged["match_id"].map(margin).astype(float)
        judged["deal"] = judged["match_id"].map(deal)
        judged = judged.dropna(subset=["margin"]) if judged["margin"].notna().any() else judged
        judged_games = [g for g in games if g.token in set(judged["game"])]
        judged_axes = game_axes(judged_games, axes, settings.seed)
        assoc = association(judged, judged_axes, settings.bootstrap, rng)
        tracked = tracking(judged, judged_axes, settings.bootstrap, rng)
    else:
        notes.append("judge: no traces to score (built-in players leave none) or no judge set")
    attempts_table = pd.DataFrame([a.record() for a in attempts])
    if attempts_table.empty:
        attempts_table = pd.DataFrame(columns=list(Attempt.__dataclass_fields__))
    return AblationResult(
        matches=matches, moves=pd.DataFrame(moves), runs=runs_table, authoring=attempts_table,
        programs=pd.DataFrame(program_rows), lambdas=lambdas, disclosure=effect,
        efficiency=efficiency, solving=pd.DataFrame(solving, columns=list(SOLVING_COLUMNS)),
        thinking=thinking, judgements=judged,
        association=assoc if not assoc.empty else association(pd.DataFrame(), {}, 1, rng),
        notes=notes, solved=pd.DataFrame(solved_sizes, columns=list(SOLVED_COLUMNS)),
        sizing=sizing, tracking=tracked,
    )  # fmt: skip


def game_axes(
    games: Sequence[Game], given: Mapping[str, Mapping[str, float]] | None, seed: int
) -> dict[str, Mapping[str, float]]:
    """The five axes of each game: ``given`` (e.g. the benchmark's), else computed at the
    ``quick`` budget (a few seconds for Kuhn or Leduc)."""
    from engines.axes.budgets import axis_budget
    from engines.axes.compute import compute_axes

    budget = axis_budget("quick").model_copy(update={"rerun": False})
    out: dict[str, Mapping[str, float]] = {}
    for game in games:
        known = (given or {}).get(game.token)
        out[game.token] = known if known else compute_axes(game.generated, budget, seed).axes
    return out


def leaderboard_alpha(leaderboard: pd.DataFrame) -> dict[str, float]:
    """``model -> alpha`` from a leaderboard table."""
    return {
        str(m): float(a) for m, a in zip(leaderboard["model"], leaderboard["alpha"], strict=True)
    }
