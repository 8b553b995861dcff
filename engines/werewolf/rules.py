"""The static facts of a Werewolf game: its settings and the bound on its length.

Why it exists: as ``engines.gbg.spec.GameSpec`` is to a generated game, ``WerewolfRules`` is
the data of a Werewolf game, separate from the state that moves (OpenSpiel's game / state
split).  The seats and the deck are fixed (``engines.werewolf.roles``); what may vary is how
long the village talks and how long a game may last.  Every accepted value works (the tests
drive the whole range); anything else is a ``ValueError`` naming the setting and its range.

Length bound (docs/WEREWOLF.md, "How a game ends"): a night asks at most four decisions (two
Werewolves, the Doctor, the Seer) and a day at most ``discussion_rounds * 8`` statements and
8 votes, and the game ends after day ``max_days`` at the latest, so a game takes at most
``max_days * (4 + 8 * (discussion_rounds + 1))`` decisions (``max_decisions``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.werewolf.roles import SEATS

ENGINE_VERSION = "werewolf-1"
"""The version of the rules and the moderator: a release's games are attested to it (bump it
with any change that can change a game's events for the same deal and moves)."""

DISCUSSION_ROUNDS = (1, 5)
MAX_DAYS = (1, 20)
STATEMENT_CHARS = (40, 4000)


def _check(name: str, value: int, bounds: tuple[int, int]) -> None:
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")


@dataclass(frozen=True)
class WerewolfRules:
    """``discussion_rounds``: statements per living player each day (one per round, in a
    circle); ``max_days``: after this day's vote the game ends (the Werewolves win if any is
    alive); ``statement_chars``: the filter's length cap (``engines.werewolf.filter``)."""

    discussion_rounds: int = 2
    max_days: int = 10
    statement_chars: int = 600

    def __post_init__(self) -> None:
        _check("discussion_rounds", self.discussion_rounds, DISCUSSION_ROUNDS)
        _check("max_days", self.max_days, MAX_DAYS)
        _check("statement_chars", self.statement_chars, STATEMENT_CHARS)

    @property
    def night_decisions(self) -> int:
        """At most: two Werewolves' nominations, the Doctor's protection, the Seer's check."""
        return 4

    @property
    def day_decisions(self) -> int:
        """At most: every seat speaking each round, then every seat voting."""
        return SEATS * (self.discussion_rounds + 1)

    @property
    def max_decisions(self) -> int:
        """The most decisions any game takes (module docstring)."""
        return self.max_days * (self.night_decisions + self.day_decisions)
