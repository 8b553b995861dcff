"""Program opponents and what the players of the programmed-opponent ablation know of them
(paper, Section 8, "Disclosed and hidden strategy programs").

- ``ProgramPlayer`` (``arena.programs.player``): a sandboxed strategy program as a player; a
  crash or an illegal action forfeits the match (a loss), a timeout leaves it out of the evidence.
- ``disclosed``: an LLM player whose system prompt is the rulebook followed by the program's
  procedural reading (``arena.programs.procedural_reading``), i.e. the disclosed arm.
- ``estimate_policy``: the program's action distribution at each of its information states,
  estimated by asking it under ``seeds`` generator seeds (0, 1, ...) at every information state
  of a full enumeration.  A program is deterministic given its seed, so this is the empirical
  distribution of its moves over ``seeds`` draws of its generator (exact for programs that do
  not use the generator).  The exact best response and the efficiency scale are computed
  against this policy.
- ``ResponseAgent``: a built-in that plays a precomputed pure response (the exact best response
  to the disclosed program, or to a uniform opponent when the program is hidden).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, fields

from arena.llm.player import LLMPlayer
from arena.programs.procedural_reading import MAX_NODES, program_moves, situations
from arena.programs.sandbox import Program
from engines.gbg.engine import State
from engines.gbg.spec import GameSpec
from engines.solve.best_response import Policy


@dataclass
class DisclosedLLMPlayer(LLMPlayer):
    """An LLM player told its opponent's strategy: ``appendix`` follows the rulebook."""

    appendix: str = ""

    def rulebook(self, state: State) -> str:
        return super().rulebook(state).rstrip("\n") + "\n\n" + self.appendix


def disclosed(player: LLMPlayer, appendix: str) -> DisclosedLLMPlayer:
    """``player`` (same name, transport, cache and settings) with ``appendix`` disclosed."""
    kept = {f.name: getattr(player, f.name) for f in fields(player) if f.name != "_rulebooks"}
    return DisclosedLLMPlayer(**kept, appendix=appendix)


PolicyTable = dict[str, dict[str, float]]


def estimate_policy(
    program: Program,
    spec: GameSpec,
    seat: int,
    seeds: int = 8,
    max_situations: int = 2000,
    max_nodes: int = MAX_NODES,
) -> PolicyTable:
    """The program's move distribution at each information state of ``seat`` (module docstring).

    ``ValueError`` when the game has more than ``max_situations`` decisions for the seat or
    more than ``max_nodes`` histories (the policy would be a sample, not the program's
    strategy).
    """
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1, got {seeds}")
    found, complete = situations(spec, seat, max_situations=max_situations, max_nodes=max_nodes)
    if not complete:
        raise ValueError(
            f"{spec.name}: more than {max_situations:,} situations or {max_nodes:,} histories; "
            "too large to solve"
        )
    table: PolicyTable = {}
    for situation in found:
        moves: Counter[str] = Counter()
        for outcome in program_moves(program, situation.state, seat, seeds):
            if outcome.status != "ok" or outcome.action is None:
                raise ValueError(f"program {program.path.name} {outcome.status}: {outcome.reason}")
            moves[outcome.action] += 1
        table[situation.key] = {a: n / seeds for a, n in moves.items()}
    return table


def table_policy(table: PolicyTable) -> Policy:
    """A policy table as a ``Policy`` (``ValueError`` at an information state it lacks)."""

    def policy(state: State, seat: int) -> dict[str, float]:
        key = state.information_state(seat)
        if key not in table:
            raise ValueError(f"the policy has no entry for information state {key!r}")
        return table[key]

    return policy


@dataclass
class ResponseAgent:
    """Plays a pure response per seat: ``choices[seat]`` maps information state to action."""

    choices: dict[int, dict[str, str]]
    name: str = "best-response"

    def act(self, state: State, seat: int, rng: random.Random) -> str:
        choice = self.choices.get(seat, {}).get(state.information_state(seat))
        legal = state.legal_actions()
        return choice if choice in legal else rng.choice(legal)
