"""A balanced schedule: who sits where and which role each seat is dealt.

Why it exists: raw win rates in Werewolf mix skill with role luck (Game Arena report,
"Evaluation"), and the role-decomposed ratings (``engines.stats.werewolf``) need every player
to hold every role in the deck's proportions, and need the number of seats a player holds to
vary from game to game: a player that held the same number of seats in every game would add
the same amount to the village's odds in every game whenever it helped the village in all its
roles alike, which no fit could tell from the game's own balance (the intercept).  So:

1. blocks come in groups of ``n`` (the number of players).  A group draws a composition ``c``
   of the eight seats among the players (eight uniform draws from the group's generator,
   ``DealRng(derive_seed(seed, group, 8))``), redrawn until its cyclic shifts are linearly
   independent (no zero in the discrete Fourier transform of ``c``), so that the seat counts
   of the group's blocks span every player's direction;
2. block ``j`` of the group gives player ``m`` ``c[(m + j) mod n]`` seats, in an order
   shuffled by the block's generator ``DealRng(derive_seed(seed, b))``: over a complete group
   every player holds exactly 8 seats;
3. the block's generator deals a base permutation of the eight role cards
   (``engines.werewolf.roles.deal_roles``), and game ``j = 0..7`` of the block gives seat ``k``
   the card ``base[(k + j) mod 8]``: each seat holds each card once per block, so each player
   is dealt Werewolf, Seer, Doctor and Villager in the deck's proportions 2 : 1 : 1 : 4 of its
   seats, in every block.

Each game's play seed is ``derive_seed(seed, b, j)``.  With one player there is nothing to
balance: it holds every seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engines.gbg.rng import DealRng, derive_seed
from engines.werewolf.roles import SEATS, Role, deal_roles

MAX_DRAWS = 10_000


@dataclass(frozen=True)
class ScheduledGame:
    game_id: str
    block: int
    players: tuple[str, ...]
    roles: tuple[Role, ...]
    play_seed: int


def composition(n: int, rng: DealRng) -> list[int]:
    """Seats per player (step 1 of the module docstring)."""
    for _ in range(MAX_DRAWS):
        counts = [0] * n
        for _ in range(SEATS):
            counts[rng.below(n)] += 1
        if np.min(np.abs(np.fft.fft(np.array(counts, dtype=np.float64)))) > 1e-9:
            return counts
    raise ValueError(f"no composition of {SEATS} seats among {n} players spans them")


def balanced_schedule(players: Sequence[str], blocks: int, seed: int) -> list[ScheduledGame]:
    """``blocks`` blocks of eight games (module docstring); ``ValueError`` for no players, a
    repeated name or fewer than one block."""
    names = list(players)
    n = len(names)
    if not names:
        raise ValueError("a schedule needs at least one player")
    if len(set(names)) != n:
        raise ValueError(f"player names repeat: {names}")
    if blocks < 1:
        raise ValueError(f"a schedule needs at least one block, got {blocks}")
    games = []
    counts: list[int] = []
    for b in range(blocks):
        group, j = divmod(b, n)
        if j == 0:
            counts = composition(n, DealRng(derive_seed(seed, group, SEATS)))
        rng = DealRng(derive_seed(seed, b))
        lineup = [names[m] for m in range(n) for _ in range(counts[(m + j) % n])]
        for k in range(SEATS - 1, 0, -1):
            i = rng.below(k + 1)
            lineup[k], lineup[i] = lineup[i], lineup[k]
        base = deal_roles(rng)
        for g in range(SEATS):
            roles = tuple(base[(k + g) % SEATS] for k in range(SEATS))
            games.append(
                ScheduledGame(f"b{b}g{g}", b, tuple(lineup), roles, derive_seed(seed, b, g))
            )
    return games
