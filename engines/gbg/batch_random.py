"""Random play in batches: a spec's flat tables and the kernel that plays them.

``random_play(spec, seeds, uniforms)`` plays one deal per play seed with both seats uniform
over the full menu, chance from ``DealRng(seed)`` as ``new_deal(spec, seed)`` draws it and
moves ``legal[int(u * len(legal))]`` with the uniforms read in order across the deals: the
interpreter's loop in the acceptance filter, ``simulate`` and the throughput benchmark, deal
for deal (``engines.gbg.batch_kernel`` holds the loop; the tests hold it to the interpreter).
It returns each deal's returns, decisions and fold, and the phase and branch counters the
acceptance filter reads.  ``python_uniforms`` gives the uniforms a ``random.Random`` would
give, so a caller that used one keeps its numbers.

``coarse_random_play`` and ``abstract_random_play`` play the random deals that count
information states (the screening's coarse states; the state-space axis's abstracted states):
moves by ``random.Random.choice``, each state hashed in the loop, the distinct states counted
per seat (equal to the interpreter's sets; see ``coarse_random_play``).

``l0_rollouts(spec, starts, futures, jobs, max_amounts)`` finishes deals from interpreter
states paused at decisions (``load`` copies a state into the loop's arrays): one action, then
both seats L0 over A(I) with chance from a card order and stream, as the axes' ``play_out``
finishes them: the screening's information-sensitivity plays and the information axis's search
rollouts (all worlds and actions of one search decision in one call; 1.3 to 1.4x the
interpreter's rollouts on the slow paper-profile games at the paper budget).  Short
continuations (the screening's brittleness replays, a few moves each) stay on the interpreter:
loading a state into the arrays costs more than the moves.

When the kernel cannot play a game as the interpreter would (a menu with no action,
an empty hand read at a showdown: the interpreter raises there), both return None and the
caller plays on the interpreter, which raises what it raises.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engines.gbg import batch_kernel as k
from engines.gbg.rng import MASK64
from engines.gbg.spec import (
    AuctionPhase,
    BettingPhase,
    DealPhase,
    DrawPhase,
    GameSpec,
    PeekPhase,
    PositionPhase,
    Predicate,
    RevealPhase,
    SideBetPhase,
    SimultaneousPhase,
    SwapPhase,
)
from engines.gbg.state import State
from engines.gbg.structure import successors
from engines.gbg.tables import CardTables

_KINDS = {
    "deal": k.DEAL,
    "reveal": k.REVEAL,
    "betting": k.BETTING,
    "simultaneous": k.SIMULTANEOUS,
    "auction": k.AUCTION,
    "peek": k.PEEK,
    "draw": k.DRAW,
    "swap": k.SWAP,
    "position": k.POSITION,
    "side_bet": k.SIDE_BET,
}
_WHO = {"alice": 0, "bob": 1, "both": 2, "position": 3}
# The fixed action words by their number in the kernel's keys (an option named like one of
# them is the same string, so it gets the same number; other names follow).
WORDS = {
    "fold": k.N_FOLD,
    "check": k.N_CHECK,
    "call": k.N_CALL,
    "peek": k.N_PEEK,
    "pass": k.N_PASS,
    "draw": k.N_DRAW,
    "stand": k.N_STAND,
    "keep": k.N_KEEP,
    "side_bet": k.N_SIDE_BET,
    "swap": k.N_SWAP,
    "bet": k.N_BET,
    "raise": k.N_RAISE,
    "bid": k.N_BID,
}
_QUANTIFIER = {"alice": k.W_ALICE, "bob": k.W_BOB, "either": k.W_EITHER, "both": k.W_BOTH}
_PREDICATES = {
    "holds_pair": k.HOLDS_PAIR,
    "holds_rank": k.HOLDS_RANK,
    "chip_leader": k.CHIP_LEADER,
    "pot_at_least": k.POT_AT_LEAST,
    "chose": k.CHOSE,
    "holds_position": k.HOLDS_POSITION,
}
_CRITERIA = {"high_card": 0, "high_sum": 1, "low_sum": 2, "pair": 3, "chip_leader": 4}
_FIRST = {"seat": 0, "position": 1, "chip_leader": 2, "chip_trailer": 3}
_METRICS = {
    "high_card": k.M_HIGH_CARD,
    "rank_sum": k.M_RANK_SUM,
    "low_sum": k.M_LOW_SUM,
    "pair_with_board": k.M_PAIR_WITH_BOARD,
    "best_five": k.M_BEST_FIVE,
}


def choice_names(phase: object) -> list[str]:
    """What ``State.choices`` records for a phase's decisions, by the kernel's code."""
    if isinstance(phase, SimultaneousPhase):
        return [o.name for o in phase.options]
    if isinstance(phase, AuctionPhase):
        return [f"bid {b}" for b in phase.bids]
    if isinstance(phase, PeekPhase):
        return ["peek", "pass"]
    if isinstance(phase, DrawPhase):
        return ["draw", "stand"]
    if isinstance(phase, SwapPhase):
        return ["keep", "swap"]
    if isinstance(phase, SideBetPhase):
        return ["side_bet", "pass"]
    return []


@dataclass(frozen=True)
class Tables:
    """A spec as the kernel reads it (see ``engines.gbg.batch_kernel``)."""

    cards: np.ndarray  # value, rank, suit, label order: one row each, by card id
    phases: np.ndarray
    sizes: np.ndarray  # bet sizes, pot percents or bids, by phase
    options: np.ndarray  # simultaneous options: pot chips, score delta, name (``WORDS`` on)
    transfers: np.ndarray  # simultaneous matrix: transfer by (alice option, bob option)
    edge_targets: np.ndarray
    edge_tests: np.ndarray
    predicates: np.ndarray
    metric: np.ndarray
    rules: np.ndarray
    n_suits: int
    n_positions: int
    stack: int
    ante: int
    position_index: dict[str, int]

    def deal_arguments(
        self,
    ) -> tuple[
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        int,
        int,
        int,
        int,
    ]:
        """The tables as the entry points that deal from the shuffle take them first."""
        return (
            self.cards,
            self.phases,
            self.sizes,
            self.options,
            self.transfers,
            self.edge_targets,
            self.edge_tests,
            self.predicates,
            self.metric,
            self.rules,
            self.n_suits,
            self.n_positions,
            self.stack,
            self.ante,
        )


def build_tables(spec: GameSpec) -> Tables:
    """Flatten ``spec`` (the card tables are the interpreter's own)."""
    game = CardTables(spec)
    n = game.n_cards
    label_order = {label: i for i, label in enumerate(sorted(set(game.label_of)))}
    cards = np.array(
        [game.value_of, game.rank_of, game.suit_of, [label_order[x] for x in game.label_of]],
        dtype=np.int64,
    ).reshape(4, n)
    phase_index = {p.id: i for i, p in enumerate(spec.phases)}
    names = sorted(
        {p.name for p in spec.phases if isinstance(p, PositionPhase)}
        | {
            p.item.position
            for p in spec.phases
            if isinstance(p, AuctionPhase) and p.item.position is not None
        }
        | {p.position for p in spec.phases if isinstance(p, PeekPhase) and p.position}
        | {
            p.first.position
            for p in spec.phases
            if isinstance(p, BettingPhase) and p.first.position is not None
        }
    )
    position = {name: i for i, name in enumerate(names)}
    predicates: list[list[int]] = []

    def predicate(pred: Predicate) -> int:
        option = -2  # a choice never recorded: the test never holds
        phase = phase_index.get(pred.phase or "", 0)
        if pred.kind == "chose" and pred.phase in phase_index:
            recorded = choice_names(spec.phases[phase])
            if pred.option in recorded:
                option = recorded.index(pred.option or "")
        rank = game.rank_index.get(pred.rank or "", -1)
        predicates.append(
            [
                _PREDICATES[pred.kind],
                _QUANTIFIER.get(pred.who, k.W_NEITHER),
                int(pred.negate),
                rank,
                pred.amount or 0,
                phase,
                option,
                position.get(pred.position or "", _missing(position)),
            ]
        )
        return len(predicates) - 1

    # Action strings by number (``batch_kernel.N_*``): the fixed words, then option names.
    words = dict(WORDS)
    n_phases = len(spec.phases)
    width = max([1] + [len(_sizes(p)) for p in spec.phases])
    n_options = max([1] + [len(p.options) for p in spec.phases if isinstance(p, SimultaneousPhase)])
    n_edges = max([1] + [len(p.next) for p in spec.phases])
    table = np.zeros((n_phases, k.PHASE_COLUMNS), np.int64)
    sizes = np.zeros((n_phases, width), np.int64)
    options = np.zeros((n_phases, n_options, 3), np.int64)
    transfers = np.zeros((n_phases, n_options, n_options), np.int64)
    edge_targets = np.zeros((n_phases, n_edges), np.int64)
    edge_tests = np.full((n_phases, n_edges), -1, np.int64)
    for i, p in enumerate(spec.phases):
        row = table[i]
        row[k.K_KIND] = _KINDS[p.kind]
        row[k.K_PERK] = -1
        for j, size in enumerate(_sizes(p)):
            sizes[i, j] = size
        row[k.K_NSIZES] = len(_sizes(p))
        if isinstance(p, DealPhase | RevealPhase):
            row[k.K_COUNT] = p.count
        elif isinstance(p, BettingPhase):
            row[k.K_CAP] = p.raise_cap
            row[k.K_FORCED0], row[k.K_FORCED1] = p.forced
            row[k.K_FIRST_RULE] = _FIRST[p.first.rule]
            row[k.K_FIRST_SEAT] = 0 if p.first.seat == "alice" else 1
            row[k.K_FALLBACK] = 0 if p.first.fallback == "alice" else 1
            row[k.K_POS] = position.get(p.first.position or "", 0)
            row[k.K_STAKE_KIND] = 1 if p.stake.kind == "pot" else 0
        elif isinstance(p, SimultaneousPhase):
            row[k.K_NOPTIONS] = len(p.options)
            at = {o.name: j for j, o in enumerate(p.options)}
            for j, o in enumerate(p.options):  # the third column names the option
                options[i, j] = (
                    o.pot_chips,
                    o.score_delta,
                    words.setdefault(o.name, 100 + len(words)),
                )
            for cell in p.matrix:  # later cells win, as in the handler's dict
                transfers[i, at[cell.alice], at[cell.bob]] = cell.transfer
        elif isinstance(p, AuctionPhase):
            row[k.K_PRICING] = 0 if p.pricing == "first" else 1
            row[k.K_TIE] = {"no_sale": -1, "alice": 0, "bob": 1}[p.tie]
            row[k.K_ITEM] = {"card": 0, "peek": 1, "position": 2}[p.item.kind]
            row[k.K_POS] = position.get(p.item.position or "", 0)
        elif isinstance(p, PeekPhase):
            row[k.K_WHO] = _WHO[p.who]
            row[k.K_POS] = position.get(p.position or "", 0)
            row[k.K_TARGET] = 0 if p.target == "opponent_card" else 1
            row[k.K_OPTIONAL] = int(p.optional)
            row[k.K_COST] = p.cost
            if p.risk is not None:
                row[k.K_RISK_PCT], row[k.K_RISK_CHIPS] = p.risk.percent, p.risk.chips
        elif isinstance(p, DrawPhase):
            row[k.K_WHO] = _WHO[p.who]
            row[k.K_COUNT] = p.count
            row[k.K_OPTIONAL] = int(p.optional)
        elif isinstance(p, SwapPhase):
            row[k.K_WHO] = _WHO[p.who]
            row[k.K_SOURCE] = {"deck": 0, "board": 1, "opponent": 2}[p.source]
        elif isinstance(p, PositionPhase):
            row[k.K_POS] = position[p.name]
            row[k.K_CRITERION] = _CRITERIA[p.criterion]
            row[k.K_HIDDEN] = int(p.hidden)
            if p.perk is not None:
                row[k.K_PERK] = 0 if p.perk.kind == "peek" else 1
                row[k.K_PERK_POINTS] = p.perk.points
        elif isinstance(p, SideBetPhase):
            row[k.K_COST] = p.stake
            row[k.K_PROP] = predicate(p.proposition)
        row[k.K_STRAIGHT] = -2  # branches, unless a single plain edge (as GameRules.straight)
        if len(p.next) == 1 and p.next[0].when is None:
            to = p.next[0].to
            row[k.K_STRAIGHT] = -1 if to == "showdown" else phase_index[to]
        row[k.K_NEDGES] = len(p.next)
        for j, edge in enumerate(p.next):
            edge_targets[i, j] = -1 if edge.to == "showdown" else phase_index[edge.to]
            if edge.when is not None:
                edge_tests[i, j] = predicate(edge.when)
        if not p.next:
            target = successors(spec, i)[0]
            row[k.K_STRAIGHT] = -1 if target == "showdown" else phase_index[target]
    metric = spec.showdown.metric
    rules = np.array(
        [
            [1 if r.kind == "per_card" else 0, game.rank_index[r.rank], r.points]
            for r in metric.rules
        ],
        dtype=np.int64,
    ).reshape(len(metric.rules), 3)
    return Tables(
        cards=cards,
        phases=table,
        sizes=sizes,
        options=options,
        transfers=transfers,
        edge_targets=edge_targets,
        edge_tests=edge_tests,
        predicates=np.array(predicates, dtype=np.int64).reshape(len(predicates), 8),
        metric=np.array([_METRICS[metric.kind], int(metric.use_board)], dtype=np.int64),
        rules=rules,
        n_suits=len(spec.deck.suits),
        n_positions=len(names),
        stack=spec.stack,
        ante=spec.ante,
        position_index=position,
    )


def _missing(position: dict[str, int]) -> int:
    """A position slot nobody is ever assigned (held by no seat)."""
    return len(position)


def _sizes(phase: object) -> tuple[int, ...]:
    if isinstance(phase, BettingPhase):
        stake = phase.stake
        if stake.kind == "fixed":
            return (stake.size,)
        if stake.kind == "grid":
            return tuple(stake.amounts)
        return tuple(stake.percents)
    if isinstance(phase, AuctionPhase):
        return tuple(phase.bids)
    return ()


_TABLES: dict[int, tuple[GameSpec, Tables]] = {}


def tables(spec: GameSpec) -> Tables:
    """``build_tables(spec)``, built once per spec object."""
    found = _TABLES.get(id(spec))
    if found is None or found[0] is not spec:
        if len(_TABLES) > 4_096:
            _TABLES.clear()
        found = _TABLES[id(spec)] = (spec, build_tables(spec))
    return found[1]


@dataclass
class RandomPlay:
    """What ``random_play`` returns: per deal Alice's returns (Bob's are their negation: the
    game is zero-sum), decisions and whether it ended by a fold; per phase how many times it
    was entered and in how many deals; per edge how often its condition was evaluated and
    held; and how many uniforms the deals used."""

    returns: np.ndarray
    decisions: np.ndarray
    folded: np.ndarray
    fired: np.ndarray
    reached: np.ndarray
    evaluated: np.ndarray
    held: np.ndarray
    uniforms_used: int


def random_play(
    spec: GameSpec, seeds: Sequence[int] | range, moves: np.ndarray | random.Random
) -> RandomPlay | None:
    """Play one deal per play seed (see the module docstring), moves from an array of
    uniforms read in order or from a ``random.Random``, drawn as ``moves.random()`` would
    draw them and advanced past them; None when the game needs the interpreter (it would
    raise; a ``random.Random`` is then left as it was) or the array runs out."""
    t = tables(spec)
    if isinstance(moves, random.Random):
        version, internal, gauss = moves.getstate()
        twister = np.array(internal[:-1], dtype=np.uint64)
        twister_at = np.array([internal[-1]], dtype=np.int64)
        uniforms = np.zeros(0, np.float64)
    else:
        twister = np.zeros(624, np.uint64)
        twister_at = np.zeros(1, np.int64)
        uniforms = np.ascontiguousarray(moves, dtype=np.float64)
        if len(uniforms) == 0 and len(seeds):
            return None  # no uniforms at all: the loop would read the unseeded twister
    seed_array = _seed_array(seeds)
    deals = len(seed_array)
    out = RandomPlay(
        returns=np.zeros(deals, np.int64),
        decisions=np.zeros(deals, np.int64),
        folded=np.zeros(deals, np.bool_),
        fired=np.zeros(len(spec.phases), np.int64),
        reached=np.zeros(len(spec.phases), np.int64),
        evaluated=np.zeros(t.edge_tests.shape, np.int64),
        held=np.zeros(t.edge_tests.shape, np.int64),
        uniforms_used=0,
    )
    status, _, used = k.play_uniform(
        *t.deal_arguments(),
        seed_array,
        uniforms,
        twister,
        twister_at,
        out.returns,
        out.decisions,
        out.folded,
        out.fired,
        out.reached,
        out.evaluated,
        out.held,
    )
    if status != k.OK:
        return None
    out.uniforms_used = int(used)
    if isinstance(moves, random.Random):
        moves.setstate((version, (*(int(w) for w in twister), int(twister_at[0])), gauss))
    return out


@dataclass
class KeyedPlay:
    """What ``coarse_random_play`` and ``abstract_random_play`` return: per deal Alice's
    returns and the decisions with two or more legal actions; per seat the number of distinct
    states it was in at the decisions counted."""

    returns: np.ndarray
    multi: np.ndarray
    distinct: tuple[int, int]


def _seed_array(seeds: Sequence[int] | range | np.ndarray) -> np.ndarray:
    if isinstance(seeds, np.ndarray) and seeds.dtype == np.uint64:
        return seeds
    if isinstance(seeds, range) and seeds.start >= 0 and seeds.step == 1 and seeds.stop < 2**63:
        return np.arange(seeds.start, seeds.stop, dtype=np.uint64)
    return np.array([int(s) & MASK64 for s in seeds], dtype=np.uint64)


def coarse_random_play(
    spec: GameSpec, seeds: Sequence[int] | range | np.ndarray, moves: random.Random
) -> KeyedPlay | None:
    """The screening's random play on the kernel (``engines.axes.screening._random_play``): one
    deal per play seed, chance as ``new_deal(spec, seed)`` draws it, both seats moving by
    ``moves.choice(menu)`` (``moves`` is advanced past the draws), and each seat's coarse
    state (``coarse_state``) counted at its decisions that do not offer two amounts.  None
    when the game needs the interpreter (it would raise; ``moves`` is then left as it was).

    The kernel names each part of a state by a number (an action string by one number for the
    whole game, a card by its label) and hashes the parts to two 64-bit numbers
    (``batch_kernel._key``), so a count could only differ from the interpreter's by a
    collision of both, of probability about n^2 / 2^129 for n states."""
    return _keyed_play(spec, seeds, moves, fine=False)


def abstract_random_play(
    spec: GameSpec, seeds: Sequence[int] | range | np.ndarray, moves: random.Random
) -> KeyedPlay | None:
    """The state-space axis's random play on the kernel (``engines.axes.state_space``): as
    ``coarse_random_play``, with the mover's abstracted state (``State.abstract_state``)
    counted at every decision."""
    return _keyed_play(spec, seeds, moves, fine=True)


def _keyed_play(
    spec: GameSpec, seeds: Sequence[int] | range | np.ndarray, moves: random.Random, fine: bool
) -> KeyedPlay | None:
    t = tables(spec)
    version, internal, gauss = moves.getstate()
    seed_array = _seed_array(seeds)
    deals = len(seed_array)
    room = max(1_024, 16 * deals)
    while True:
        twister = np.array(internal[:-1], dtype=np.uint64)
        twister_at = np.array([internal[-1]], dtype=np.int64)
        returns = np.zeros(deals, np.int64)
        multi = np.zeros(deals, np.int64)
        keys = np.zeros((room, 3), np.uint64)
        written = np.zeros(1, np.int64)
        status, _, _ = k.play_keys(
            *t.deal_arguments(),
            seed_array,
            twister,
            twister_at,
            fine,
            returns,
            multi,
            keys,
            written,
        )
        if status != k.OUT_OF_ROOM:
            break
        room *= 4
    if status != k.OK:
        return None
    moves.setstate((version, (*(int(w) for w in twister), int(twister_at[0])), gauss))
    return KeyedPlay(returns, multi, distinct_per_seat(keys[: int(written[0])]))


def distinct_per_seat(keys: np.ndarray) -> tuple[int, int]:
    """The distinct (hash, hash) pairs per seat among ``keys`` rows (seat, hash, hash)."""
    out = [0, 0]
    for seat in (0, 1):
        mine = keys[keys[:, 0] == seat]
        if len(mine):
            order = np.lexsort((mine[:, 2], mine[:, 1]))
            a, b = mine[order, 1], mine[order, 2]
            out[seat] = 1 + int(np.count_nonzero((a[1:] != a[:-1]) | (b[1:] != b[:-1])))
    return out[0], out[1]


def python_uniforms(rng: random.Random, n: int) -> np.ndarray:
    """The next ``n`` values of ``rng.random()``, without advancing ``rng``: numpy's legacy
    Mersenne Twister given the same state draws the same doubles (both take 53 bits from two
    32-bit outputs the same way)."""
    _, internal, _ = rng.getstate()
    twister = np.random.RandomState()
    key = np.array(internal[:-1], dtype=np.uint32)
    twister.set_state(("MT19937", key, int(internal[-1]), 0, 0.0))
    return twister.random_sample(n)


# --- finishing deals from positions (the axes' rollouts) ---------------------------------------


Loaded = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
]
"""Paused deals as ``batch_kernel.play_l0`` loads them: scalars, deck, hands, board, chips,
positions, choices, side bets (one row per deal)."""


