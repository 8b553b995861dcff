"""Heads-up no-limit hold'em as Game Arena plays it: duplicate 100-hand episodes (issue 46,
item 3).

Game Arena's poker format (its technical report, Section 2): blinds 1-2, every hand from 100 big
blinds (stacks reset each hand), pairwise matchups in independent 100-hand episodes, the full
text history of the episode's earlier hands in every prompt, **both players' hole cards revealed
after every hand** whether or not it went to showdown, **duplicate decks** (each pre-shuffled
100-hand sequence played twice with the players' seats and cards swapped), and the retry rule:
an illegal action gets one retry, a second defaults to the most conservative action (check if no
bet is pending, else fold). Here:

- **The game** is ``openspiel:hunl`` (``engines.openspiel.spec.HUNL_PARAMS``: blinds 2/1,
  stacks 200); :func:`check_format_game` refuses another. Its protocol is
  ``game-arena-poker`` (one retry, then ``conservative``), which ``arena.llm.player.LLMPlayer``
  applies; a built-in agent never answers an illegal action.
- **Decks.** A hand's deck is fixed before the episode by its deck seed: the adapter's chance
  generator (``engines.openspiel.state``) draws every card of the hand from that seed alone, in
  dealing order, so the seed *is* the shuffled deck. An episode pair (mirror 0 and 1) shares the
  deck seeds; within an episode the button alternates hand by hand (``first`` sits seat 0 on the
  even hands of mirror 0 and the odd hands of mirror 1), so every card a player held in one
  mirror is held by the other player in the other. **Plain dealing** (``duplicate=False``) gives
  the two episodes of a pair independent decks: the comparison of ``benchmarks/
  poker_duplicate_variance.py``, at equal hands.
- **History.** After each hand both players are told its actions, how it ended, both players'
  hole cards and the board (``reveal="all"``; ``"showdown"`` shows them only at a showdown), and
  their result (:func:`history_text`, in the words of the turn prompt: big and small blind); an
  LLM gets that text before its turn prompt.
- **Rows**: one per hand (:data:`HAND_COLUMNS`), with the first player's chip margin, so the
  per-episode BB/100 and its block bootstrap read one table.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa

from arena.llm.cache import ResponseCache
from arena.roster import Roster
from arena.secrets import environment_secrets, redacted_rows
from arena.tournament.journal import write_table
from arena.tournament.lineup import build_lineup
from engines.agents.base import BuiltinPlayer, Forfeit, MoveFailed, Player, PlayerStopped
from engines.gbg.rng import derive_seed
from engines.openspiel.spec import HUNL_PARAMS, OpenSpielSpec
from engines.openspiel.state import OpenSpielState
from engines.openspiel.text import poker_fields
from engines.tournament.match import forfeit_returns
from engines.tournament.records import Record
from engines.tournament.schedule import Game, pair_key

Reveal = Literal["showdown", "all"]
EPISODE_SALT = 0x9A3E
DECK_SALT = 0xDEC4
ROLES = ("the big blind", "the small blind")  # HUNL_PARAMS: seat 0 posts 2, seat 1 posts 1
BIG_BLIND = 2
MAX_HANDS = 1000

POKER_HAND_SCHEMA = pa.schema(
    [
        ("episode_id", pa.string()),
        ("pair_id", pa.string()),
        ("mirror", pa.int64()),
        ("game", pa.string()),
        ("spec_hash", pa.string()),
        ("first", pa.string()),
        ("second", pa.string()),
        ("hand", pa.int64()),
        ("alice", pa.string()),
        ("bob", pa.string()),
        ("deck_seed", pa.uint64()),
        ("alice_cards", pa.string()),
        ("bob_cards", pa.string()),
        ("board", pa.string()),
        ("alice_chip_delta", pa.int64()),
        ("bob_chip_delta", pa.int64()),
        ("margin_first", pa.int64()),
        ("status", pa.string()),
        ("ended_by", pa.string()),
        ("n_moves", pa.int64()),
        ("error", pa.string()),
    ]
)
HAND_COLUMNS: tuple[str, ...] = tuple(POKER_HAND_SCHEMA.names)


@dataclass(frozen=True)
class PokerFormat:
    """How episodes are played (module docstring); the default is Game Arena's."""

    hands: int = 100
    duplicate: bool = True
    reveal: Reveal = "all"

    def __post_init__(self) -> None:
        if not 1 <= self.hands <= MAX_HANDS:
            raise ValueError(f"an episode has 1 to {MAX_HANDS} hands, got {self.hands}")
        if self.reveal not in ("showdown", "all"):
            raise ValueError(f"reveal must be showdown or all, got {self.reveal!r}")


GAME_ARENA = PokerFormat()


def check_format_game(game: Game) -> OpenSpielSpec:
    """The game's spec if it is heads-up no-limit hold'em at blinds 1-2 and 100 big blinds;
    ``ValueError`` (one line) otherwise."""
    spec = game.spec
    if not isinstance(spec, OpenSpielSpec) or spec.family != "universal_poker":
        raise ValueError(f"{game.token} is not hold'em: the poker format plays openspiel:hunl")
    wanted = {k: HUNL_PARAMS[k] for k in ("betting", "numPlayers", "blind", "stack")}
    if any(str(spec.params.get(k)) != str(v) for k, v in wanted.items()):
        raise ValueError(
            f"{game.token} is not played at blinds 1-2 with 100 big blinds (200 chips); "
            "use openspiel:hunl"
        )
    return spec


