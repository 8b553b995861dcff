"""Generalized betting games: the spec, the engine, rulebooks and presets (paper, Section 3)."""

from engines.gbg.engine import CHANCE, ENGINE_VERSION, TERMINAL, Move, State, new_deal
from engines.gbg.rulebook import consistency_errors, rulebook
from engines.gbg.spec import GameSpec

__all__ = [
    "CHANCE",
    "ENGINE_VERSION",
    "TERMINAL",
    "GameSpec",
    "Move",
    "State",
    "consistency_errors",
    "new_deal",
    "rulebook",
]
