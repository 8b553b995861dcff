"""Agents: anything that chooses a legal action for a seat of a deal (paper, Section 5).

Built-in bots (``builtin``, ``population``, ``search``, ``equilibrium``), LLM players over HTTP
(``llm`` with ``providers``, ``transport``, ``cache``), the lenient parser and fallback
(``parser``) and the roster file (``roster``).  Importing this package imports no HTTP client.
"""

from engines.agents.base import Agent, BuiltinPlayer, Decision, MoveFailed, Player, PlayerStopped
from engines.agents.builtin import BUILTIN_AGENTS, HeuristicAgent, RandomAgent, builtin_agent

__all__ = [
    "BUILTIN_AGENTS",
    "Agent",
    "BuiltinPlayer",
    "Decision",
    "HeuristicAgent",
    "MoveFailed",
    "Player",
    "PlayerStopped",
    "RandomAgent",
    "builtin_agent",
]
