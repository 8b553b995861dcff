"""A memo of the engine: the game tree, expanded lazily, for games small enough to hold.

Compiling a spec into specialised code is how the engine is fast on small games without
special-casing any of them.  The tree is built *by the interpreter*: each node is the result of
replaying its path through ``State`` in explicit-chance mode, so the memo cannot disagree with
the rules.  A ``TreeState`` then plays a deal by walking nodes: a move is one dictionary lookup,
a chance event one draw from the same generator, in the same order and by the same rule as the
interpreter (the k-th outcome of the sorted list), so a play seed deals the same cards in
either mode.  Anything richer than the menu (observations, events, hands) is read from the
interpreter state rebuilt from the node's path, and cached per node where it is a pure
function of the path (information states).

Each game's rules hold at most ``budget`` nodes.  When a deal reaches a node the budget does
not allow to expand, that deal continues in the interpreter from its exact position, and new
deals of that game are interpreted from then on.  Which games qualify at all is decided when a
spec's rules are built (``GameRules.tree_eligible``: at most ``MAX_CHANCE_PATHS`` card sequences).

The tree sits above the interpreter it memoises: it imports the state, the rules and
the replay of a path (``engines.gbg.steps``), and ``engines.gbg.engine.new_deal`` above it
chooses between a ``TreeState`` and an interpreted deal.
"""

from __future__ import annotations

from typing import Any

from engines.gbg.rng import MASK64, DealRng
from engines.gbg.rules import GameRules
from engines.gbg.spec import GameSpec
from engines.gbg.state import CHANCE, TERMINAL, ChanceRequest, Move, State, initial_state
from engines.gbg.steps import replay

DEFAULT_BUDGET = 200_000


class Node:
    """One history of the game: who moves, the menu or the chance outcomes, the children."""

    __slots__ = (
        "arg",
        "children",
        "info",
        "kind",
        "legal",
        "move",
        "outcomes",
        "parent",
        "player",
        "returns",
        "scratch",
        "step",
        "width",
    )

    def __init__(self, parent: Node | None, step: tuple[str, Any] | None, st: State) -> None:
        self.parent = parent
        self.step = step
        self.player = st.current_player
        self.legal = st.legal_actions()
        self.kind = st.chance_kind()
        self.arg = st._pending[0][1] if self.kind else 0
        self.outcomes: list[int] = [o for o, _ in st.chance_outcomes()] if self.kind else []
        self.width = len(self.outcomes)
        self.children: Any = [None] * len(self.outcomes) if self.kind else {}
        self.returns = st.returns()
        self.move: Move | None = st.history[-1] if step and step[0] == "action" else None
        self.info: list[str | None] = [None, None]
        self.scratch: State | None = st  # the interpreter state, kept while expanding

    def path(self) -> list[tuple[str, Any]]:
        steps = []
        node: Node | None = self
        while node is not None and node.step is not None:
            steps.append(node.step)
            node = node.parent
        steps.reverse()
        return steps

    def interpreter_state(self, spec: Any) -> State:
        """A fresh explicit-chance interpreter state at this node (replayed from the root)."""
        return replay(spec, self.path())

    def _release_if_full(self) -> None:
        """Drop the kept interpreter state once every child exists."""
        if self.kind:
            full = all(k is not None for k in self.children)
        else:
            full = len(self.children) == len(self.legal)
        if full:
            self.scratch = None


class GameTree:
    """The lazily expanded tree of one game, with its node budget."""

    def __init__(self, game: GameRules, budget: int = DEFAULT_BUDGET) -> None:
        self.game = game
        self.budget = budget
        self.size = 1
        self.enabled = True
        self.root = Node(None, None, initial_state(game, None))

    def child(self, node: Node, step: tuple[str, Any], index: Any) -> Node | None:
        """Expand ``node`` by ``step`` (stored under ``index``), or None past the budget."""
        if self.size >= self.budget:
            self.enabled = False
            return None
        base = node.scratch if node.scratch is not None else node.interpreter_state(self.game.spec)
        st = base.clone()
        if step[0] == "action":
            st.apply(step[1])
        else:
            st.apply_chance(step[1])
        kid = Node(node, step, st)
        node.children[index] = kid
        self.size += 1
        node._release_if_full()
        if kid.player == TERMINAL:
            kid.scratch = None
        return kid


