"""Many deals from one position at once: the interpreter memoised under fixed chance.

When the chance of a deal is fixed in advance (the axes' card orders and uniform streams,
``engines.axes.play``), everything that happens after a position is a function of the actions
taken from it: the game below the position is a plain tree of actions.  Playing many deals
from that position (every action of a decision under many contexts, every population member on
the same deal) walks that tree over and over.  A ``FixedChanceTree`` expands it lazily *with
the interpreter*: a node's state is its parent's state, cloned, with the action applied and the
chance that follows settled by the caller's resolver, so the memo cannot disagree with the
rules, and a deal that walks the tree meets exactly the states the interpreter would have
played.  What differs is the cost of a revisit: a move already seen is one dictionary lookup,
and whatever the caller derives from a node (an information-state key, a reduced menu) is
derived once per node.

The resolver settles every pending chance event of a state and returns the new position of
its chance cursor (how many stream values it has used), so that a deal's chance is a pure
function of its path: ``resolve(state, cursor) -> cursor``.  The tree never draws anything.

Each tree holds at most ``budget`` nodes; past it, ``child`` returns a fresh, unmemoised node
(still correct, no longer cheap), so a pathological caller costs memory no longer than it
costs time.  Trees are meant to live for one batch (one deal, one world) and be dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.gbg.state import State

Resolver = Callable[[State, int], int]
"""Settle the pending chance of a state in place; given and return the chance cursor."""

DEFAULT_BUDGET = 50_000


class Node:
    """A position under fixed chance: its interpreter state (settled: a decision or the end),
    the chance cursor there, the children by action, and a slot for the caller's per-node
    derivations (``memo``)."""

    __slots__ = ("children", "cursor", "legal", "memo", "player", "state")

    def __init__(self, state: State, cursor: int) -> None:
        self.state = state
        self.cursor = cursor
        self.player = state.current_player
        self.legal = state.legal_actions()
        self.children: dict[str, Node] = {}
        self.memo: Any = None

    def returns(self) -> tuple[int, int]:
        """Each seat's chip change (zero until the deal ends)."""
        return self.state.returns()


class FixedChanceTree:
    """The lazily expanded action tree below ``start`` (see the module docstring).

    ``start`` is copied, never moved; if it waits on chance, the resolver settles the copy.
    """

    __slots__ = ("budget", "resolve", "root", "size")

    def __init__(
        self, start: State, resolve: Resolver, cursor: int = 0, budget: int = DEFAULT_BUDGET
    ) -> None:
        self.resolve = resolve
        self.budget = budget
        state = start.clone()
        cursor = resolve(state, cursor)
        self.root = Node(state, cursor)
        self.size = 1

    def child(self, node: Node, action: str) -> Node:
        """The position after ``action`` at ``node`` (``ValueError`` if it is illegal)."""
        kid = node.children.get(action)
        if kid is not None:
            return kid
        state = node.state.clone()
        state.apply(action)
        kid = Node(state, self.resolve(state, node.cursor))
        if self.size < self.budget:
            node.children[action] = kid
            self.size += 1
        return kid