@dataclass(frozen=True)
class PokerEpisode:
    """One episode of a pair (``first`` < ``second`` by name) with its decks."""

    episode_id: str
    pair_id: str
    game: Game
    first: str
    second: str
    mirror: int
    deck_seeds: tuple[int, ...]

    def seats(self, hand: int) -> tuple[str, str]:
        """(seat 0, seat 1) of ``hand``: the button alternates, the mirror swaps."""
        if (hand + self.mirror) % 2 == 0:
            return self.first, self.second
        return self.second, self.first


def poker_schedule(
    pairs: Sequence[tuple[str, str]], game: Game, episodes: int, fmt: PokerFormat = GAME_ARENA
) -> list[PokerEpisode]:
    """Every (pair, k < episodes) episode pair, mirror 0 then 1 (module docstring)."""
    check_format_game(game)
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    out: list[PokerEpisode] = []
    for a, b in pairs:
        if a == b:
            raise ValueError(f"an episode needs two different players, got {a!r} twice")
        first, second = sorted((a, b))
        for k in range(episodes):
            base = derive_seed(game.game_seed, pair_key(first, second), k, EPISODE_SALT)
            key = json.dumps(
                [game.spec.spec_hash, first, second, k, fmt.hands, fmt.duplicate, fmt.reveal],
                separators=(",", ":"),
            )
            pair_id = "poker-" + hashlib.sha256(key.encode()).hexdigest()[:20]
            for mirror in (0, 1):
                deck = 0 if fmt.duplicate else mirror
                seeds = tuple(derive_seed(base, deck, h, DECK_SALT) for h in range(fmt.hands))
                out.append(
                    PokerEpisode(f"{pair_id}.{mirror}", pair_id, game, first, second, mirror, seeds)
                )
    return out


@dataclass(frozen=True)
class PokerHand:
    """What both players know of a finished hand."""

    hand: int
    seated: tuple[str, str]
    actions: tuple[tuple[int, str], ...]
    cards: tuple[str, str] | None  # hole cards by seat, when revealed
    board: str
    ended_by: str
    chips: tuple[int, int]


def history_text(history: Sequence[PokerHand], me: str) -> str:
    """The episode's earlier hands as ``me`` is told them (a preamble of the turn prompt)."""
    if not history:
        return ""
    lines = [f"Earlier hands of this episode ({len(history)}), oldest first:"]
    for h in history:
        seat = h.seated.index(me)
        acts = ", ".join(f"{ROLES[s]} {a}" for s, a in h.actions) or "none"
        cards = "Cards not shown."
        if h.cards is not None:
            cards = f"Your cards {h.cards[seat]}, your opponent's {h.cards[1 - seat]}."
        board = f" Board: {h.board}." if h.board else ""
        lines.append(
            f"Hand {h.hand + 1}: you were {ROLES[seat]}. Actions: {acts}. Ended by {h.ended_by}."
            f" {cards}{board} Your result: {h.chips[seat]:+d} chips."
        )
    return "\n".join(lines) + "\n\n"


def dealt_cards(state: OpenSpielState) -> tuple[str, str, str]:
    """(seat 0's hole cards, seat 1's, the board) of a hand, as OpenSpiel writes cards."""
    zero = poker_fields(state.ps.information_state_string(0))
    one = poker_fields(state.ps.information_state_string(1))
    return zero.get("Private", ""), one.get("Private", ""), zero.get("Public", "")


async def _decide(
    player: Player,
    state: OpenSpielState,
    seat: int,
    rng: random.Random,
    call_id: str,
    history: Sequence[PokerHand],
) -> str:
    if isinstance(player, BuiltinPlayer):
        return player.decide_now(state, seat, rng).action  # type: ignore[arg-type]
    decide: Any = player.decide
    decision = await decide(state, seat, rng, call_id, preamble=history_text(history, player.name))
    return str(decision.action)


