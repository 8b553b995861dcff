"""The roles of the classic eight-player Werewolf and how they are dealt (docs/WEREWOLF.md).

Why it exists: the rest of the package names roles, teams and seats from one place.  Game
Arena's Werewolf (Game Arena report, "Werewolf"): eight players, two Werewolves, one Seer, one
Doctor and four Villagers, in two teams, the Werewolves against the village (Seer, Doctor,
Villagers).  Roles are dealt by chance: a uniform permutation of the eight role cards drawn
from the game's generator (``engines.gbg.rng.DealRng``, the engine's seeded generator), by
Fisher-Yates from the last card down, so a seed names one deal on every machine.
"""

from __future__ import annotations

from enum import StrEnum

from engines.gbg.rng import DealRng


class Role(StrEnum):
    WEREWOLF = "werewolf"
    SEER = "seer"
    DOCTOR = "doctor"
    VILLAGER = "villager"


class Team(StrEnum):
    WEREWOLVES = "werewolves"
    VILLAGE = "village"


SEATS = 8
ROLE_ORDER = (Role.WEREWOLF, Role.SEER, Role.DOCTOR, Role.VILLAGER)
ROLE_COUNTS: dict[Role, int] = {Role.WEREWOLF: 2, Role.SEER: 1, Role.DOCTOR: 1, Role.VILLAGER: 4}
# The eight cards in a fixed order: the deal permutes them.
CARDS: tuple[Role, ...] = tuple(r for r in ROLE_ORDER for _ in range(ROLE_COUNTS[r]))
NAMES: tuple[str, ...] = tuple(f"P{k + 1}" for k in range(SEATS))


def team_of(role: Role) -> Team:
    return Team.WEREWOLVES if role is Role.WEREWOLF else Team.VILLAGE


def name_of(seat: int) -> str:
    """The seat's public name (``P1`` .. ``P8``)."""
    return NAMES[seat]


def seat_of(name: str) -> int:
    """The seat named ``name``; ``ValueError`` when no seat has that name."""
    try:
        return NAMES.index(name)
    except ValueError:
        raise ValueError(f"no seat named {name!r}; seats are {', '.join(NAMES)}") from None


def deal_roles(rng: DealRng) -> tuple[Role, ...]:
    """A uniform deal of the eight cards to the eight seats (Fisher-Yates on ``CARDS``)."""
    cards = list(CARDS)
    for k in range(len(cards) - 1, 0, -1):
        j = rng.below(k + 1)
        cards[k], cards[j] = cards[j], cards[k]
    return tuple(cards)


def check_roles(roles: tuple[Role, ...]) -> None:
    """``ValueError`` unless ``roles`` gives each of the eight seats one card of the deck."""
    if len(roles) != SEATS:
        raise ValueError(f"a deal has {SEATS} roles, got {len(roles)}")
    counts = {r: sum(1 for x in roles if x == r) for r in ROLE_ORDER}
    if counts != ROLE_COUNTS or not all(isinstance(r, Role) for r in roles):
        want = ", ".join(f"{n} {r.value}" for r, n in ROLE_COUNTS.items())
        raise ValueError(f"a deal has {want}; got {[str(r) for r in roles]}")
