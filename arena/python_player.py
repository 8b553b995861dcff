"""In-process agents: a roster player of kind ``python`` (``entry: module:Class``).

The class is imported by name (it must be importable: installed, or on ``PYTHONPATH``) and
built as ``Class(**params)``.  It implements one of the two agent protocols of
``engines.agents.base``:

- ``Agent``: ``act(state, seat, rng) -> str``, called synchronously (a search program, a rule);
- ``Player``: ``async decide(state, seat, rng, call_id) -> Decision`` (a local model, an agent
  from another framework that awaits I/O).

``PythonPlayer`` drives either the way the harness drives every player: the move is timed
(``latency_s`` is the wall time of the call when the agent does not report its own), an action
off the legal menu forfeits the match (``Forfeit``, as for a strategy program), and the
player's fingerprint (``arena.roster.PythonEntry``) hashes the entry, the parameters and the
SHA-256 of the module's source, so editing the agent plays new matches.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import random
import time
from dataclasses import dataclass, field
from typing import Any

from engines.agents.base import Decision, Forfeit
from engines.gbg.engine import State


def agent_class(entry: str) -> type:
    """The class ``module:Class`` names; ``ValueError`` with one line naming the problem."""
    module_name, _, class_name = entry.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import module {module_name!r} of {entry}: {exc}") from None
    found = getattr(module, class_name, None)
    if not isinstance(found, type):
        raise ValueError(f"module {module_name!r} has no class {class_name!r}")
    if not callable(getattr(found, "act", None)) and not callable(getattr(found, "decide", None)):
        raise ValueError(f"{entry} has neither act(state, seat, rng) nor decide(...)")
    return found


def source_sha256(entry: str) -> str:
    """SHA-256 of the source file of the module of ``entry`` (of its name when it has none)."""
    module = importlib.import_module(entry.partition(":")[0])
    try:
        source = inspect.getsourcefile(module)
    except TypeError:
        source = None
    if source is None:
        return hashlib.sha256(entry.encode("utf-8")).hexdigest()
    with open(source, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@dataclass
class PythonPlayer:
    """An in-process agent as a tournament ``Player`` (see the module docstring)."""

    name: str
    agent: Any
    model: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    stopped: str | None = None

    async def decide(self, state: State, seat: int, rng: random.Random, call_id: str) -> Decision:
        legal = state.legal_actions()
        started = time.perf_counter()
        if callable(getattr(self.agent, "decide", None)):
            decision = await self.agent.decide(state, seat, rng, call_id)
            if not isinstance(decision, Decision):
                raise Forfeit(
                    f"agent {self.name!r} returned {type(decision).__name__}, not a Decision"
                )
        else:
            action = self.agent.act(state, seat, rng)
            decision = Decision(action=action)
        took = time.perf_counter() - started
        if decision.action not in legal:
            raise Forfeit(
                f"agent {self.name!r} answered {str(decision.action)[:80]!r}, not a legal action"
            )
        if decision.latency_s == 0.0:
            decision = dataclasses.replace(decision, latency_s=took)
        return decision


def python_player(name: str, entry: str, params: dict[str, Any]) -> PythonPlayer:
    """Build the agent ``entry`` names with ``params`` (``ValueError`` when it refuses them)."""
    cls = agent_class(entry)
    try:
        agent = cls(**params)
    except TypeError as exc:
        raise ValueError(f"{entry} does not take the parameters given: {exc}") from None
    return PythonPlayer(name=name, agent=agent, model=entry, settings=dict(params))
