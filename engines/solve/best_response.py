"""Exact best and worst responses to a fixed policy, and the efficiency scale (paper, Section 8).

On games small enough to enumerate, the value a seat can reach against a fixed opponent policy
is bracketed by the worst response (the pure strategy that loses most) and the best response
(the one that wins most).  A player's *efficiency* against that opponent places its expected
value on this scale: 0 at the worst response, 1 at the best.

Steps of ``respond`` (perfect recall makes each step well defined):

1. enumerate the game tree in explicit-chance mode; for every history record the probability
   that chance and the opponent's fixed policy reach it (the responder's own choices excluded);
2. group the responder's decision histories into information sets by ``information_state``;
3. visit the information sets from the deepest (most own decisions before) to the shallowest;
   at each, pick the action maximising (best) or minimising (worst) the reach-weighted sum of
   the continuation values, which only involve deeper, already decided sets;
4. the response's value is the expected return at the root under those choices.

Values are in chips for the responding seat.  The policy protocol: ``policy(state, seat)``
returns a mapping from each legal action to its probability.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from engines.gbg.engine import CHANCE, TERMINAL, State, new_deal
from engines.gbg.spec import GameSpec

Policy = Callable[[State, int], Mapping[str, float]]

MAX_HISTORIES = 2_000_000


@dataclass
class _Node:
    state: State
    reach: float  # chance x opponent-policy probability of reaching this history
    depth: int  # the responder's decisions before this history
    children: dict[str, _Node] = field(default_factory=dict)
    probs: dict[str, float] = field(default_factory=dict)  # chance or opponent probabilities
    info: str = ""


@dataclass(frozen=True)
class Response:
    """A pure response: the action chosen at each information set, and its value."""

    seat: int
    value: float
    choices: dict[str, str]


def uniform_policy(state: State, seat: int) -> dict[str, float]:
    """The uniform random policy L0."""
    legal = state.legal_actions()
    return {a: 1.0 / len(legal) for a in legal}


def _expand(spec: GameSpec, seat: int, opponent: Policy) -> tuple[_Node, list[_Node]]:
    root = _Node(new_deal(spec, explicit_chance=True), 1.0, 0)
    stack = [root]
    own: list[_Node] = []
    count = 0
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_HISTORIES:
            raise ValueError(
                f"{spec.name}: more than {MAX_HISTORIES:,} histories; too large to solve exactly"
            )
        st = node.state
        player = st.current_player
        if player == TERMINAL:
            continue
        if player == CHANCE:
            node.probs = dict((str(o), p) for o, p in st.chance_outcomes())
            for o, p in st.chance_outcomes():
                kid = st.clone()
                kid.apply_chance(o)
                node.children[str(o)] = _Node(kid, node.reach * p, node.depth)
        elif player == seat:
            node.info = st.information_state(seat)
            own.append(node)
            for a in st.legal_actions():
                kid = st.clone()
                kid.apply(a)
                node.children[a] = _Node(kid, node.reach, node.depth + 1)
        else:
            node.probs = dict(opponent(st, player))
            for a in st.legal_actions():
                kid = st.clone()
                kid.apply(a)
                node.children[a] = _Node(kid, node.reach * node.probs.get(a, 0.0), node.depth)
        stack.extend(node.children.values())
    return root, own


def _value(node: _Node, seat: int, choices: dict[str, str], memo: dict[int, float]) -> float:
    key = id(node)
    if key in memo:
        return memo[key]
    st = node.state
    if st.current_player == TERMINAL:
        value = float(st.returns()[seat])
    elif st.current_player == seat:
        value = _value(node.children[choices[node.info]], seat, choices, memo)
    else:
        value = sum(
            p * _value(node.children[a], seat, choices, memo)
            for a, p in node.probs.items()
            if p > 0.0
        )
    memo[key] = value
    return value


def respond(spec: GameSpec, seat: int, opponent: Policy, best: bool = True) -> Response:
    """The exact best (or worst) response of ``seat`` to ``opponent`` (see the module steps)."""
    root, own = _expand(spec, seat, opponent)
    return _respond(root, own, seat, best)


def respond_both(spec: GameSpec, seat: int, opponent: Policy) -> tuple[Response, Response]:
    """The best and the worst response of ``seat`` to ``opponent`` from one expansion of the
    tree (the expensive step), as ``respond`` would give them one at a time; by the array form
    (``respond_arrays``), which holds the tree as flat arrays instead of engine states."""
    best, worst, _ = respond_arrays(spec, seat, opponent)
    return best, worst


def _respond(root: _Node, own: list[_Node], seat: int, best: bool) -> Response:
    infosets: dict[str, list[_Node]] = {}
    for node in own:
        infosets.setdefault(node.info, []).append(node)
    order = sorted(infosets, key=lambda i: -infosets[i][0].depth)
    choices: dict[str, str] = {}
    memo: dict[int, float] = {}
    for info in order:
        nodes = infosets[info]
        actions = nodes[0].state.legal_actions()
        scores = {
            a: sum(n.reach * _value(n.children[a], seat, choices, memo) for n in nodes)
            for a in actions
        }
        pick = max if best else min
        choices[info] = pick(actions, key=lambda a: scores[a])
    memo.clear()
    return Response(seat, _value(root, seat, choices, memo), choices)


def policy_value(spec: GameSpec, seat: int, player: Policy, opponent: Policy) -> float:
    """Expected chips of ``seat`` playing ``player`` against ``opponent`` (exact)."""

    def walk(st: State, reach: float) -> float:
        if st.current_player == TERMINAL:
            return reach * st.returns()[seat]
        if st.current_player == CHANCE:
            outcomes = st.chance_outcomes()
        else:
            policy = player if st.current_player == seat else opponent
            outcomes = list(policy(st, st.current_player).items())  # type: ignore[arg-type]
        total = 0.0
        for o, p in outcomes:
            if p <= 0.0:
                continue
            kid = st.clone()
            if st.current_player == CHANCE:
                kid.apply_chance(int(o))
            else:
                kid.apply(str(o))
            total += walk(kid, reach * p)
        return total

    return walk(new_deal(spec, explicit_chance=True), 1.0)


def response_policy(response: Response) -> Policy:
    """A pure response as a policy (for evaluation)."""

    def policy(state: State, seat: int) -> dict[str, float]:
        return {response.choices[state.information_state(seat)]: 1.0}

    return policy


@dataclass(frozen=True)
class Efficiency:
    """Where a value sits between the worst (0) and the best (1) response."""

    value: float
    best: float
    worst: float

    @property
    def score(self) -> float:
        span = self.best - self.worst
        return 1.0 if span == 0 else (self.value - self.worst) / span


def efficiency(spec: GameSpec, seat: int, player: Policy, opponent: Policy) -> Efficiency:
    """The efficiency of ``player`` in ``seat`` against the fixed ``opponent``."""
    best = respond(spec, seat, opponent, best=True).value
    worst = respond(spec, seat, opponent, best=False).value
    return Efficiency(policy_value(spec, seat, player, opponent), best, worst)


# --- the array form: one expansion, flat arrays, backward passes vectorised over histories ------

# The size limit of the array form: histories (nodes of the tree in explicit-chance mode,
# the responder's choices included).  The tree is built in typed buffers (``array.array``) of
# 38 bytes per history (int32 parent and information set, int16 action and depths, int8 kind,
# float64 weight, reach and payoff), and the backward passes add about 40 bytes per history of
# numpy work arrays, so 20 million histories stay under about 2 GB.  The expansion (the
# engine's state clones) takes roughly 8-15 microseconds per history, so the limit is also
# about five minutes of one core per seat.
MAX_ARRAY_HISTORIES = 20_000_000

KIND_TERMINAL, KIND_CHANCE, KIND_OWN, KIND_OPPONENT = 0, 1, 2, 3


@dataclass(frozen=True)
class Tree:
    """A game tree seen by ``seat`` against a fixed opponent, as flat arrays in DFS order.

    ``parent`` (-1 at the root), ``weight`` (the chance or opponent probability of the edge from
    the parent; 1 below the responder's nodes), ``action`` (the index of the edge's action among
    the parent's legal actions), ``depth`` (tree depth), ``kind``, ``info`` (the information
    set's id at the responder's nodes, else -1), ``own_depth`` (the responder's decisions
    before), ``reach`` (chance x opponent probability), ``payoff`` (the responder's chips at
    terminal histories).  ``infosets`` names the information sets and ``actions`` their legal
    actions.  Indices are int32 (a tree has at most ``MAX_ARRAY_HISTORIES`` histories),
    probabilities and chips float64 (the values are exact to rounding, as the tree-of-states
    solver's)."""

    seat: int
    parent: npt.NDArray[np.int32]
    weight: npt.NDArray[np.float64]
    action: npt.NDArray[np.int16]
    depth: npt.NDArray[np.int16]
    kind: npt.NDArray[np.int8]
    info: npt.NDArray[np.int32]
    own_depth: npt.NDArray[np.int16]
    reach: npt.NDArray[np.float64]
    payoff: npt.NDArray[np.float64]
    infosets: tuple[str, ...]
    actions: tuple[tuple[str, ...], ...]

    @property
    def histories(self) -> int:
        return len(self.parent)

    @property
    def nbytes(self) -> int:
        """Bytes held by the tree's arrays (the information set names not counted)."""
        arrays = (self.parent, self.weight, self.action, self.depth, self.kind, self.info)
        return sum(a.nbytes for a in (*arrays, self.own_depth, self.reach, self.payoff))


def expand_tree(
    spec: GameSpec, seat: int, opponent: Policy, limit: int = MAX_ARRAY_HISTORIES
) -> Tree:
    """Enumerate the tree once into flat typed buffers (only the current DFS path's pending
    siblings hold engine states)."""
    if not 1 <= limit <= np.iinfo(np.int32).max:
        raise ValueError(f"the history limit must be between 1 and 2**31 - 1, got {limit}")
    parent, info = array("i"), array("i")
    action, depth, own_depth = array("h"), array("h"), array("h")
    kind = array("b")
    weight, reach, payoff = array("d"), array("d"), array("d")
    ids: dict[str, int] = {}
    menus: list[tuple[str, ...]] = []
    stack: list[tuple[State, int, float, int, int, int, float]] = [
        (new_deal(spec, explicit_chance=True), -1, 1.0, -1, 0, 0, 1.0)
    ]
    while stack:
        st, up, w, a_index, d, od, r = stack.pop()
        node = len(parent)
        if node >= limit:
            raise ValueError(
                f"{spec.name}: more than {limit:,} histories; too large to solve exactly"
            )
        parent.append(up)
        weight.append(w)
        action.append(a_index)
        depth.append(d)
        own_depth.append(od)
        reach.append(r)
        player = st.current_player
        if player == TERMINAL:
            kind.append(KIND_TERMINAL)
            info.append(-1)
            payoff.append(float(st.returns()[seat]))
            continue
        payoff.append(0.0)
        if player == CHANCE:
            kind.append(KIND_CHANCE)
            info.append(-1)
            for o, p in st.chance_outcomes():
                kid = st.clone()
                kid.apply_chance(o)
                stack.append((kid, node, p, -1, d + 1, od, r * p))
            continue
        legal = st.legal_actions()
        if player == seat:
            kind.append(KIND_OWN)
            key = st.information_state(seat)
            if key not in ids:
                ids[key] = len(menus)
                menus.append(tuple(legal))
            info.append(ids[key])
            for k, a in enumerate(legal):
                kid = st.clone()
                kid.apply(a)
                stack.append((kid, node, 1.0, k, d + 1, od + 1, r))
        else:
            kind.append(KIND_OPPONENT)
            info.append(-1)
            probs = opponent(st, player)
            for k, a in enumerate(legal):
                # Zero-probability actions are kept (reach 0): the response then has a choice
                # at every information set of the game, as the tree-of-states solver does.
                p = float(probs.get(a, 0.0))
                kid = st.clone()
                kid.apply(a)
                stack.append((kid, node, p, k, d + 1, od, r * p))
    return Tree(
        seat=seat,
        parent=np.frombuffer(parent, dtype=np.int32),
        weight=np.frombuffer(weight, dtype=np.float64),
        action=np.frombuffer(action, dtype=np.int16),
        depth=np.frombuffer(depth, dtype=np.int16),
        kind=np.frombuffer(kind, dtype=np.int8),
        info=np.frombuffer(info, dtype=np.int32),
        own_depth=np.frombuffer(own_depth, dtype=np.int16),
        reach=np.frombuffer(reach, dtype=np.float64),
        payoff=np.frombuffer(payoff, dtype=np.float64),
        infosets=tuple(sorted(ids, key=ids.__getitem__)),
        actions=tuple(menus),
    )


@dataclass(frozen=True)
class _Edges:
    """The tree's edges ordered for the backward pass (deepest first), computed once per tree
    and shared by every pass: ``kids`` and ``up`` (child and parent), ``own`` (the parent is
    the responder's), ``weight`` (1 below the responder), ``action``, ``info`` (the parent's
    information set, 0 where it has none) and the slices of one depth each."""

    kids: npt.NDArray[np.int32]
    up: npt.NDArray[np.int32]
    own: npt.NDArray[np.bool_]
    weight: npt.NDArray[np.float64]
    action: npt.NDArray[np.int16]
    info: npt.NDArray[np.int32]
    slices: tuple[tuple[int, int], ...]


def _edges(tree: Tree) -> _Edges:
    found = np.flatnonzero(tree.parent >= 0)
    kids: npt.NDArray[np.int32] = found[np.argsort(-tree.depth[found], kind="stable")].astype(
        np.int32
    )
    up = tree.parent[kids]
    own = tree.kind[up] == KIND_OWN
    bounds = np.flatnonzero(np.diff(tree.depth[kids])) + 1
    starts, stops = np.r_[0, bounds].tolist(), np.r_[bounds, len(kids)].tolist()
    return _Edges(
        kids=kids,
        up=up,
        own=own,
        weight=np.where(own, 1.0, tree.weight[kids]),
        action=tree.action[kids],
        info=np.maximum(tree.info[up], 0),
        slices=tuple(zip(starts, stops, strict=True)),
    )


def _values(tree: Tree, edges: _Edges, chosen: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Every history's value for the responder when it plays ``chosen[info]`` (an action index;
    -1: undecided, the history's value then counts as 0), by one pass per tree depth."""
    values = np.where(tree.kind == KIND_TERMINAL, tree.payoff, 0.0)
    edge = edges.weight * (~edges.own | (edges.action == chosen[edges.info]))
    for start, stop in edges.slices:
        kids = edges.kids[start:stop]
        np.add.at(values, edges.up[start:stop], edge[start:stop] * values[kids])
    return values


def solve_tree(tree: Tree, best: bool, edges: _Edges | None = None) -> Response:
    """The best (or worst) pure response on ``tree``: information sets decided from the deepest
    own-depth level to the shallowest, each level from one vectorised backward pass."""
    edges = edges if edges is not None else _edges(tree)
    n_info = len(tree.infosets)
    chosen = np.full(max(n_info, 1), -1, dtype=np.int64)
    own = np.flatnonzero(tree.kind == KIND_OWN)
    kids = np.flatnonzero(tree.parent >= 0)
    own_kids = kids[tree.kind[tree.parent[kids]] == KIND_OWN]
    width = max((len(a) for a in tree.actions), default=1)
    for level in sorted(set(tree.own_depth[own].tolist()), reverse=True):
        values = _values(tree, edges, chosen)
        at = own_kids[tree.own_depth[tree.parent[own_kids]] == level]
        up = tree.parent[at]
        scores = np.zeros((n_info, width))
        np.add.at(scores, (tree.info[up], tree.action[at]), tree.reach[up] * values[at])
        infos = np.unique(tree.info[up])
        for i in infos:
            legal = scores[i, : len(tree.actions[i])]
            chosen[i] = int(np.argmax(legal) if best else np.argmin(legal))
    values = _values(tree, edges, chosen)
    choices = {tree.infosets[i]: tree.actions[i][chosen[i]] for i in range(n_info)}
    return Response(tree.seat, float(values[0]), choices)


def respond_arrays(
    spec: GameSpec, seat: int, opponent: Policy, limit: int = MAX_ARRAY_HISTORIES
) -> tuple[Response, Response, dict[str, float]]:
    """Best and worst responses by the array form, with the tree's size and the times:
    ``histories``, ``infosets``, ``tree_megabytes``, ``expand_seconds``, ``solve_seconds``."""
    started = time.perf_counter()
    tree = expand_tree(spec, seat, opponent, limit)
    expanded = time.perf_counter()
    edges = _edges(tree)
    best, worst = solve_tree(tree, True, edges), solve_tree(tree, False, edges)
    sizes = {
        "histories": float(tree.histories),
        "infosets": float(len(tree.infosets)),
        "tree_megabytes": tree.nbytes / 2**20,
        "expand_seconds": expanded - started,
        "solve_seconds": time.perf_counter() - expanded,
    }
    return best, worst, sizes
