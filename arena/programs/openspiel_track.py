"""Strategy programs on OpenSpiel games (issue 46, item 5; GameBench 2's program track covers
classic games).

A program is the same file as on a generated game, ``act(observation, legal_actions, seed)``,
sandboxed as every program is (``arena.programs.sandbox``: a fresh process per move, the OS as
the boundary); only what it observes differs. :func:`openspiel_observation` is the seat's view
and nothing hidden:

- ``game``: the token (``openspiel:chess``), ``family``: OpenSpiel's short name, ``seat``;
- ``state``: OpenSpiel's information-state string of the seat where the game has one (hold'em:
  the seat's own cards, the board, the betting; liar's dice: its own dice and the bids), else its
  observation string (chess: the FEN; Go, Hex, connect four: the board);
- ``moves``: the moves so far as ``[seat, move name]``, in the names of ``legal_actions``;
- ``prompt``: the turn prompt an LLM player would read in this position.

:func:`admit_openspiel` is the admission test on an OpenSpiel game, as ``sandbox.admit`` is on a
generated one: the program loads, then plays ``deals`` deals in alternate seats against uniform
random play, each deal until it ends or the program has made ``moves_per_deal`` moves (a chess
game can take hundreds), every move legal, with a median move of at most ``max_median_ms`` of
CPU (the host's load does not count, as in ``sandbox.admit``).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from arena.programs.sandbox import Admission, Limits, Program, median_ms, verdict
from engines.openspiel.spec import OpenSpielSpec
from engines.openspiel.state import OpenSpielState


def openspiel_observation(state: OpenSpielState, seat: int) -> dict[str, Any]:
    """What a program sees of an OpenSpiel deal (module docstring)."""
    spec = state.spec
    kind = spec.game.get_type()
    if kind.provides_information_state_string:
        text = state.ps.information_state_string(seat)
    else:
        text = state.ps.observation_string(seat)
    return {
        "game": spec.token,
        "family": spec.family,
        "seat": seat,
        "state": text,
        "moves": [[s, name] for s, name in state.moves],
        "prompt": state.turn_prompt(seat),
    }


def admit_openspiel(
    path: str | Path,
    spec: OpenSpielSpec,
    deals: int = 4,
    seed: int = 0,
    max_median_ms: float = 100.0,
    limits: Limits | None = None,
    secrets: tuple[str, ...] = (),
    moves_per_deal: int = 30,
) -> Admission:
    """The admission test on an OpenSpiel game (module docstring)."""
    rng = random.Random(seed)
    times: list[float] = []
    with Program(path, limits, secrets) as program:
        failure = program.start()
        if failure:
            return Admission(False, f"does not load: {failure}", None, 0)
        for d in range(deals):
            seat = d % 2
            state = spec.new_deal(seed + d)
            made = 0
            while not state.is_terminal() and made < moves_per_deal:
                legal = list(state.legal_actions())
                if state.current_player != seat:
                    state.apply(rng.choice(legal))
                    continue
                observation = openspiel_observation(state, seat)
                outcome = program.act(observation, legal, rng.randrange(2**31))
                if outcome.status != "ok" or outcome.action is None:
                    return Admission(
                        False, f"{outcome.status}: {outcome.reason}", median_ms(times), len(times)
                    )
                times.append(outcome.cpu_seconds)
                state.apply(outcome.action)
                made += 1
    return verdict(times, max_median_ms)