def load(spec: GameSpec, states: Sequence[State]) -> Loaded | None:
    """The arrays of deals paused at decisions, row ``i`` for ``states[i]``, as
    ``batch_kernel.play_l0`` loads them: scalars, deck, hands, board, chips (stacks,
    contributions, this round's, points), positions, choices, side bets.  None if a state is
    one the loop cannot hold (not at a decision, a choice it does not record)."""
    t = tables(spec)
    n = t.cards.shape[1]
    n_phases = len(spec.phases)
    m = len(states)
    S = np.zeros((m, k.SCALARS), np.int64)
    deck = np.zeros((m, n), np.int64)
    hands = np.zeros((m, 2, n), np.int64)
    board = np.zeros((m, n), np.int64)
    chips = np.zeros((m, 4, 2), np.int64)
    positions = np.full((m, t.n_positions + 1), -1, np.int64)
    choices = np.full((m, n_phases, 2), -1, np.int64)
    side = np.zeros((m, 2 * n_phases + 2, 2), np.int64)
    index = {p.id: i for i, p in enumerate(spec.phases)}
    for row, state in enumerate(states):
        if state.current_player < 0:
            return None
        s = S[row]
        s[k.S_PHASE] = state.phase
        s[k.S_PLAYER] = state.current_player
        s[k.S_NBETS] = state.n_bets
        s[k.S_TOP] = state.top[0] if state.top else -1
        s[k.S_DECKN] = len(state.deck)
        s[k.S_BOARDN] = len(state.board)
        s[k.S_HN0], s[k.S_HN1] = len(state.hands[0]), len(state.hands[1])
        s[k.S_QN] = len(state.queue)
        for i, seat in enumerate(state.queue[:2]):
            s[k.S_Q0 + i] = seat
        s[k.S_NSIDE] = len(state.side)
        s[k.S_WINNER] = state.winner
        s[k.S_SEL0] = s[k.S_SEL1] = -1
        s[k.S_ACTED0], s[k.S_ACTED1] = int(state.acted[0]), int(state.acted[1])
        s[k.S_MODE] = k.MODE_DECIDE
        deck[row, : len(state.deck)] = sorted(state.deck)
        for seat in (0, 1):
            hands[row, seat, : len(state.hands[seat])] = state.hands[seat]
        board[row, : len(state.board)] = state.board
        chips[row] = (state.stacks, state.contrib, state.round, state.points)
        for name, holder in state.positions.items():
            if name not in t.position_index:
                return None
            positions[row, t.position_index[name]] = -1 if holder is None else holder
        for (phase_id, seat), action in state.choices.items():
            names = choice_names(spec.phases[index[phase_id]])
            if action not in names:
                return None
            choices[row, index[phase_id], seat] = names.index(action)
        phase = spec.phases[state.phase]
        selected = state.selection[0]
        if selected is not None and isinstance(phase, SimultaneousPhase | AuctionPhase):
            s[k.S_SEL0] = choice_names(phase).index(selected)
        for i, (bettor, stake_index) in enumerate(state.side):
            side[row, i] = (bettor, stake_index)
    return S, deck, hands, board, chips, positions, choices, side


