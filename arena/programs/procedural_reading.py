"""The procedural reading of a strategy program (paper, Section 8, "disclosed" arm).

A reading specifies a program's moves in words, so that it can be appended to the rulebook of
a player who is told its opponent's strategy.  It is produced by running the program, not by
reading its code: for each situation the program can face in a seat (its information state),
the program is asked for its move under several generator seeds, and the reading states the
move, or the mixture of moves, it makes there.

Situations come from a full enumeration of the game tree when the game has at most
``max_situations`` of them for that seat and its tree at most ``max_nodes`` histories, and
otherwise from random play (``sample_deals`` deals with uniform opponents), in which case the
reading says it covers the situations seen.  The node bound keeps the enumeration's cost
bounded: a generated game can have few situations for a seat and a tree of billions of
histories (its opponent's hidden cards multiply every situation), which an unbounded
enumeration would walk for hours.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from arena.programs.sandbox import Outcome, Program, program_observation
from engines.gbg.engine import CHANCE, TERMINAL, State, new_deal
from engines.gbg.render import NAMES, event_line, visible_events
from engines.gbg.spec import GameSpec


@dataclass(frozen=True)
class Situation:
    """A decision of the program's seat: its information state and a description."""

    key: str
    description: str
    state: State


def describe(state: State, seat: int) -> str:
    """A situation in words: the seat's hand, the board and what it has seen happen."""
    label = state.g.label_of
    hand = " ".join(label[c] for c in state.hands[seat]) or "no cards"
    board = " ".join(label[c] for c in state.board)
    seen = [
        event_line(state, ev, seat)
        for ev in visible_events(state, seat)
        if ev[1] not in ("phase", "card")
    ]
    where = f"Holding {hand}" + (f", with {board} on the board" if board else "")
    return f"{where}; so far: {' '.join(seen)}" if seen else f"{where}; before any action."


MAX_NODES = 1_000_000
# The enumeration does not depend on the program: every program read or estimated on the same
# game and seat shares one (the newest few kept for the process).
_KEPT = 16
_FOUND: dict[tuple[object, ...], tuple[list[Situation], bool]] = {}


def situations(
    spec: GameSpec,
    seat: int,
    max_situations: int = 400,
    sample_deals: int = 300,
    seed: int = 0,
    max_nodes: int = MAX_NODES,
) -> tuple[list[Situation], bool]:
    """The seat's decision situations, and whether the list is complete (enumerated: at most
    ``max_situations`` of them, in a tree of at most ``max_nodes`` histories)."""
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, got {max_nodes}")
    key = (spec.spec_hash, seat, max_situations, sample_deals, seed, max_nodes)
    if key not in _FOUND:
        if len(_FOUND) >= _KEPT:
            del _FOUND[next(iter(_FOUND))]
        _FOUND[key] = _situations(spec, seat, max_situations, sample_deals, seed, max_nodes)
    listed, complete = _FOUND[key]
    return list(listed), complete


def _situations(
    spec: GameSpec, seat: int, max_situations: int, sample_deals: int, seed: int, max_nodes: int
) -> tuple[list[Situation], bool]:
    found: dict[str, Situation] = {}
    stack = [new_deal(spec, explicit_chance=True)]
    nodes = 0
    while stack and len(found) <= max_situations and nodes < max_nodes:
        st = stack.pop()
        nodes += 1
        if st.current_player == TERMINAL:
            continue
        if st.current_player == seat:
            key = st.information_state(seat)
            found.setdefault(key, Situation(key, describe(st, seat), st))
        outcomes = (
            [o for o, _ in st.chance_outcomes()]
            if st.current_player == CHANCE
            else list(st.legal_actions())
        )
        for o in outcomes:
            kid = st.clone()
            if st.current_player == CHANCE:
                kid.apply_chance(int(o))
            else:
                kid.apply(str(o))
            stack.append(kid)
    if not stack and len(found) <= max_situations:
        return sorted(found.values(), key=lambda s: s.description), True
    found = {}
    rng = random.Random(seed)
    for d in range(sample_deals):
        st = new_deal(spec, seed + d, tree=False)
        while not st.is_terminal():
            if st.current_player == seat:
                key = st.information_state(seat)
                found.setdefault(key, Situation(key, describe(st, seat), st.clone()))
            st.apply(rng.choice(st.legal_actions()))
    return sorted(found.values(), key=lambda s: s.description), False


def reading(
    program: Program,
    spec: GameSpec,
    seat: int,
    seeds: int = 3,
    max_situations: int = 400,
    max_nodes: int = MAX_NODES,
) -> str:
    """The program's strategy in ``seat`` as text (see the module docstring)."""
    found, complete = situations(spec, seat, max_situations=max_situations, max_nodes=max_nodes)
    lines = [
        "## Your opponent's strategy (disclosed)",
        f"Your opponent, {NAMES[seat]}, plays a fixed program. "
        + (
            "Here is its move in every situation it can face:"
            if complete
            else "Here is its move in every situation seen in sampled play:"
        ),
    ]
    for situation in found:
        moves = Counter(
            outcome.action or f"({outcome.status})"
            for outcome in program_moves(program, situation.state, seat, seeds)
        )
        if len(moves) == 1:
            play = f"plays {next(iter(moves))}"
        else:
            play = "plays " + ", ".join(f"{a} {n}/{seeds} of the time" for a, n in moves.items())
        lines.append(f"- {situation.description} It {play}.")
    return "\n".join(lines) + "\n"


def program_moves(program: Program, state: State, seat: int, seeds: int) -> list[Outcome]:
    """The program's answers at ``state`` for ``seat`` under generator seeds ``0..seeds-1``
    (a program is deterministic given its seed, so this is its move distribution there)."""
    legal = list(state.legal_actions())
    obs = program_observation(state, seat)
    return program.act_many(obs, legal, range(seeds))
