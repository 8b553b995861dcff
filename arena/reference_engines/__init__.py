"""Reference engines that need a process of their own, as built-in agents (issue 18).

``stockfish``: the Stockfish chess engine (Debian package ``stockfish``) over UCI.  Built-in
agents that are pure science live in ``engines.agents``; ``make_builtin`` resolves a roster's
``agent`` name in both registries, reference engines first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engines.agents.builtin import BUILTIN_AGENTS, builtin_agent, check_params
from engines.openspiel.spec import OpenSpielSpec

# Built-in agents that play OpenSpiel games; the others read a generated game's structure.
OPENSPIEL_PLAYERS = frozenset({"random", "mcts", "stockfish"})


def _stockfish(**params: Any) -> Any:
    from arena.reference_engines.stockfish import StockfishAgent

    return StockfishAgent(**params)


REFERENCE_AGENTS: dict[str, Callable[..., Any]] = {"stockfish": _stockfish}


def agent_names() -> list[str]:
    return [*BUILTIN_AGENTS, *REFERENCE_AGENTS]


def reference_class(name: str) -> type[Any]:
    from arena.reference_engines.stockfish import StockfishAgent

    return {"stockfish": StockfishAgent}[name]


def make_builtin(name: str, params: Mapping[str, Any] | None = None) -> Any:
    """The built-in agent ``name`` (a reference engine or an ``engines.agents`` bot).

    ``ValueError`` lists the known names for an unknown agent and names a bad parameter.
    """
    if name in REFERENCE_AGENTS:
        options = dict(params or {})
        check_params(reference_class(name), name, options)
        return REFERENCE_AGENTS[name](**options)
    if name not in BUILTIN_AGENTS:
        raise ValueError(f"unknown built-in agent {name!r}; known: {', '.join(agent_names())}")
    return builtin_agent(name, params)


def agent_version(name: str) -> str | None:
    """The version a versioned built-in agent declares (it enters the roster fingerprint)."""
    from engines.agents.builtin import agent_class

    cls = reference_class(name) if name in REFERENCE_AGENTS else agent_class(name)
    version = getattr(cls, "VERSION", None)
    return str(version) if version is not None else None


def agent_plays(name: str, spec: Any) -> bool:
    """Whether built-in agent ``name`` can play the game of ``spec`` (a tournament schedules
    a built-in agent only on games it plays: Stockfish on chess, MCTS on OpenSpiel games)."""
    if not isinstance(spec, OpenSpielSpec):
        return name not in ("mcts", "stockfish")
    if name == "stockfish":
        return spec.family == "chess"
    return name in OPENSPIEL_PLAYERS
