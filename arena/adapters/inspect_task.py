"""GENSTRAT games as an Inspect AI task: a model plays an edition's games against the reference
field, scored on the leaderboard's anchored scale (issue 45, item 3).

::

    inspect eval arena/adapters/inspect_task.py@genstrat --model openai-api/local/smollm2 \\
        -T games=kuhn,leduc -T runs=2
    inspect eval arena/adapters/inspect_task.py@genstrat --model ... -T release=path/to/release

What it plays (:func:`genstrat`, every parameter a ``-T`` option):

- **Games**: ``games`` (comma-separated tokens, as ``arena.games`` names them: seeds under
  ``config``, presets, spec files), or with ``release`` (a release folder or its
  ``tables/benchmark_games.parquet``) the release's benchmark games in selection order, as the
  specs the release carries (``games`` then picks among them).  Default: Kuhn and Leduc.
- **Opponents**: the members of the reference field ``field`` (``engines.stats.reference_field``,
  default ``gbg-builtin-v1``: random, the heuristic, depth-2 search), as built-in bots with the
  field's fixed settings.
- **Deals**: ``runs`` paired runs per game and member, scheduled as a tournament schedules a
  roster of the field's members followed by the model (``engines.tournament.schedule``): both
  deals of a run share a play seed, the member sits Alice in deal 0 and the model in deal 1.
  The model plays as ``model`` (:data:`ENTRANT`) whatever it is, so every model meets the same
  deals.  **One sample per deal**: its id is the match id, its messages the conversation (the
  rulebook as system message, then each turn prompt and the model's reply), its transcript the
  model calls and one event per move; its score the model's chips, with the match row (the
  tournament's DESIGN match schema) in the score's metadata.
- **Protocol**: ``paper`` (``arena.llm.protocols``, the GENSTRAT paper's): one answer per move,
  read by the project's lenient parser (``engines.agents.parser.parse_reply``); when it names
  no legal action, the paper's fallback is played (the minimum wager or bid, else a draw from
  the seat's generator) and the move is flagged.  ``protocol=arena`` grants ``rethinks``
  rethinks with one sentence of feedback first.  The system message is the game's rulebook in
  ``rulebook_style`` (``compact``, or ``paper``: the paper profile's), the user message the
  per-turn prompt the project's LLM players get, sent through Inspect's model API (``get_model``:
  the eval's model and generation settings).
- **Score**: metric ``anchored_scales``: the model's row of
  ``engines.stats.anchored.scales_with_flags`` (the function behind the release's
  ``anchored_scales`` table) on the deals played together with the field's members' runs among
  themselves (``field_runs`` per pair and game, played at task creation with the seeds a
  tournament gives them): ``score`` (0-100 against the field) with its bootstrap interval
  (``bootstrap`` replicates, generator seeded by ``seed``), ``rating`` (chips/game, uniform
  random = 0), ``elo``, ``complete_pairs`` and ``ranked`` (1 when at least ``min_pairs``
  complete runs against the field, else provisional, 0).  Also ``mean`` (chips per deal) and
  ``fallback_rate`` (the share of the model's moves that were the fallback).

A deal whose model call fails raises Inspect's error for the sample (``inspect eval-retry``
plays it again); a deal that was not played to its end (a sample limit) is unscored, and its
run does not count.  The task takes one epoch: more deals are more ``runs``.

Offline: nothing here downloads anything.  Inspect's ``mockllm`` provider gives an output
without usage (its default output, as ``inspect eval --model mockllm/model`` plays) the usage
it counts with tiktoken's ``o200k_base`` encoding, and tiktoken fetches that encoding's file on
first use unless the file is in its cache.  The task puts it there when it is made
(:func:`seed_token_encoding`): the same file, carried by ``litellm``'s wheel (the ``inspect``
extra), copied into tiktoken's cache folder (``TIKTOKEN_CACHE_DIR``, else the temporary
folder's ``data-gym-cache``) under the name tiktoken looks for, after its SHA-256 is checked
against tiktoken's (which checks it again when it reads it).  The OpenAI-compatible providers
take usage from the server's reply.

Bad input raises ``ValueError`` in one line when the task is made: an unknown game, field or
protocol, an OpenSpiel game (the reference fields are defined for generated games), a member
that cannot play a game, a count below 1.
"""

