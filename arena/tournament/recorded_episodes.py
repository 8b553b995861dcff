"""Multi-hand episodes with LLM players, every request kept (issue 41, item 5).

``arena.tournament.runner.run_episode_tournament`` plays episodes (``engines.tournament.
episodes``: N hands in a row, the earlier hands in every prompt, mirrored seats) and writes one
row per hand; what an LLM player asked and paid is not in those rows.  ``run_recorded_episodes``
plays the same schedule with the same players and the same hands table, and keeps every move
of a non-built-in player as a move row (``MOVE_SCHEMA``, ``match_id`` the hand's
``<episode_id>/<hand>``): its reply, verdict, rethinks, calls, tokens, latency and cost,
including a move that ended its hand without an action (retries exhausted, a forfeit), as the
tournament's corpus counts them.  Episodes are independent, so up to ``parallel`` of them play
at once (their hands one after another, as an episode is); the tables are written in schedule
order, so they do not depend on ``parallel``.  The folder's response cache means a run played
again asks no model twice.

Files: ``hands.parquet`` (``HAND_SCHEMA``) and ``episode_moves.parquet`` (``MOVE_SCHEMA``);
``EpisodeRun`` gives their paths, the players stopped (a player that stops is taken out: its
episodes are not recorded, as in the runner) and the usage per player (``usage``: moves, calls,
input, cached input and output tokens, cost).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from arena.llm.cache import ResponseCache
from arena.llm.usage import MoveForfeited, MoveNotObtained, Unfinished
from arena.roster import Roster
from arena.secrets import environment_secrets, redacted_rows
from arena.tournament.journal import write_table
from arena.tournament.lineup import build_lineup
from engines.agents.base import BuiltinPlayer, Decision, Player, PlayerStopped
from engines.tournament.episodes import HAND_SCHEMA, EpisodeConfig, episode_schedule, play_episode
from engines.tournament.match import move_record
from engines.tournament.records import MOVE_SCHEMA, Record
from engines.tournament.schedule import Game, ScheduledMatch

HANDS = "hands.parquet"
EPISODE_MOVES = "episode_moves.parquet"
USAGE = ("calls", "input_tokens", "cached_input_tokens", "output_tokens", "cost_usd")


@dataclass(frozen=True)
class _Hand:
    """What ``move_record`` reads of a match: its id (here a hand's)."""

    match_id: str


def unfinished_decision(move: Unfinished) -> Decision:
    """The move row's fields of a move that ended its hand without an action."""
    used = move.usage
    return Decision(
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


class Recorder:
    """A non-built-in player whose every move (``decide``) is kept in ``rows``, keyed by the
    episode it belongs to (read from the call id ``<episode_id>/<hand>/<move>``)."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name
        self.model = player.model
        self.settings = player.settings
        self.rows: dict[str, list[Record]] = {}
        self._history = "preamble" in inspect.signature(player.decide).parameters

    @property
    def stopped(self) -> str | None:
        return self.player.stopped

    @stopped.setter
    def stopped(self, value: str | None) -> None:
        self.player.stopped = value

    async def decide(
        self, state: Any, seat: int, rng: random.Random, call_id: str, preamble: str = ""
    ) -> Decision:
        episode_id, hand, index = call_id.rsplit("/", 2)
        legal = tuple(state.legal_actions())
        phase = str(state.phase_id)
        inner: Any = self.player
        decision: Decision
        try:
            if self._history:  # a player that reads the earlier hands (an LLM)
                decision = await inner.decide(state, seat, rng, call_id, preamble=preamble)
            else:
                decision = await inner.decide(state, seat, rng, call_id)
        except (MoveNotObtained, MoveForfeited) as exc:
            used = exc.unfinished
            if used.usage.calls or used.replies:
                self._keep(episode_id, hand, index, seat, phase, legal, unfinished_decision(used))
            raise
        self._keep(episode_id, hand, index, seat, phase, legal, decision)
        return decision

    def _keep(
        self, episode_id: str, hand: str, index: str, seat: int, phase: str,
        legal: tuple[str, ...], decision: Decision,
    ) -> None:  # fmt: skip
        settings = json.dumps(self.settings, sort_keys=True, separators=(",", ":"))
        match = cast(ScheduledMatch, _Hand(f"{episode_id}/{hand}"))
        row = move_record(match, int(index), seat, self.player, settings, phase, legal, decision)
        if not decision.action:
            row["action"] = None
        self.rows.setdefault(episode_id, []).append(row)


@dataclass
class EpisodeRun:
    """What ``run_recorded_episodes`` wrote and found (see the module docstring)."""

    hands_path: Path
    moves_path: Path
    stopped: dict[str, str] = field(default_factory=dict)
    usage: dict[str, dict[str, float]] = field(default_factory=dict)


def usage_by_player(moves: Sequence[Record]) -> dict[str, dict[str, float]]:
    """Moves played (an unfinished one not counted) and the usage sums per player."""
    out: dict[str, dict[str, float]] = {}
    for move in moves:
        own = out.setdefault(str(move["player"]), {"moves": 0, **dict.fromkeys(USAGE, 0)})
        own["moves"] += move.get("action") is not None
        for key in USAGE:
            own[key] += move.get(key) or 0
    return {name: out[name] for name in sorted(out)}


def run_recorded_episodes(
    roster: Roster,
    pairs: Sequence[tuple[str, str]],
    games: Sequence[Game],
    episodes: int,
    config: EpisodeConfig,
    folder: Path,
    *,
    parallel: int = 8,
    offline: bool = False,
    environ: dict[str, str] | None = None,
    seed: int = 0,
) -> EpisodeRun:
    """Play ``episodes`` episode pairs of every pair on every game into ``folder`` (see the
    module docstring)."""
    names = {p.name for p in roster.players}
    unknown = sorted({n for pair in pairs for n in pair} - names)
    if unknown:
        raise ValueError(f"episode pair names unknown player(s): {', '.join(unknown)}")
    schedule = episode_schedule(pairs, games, episodes, config)
    folder.mkdir(parents=True, exist_ok=True)
    cache = ResponseCache(folder / "cache.sqlite", offline=offline)
    stopped: dict[str, str] = {}

    async def main() -> tuple[list[Record], list[Record]]:
        lineup = build_lineup(roster, cache, random.Random(seed), environ)
        secrets = (*lineup.secrets, *environment_secrets())
        players: dict[str, Any] = {
            name: p if isinstance(p, BuiltinPlayer) else Recorder(p)
            for name, p in lineup.players.items()
        }
        recorders = [p for p in players.values() if isinstance(p, Recorder)]
        played: dict[str, list[Record]] = {}
        gate = asyncio.Semaphore(max(1, parallel))

        async def one(index: int) -> None:
            episode = schedule[index]
            seated = [players[episode.first], players[episode.second]]
            async with gate:
                stopped.update({p.name: str(p.stopped) for p in seated if p.stopped})
                if any(p.name in stopped for p in seated):
                    return
                try:
                    played[episode.episode_id] = await play_episode(episode, players, config)
                except PlayerStopped as exc:
                    stopped.update({p.name: str(p.stopped) for p in seated if p.stopped})
                    if not any(p.stopped for p in seated):  # defensive: stop reason unknown
                        stopped[episode.first] = str(exc)

        try:
            await asyncio.gather(*(one(i) for i in range(len(schedule))))
        finally:
            await lineup.aclose()
        hands: list[Record] = []
        moves: list[Record] = []
        for episode in schedule:
            rows = played.get(episode.episode_id)
            if rows is None:
                continue
            kept = [m for r in recorders for m in r.rows.get(episode.episode_id, [])]
            kept.sort(key=lambda m: (int(str(m["match_id"]).rsplit("/", 1)[1]), m["index"]))
            for row in rows:
                hand_id = f"{episode.episode_id}/{row['hand']}"
                own = [m for m in kept if m["match_id"] == hand_id]
                clean_row, clean_moves = redacted_rows(row, own, secrets)
                hands.append(clean_row)
                moves += clean_moves
        return hands, moves

    try:
        hands, moves = asyncio.run(main())
    finally:
        cache.close()
    run = EpisodeRun(folder / HANDS, folder / EPISODE_MOVES, stopped, usage_by_player(moves))
    write_table(hands, HAND_SCHEMA, run.hands_path)
    write_table(moves, MOVE_SCHEMA, run.moves_path)
    return run
