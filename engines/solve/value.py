"""The value of a small game under equilibrium play (the anchor beside the efficiency scale).

``game_value(spec)`` solves the two-player zero-sum game exactly by the sequence-form linear
program (Koller, Megiddo and von Stengel 1994; von Stengel 1996): the expected chips per deal
of the first seat (alice) when both seats play an equilibrium; the second seat's value is its
negative.  Known values: Kuhn -1/18, Leduc about -0.0856064 (OpenSpiel's
``sequence_form_lp_test``; the tests hold this solver to OpenSpiel's
``sequence_form_lp.solve_zero_sum_game`` on the presets and on generated games).

Steps:

1. enumerate the game tree in explicit-chance mode; give each seat's (information state,
   action) pair a sequence, and record for every terminal history the pair of sequences that
   leads to it, the chance probability of reaching it and alice's chips there;
2. the realization-plan constraints of each seat: the empty sequence has weight 1, and at each
   information set the weights of its actions sum to the weight of the sequence that led
   there (``E x = e``, ``F y = f``, with ``x, y >= 0``);
3. alice maximizes, over her plans ``x``, the least value bob's best plan leaves her; by LP
   duality on bob's side that is ``max f'q`` over ``x >= 0`` and free ``q`` with ``E x = e``
   and ``F'q <= A'x``, where ``A[s, t]`` sums chance probability times alice's chips over the
   terminal histories reached by sequences ``s`` and ``t``;
4. solve it with HiGHS (``scipy.optimize.linprog``) on sparse matrices.

It replaces OpenSpiel's sequence-form LP, which builds the same program through cvxpy: the
same value to solver tolerance (about 1e-9 chips here), in a tenth of the time on Leduc, with
no cvxpy import (a second of every process that asked for a game value).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from engines.gbg.engine import new_deal
from engines.gbg.spec import GameSpec

_SOLVED: dict[str, float] = {}  # spec hash -> value (a spec is not hashable itself)


class SequenceForm:
    """The sequence form of a two-player zero-sum game (module docstring, steps 1 and 2).

    ``sequences[i]`` counts seat ``i``'s sequences (0: the empty one); ``parents[i]`` lists,
    per information set of seat ``i`` in order of discovery, the sequence that leads to it and
    ``members[i]`` the sequences of its actions; ``payoff`` is ``A`` (rows alice's sequences,
    columns bob's, entries chance probability x alice's chips summed over terminal histories),
    a sparse matrix."""

    def __init__(self, spec: GameSpec) -> None:
        self.sequences = [1, 1]
        self.parents: tuple[list[int], list[int]] = ([], [])
        self.members: tuple[list[list[int]], list[list[int]]] = ([], [])
        ids: tuple[dict[str, int], dict[str, int]] = ({}, {})
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        stack = [(new_deal(spec, explicit_chance=True), 1.0, 0, 0)]
        while stack:
            state, reach, s0, s1 = stack.pop()
            if state.is_terminal():
                chips = state.returns()[0]
                if chips and reach:
                    rows.append(s0)
                    cols.append(s1)
                    vals.append(reach * chips)
                continue
            if state.is_chance_node():
                for outcome, p in state.chance_outcomes():
                    kid = state.clone()
                    kid.apply_chance(outcome)
                    stack.append((kid, reach * p, s0, s1))
                continue
            seat = state.current_player
            legal = state.legal_actions()
            key = state.information_state(seat)
            parent = s1 if seat else s0
            info = ids[seat].get(key)
            if info is None:
                info = ids[seat][key] = len(self.parents[seat])
                first = self.sequences[seat]
                self.sequences[seat] += len(legal)
                self.parents[seat].append(parent)
                self.members[seat].append(list(range(first, first + len(legal))))
            elif self.parents[seat][info] != parent or len(self.members[seat][info]) != len(legal):
                # perfect recall: one information state, one sequence before it, one menu
                raise ValueError(f"{spec.name}: {key!r} is reached by two different sequences")
            for action, sequence in zip(legal, self.members[seat][info], strict=True):
                kid = state.clone()
                kid.apply(action)
                if seat:
                    stack.append((kid, reach, s0, sequence))
                else:
                    stack.append((kid, reach, sequence, s1))
        self.payoff = sparse.coo_matrix(
            (vals, (rows, cols)), shape=(self.sequences[0], self.sequences[1])
        ).tocsr()

    def constraints(self, seat: int) -> sparse.csr_matrix:
        """``E`` (seat 0) or ``F`` (seat 1): one row for the empty sequence, one per
        information set (``sum of its actions' weights - its parent's weight = 0``)."""
        rows, cols, vals = [0], [0], [1.0]
        for k, (parent, members) in enumerate(
            zip(self.parents[seat], self.members[seat], strict=True), start=1
        ):
            rows.append(k)
            cols.append(parent)
            vals.append(-1.0)
            rows.extend([k] * len(members))
            cols.extend(members)
            vals.extend([1.0] * len(members))
        shape = (1 + len(self.parents[seat]), self.sequences[seat])
        return sparse.coo_matrix((vals, (rows, cols)), shape=shape).tocsr()


def solve_sequence_form(form: SequenceForm) -> float:
    """Alice's equilibrium value (module docstring, steps 3 and 4)."""
    e, f = form.constraints(0), form.constraints(1)
    n_x, n_q = form.sequences[0], f.shape[0]
    unit_e = np.zeros(e.shape[0])
    unit_e[0] = 1.0
    objective = np.zeros(n_x + n_q)
    objective[n_x] = -1.0  # maximize f'q, and f is the unit vector of the empty sequence
    upper = sparse.hstack([-form.payoff.T, f.T]).tocsr()  # F'q - A'x <= 0
    equal = sparse.hstack([e, sparse.csr_matrix((e.shape[0], n_q))]).tocsr()  # E x = e
    bounds = [(0.0, None)] * n_x + [(None, None)] * n_q
    # Imported here: scipy.optimize takes about 0.13 s to import, and every process that loads
    # the code location (each Dagster run) imports this module, most without solving anything.
    from scipy.optimize import linprog

    result = linprog(
        objective,
        A_ub=upper,
        b_ub=np.zeros(upper.shape[0]),
        A_eq=equal,
        b_eq=unit_e,
        bounds=bounds,
        method="highs",
    )
    if result.status != 0:
        raise ValueError(f"the sequence-form LP did not solve: {result.message}")
    return float(-result.fun) + 0.0  # + 0.0: no -0.0 for a game worth nothing


def game_value(spec: GameSpec) -> float:
    """The equilibrium value of ``spec`` for the first seat, in chips per deal."""
    if spec.spec_hash not in _SOLVED:
        _SOLVED[spec.spec_hash] = solve_sequence_form(SequenceForm(spec))
    return _SOLVED[spec.spec_hash]
