"""The static facts of a generalized betting game (GBG), as data.

A GBG (paper, Section 3) is a two-player zero-sum card game of imperfect information: a deck,
private hands and a board, and a graph of phases (betting, simultaneous moves, auctions,
observations, draws, swaps, position assignments, side bets, board reveals) whose edges carry
branch predicates, ending in a showdown scored by a metric.  ``GameSpec`` holds exactly that and
nothing that moves; ``engines.gbg.engine.State`` is the mover.

Every part is a frozen pydantic model (``engines.gbg.parts``, re-exported here), so a spec
validates on construction, serialises to a canonical JSON text (sorted keys, no insignificant
whitespace) and is identified by ``spec_hash``, the SHA-256 of that text.  The hash depends on
nothing but the spec's content: not on ``hash()``, dict order or the process.  Construction
also runs the structural checks of ``engines.gbg.structure`` (which sit below this module and
read only the parts), so a ``GameSpec`` that exists is a coherent, playable game.
"""

from __future__ import annotations

import hashlib
import json
from functools import cached_property
from typing import Any

from pydantic import Field, model_validator

from engines.gbg.parts import (
    SEATS,
    Actor,
    AuctionItem,
    AuctionPhase,
    BettingPhase,
    DealPhase,
    Deck,
    DrawPhase,
    Edge,
    FixedStake,
    GridStake,
    Metric,
    Part,
    PeekPhase,
    Perk,
    Phase,
    PositionPhase,
    PotStake,
    Predicate,
    Rank,
    RevealPhase,
    Risk,
    ScoreRule,
    Seat,
    SeatQuantifier,
    SeatSet,
    Showdown,
    SideBetPhase,
    SimCell,
    SimOption,
    SimultaneousPhase,
    Stake,
    SwapPhase,
)
from engines.gbg.structure import structural_errors

__all__ = [
    "SEATS",
    "SHOWDOWN",
    "Actor",
    "AuctionItem",
    "AuctionPhase",
    "BettingPhase",
    "DealPhase",
    "Deck",
    "DrawPhase",
    "Edge",
    "FixedStake",
    "GameSpec",
    "GridStake",
    "Metric",
    "Part",
    "PeekPhase",
    "Perk",
    "Phase",
    "PositionPhase",
    "PotStake",
    "Predicate",
    "Rank",
    "RevealPhase",
    "Risk",
    "ScoreRule",
    "Seat",
    "SeatQuantifier",
    "SeatSet",
    "Showdown",
    "SideBetPhase",
    "SimCell",
    "SimOption",
    "SimultaneousPhase",
    "Stake",
    "SwapPhase",
]

SHOWDOWN = "showdown"

# The most phases a spec may have: four times the generator's largest cap at the top of its
# dial (80), and few enough that a chain of phases with nothing to do stays far from Python's
# recursion limit.  A larger spec is refused by validation with this reason.
MAX_PHASES = 100


class GameSpec(Part):
    """A complete GBG.  The first phase starts the deal; the graph must reach ``showdown``."""

    name: str = Field(min_length=1, max_length=60)
    deck: Deck
    stack: int = Field(ge=1, le=10_000)
    ante: int = Field(ge=0)
    phases: tuple[Phase, ...] = Field(min_length=1, max_length=MAX_PHASES)
    showdown: Showdown
    generation: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _coherent(self) -> GameSpec:
        errors = structural_errors(self)
        if errors:
            raise ValueError("; ".join(errors))
        return self

    def canonical_json(self) -> str:
        """The canonical text of the spec: sorted keys, compact separators, UTF-8."""
        data = self.model_dump(mode="json")
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @cached_property
    def spec_hash(self) -> str:
        """SHA-256 (hex) of the canonical JSON."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()

    def phase(self, phase_id: str) -> Phase:
        for p in self.phases:
            if p.id == phase_id:
                return p
        raise KeyError(phase_id)

    @classmethod
    def from_json(cls, text: str) -> GameSpec:
        """Parse and validate a spec from JSON; raises ``ValueError`` naming the bad field."""
        return cls.model_validate_json(text)
