"""A balanced schedule: who sits where and which role each seat is dealt.

Why it exists: raw win rates in Werewolf mix skill with role luck (Game Arena report,
"Evaluation"), and the role-decomposed ratings (``engines.stats.werewolf``) need every player
to hold every role often.  The schedule deals roles in blocks of eight games:

1. block ``b`` seats a lineup of eight: ``players[(8 b + k) mod n]`` for ``k = 0..7`` (so over
   blocks every player gets the same number of seats, to within one block's rounding), in an
   order shuffled by the block's generator ``DealRng(derive_seed(seed, b))``;
2. the same generator deals a base permutation of the eight role cards
   (``engines.werewolf.roles.deal_roles``);
3. game ``j = 0..7`` of the block gives seat ``k`` the card ``base[(k + j) mod 8]``: each seat
   holds each card once per block, so each player is dealt Werewolf, Seer, Doctor and
   Villager in the deck's proportions 2 : 1 : 1 : 4 of its seats.

Each game's play seed is ``derive_seed(seed, b, j)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engines.gbg.rng import DealRng, derive_seed
from engines.werewolf.roles import SEATS, Role, deal_roles


@dataclass(frozen=True)
class ScheduledGame:
    game_id: str
    block: int
    players: tuple[str, ...]
    roles: tuple[Role, ...]
    play_seed: int


def balanced_schedule(players: Sequence[str], blocks: int, seed: int) -> list[ScheduledGame]:
    """``blocks`` blocks of eight games (module docstring); ``ValueError`` for no players, a
    repeated name or fewer than one block."""
    names = list(players)
    if not names:
        raise ValueError("a schedule needs at least one player")
    if len(set(names)) != len(names):
        raise ValueError(f"player names repeat: {names}")
    if blocks < 1:
        raise ValueError(f"a schedule needs at least one block, got {blocks}")
    games = []
    for b in range(blocks):
        rng = DealRng(derive_seed(seed, b))
        lineup = [names[(SEATS * b + k) % len(names)] for k in range(SEATS)]
        for k in range(SEATS - 1, 0, -1):
            j = rng.below(k + 1)
            lineup[k], lineup[j] = lineup[j], lineup[k]
        base = deal_roles(rng)
        for j in range(SEATS):
            roles = tuple(base[(k + j) % SEATS] for k in range(SEATS))
            games.append(
                ScheduledGame(f"b{b}g{j}", b, tuple(lineup), roles, derive_seed(seed, b, j))
            )
    return games
