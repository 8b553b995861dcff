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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

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
    tree (the expensive step), as ``respond`` would give them one at a time."""
    root, own = _expand(spec, seat, opponent)
    return _respond(root, own, seat, True), _respond(root, own, seat, False)


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
