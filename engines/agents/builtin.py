"""Built-in bots: ``random`` (the uniform policy L0), ``heuristic`` (plays on hand strength),
and the registry of every built-in agent (``population``, ``search`` and ``equilibrium`` live in
their own modules).

The heuristic estimates the chance that its current hand beats the opponent's at showdown, by
dealing the opponent random hands from the cards it has not seen and comparing them under the
game's own showdown metric (future cards and points are ignored).  With a strong hand it bets
or raises the smallest amount, with a middling one it checks or calls, and with a weak one it
checks or folds; every other kind of decision it makes uniformly at random.
"""

from __future__ import annotations

import dataclasses
import importlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from engines.gbg.engine import State


@dataclass
class RandomAgent:
    """L0: a uniform choice among the legal actions."""

    name: str = "random"

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        return rng.choice(state.legal_actions())


class _Hands:
    """The few fields a showdown metric reads, for what-if comparisons."""

    __slots__ = ("board", "hands", "points")

    def __init__(self, hands: list[list[int]], board: list[int]) -> None:
        self.hands = hands
        self.board = board
        self.points = [0, 0]


def hand_strength(state: State, seat: int, rng: random.Random, samples: int = 48) -> float:
    """Estimated probability that ``seat``'s hand beats a random unseen hand (ties count half)."""
    game = state.g
    own = list(state.hands[seat])
    board = list(state.board)
    known = state.known_cards(seat)
    unseen = [c for c in range(game.n_cards) if c not in known]
    size = len(state.hands[1 - seat])
    if not own or size == 0 or len(unseen) < size:
        return 0.5
    key = game.showdown_key
    wins = 0.0
    for _ in range(samples):
        other = rng.sample(unseen, size)
        what_if: Any = _Hands([own, other], board)
        try:
            mine, theirs = key(what_if, 0), key(what_if, 1)
        except (ValueError, IndexError):
            return 0.5  # the metric needs cards not dealt yet (e.g. the board)
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return wins / samples


@dataclass
class HeuristicAgent:
    """Plays betting decisions on estimated hand strength (see the module docstring)."""

    name: str = "heuristic"
    strong: float = 0.65
    weak: float = 0.35

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        legal = state.legal_actions()
        betting = [a for a in legal if a.split(" ")[0] in ("bet", "raise")]
        if not (set(legal) & {"check", "call", "fold"}):
            return rng.choice(legal)
        strength = hand_strength(state, seat, rng)
        if strength >= self.strong and betting:
            return betting[0]
        passive = "check" if "check" in legal else "call"
        if strength >= self.weak or "fold" not in legal:
            return passive
        return "fold"


def check_params(agent_class: type[Any], name: str, params: Mapping[str, Any]) -> None:
    """``ValueError`` for a parameter ``agent_class`` does not take or of the wrong type."""
    fields = {f.name: f for f in dataclasses.fields(agent_class) if not f.name.startswith("_")}
    for key, value in params.items():
        found = fields.get(key)
        if found is None or key == "name":
            known = ", ".join(k for k in fields if k != "name") or "none"
            raise ValueError(f"built-in agent {name!r} takes no parameter {key!r} (known: {known})")
        expected = type(found.default)
        if expected in (int, float, str) and not (
            type(value) is expected or (expected is float and type(value) is int)
        ):
            raise ValueError(
                f"built-in agent {name!r}: parameter {key!r} must be {expected.__name__}, "
                f"got {type(value).__name__}"
            )


def _lazy(module: str, class_name: str) -> Callable[..., Any]:
    """A factory that imports the agent's module only when the agent is first built."""

    def make(**params: Any) -> Any:
        agent_class = getattr(importlib.import_module(module), class_name)
        return agent_class(**params)

    make.module = module  # type: ignore[attr-defined]
    make.class_name = class_name  # type: ignore[attr-defined]
    return make


BUILTIN_AGENTS: dict[str, Callable[..., Any]] = {
    "random": RandomAgent,
    "population": _lazy("engines.agents.dirichlet", "PopulationAgent"),
    "heuristic": HeuristicAgent,
    "search": _lazy("engines.agents.search", "SearchAgent"),
    "equilibrium": _lazy("engines.agents.equilibrium", "EquilibriumAgent"),
    "mcts": _lazy("engines.agents.mcts", "MCTSAgent"),  # OpenSpiel games only
    # multi-hand episodes (issue 19): a fixed exploitable bot and a planted adaptive one
    "overfolder": _lazy("engines.agents.adaptive", "OverfoldAgent"),
    "adaptive": _lazy("engines.agents.adaptive", "AdaptiveAgent"),
}


def agent_class(name: str) -> type[Any]:
    """The class of built-in agent ``name`` (imports its module)."""
    make = BUILTIN_AGENTS[name]
    if isinstance(make, type):
        return make
    return cast(type[Any], getattr(importlib.import_module(make.module), make.class_name))  # type: ignore[attr-defined]


def builtin_agent(name: str, params: Mapping[str, Any] | None = None) -> Any:
    """The built-in agent called ``name`` with keyword ``params``.

    ``ValueError`` lists the known names for an unknown agent, and names a parameter the agent
    does not take, of the wrong type, or with a value it refuses.
    """
    if name not in BUILTIN_AGENTS:
        raise ValueError(f"unknown built-in agent {name!r}; known: {', '.join(BUILTIN_AGENTS)}")
    options = dict(params or {})
    check_params(agent_class(name), name, options)
    return BUILTIN_AGENTS[name](**options)
