"""The illegal-move protocols of OpenSpiel games: how a player's reply becomes a move.

Whether the per-turn prompt lists the legal moves, how many rethinks a player gets after an
unparsable or illegal reply, and what happens when they run out (``engines.openspiel.spec``'s
docstring; each game family's protocol is chosen there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Exhausted = Literal["forfeit", "conservative", "fallback"]


@dataclass(frozen=True)
class Protocol:
    """How a player's reply becomes a move (see the module docstring)."""

    name: str
    show_legal: bool
    rethinks: int
    exhausted: Exhausted

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "show_legal": self.show_legal,
            "rethinks": self.rethinks,
            "exhausted": self.exhausted,
        }


PROTOCOLS: dict[str, Protocol] = {
    # Game Arena, chess: no list of legal moves, SAN normalised, three retries, then a loss.
    "game-arena-chess": Protocol("game-arena-chess", False, 3, "forfeit"),
    # Game Arena, poker: one retry, then check (no bet pending) or fold.
    "game-arena-poker": Protocol("game-arena-poker", True, 1, "conservative"),
    # Board games (GameBench 2: an illegal move loses), with the legal menu and three retries.
    "menu-forfeit": Protocol("menu-forfeit", True, 3, "forfeit"),
    # The GENSTRAT protocol of the generated games: one rethink, then the harness's fallback.
    "genstrat": Protocol("genstrat", True, 1, "fallback"),
}
