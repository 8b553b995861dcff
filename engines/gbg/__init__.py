"""Generalized betting games: the spec, the engine, rulebooks and presets (paper, Section 3)."""

from engines.gbg.engine import CHANCE, ENGINE_VERSION, TERMINAL, Move, State, new_deal
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.rulebook import consistency_errors, rulebook
from engines.gbg.spec import GameSpec

__all__ = [
    "CHANCE",
    "ENGINE_VERSION",
    "TERMINAL",
    "GameSpec",
    "GenerationConfig",
    "Move",
    "State",
    "consistency_errors",
    "generate",
    "new_deal",
    "rulebook",
]
