"""The matches of a tournament: its schedule, the strategy programs' admission, what is left
to play, and the concurrent play of matches (``play_all``).

``arena.tournament.runner`` drives a whole run with these (and ``arena.tournament.shards``
when the matches are shared among worker processes, which play them with the same functions).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arena.llm.usage import MoveForfeited, MoveNotObtained, Unfinished
from arena.programs.openspiel_track import admit_openspiel
from arena.programs.sandbox import admit
from arena.reference_engines import agent_plays
from arena.roster import BuiltinEntry, ProgramEntry, Roster
from arena.secrets import environment_secrets, redacted_rows
from arena.tournament.budget import Budget
from arena.tournament.journal import Corpus
from arena.tournament.lineup import Lineup
from engines.agents.base import BuiltinPlayer, Decision, Player, PlayerStopped
from engines.gbg.spec import SEATS, GameSpec
from engines.tournament.match import move_record, play_match
from engines.tournament.records import DECIDED_STATUSES, Record
from engines.tournament.schedule import Game, ScheduledMatch, block_schedule


def tournament_schedule(roster: Roster, games: Sequence[Game], runs: int) -> list[ScheduledMatch]:
    """The roster's blocks scheduled on ``games`` (see ``schedule.block_schedule``), less the
    matches of a built-in agent on a game it does not play (``agent_plays``)."""
    blocks = [
        (block, [p.name for p in roster.players if p.block == block]) for block in roster.blocks()
    ]
    fingerprints = {p.name: roster.fingerprint(p.name) for p in roster.players}
    schedule = block_schedule(
        blocks,
        games,
        runs,
        fingerprints,
        first_block_games=roster.schedule.first_block_games,
        opponents=roster.schedule.opponents,
    )
    # A built-in agent plays only the games it can (Stockfish: chess; mcts: OpenSpiel games).
    agents = {p.name: p.agent for p in roster.players if isinstance(p, BuiltinEntry)}
    return [
        m
        for m in schedule
        if all(agent_plays(agents[n], m.game.spec) for n in m.players if n in agents)
    ]


# --- the tournament ----------------------------------------------------------------------------


def admit_programs(
    roster: Roster, pending: Sequence[ScheduledMatch], seed: int = 0
) -> dict[str, dict[str, str]]:
    """The admission test of every program on every game it has a pending match on; the
    refusals as {program: {game token: reason}}."""
    programs = {p.name: p for p in roster.players if isinstance(p, ProgramEntry)}
    tested: set[tuple[str, str]] = set()
    refused: dict[str, dict[str, str]] = {}
    for m in pending:
        for name in (m.alice, m.bob):
            if name not in programs or (name, m.game.token) in tested:
                continue
            tested.add((name, m.game.token))
            entry = programs[name]
            if isinstance(m.game.spec, GameSpec):
                verdict = admit(entry.path, m.game.spec, seed=seed, limits=entry.sandbox_limits())
            else:  # an OpenSpiel game (issue 46, item 5)
                verdict = admit_openspiel(
                    entry.path, m.game.spec, seed=seed, limits=entry.sandbox_limits()
                )
            if not verdict.admitted:
                refused.setdefault(name, {})[m.game.token] = verdict.reason
    return refused


def interleaved(matches: Sequence[ScheduledMatch]) -> list[ScheduledMatch]:
    """``matches`` in the order they are started: one of each pair of players in turn (pairs
    in order of first appearance, each pair's matches in schedule order).

    The schedule holds a pair's runs together, so the first ``parallel`` matches of a game
    played with many runs would seat a few players only, and every other player's request
    slots would wait idle (a 12-model game of 7 runs started 14 of its 66 pairs); in turn,
    every player has matches in flight from the start. Only the order of play changes: the
    corpus is written in schedule order. ``pending_matches`` orders the whole schedule so, and
    keeps what is left to play, so a resumed run plays in the order of the run it resumes."""
    by_pair: dict[frozenset[str], list[ScheduledMatch]] = {}
    for m in matches:
        by_pair.setdefault(frozenset(m.players), []).append(m)
    queues = list(by_pair.values())
    order: list[ScheduledMatch] = []
    depth = 0
    while len(order) < len(matches):
        order += [q[depth] for q in queues if depth < len(q)]
        depth += 1
    return order


@dataclass(frozen=True)
class Pending:
    """What a run of a tournament has left to play in its corpus: the ids already recorded
    (``done``), the matches to play in their order of play (``playable``, ``interleaved``
    order: not recorded yet, or recorded failed with ``retry_failed``, and every program in
    them admitted on the game), how many matches a refused program leaves out (``refused``)
    and why each program was refused on a game (``refusals``: {program: {game token:
    reason}})."""

    done: frozenset[str]
    playable: list[ScheduledMatch]
    refused: int
    refusals: dict[str, dict[str, str]]


def pending_matches(
    roster: Roster,
    schedule: Sequence[ScheduledMatch],
    corpus: Corpus,
    *,
    retry_failed: bool = False,
    seed: int = 0,
) -> Pending:
    """The matches of ``schedule`` that ``corpus`` still needs (see ``Pending``)."""
    done = frozenset(
        m.match_id
        for m in schedule
        if (status := corpus.status(m.match_id)) is not None
        and (status in DECIDED_STATUSES or not retry_failed)
    )
    # the order of the whole schedule, so that a resumed run starts what the run it resumes
    # had in flight first (a budget's stop left those unrecorded, their replies paid)
    pending = [m for m in interleaved(schedule) if m.match_id not in done]
    refusals = admit_programs(roster, pending, seed)
    playable = [
        m for m in pending if not any(m.game.token in refusals.get(n, {}) for n in m.players)
    ]
    return Pending(done, playable, len(pending) - len(playable), refusals)


def player_rates(records: Sequence[tuple[Record, list[Record]]]) -> dict[str, dict[str, float]]:
    """Per player: moves played, fallbacks, rethinks and their rates, and the calls, tokens
    (input, cached input, output), cost and latency of its move rows (a move that ended its
    match without an action included), over the given matches."""
    moves: Counter[str] = Counter()
    fallbacks: Counter[str] = Counter()
    rethinks: Counter[str] = Counter()
    sums: dict[str, Counter[str]] = {}
    usage = ("calls", "input_tokens", "cached_input_tokens", "output_tokens", "cost_usd",
             "latency_s")  # fmt: skip
    for _, match_moves in records:
        for mv in match_moves:
            moves[mv["player"]] += mv.get("action") is not None  # played, not unfinished
            fallbacks[mv["player"]] += int(mv["fallback"])
            rethinks[mv["player"]] += int(mv["rethinks"])
            own = sums.setdefault(mv["player"], Counter())
            for key in usage:
                own[key] += mv.get(key) or 0
    return {
        name: {
            "moves": moves[name],
            "fallbacks": fallbacks[name],
            "fallback_rate": fallbacks[name] / moves[name] if moves[name] else 0.0,
            "rethinks": rethinks[name],
            "rethink_rate": rethinks[name] / moves[name] if moves[name] else 0.0,
            "calls": sums[name]["calls"],
            "input_tokens": sums[name]["input_tokens"],
            "cached_input_tokens": sums[name]["cached_input_tokens"],
            "output_tokens": sums[name]["output_tokens"],
            "cost_usd": round(sums[name]["cost_usd"], 9),
            "latency_s_per_move": sums[name]["latency_s"] / moves[name] if moves[name] else 0.0,
        }
        for name in sorted(moves)
    }


class JournalSink(Protocol):
    def append(self, match: Record, moves: list[Record]) -> None: ...


class Metered:
    """A non-built-in player seated for one match: moves pass through to ``player``; a move
    that ends the match without an action (``MoveNotObtained``, ``MoveForfeited``) is kept in
    ``unfinished`` (seat, phase, legal menu, what it took) for ``with_unfinished``."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name
        self.model = player.model
        self.settings = player.settings
        self.unfinished: tuple[int, str, tuple[str, ...], Unfinished] | None = None

    @property
    def stopped(self) -> str | None:
        return self.player.stopped

    @stopped.setter
    def stopped(self, value: str | None) -> None:
        self.player.stopped = value

    async def decide(self, state: Any, seat: int, rng: random.Random, call_id: str) -> Decision:
        try:
            return await self.player.decide(state, seat, rng, call_id)
        except (MoveNotObtained, MoveForfeited) as exc:
            legal = tuple(state.legal_actions())
            self.unfinished = (seat, str(state.phase_id), legal, exc.unfinished)
            raise


def settings_text(player: Player) -> str:
    """A player's settings as the move rows record them."""
    return json.dumps(player.settings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def with_unfinished(
    m: ScheduledMatch, row: Record, moves: list[Record], seated: Sequence[Metered | Player]
) -> tuple[Record, list[Record]]:
    """The match's rows with the move that ended it without an action, if it made requests:
    one more move row (``action`` empty, its replies, verdict, calls, tokens, latency and cost)
    whose usage and rethinks are added to its seat's columns of the match row (``n_moves`` and
    ``moves_<seat>`` count the moves played)."""
    for player in seated:
        if not isinstance(player, Metered) or player.unfinished is None:
            continue
        seat, phase, legal, move = player.unfinished
        used = move.usage
        if not used.calls and not move.replies:
            continue  # nothing reached the provider: nothing to count
        decision = Decision(
            action="",
            raw_response=move.replies[-1] if move.replies else None,
            prompt_sha256=move.prompt_sha256,
            rethinks=max(move.asks - 1, 0),
            verdict=move.verdict,
            latency_s=used.latency_s,
            input_tokens=used.input_tokens,
            output_tokens=used.output_tokens,
            reasoning_tokens=used.reasoning_tokens,
            cached_input_tokens=used.cached_input_tokens,
            cost_usd=used.cost_usd,
            calls=used.calls,
            cached=used.cached and bool(move.replies or used.calls),
            reasoning=move.reasoning,
            earlier_responses=move.replies[:-1],
        )
        record = move_record(
            m, len(moves), seat, player.player, settings_text(player.player), phase, legal,
            decision,
        )  # fmt: skip
        record["action"] = None
        moves = [*moves, record]
        row = dict(row)
        side = SEATS[seat]
        for column in UNFINISHED_SUMS:
            row[f"{column}_{side}"] = (row.get(f"{column}_{side}") or 0) + record[column]
    return row, moves


UNFINISHED_SUMS = ("rethinks", "input_tokens", "output_tokens", "reasoning_tokens", "calls",
                   "cost_usd")  # fmt: skip


async def play_all(
    pending: list[ScheduledMatch],
    lineup: Lineup,
    corpus: JournalSink,
    parallel: int,
    on_match: Callable[[Record, list[Record]], None],
    budget: Budget | None = None,
) -> int:
    """Play ``pending`` with up to ``parallel`` matches at once, started in its order
    (``pending_matches``: ``interleaved``); return how many were skipped (``lineup.not_played``
    counts them per stopped player).  A move that ended its match without an action is
    recorded too (``with_unfinished``), and every row's free text is redacted
    (``arena.secrets.redacted_rows``) before it is recorded.  With a ``budget``, every LLM
    player reserves each request against it (``arena.tournament.budget``), and a match it
    refuses is skipped and its players are stopped."""
    queue = list(reversed(pending))
    secrets = (*lineup.secrets, *environment_secrets())
    skipped = 0
    if budget is not None:
        from arena.llm.player import LLMPlayer

        for player in lineup.players.values():
            if isinstance(player, LLMPlayer):
                player.budget = budget

    def skip(names: Sequence[str]) -> None:
        nonlocal skipped
        skipped += 1
        lineup.not_played[names[0] if names else "?"] += 1

    async def worker() -> None:
        while queue:
            m = queue.pop()
            seated = [lineup.players[m.alice], lineup.players[m.bob]]
            if any(p.stopped for p in seated):
                skip([p.name for p in seated if p.stopped])
                continue
            refused = budget.refusal(m.players) if budget is not None else {}
            if refused:
                for name, message in refused.items():
                    lineup.stopped.setdefault(name, message)
                skip(list(refused))
                continue
            metered: list[Metered | Player] = [
                p if isinstance(p, BuiltinPlayer) else Metered(p) for p in seated
            ]
            try:
                row, moves = await play_match(
                    m, {m.alice: metered[0], m.bob: metered[1]}, lineup.fingerprints
                )
            except PlayerStopped as exc:
                for p in seated:
                    if p.stopped:
                        lineup.stopped[p.name] = p.stopped
                if not any(p.stopped for p in seated):  # defensive: stop reason unknown
                    lineup.stopped[m.alice] = str(exc)
                skip([p.name for p in seated if p.stopped] or [m.alice])
                continue
            row, moves = with_unfinished(m, row, moves, metered)
            row, moves = redacted_rows(row, moves, secrets)
            corpus.append(row, moves)
            on_match(row, moves)

    await asyncio.gather(*(worker() for _ in range(max(1, parallel))))
    return skipped