def l0_rollouts(
    spec: GameSpec,
    starts: Sequence[State],
    futures: Sequence[tuple[Sequence[int], Sequence[float], Sequence[float]]],
    jobs: Sequence[tuple[int, str]],
    max_amounts: int,
) -> np.ndarray | None:
    """Finish deals from positions with both seats L0 over A(I): job (start, action) plays
    ``action`` at ``starts[start]`` (a decision) and then what ``engines.axes.play.play_out``
    plays with ``[L0, L0]`` and that start's future (card order, chance stream, move stream):
    ``play_out(state, [L0, L0], order, Stream(chance), Stream(moves), max_amounts)``.
    Returns Alice's returns per job (the game is zero-sum), or None when a position or a
    deal needs the interpreter.  A state listed as several starts (one position, several
    futures) is loaded once."""
    if not jobs:
        return None
    t = tables(spec)
    rows: dict[int, int] = {}  # a start listed again loads once
    distinct: list[State] = []
    for state in starts:
        if id(state) not in rows:
            rows[id(state)] = len(distinct)
            distinct.append(state)
    loaded = load(spec, distinct)
    if loaded is None:
        return None
    if len(distinct) < len(starts):
        which = np.array([rows[id(state)] for state in starts], dtype=np.intp)
        S, deck, hands, board, chips, positions, choices, side = loaded
        loaded = (
            S[which],
            deck[which],
            hands[which],
            board[which],
            chips[which],
            positions[which],
            choices[which],
            side[which],
        )
    actions = []
    for start, action in jobs:
        legal = starts[start].legal_actions()
        if action not in legal:
            return None
        actions.append(legal.index(action))
    returns = np.zeros(len(jobs), np.int64)
    status, _ = k.play_l0(
        t.cards,
        t.phases,
        t.sizes,
        t.options,
        t.transfers,
        t.edge_targets,
        t.edge_tests,
        t.predicates,
        t.metric,
        t.rules,
        t.n_suits,
        t.stack,
        *loaded,
        np.array([j[0] for j in jobs], dtype=np.int64),
        np.array(actions, dtype=np.int64),
        np.array([f[0] for f in futures], dtype=np.int64),
        np.array([f[1] for f in futures], dtype=np.float64),
        np.array([f[2] for f in futures], dtype=np.float64),
        max_amounts,
        returns,
    )
    return returns if status == k.OK else None
