"""A handwritten opponent program: checks when it can, calls a bet half the time, else folds."""

import random
from typing import Any


def act(observation: dict[str, Any], legal_actions: list[str], rng: random.Random) -> str:
    if "check" in legal_actions:
        return "check"
    if "call" in legal_actions and "fold" in legal_actions:
        return "call" if rng.random() < 0.5 else "fold"
    return "call" if "call" in legal_actions else rng.choice(legal_actions)
