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
    """A position under fixed chance: who moves (or TERMINAL), the menu, the chance cursor,
    the returns at the end, the children by action, and a slot for the caller's per-node
    derivations (``memo``).  The interpreter state is kept only where a walk branched off
    (``state``; None elsewhere, rebuilt from the nearest ancestor that has one)."""

    __slots__ = (
        "action",
        "children",
        "cursor",
        "legal",
        "memo",
        "parent",
        "player",
        "returns",
        "state",
    )

    def __init__(self, parent: Node | None, action: str, state: State, cursor: int) -> None:
        self.parent = parent
        self.action = action
        self.state: State | None = None
        self.cursor = cursor
        self.player = state.current_player
        self.legal = state.legal_actions()
        self.returns = state.returns()
        self.children: dict[str, Node] = {}
        self.memo: Any = None


class FixedChanceTree:
    """The lazily expanded action tree below ``start`` (see the module docstring).

    ``start`` is copied, never moved; if it waits on chance, the resolver settles the copy.
    A walk moves with ``step``, carrying the interpreter state it owns (``live``) while it
    is on new ground, so that a new path costs one clone where it leaves the known tree and
    then one ``apply`` per move, as interpreting it would.
    """

    __slots__ = ("budget", "resolve", "root", "size")

    def __init__(
        self, start: State, resolve: Resolver, cursor: int = 0, budget: int = DEFAULT_BUDGET
    ) -> None:
        self.resolve = resolve
        self.budget = budget
        state = start.clone()
        cursor = resolve(state, cursor)
        self.root = Node(None, "", state, cursor)
        self.root.state = state
        self.size = 1

    def step(self, node: Node, action: str, live: State | None) -> tuple[Node, State | None]:
        """Play ``action`` at ``node``; ``live`` is the walk's own state at ``node``, if it
        has one.  Returns the next node and the walk's own state there (None when the move
        was known).  ``ValueError`` if ``action`` is illegal."""
        kid = node.children.get(action)
        if kid is not None:
            return kid, None
        if live is None:
            live = self.state(node).clone()
        live.apply(action)
        cursor = self.resolve(live, node.cursor)
        kid = Node(node, action, live, cursor)
        if self.size < self.budget:
            node.children[action] = kid
            self.size += 1
        return kid, live

    def state(self, node: Node, live: State | None = None) -> State:
        """The interpreter state at ``node`` (read it; do not move it): ``live`` when given,
        else the node's, rebuilt from its nearest ancestor that keeps one and then kept."""
        if live is not None:
            return live
        if node.state is not None:
            return node.state
        path: list[Node] = []
        base: Node | None = node
        while base is not None and base.state is None:
            path.append(base)
            base = base.parent
        assert base is not None and base.state is not None  # the root keeps its state
        state = base.state.clone()
        for step in reversed(path):
            state.apply(step.action)
            self.resolve(state, step.parent.cursor if step.parent is not None else 0)
        node.state = state
        return state

    def release(self) -> None:
        """Unlink every kept node from its parent: the tree is then freed by reference
        counting as soon as it is dropped, instead of by the cycle collector (a parent and its
        children refer to each other), which walks every node of every tree still alive at each
        of its full collections.  The tree is not to be walked afterwards."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            node.parent = None
            stack.extend(node.children.values())

    def child(self, node: Node, action: str) -> Node:
        """The node after ``action`` at ``node`` (memoised, with its state kept)."""
        kid, live = self.step(node, action, None)
        if live is not None:
            kid.state = live
        return kid