# No ``from __future__ import annotations``: ``inspect eval FILE@genstrat`` runs this file as a
# module outside ``sys.modules``, where dataclasses cannot resolve annotations given as strings.

import dataclasses
import functools
import hashlib
import importlib.util
import json
import os
import random
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    mean,
    metric,
    scorer,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from arena.adapters.common import release_catalogue
from arena.games import catalogued_game, resolve_games
from arena.llm.protocols import move_protocol
from arena.reference_engines import agent_plays, make_builtin
from arena.roster import DEFAULT_BLOCK, parse_roster
from arena.tournament.reference_play import field_players
from arena.tournament.runner import tournament_schedule
from engines.agents.base import BuiltinPlayer, Decision, Player, PlayerStopped
from engines.agents.parser import FEEDBACK, Parsed, fallback_action, parse_reply
from engines.gbg.engine import State
from engines.gbg.render import turn_prompt
from engines.gbg.rulebook import rulebook
from engines.gbg.spec import SEATS, GameSpec
from engines.stats.anchored import scales_with_flags
from engines.stats.bootstrap import DEFAULT_BOOTSTRAP
from engines.stats.provisional import ProvisionalRules
from engines.stats.reference_field import ReferenceField, reference_field
from engines.tournament.match import play_builtin_match, play_match
from engines.tournament.schedule import Game, ScheduledMatch, paired_deals, parse_game_list

ENTRANT = "model"
"""The name the model plays under in the match rows (the same for every model, so every model
meets the same deals: a tournament derives play seeds from the players' names)."""

DEFAULT_GAMES = ("kuhn", "leduc")
DEFAULT_FIELD = "gbg-builtin-v1"
RULEBOOK_STYLES = ("compact", "paper")
MATCH_KEY = "genstrat_match"  # the sample store's entries: the match row, the move rows
MOVES_KEY = "genstrat_moves"


# --- the plan: games, deals and the field's own runs ---------------------------------------------