async def play_poker_episode(
    episode: PokerEpisode, players: dict[str, Player], fmt: PokerFormat = GAME_ARENA
) -> list[Record]:
    """Play one episode; one row per hand (:data:`HAND_COLUMNS`). ``PlayerStopped``
    propagates (the episode is then not recorded)."""
    spec = check_format_game(episode.game)
    history: list[PokerHand] = []
    rows: list[Record] = []
    for hand, deck_seed in enumerate(episode.deck_seeds[: fmt.hands]):
        alice, bob = episode.seats(hand)
        state = OpenSpielState(spec, deck_seed)  # stacks reset: every hand from 200 chips
        seated = (players[alice], players[bob])
        rngs = tuple(random.Random(derive_seed(deck_seed, s, EPISODE_SALT)) for s in (0, 1))
        actions: list[tuple[int, str]] = []
        status, error, returns = "complete", None, (0, 0)
        try:
            while not state.is_terminal():
                seat = state.current_player
                call_id = f"{episode.episode_id}/{hand}/{len(actions)}"
                action = await _decide(seated[seat], state, seat, rngs[seat], call_id, history)
                state.apply(action)  # ValueError for an illegal action: the hand's error
                actions.append((seat, action))
            returns = state.returns()
        except PlayerStopped:
            raise
        except Forfeit as exc:
            seat = state.current_player
            status, error = "forfeit", f"Forfeit by {seated[seat].name}: {exc}"
            returns = forfeit_returns(state.contrib, seat)
        except MoveFailed as exc:
            status, error = exc.status, str(exc)
        except Exception as exc:  # an agent's bug must not take the tournament down
            status, error = "error", f"{type(exc).__name__}: {exc}"
        folded = bool(actions) and actions[-1][1] == "fold"
        ended_by = "fold" if folded else ("showdown" if status == "complete" else status)
        zero, one, board = dealt_cards(state)
        shown = fmt.reveal == "all" or ended_by == "showdown"
        history.append(
            PokerHand(
                hand, (alice, bob), tuple(actions), (zero, one) if shown else None, board,
                ended_by, (returns[0], returns[1]),
            )
        )  # fmt: skip
        margin = returns[0] - returns[1]
        rows.append(
            {
                "episode_id": episode.episode_id,
                "pair_id": episode.pair_id,
                "mirror": episode.mirror,
                "game": episode.game.token,
                "spec_hash": spec.spec_hash,
                "first": episode.first,
                "second": episode.second,
                "hand": hand,
                "alice": alice,
                "bob": bob,
                "deck_seed": deck_seed,
                "alice_cards": zero,
                "bob_cards": one,
                "board": board,
                "alice_chip_delta": returns[0],
                "bob_chip_delta": returns[1],
                "margin_first": margin if alice == episode.first else -margin,
                "status": status,
                "ended_by": ended_by,
                "n_moves": len(actions),
                "error": error,
            }
        )
    return rows


def play_builtin_poker_episode(
    episode: PokerEpisode, players: dict[str, Player], fmt: PokerFormat = GAME_ARENA
) -> list[Record]:
    """``play_poker_episode`` without an event loop (both players are built-in agents)."""
    coroutine = play_poker_episode(episode, players, fmt)
    try:
        coroutine.send(None)
    except StopIteration as done:
        rows: list[Record] = done.value
        return rows
    coroutine.close()
    raise RuntimeError("a built-in episode awaited something")


def first_chips_per_pair(rows: Sequence[Record]) -> dict[str, float]:
    """Per episode pair, the first player's chips over both episodes' completed hands."""
    out: dict[str, float] = {}
    for row in rows:
        out[str(row["pair_id"])] = (
            out.get(str(row["pair_id"]), 0.0) + float(row["margin_first"]) / 2.0
        )
    return out


def bb_per_100(chips: float, hands: int) -> float:
    """Big blinds won per 100 hands (Game Arena's BB/100)."""
    return 100.0 * chips / hands / BIG_BLIND


def run_poker_tournament(
    roster: Roster,
    pairs: Sequence[tuple[str, str]],
    game: Game,
    episodes: int,
    folder: Path,
    fmt: PokerFormat = GAME_ARENA,
    *,
    environ: dict[str, str] | None = None,
    seed: int = 0,
) -> tuple[Path, dict[str, str]]:
    """Play ``episodes`` episode pairs of every pair in ``fmt`` and write ``hands.parquet``
    (:data:`POKER_HAND_SCHEMA`, one row per hand, errors redacted as a match's) in ``folder``;
    LLM players share the folder's response cache. A player that stops is taken out (its
    episodes are not recorded). Returns the table's path and the stopped players' reasons."""
    names = {p.name for p in roster.players}
    unknown = sorted({n for pair in pairs for n in pair} - names)
    if unknown:
        raise ValueError(f"episode pair names unknown player(s): {', '.join(unknown)}")
    schedule = poker_schedule(pairs, game, episodes, fmt)
    folder.mkdir(parents=True, exist_ok=True)
    cache = ResponseCache(folder / "cache.sqlite")
    stopped: dict[str, str] = {}

    async def main() -> list[Record]:
        lineup = build_lineup(roster, cache, random.Random(seed), environ)
        secrets = (*lineup.secrets, *environment_secrets())
        rows: list[Record] = []
        try:
            for episode in schedule:
                seated = [lineup.players[episode.first], lineup.players[episode.second]]
                if any(p.name in stopped for p in seated):
                    continue
                try:
                    played = await play_poker_episode(episode, lineup.players, fmt)
                except PlayerStopped as exc:
                    stopped.update({p.name: str(p.stopped) for p in seated if p.stopped})
                    if not any(p.stopped for p in seated):
                        stopped[episode.first] = str(exc)
                    continue
                rows += [redacted_rows(row, [], secrets)[0] for row in played]
        finally:
            await lineup.aclose()
        return rows

    try:
        rows = asyncio.run(main())
    finally:
        cache.close()
    path = folder / "hands.parquet"
    write_table(rows, POKER_HAND_SCHEMA, path)
    return path, stopped
