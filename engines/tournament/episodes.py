"""Multi-hand episodes: two players play N consecutive deals with the earlier hands visible.

Why it exists: a single deal cannot show whether a player adapts to its opponent. Game Arena
plays heads-up poker in 100-hand episodes with the full text history of earlier hands in every
prompt and both players' hole cards revealed after each hand, in a duplicate format: each
pre-shuffled sequence is played twice with the seats and cards swapped. This module is that
match mode for any GBG game (the paper names it as future work):

- **Schedule** (:func:`episode_schedule`): per (pair, game) ``episodes`` episode pairs; an
  episode pair is two episodes on the same hand seeds (``derive_seed(game seed, pair, k, hand)``)
  with the roles swapped (``mirror`` 0 and 1), the episode-level version of the paired deal.
  Within an episode the seats alternate hand by hand (the first player sits Alice on even hands
  of mirror 0 and odd hands of mirror 1), so each hand's cards are held once by each player
  across the pair.
- **Stacks** (``EpisodeConfig.stacks``): ``reset`` plays every hand with the game's stacks;
  ``carried`` carries each player's bankroll (starting at the game's stack) from hand to hand and
  plays each hand with both stacks at the effective stack, the smaller bankroll (the chips that
  can change hands heads-up); the episode ends early (``bust``) when a bankroll cannot pay the
  ante and one more chip.
- **History** (:class:`HandRecord`, :func:`history_text`): after each hand both players see its
  actions in order, its result, and the cards shown: at a showdown both hands (``reveal:
  showdown``), or both hands after every hand (``reveal: all``, Game Arena's choice). A built-in
  agent that reads history implements ``act_with_history``
  (``engines.agents.adaptive``); a player that takes a text history (an LLM) gets it as a
  preamble of its turn prompt.
- **Rows** (:data:`HAND_COLUMNS`): one per hand, with the first player's chip margin so that
  per-hand and per-episode statistics (``engines.stats.adaptation``) read one table.

A hand whose move fails (timeout, error) is recorded with its status and no chips change; a
forfeit is scored as a fold (``engines.tournament.match.forfeit_returns``).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pyarrow as pa
from pydantic import ValidationError

from engines.agents.base import BuiltinPlayer, Forfeit, MoveFailed, Player, PlayerStopped
from engines.gbg.engine import ENGINE_VERSION, State, new_deal
from engines.gbg.rng import derive_seed
from engines.gbg.spec import SEATS, GameSpec
from engines.tournament.match import forfeit_returns
from engines.tournament.records import Record
from engines.tournament.schedule import Game, pair_key

StackMode = Literal["reset", "carried"]
Reveal = Literal["showdown", "all"]
STACK_MODES: tuple[StackMode, ...] = ("reset", "carried")
REVEALS: tuple[Reveal, ...] = ("showdown", "all")
MAX_HANDS = 1000
EPISODE_SALT = 0xE915
HAND_SALT = 0x4A4D

HAND_SCHEMA = pa.schema(
    [
        ("episode_id", pa.string()),
        ("pair_id", pa.string()),
        ("mirror", pa.int64()),
        ("game", pa.string()),
        ("game_seed", pa.int64()),
        ("spec_hash", pa.string()),
        ("engine_version", pa.string()),
        ("first", pa.string()),
        ("second", pa.string()),
        ("hand", pa.int64()),
        ("alice", pa.string()),
        ("bob", pa.string()),
        ("play_seed", pa.uint64()),
        ("stack", pa.int64()),
        ("alice_chip_delta", pa.int64()),
        ("bob_chip_delta", pa.int64()),
        ("margin_alice", pa.int64()),
        ("margin_first", pa.int64()),
        ("status", pa.string()),
        ("ended_by", pa.string()),
        ("n_moves", pa.int64()),
        ("error", pa.string()),
    ]
)
HAND_COLUMNS: tuple[str, ...] = tuple(HAND_SCHEMA.names)


@dataclass(frozen=True)
class EpisodeConfig:
    """How an episode is played: hands, stacks carried or reset, what is revealed."""

    hands: int = 20
    stacks: StackMode = "reset"
    reveal: Reveal = "showdown"

    def __post_init__(self) -> None:
        if not 1 <= self.hands <= MAX_HANDS:
            raise ValueError(f"an episode has 1 to {MAX_HANDS} hands, got {self.hands}")
        if self.stacks not in STACK_MODES:
            raise ValueError(f"stacks must be one of {', '.join(STACK_MODES)}, got {self.stacks!r}")
        if self.reveal not in REVEALS:
            raise ValueError(f"reveal must be one of {', '.join(REVEALS)}, got {self.reveal!r}")


@dataclass(frozen=True)
class ScheduledEpisode:
    """One episode: the pair (``first`` < ``second`` by name), the game, the mirror."""

    episode_id: str
    pair_id: str
    game: Game
    first: str
    second: str
    mirror: int
    base_seed: int

    def seats(self, hand: int) -> tuple[str, str]:
        """(Alice, Bob) of ``hand``."""
        if (hand + self.mirror) % 2 == 0:
            return self.first, self.second
        return self.second, self.first

    def play_seed(self, hand: int) -> int:
        return derive_seed(self.base_seed, hand, HAND_SALT)


def episode_schedule(
    pairs: Sequence[tuple[str, str]], games: Sequence[Game], episodes: int, config: EpisodeConfig
) -> list[ScheduledEpisode]:
    """Every (pair, game, k < episodes) episode pair, mirror 0 then 1."""
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    out: list[ScheduledEpisode] = []
    for a, b in pairs:
        if a == b:
            raise ValueError(f"an episode needs two different players, got {a!r} twice")
        first, second = sorted((a, b))
        for game in games:
            for k in range(episodes):
                base = derive_seed(game.game_seed, pair_key(first, second), k, EPISODE_SALT)
                key = json.dumps(
                    [game.game_seed, game.spec.spec_hash, ENGINE_VERSION, first, second, k,
                     config.hands, config.stacks, config.reveal],
                    separators=(",", ":"),
                )  # fmt: skip
                pair_id = "ep-" + hashlib.sha256(key.encode()).hexdigest()[:20]
                for mirror in (0, 1):
                    out.append(
                        ScheduledEpisode(
                            f"{pair_id}.{mirror}", pair_id, game, first, second, mirror, base
                        )
                    )
    return out


@dataclass(frozen=True)
class HandRecord:
    """What both players know of a finished hand."""

    hand: int
    alice: str
    bob: str
    actions: tuple[tuple[str, str], ...]
    shown: tuple[tuple[str, tuple[str, ...]], ...]
    ended_by: str
    alice_delta: int
    bob_delta: int
    status: str


def history_text(history: Sequence[HandRecord], me: str) -> str:
    """The earlier hands as ``me`` is told them (a preamble of the turn prompt)."""
    if not history:
        return ""
    lines = [f"Earlier hands of this episode ({len(history)}), oldest first:"]
    for h in history:
        my_seat = "Alice" if h.alice == me else "Bob"
        mine = h.alice_delta if h.alice == me else h.bob_delta
        acts = ", ".join(f"{seat.capitalize()} {action}" for seat, action in h.actions)
        shown = "; ".join(
            f"{seat.capitalize()} showed {' '.join(cards)}" for seat, cards in h.shown
        )
        lines.append(
            f"Hand {h.hand + 1}: you sat {my_seat}. Actions: {acts or 'none'}. "
            f"Ended by {h.ended_by}. {shown + '. ' if shown else 'No cards shown. '}"
            f"Your result: {mine:+d} chips."
        )
    return "\n".join(lines) + "\n\n"


def hand_spec(spec: GameSpec, stack: int) -> GameSpec:
    """The game with both stacks at ``stack`` (``ValueError`` if the game cannot be played)."""
    if stack == spec.stack:
        return spec
    try:
        return GameSpec.model_validate({**spec.model_dump(), "stack": stack})
    except ValidationError as exc:
        raise ValueError(f"the game cannot be played with stacks of {stack}: {exc}") from None


def _takes_history(player: Player) -> bool:
    return "preamble" in inspect.signature(player.decide).parameters


async def _decide(
    player: Player,
    state: State,
    seat: int,
    rng: random.Random,
    call_id: str,
    history: Sequence[HandRecord],
) -> str:
    if isinstance(player, BuiltinPlayer):
        agent: Any = player.agent
        if hasattr(agent, "act_with_history"):
            return str(agent.act_with_history(state, seat, rng, history, player.name))
        return player.decide_now(state, seat, rng).action
    if _takes_history(player):
        text = history_text(history, player.name)
        decision = await player.decide(state, seat, rng, call_id, preamble=text)  # type: ignore[call-arg]
    else:
        decision = await player.decide(state, seat, rng, call_id)
    return decision.action


def _shown(state: State, ended_by: str, reveal: Reveal) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if reveal == "showdown" and ended_by != "showdown":
        return ()
    label = state.g.label_of
    return tuple((SEATS[s], tuple(label[c] for c in state.hands[s])) for s in (0, 1))


async def play_episode(
    episode: ScheduledEpisode, players: dict[str, Player], config: EpisodeConfig
) -> list[Record]:
    """Play one episode; one row per hand played (``HAND_COLUMNS``).

    ``PlayerStopped`` propagates (the episode is then not recorded).
    """
    spec = episode.game.generated  # episodes are defined for generated games
    bankroll = {episode.first: spec.stack, episode.second: spec.stack}
    history: list[HandRecord] = []
    rows: list[Record] = []
    for hand in range(config.hands):
        alice, bob = episode.seats(hand)
        stack = spec.stack
        if config.stacks == "carried":
            stack = min(bankroll[alice], bankroll[bob])
            if stack < spec.ante + 1:
                break
            try:
                played_spec = hand_spec(spec, stack)
            except ValueError:
                break
        else:
            played_spec = spec
        seed = episode.play_seed(hand)
        state = new_deal(played_spec, seed)
        seated = (players[alice], players[bob])
        rngs = tuple(random.Random(derive_seed(seed, hand, s, EPISODE_SALT)) for s in (0, 1))
        actions: list[tuple[str, str]] = []
        status, error, returns = "complete", None, (0, 0)
        try:
            while state.current_player >= 0:
                seat = state.current_player
                legal = state.legal_actions()
                call_id = f"{episode.episode_id}/{hand}/{len(actions)}"
                action = await _decide(seated[seat], state, seat, rngs[seat], call_id, history)
                if action not in legal:
                    raise ValueError(f"player {seated[seat].name!r} chose {action!r}, not legal")
                state.apply(action)
                actions.append((SEATS[seat], action))
            returns = state.returns()
        except PlayerStopped:
            raise
        except Forfeit as exc:
            status, error = "forfeit", f"Forfeit by {seated[state.current_player].name}: {exc}"
            returns = forfeit_returns(state.contrib, state.current_player)
        except MoveFailed as exc:
            status, error = exc.status, str(exc)
        except Exception as exc:  # an agent's bug must not take the tournament down
            status, error = "error", f"{type(exc).__name__}: {exc}"
        ended_by = (
            "fold" if actions and actions[-1][1] == "fold" else status
            if status != "complete" else "showdown"
        )  # fmt: skip
        record = HandRecord(
            hand, alice, bob, tuple(actions), _shown(state, ended_by, config.reveal), ended_by,
            returns[0], returns[1], status,
        )  # fmt: skip
        history.append(record)
        bankroll[alice] += returns[0]
        bankroll[bob] += returns[1]
        margin_alice = returns[0] - returns[1]
        rows.append(
            {
                "episode_id": episode.episode_id,
                "pair_id": episode.pair_id,
                "mirror": episode.mirror,
                "game": episode.game.token,
                "game_seed": episode.game.game_seed,
                "spec_hash": played_spec.spec_hash,
                "engine_version": ENGINE_VERSION,
                "first": episode.first,
                "second": episode.second,
                "hand": hand,
                "alice": alice,
                "bob": bob,
                "play_seed": seed,
                "stack": stack,
                "alice_chip_delta": returns[0],
                "bob_chip_delta": returns[1],
                "margin_alice": margin_alice,
                "margin_first": margin_alice if alice == episode.first else -margin_alice,
                "status": status,
                "ended_by": ended_by,
                "n_moves": len(actions),
                "error": error,
            }
        )
    return rows


def play_builtin_episode(
    episode: ScheduledEpisode, players: dict[str, Player], config: EpisodeConfig
) -> list[Record]:
    """``play_episode`` without an event loop (both players are built-in agents)."""
    coroutine = play_episode(episode, players, config)
    try:
        coroutine.send(None)
    except StopIteration as done:
        rows: list[Record] = done.value
        return rows
    coroutine.close()
    raise RuntimeError("a built-in episode awaited something")