@dataclass(frozen=True)
class PlanArgs:
    """What determines the deals of a task (its JSON is the solver's and metric's argument)."""

    games: tuple[str, ...]
    release: str | None
    config: str | None
    field: str
    runs: int
    field_runs: int
    protocol: str
    rethinks: int
    rulebook_style: str

    def key(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_key(cls, key: str) -> "PlanArgs":
        data = json.loads(key)
        return cls(**{**data, "games": tuple(data["games"])})


@dataclass
class Plan:
    """The games, the model's deals by match id, the field's runs among themselves (played),
    the members as players, and the fingerprints of everyone (for run and match ids)."""

    args: PlanArgs
    games: tuple[Game, ...]
    field: ReferenceField
    deals: dict[str, ScheduledMatch]
    field_matches: pd.DataFrame
    members: dict[str, BuiltinPlayer]
    fingerprints: dict[str, str]
    rules: dict[str, str] = dataclasses.field(default_factory=dict)

    def rules_of(self, spec: GameSpec) -> str:
        text = self.rules.get(spec.spec_hash)
        if text is None:
            text = self.rules[spec.spec_hash] = rulebook(spec, style=self.args.rulebook_style)
        return text


def game_tokens(games: str | int | Sequence[str | int] | None) -> tuple[str, ...] | None:
    """``games`` as a tuple of tokens (a ``-T games=kuhn,12`` string, an int, or a list)."""
    if games is None:
        return None
    if isinstance(games, str):
        return tuple(parse_game_list(games))
    if isinstance(games, int):
        return (str(games),)
    return tuple(str(g).strip() for g in games)


def plan_games(tokens: tuple[str, ...], release: str | None, config: str | None) -> list[Game]:
    """The games the tokens name (with ``release``: as the release carries them)."""
    if release is None:
        games = resolve_games(tokens, config)
    else:
        catalogue = release_catalogue(release)
        for token in tokens:  # a seed the release does not list is refused, in one line
            catalogued_game(token, catalogue, f"the release at {release}")
        games = resolve_games(tokens, catalogue=catalogue)
    for game in games:
        if not isinstance(game.spec, GameSpec):
            raise ValueError(
                f"game {game.token!r} is an OpenSpiel game: the reference fields are defined "
                "for generated games (and the presets), so this task plays only those"
            )
    return games


def entrant_fingerprint(args: PlanArgs) -> str:
    """What determines the model's play besides the model: the protocol and the rulebook."""
    protocol = move_protocol(args.protocol)
    behaviour = {
        "kind": "inspect",
        "protocol": protocol.name,
        "rethinks": protocol.rethinks_for(args.rethinks),
        "rulebook_style": args.rulebook_style,
    }
    text = json.dumps(behaviour, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@functools.lru_cache(maxsize=16)
def plan_of(key: str) -> Plan:
    """The plan of a task (memoised: the solver and the metrics of one process share it, and
    the field's runs are played once)."""
    args = PlanArgs.from_key(key)
    games = plan_games(args.games, args.release, args.config)
    the_field = reference_field(args.field)
    roster = parse_roster({"players": field_players(the_field)}, f"reference field {args.field}")
    fingerprints = {p.name: roster.fingerprint(p.name) for p in roster.players}
    fingerprints[ENTRANT] = entrant_fingerprint(args)
    members: dict[str, BuiltinPlayer] = {}
    for engine in the_field.engines():
        for game in games:
            if not agent_plays(engine.agent, game.spec):
                raise ValueError(f"member {engine.name!r} of {args.field} cannot play {game.token}")
        members[engine.name] = BuiltinPlayer(
            name=engine.name,
            agent=make_builtin(engine.agent, engine.settings()),
            model=engine.agent,
            settings=engine.settings(),
        )
    players: dict[str, Player] = dict(members)
    rows = [
        play_builtin_match(m, players, fingerprints)[0]
        for m in tournament_schedule(roster, games, args.field_runs)
    ]
    deals: dict[str, ScheduledMatch] = {}
    for game in games:
        for member in the_field.members:  # the roster's order: the members, then the model
            for m in paired_deals(game, DEFAULT_BLOCK, member, ENTRANT, args.runs, fingerprints):
                deals[m.match_id] = m
    return Plan(args, tuple(games), the_field, deals, pd.DataFrame(rows), members, fingerprints)


# --- the model as a tournament player ----------------------------------------------------------


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class InspectPlayer:
    """The eval's model as a ``Player``: one move is the protocol's requests through Inspect's
    model API; the conversation goes into the sample's messages and each move into its
    transcript.  A model call that raises stops the player (``PlayerStopped``, so the harness
    does not record the deal as an error of its own) and keeps the exception in ``failure``
    for the solver to raise as Inspect's."""

    name: str
    model: str
    sample: TaskState
    plan: Plan
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    stopped: str | None = None
    failure: BaseException | None = None

    async def decide(self, state: State, seat: int, rng: random.Random, call_id: str) -> Decision:
        protocol = move_protocol(self.plan.args.protocol)
        rethinks = protocol.rethinks_for(self.plan.args.rethinks)
        legal = state.legal_actions()
        prompt = turn_prompt(state, seat)
        system = ChatMessageSystem(content=self.plan.rules_of(state.spec))
        conversation: list[ChatMessage] = [ChatMessageUser(content=prompt)]
        replies: list[str] = []
        first: Parsed | None = None
        parsed = Parsed("unparsable")
        latency = 0.0
        tokens = {"input": 0, "output": 0, "reasoning": 0, "cached": 0}
        model = get_model()
        for attempt in range(rethinks + 1):
            try:
                output = await model.generate([system, *conversation])
            except Exception as exc:
                self.failure = exc
                raise PlayerStopped(f"{self.model}: {type(exc).__name__}: {exc}") from exc
            text = output.completion
            replies.append(text)
            usage = output.usage
            if usage is not None:
                tokens["input"] += usage.input_tokens
                tokens["output"] += usage.output_tokens
                tokens["reasoning"] += usage.reasoning_tokens or 0
                tokens["cached"] += usage.input_tokens_cache_read or 0
            latency += output.time or 0.0
            conversation.append(ChatMessageAssistant(content=text, model=self.model))
            parsed = parse_reply(text, legal)
            first = first or parsed
            if parsed.verdict == "ok" or attempt == rethinks:
                break
            conversation.append(ChatMessageUser(content=FEEDBACK[parsed.verdict]))
        fallback = parsed.verdict != "ok" or parsed.action is None
        action = fallback_action(legal, rng) if fallback else parsed.action
        assert action is not None
        self.sample.messages.extend(conversation)
        how = f"the fallback (reply {first.verdict if first else 'unparsable'})" if fallback else ""
        transcript().info(
            f"{ENTRANT} ({SEATS[seat].capitalize()}) plays `{action}` {how}".strip(),
            source="genstrat",
        )
        return Decision(
            action=action,
            raw_response=replies[-1],
            prompt_sha256=_sha256(prompt),
            fallback=fallback,
            rethinks=len(replies) - 1,
            verdict=first.verdict if first is not None else "unparsable",
            latency_s=latency,
            input_tokens=tokens["input"],
            output_tokens=tokens["output"],
            reasoning_tokens=tokens["reasoning"],
            cached_input_tokens=tokens["cached"],
            calls=len(replies),
            earlier_responses=tuple(replies[:-1]),
        )


@dataclass
class NarratedMember(BuiltinPlayer):
    """A member whose moves are written to the sample's transcript."""

    def decide_now(self, state: State, seat: int, rng: random.Random) -> Decision:
        decision = super().decide_now(state, seat, rng)
        transcript().info(
            f"{self.name} ({SEATS[seat].capitalize()}) plays `{decision.action}`",
            source="genstrat",
        )
        return decision


# --- Inspect: solver, scorer, metrics, task ----------------------------------------------------


@solver
def play_deal(plan: str) -> Solver:
    """Play the sample's deal (its id is the match id) of the plan whose key is ``plan``."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        the_plan = plan_of(plan)
        deal = the_plan.deals[str(state.sample_id)]
        model = get_model()
        player = InspectPlayer(
            ENTRANT,
            str(model),
            state,
            the_plan,
            settings=model.config.model_dump(mode="json", exclude_none=True),
        )
        players: dict[str, Player] = {
            name: NarratedMember(name, m.agent, m.model, m.settings)
            for name, m in the_plan.members.items()
        }
        players[ENTRANT] = player
        spec = deal.game.generated
        state.messages = [ChatMessageSystem(content=the_plan.rules_of(spec))]
        try:
            row, moves = await play_match(deal, players, the_plan.fingerprints)
        except PlayerStopped:
            if player.failure is not None:
                raise player.failure from None
            raise
        state.store.set(MATCH_KEY, row)
        state.store.set(MOVES_KEY, moves)
        summary = deal_summary(row)
        transcript().info(summary, source="genstrat")
        state.output = ModelOutput.from_content(str(model), summary)
        state.completed = True
        return state

    return solve


def model_seat(row: Mapping[str, Any]) -> int:
    return 0 if row["alice"] == ENTRANT else 1


def deal_summary(row: Mapping[str, Any]) -> str:
    """One line: who sat where and who won what (or how the deal ended otherwise)."""
    seats = f"{row['alice']} (Alice) against {row['bob']} (Bob) on {row['game']}"
    if row["alice_chip_delta"] is None:
        return f"{seats}: {row['status']}: {row['error']}"
    a, b = int(row["alice_chip_delta"]), int(row["bob_chip_delta"])
    return f"{seats}: Alice {a:+d}, Bob {b:+d} chips"


@scorer(metrics=[mean()])
def deal_chips() -> Scorer:
    """The model's chips at the end of the deal, the match row in the metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        row = state.store.get(MATCH_KEY)
        if row is None:
            return Score.unscored(explanation="the deal was not played to its end")
        seat = model_seat(row)
        chips = row[f"{SEATS[seat]}_chip_delta"]
        metadata = {
            "match": row,
            "moves": int(row[f"moves_{SEATS[seat]}"]),
            "fallbacks": int(row[f"fallbacks_{SEATS[seat]}"]),
        }
        if chips is None:
            return Score.unscored(explanation=deal_summary(row), metadata=metadata)
        return Score(
            value=float(chips),
            answer=f"{int(chips):+d}",
            explanation=deal_summary(row),
            metadata=metadata,
        )

    return score


@metric
def fallback_rate() -> Metric:
    """The share of the model's moves that were the fallback (the paper's fallback rate)."""

    def compute(scores: list[SampleScore]) -> Value:
        meta = [s.score.metadata or {} for s in scores]
        moves = sum(int(m.get("moves", 0)) for m in meta)
        return sum(int(m.get("fallbacks", 0)) for m in meta) / moves if moves else float("nan")

    return compute


SCALE_COLUMNS: tuple[str, ...] = (
    *("score", "score_low", "score_high"),
    *("rating", "rating_low", "rating_high"),
    *("elo", "elo_low", "elo_high"),
)


def scales_table(
    plan: Plan, rows: Sequence[Mapping[str, Any]], bootstrap: int, seed: int, min_pairs: int
) -> tuple[pd.DataFrame, str]:
    """``scales_with_flags`` on the model's match rows and the field's runs: every player's row
    of the release's ``anchored_scales`` table, and the note (why no scale, if none)."""
    matches = pd.concat([plan.field_matches, pd.DataFrame(list(rows))], ignore_index=True)
    return scales_with_flags(
        matches,
        plan.field,
        np.random.default_rng(seed),
        bootstrap,
        ProvisionalRules(min_pairs=min_pairs),
    )


@metric
def anchored_scales(plan: str, bootstrap: int, seed: int, min_pairs: int) -> Metric:
    """The model's anchored scales (see the module docstring) from the scored deals."""

    def compute(scores: list[SampleScore]) -> Value:
        rows = [
            s.score.metadata["match"]
            for s in scores
            if s.score.metadata and "match" in s.score.metadata
        ]
        table, _ = scales_table(plan_of(plan), rows, bootstrap, seed, min_pairs)
        mine = table[table["model"] == ENTRANT]
        if mine.empty:
            return {name: float("nan") for name in (*SCALE_COLUMNS, "complete_pairs", "ranked")}
        row = mine.iloc[0]
        out: dict[str, float] = {name: float(row[name]) for name in SCALE_COLUMNS}
        out["complete_pairs"] = float(row["complete_pairs"])
        out["ranked"] = float(row["status"] == "ranked")
        return out

    return compute


O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""Where tiktoken fetches ``o200k_base`` from and the SHA-256 it requires of the file
(``tiktoken_ext.openai_public.o200k_base``); tiktoken caches the file under the SHA-1 of that
address."""


def tiktoken_cache_folder() -> Path | None:
    """The folder tiktoken reads its cached files from (``tiktoken.load.read_file_cached``):
    ``TIKTOKEN_CACHE_DIR``, else ``DATA_GYM_CACHE_DIR``, else ``<tmp>/data-gym-cache``; None
    when caching is switched off (the variable set to an empty string)."""
    for name in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if name in os.environ:
            return Path(os.environ[name]) if os.environ[name] else None
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def packaged_token_encoding() -> Path | None:
    """``o200k_base``'s file as ``litellm``'s wheel carries it (its bundled tiktoken cache), or
    None when ``litellm`` is not installed (it is not imported: only its folder is looked up)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    name = hashlib.sha1(O200K_URL.encode()).hexdigest()
    path = Path(spec.submodule_search_locations[0]) / "litellm_core_utils" / "tokenizers" / name
    return path if path.is_file() else None


def seed_token_encoding() -> Path | None:
    """Put ``o200k_base``'s file in tiktoken's cache unless it is there (module docstring), so
    that ``mockllm``'s token count needs no network; the cached file's path, or None when there
    is no cache folder or no packaged file (tiktoken then fetches it as usual).  A packaged file
    whose SHA-256 is not tiktoken's is not copied."""
    folder = tiktoken_cache_folder()
    if folder is None:
        return None
    target = folder / hashlib.sha1(O200K_URL.encode()).hexdigest()
    if target.is_file():
        return target
    source = packaged_token_encoding()
    if source is None:
        return None
    data = source.read_bytes()
    if hashlib.sha256(data).hexdigest() != O200K_SHA256:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    os.replace(partial, target)  # another process may write the same bytes at the same time
    return target


@task
def genstrat(
    games: str | int | list[str | int] | None = None,
    release: str | None = None,
    config: str | None = None,
    field: str = DEFAULT_FIELD,
    runs: int = 2,
    field_runs: int = 10,
    protocol: str = "paper",
    rethinks: int = 1,
    rulebook_style: str = "compact",
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    min_pairs: int = 10,
) -> Task:
    """A model plays GENSTRAT games against the reference field (see the module docstring)."""
    seed_token_encoding()
    for name, value in (("runs", runs), ("field_runs", field_runs), ("bootstrap", bootstrap)):
        if int(value) < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    if int(rethinks) < 0:
        raise ValueError(f"rethinks must be at least 0, got {rethinks}")
    if rulebook_style not in RULEBOOK_STYLES:
        raise ValueError(f"unknown rulebook style {rulebook_style!r}; choose compact or paper")
    ProvisionalRules(min_pairs=int(min_pairs))  # ValueError names a bad one
    tokens = game_tokens(games)
    if tokens is None:
        tokens = tuple(release_catalogue(release)) if release is not None else DEFAULT_GAMES
    args = PlanArgs(
        games=tokens,
        release=str(Path(release).expanduser().resolve()) if release is not None else None,
        config=config,
        field=field,
        runs=int(runs),
        field_runs=int(field_runs),
        protocol=move_protocol(protocol).name,
        rethinks=int(rethinks),
        rulebook_style=rulebook_style,
    )
    key = args.key()
    plan = plan_of(key)
    samples = [
        Sample(
            id=m.match_id,
            input=(
                f"{m.game.token}, run {m.run_index}, deal {m.deal}: {ENTRANT} sits "
                f"{'Alice' if m.alice == ENTRANT else 'Bob'} against "
                f"{m.bob if m.alice == ENTRANT else m.alice} (play seed {m.play_seed})"
            ),
            metadata={
                "game": m.game.token,
                "spec_hash": m.game.spec.spec_hash,
                "opponent": m.bob if m.alice == ENTRANT else m.alice,
                "seat": "alice" if m.alice == ENTRANT else "bob",
                "run_id": m.run_id,
                "run_index": m.run_index,
                "deal": m.deal,
                "play_seed": m.play_seed,
            },
        )
        for m in plan.deals.values()
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"genstrat-{plan.field.key}"),
        solver=play_deal(key),
        scorer=deal_chips(),
        metrics=[
            mean(),
            fallback_rate(),
            anchored_scales(key, int(bootstrap), int(seed), int(min_pairs)),
        ],
        epochs=1,
        metadata={
            "games": [g.token for g in plan.games],
            "field": plan.field.key,
            "field_fingerprint": plan.field.fingerprint(),
            "protocol": args.protocol,
            "rulebook_style": rulebook_style,
        },
    )
