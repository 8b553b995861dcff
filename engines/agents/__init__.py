"""Agents: anything that chooses a legal action for a seat of a deal (paper, Section 5)."""

from engines.agents.base import Agent
from engines.agents.builtin import BUILTIN_AGENTS, HeuristicAgent, RandomAgent, builtin_agent

__all__ = ["BUILTIN_AGENTS", "Agent", "HeuristicAgent", "RandomAgent", "builtin_agent"]