class TreeState(State):
    """A deal played on a ``GameTree``; the same public API as ``State``.

    It subclasses ``State`` for its type and API only: it never initialises the interpreter's
    slots, and any of them read here (``events``, ``hands``, ``stacks``, ...) resolves through
    ``__getattr__`` to the interpreter state rebuilt at the current node.
    """

    __slots__ = ("_live", "_materialized", "node", "rng", "tree")

    def __init__(self, tree: GameTree, rng: DealRng) -> None:
        self.tree = tree
        self.rng = rng
        self._live: State | None = None
        self._materialized: tuple[Node, State] | None = None  # (node, its interpreter state)
        self.node = tree.root
        self._advance(tree.root)

    # --- the hot path ------------------------------------------------------------------------

    def _advance(self, node: Node) -> None:
        """Move to ``node`` and resolve chance nodes with the deal's generator."""
        rng = self.rng
        while node.player == CHANCE:
            # The generator's step, inlined (see DealRng.below): the same draws, in the same
            # order, as the interpreter makes.
            s = (rng.state * 6364136223846793005 + 1442695040888963407) & MASK64
            rng.state = s
            if node.kind == "coin":
                index = 1 if ((s >> 32) * 100) >> 32 < node.arg else 0
            else:
                index = ((s >> 32) * node.width) >> 32
            kid = node.children[index]
            if kid is None:
                kid = self.tree.child(node, ("chance", node.outcomes[index]), index)
                if kid is None:
                    self._go_live(node, pending_draw=index)
                    return
            node = kid
        self.node = node
        self.current_player = node.player
        self._legal = node.legal

    def legal_actions(self) -> tuple[str, ...]:
        return self._legal

    def apply(self, action: str) -> Move:
        """Verify and play ``action``; return its record."""
        live = self._live
        if live is not None:
            move = live.apply(action)
            self.current_player = live.current_player
            self._legal = live.legal_actions()
            return move
        node = self.node
        kid = node.children.get(action) if node.player >= 0 else None
        if kid is None:
            self.verify_apply(action)
            kid = self.tree.child(node, ("action", action), action)
            if kid is None:
                self._go_live(node)
                return self.apply(action)
        if kid.player == CHANCE:
            self._advance(kid)
        else:
            self.node = kid
            self.current_player = kid.player
            self._legal = kid.legal
        return kid.move  # type: ignore[return-value]  # an action's child always has its move

    def returns(self) -> tuple[int, int]:
        if self._live is not None:
            return self._live.returns()
        return self.node.returns

    # ``is_terminal``, ``verify_apply`` and ``can_apply`` are ``State``'s: they read only
    # ``current_player`` and ``_legal``, which this class keeps up to date.

    def is_chance_node(self) -> bool:
        return False  # chance is resolved as the deal reaches it

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def information_state(self, seat: int | str) -> str:
        s = seat if isinstance(seat, int) else ("alice", "bob").index(seat)
        if self._live is not None:
            return self._live.information_state(s)
        cached = self.node.info[s] if s in (0, 1) else None
        if cached is None:
            cached = self.interpreter().information_state(seat)
            self.node.info[s] = cached
        return cached

    @property
    def history(self) -> list[Move]:  # type: ignore[override]
        if self._live is not None:
            return self._live.history
        moves = []
        node: Node | None = self.node
        while node is not None:
            if node.move is not None:
                moves.append(node.move)
            node = node.parent
        moves.reverse()
        return moves

    def interpreter(self) -> State:
        """The interpreter state at this point of the deal (read it; do not move it)."""
        if self._live is not None:
            return self._live
        cached = self._materialized
        if cached is None or cached[0] is not self.node:
            cached = self._materialized = (
                self.node,
                self.node.interpreter_state(self.tree.game.spec),
            )
        return cached[1]

    # What ``State`` offers beyond the hot path, read from the interpreter state at this node.
    # Spelled out rather than left to ``__getattr__``: a compiled ``State``
    # (``arena.compiled_engine``) reads its own fields directly, which a ``TreeState`` never sets.

    @property
    def spec(self) -> GameSpec:
        return self.tree.game.spec

    def pot(self) -> int:
        return self.interpreter().pot()

    def escrow(self) -> int:
        return self.interpreter().escrow()

    def chips_in_play(self) -> int:
        return self.interpreter().chips_in_play()

    @property
    def phase_id(self) -> str:
        return self.interpreter().phase_id

    def verify_apply(self, action: str) -> None:
        self.interpreter().verify_apply(action)

    def can_apply(self, action: str) -> bool:
        return self.interpreter().can_apply(action)

    def chance_kind(self) -> str | None:
        return self.interpreter().chance_kind()

    def chance_request(self) -> ChanceRequest | None:
        return self.interpreter().chance_request()

    def observation(self, seat: int | str) -> dict[str, Any]:
        return self.interpreter().observation(seat)

    def abstract_state(self, seat: int | str) -> tuple[Any, ...]:
        return self.interpreter().abstract_state(seat)

    def known_cards(self, seat: int | str) -> set[int]:
        return self.interpreter().known_cards(seat)

    def known_positions(self, seat: int) -> dict[str, str]:
        return self.interpreter().known_positions(seat)

    def __getattr__(self, name: str) -> Any:
        # Everything else (observation, events, hands, stacks, pot, phase_id, ...) is read from
        # the interpreter state at this node.
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.interpreter(), name)

    def clone(self) -> TreeState:
        other = TreeState.__new__(TreeState)
        other.tree = self.tree
        other.rng = self.rng.copy()
        other._live = None if self._live is None else self._live.clone()
        if other._live is not None:
            other._live._rng = other.rng
        other._materialized = None
        other.node = self.node
        other.current_player = self.current_player
        other._legal = self._legal
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> TreeState:
        return self.clone()

    def __repr__(self) -> str:
        return f"Tree{self.interpreter()!r}"

    def _go_live(self, node: Node, pending_draw: int | None = None) -> None:
        """Continue this deal in the interpreter from ``node`` (the budget is spent)."""
        live = node.interpreter_state(self.tree.game.spec)
        live._rng = self.rng
        if pending_draw is not None:
            # The draw for this chance node was already taken from the generator: apply it.
            live.apply_chance(node.outcomes[pending_draw])
        elif live.current_player == CHANCE:
            live._drain()
        self._live = live
        self.node = node
        self.current_player = live.current_player
        self._legal = live.legal_actions()
