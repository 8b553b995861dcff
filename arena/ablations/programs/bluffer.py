"""A handwritten opponent program: bets or raises (the smallest amount) 60% of the time."""

import random
from typing import Any


def act(observation: dict[str, Any], legal_actions: list[str], rng: random.Random) -> str:
    aggressive = [a for a in legal_actions if a.split(" ")[0] in ("bet", "raise")]
    passive = [a for a in legal_actions if a in ("check", "call")]
    if aggressive and rng.random() < 0.6:
        return aggressive[0]
    if passive:
        return passive[0]
    return rng.choice(legal_actions)
