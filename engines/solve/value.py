"""The value of a small game under equilibrium play (the anchor beside the efficiency scale).

``game_value(spec)`` solves the two-player zero-sum game exactly with OpenSpiel's sequence-form
linear program (``open_spiel/python/algorithms/sequence_form_lp.py``) on the bridged game
(``engines.solve.openspiel_bridge``): the expected chips per deal of the first seat (alice)
when both seats play an equilibrium; the second seat's value is its negative.  Known values:
Kuhn -1/18, Leduc about -0.0856 (OpenSpiel's ``sequence_form_lp_test``).  The LP grows with
the tree: Kuhn takes milliseconds, Leduc a few seconds.
"""

from __future__ import annotations

from engines.gbg.spec import GameSpec

_SOLVED: dict[str, float] = {}  # spec hash -> value (a spec is not hashable itself)


def game_value(spec: GameSpec) -> float:
    """The equilibrium value of ``spec`` for the first seat, in chips per deal."""
    from open_spiel.python.algorithms import sequence_form_lp

    from engines.solve.openspiel_bridge import as_pyspiel_game

    if spec.spec_hash not in _SOLVED:
        value, _, _, _ = sequence_form_lp.solve_zero_sum_game(as_pyspiel_game(spec))
        _SOLVED[spec.spec_hash] = float(value)
    return _SOLVED[spec.spec_hash]
