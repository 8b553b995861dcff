"""The play kernel: deals of one game on flat tables, in machine code (numba).

This is a second implementation of the rules of ``engines.gbg.phases``, ``engines.gbg.state``
and the showdown metrics of ``engines.gbg.rules``, written over the flat tables of
``engines.gbg.batch_random`` and compiled by numba (cached on disk after the first use).  One
loop serves two entry points:

- ``play_uniform``: whole deals from the shuffle, chance from the engine's own generator
  (``engines.gbg.rng.DealRng``: SplitMix64 seeding, the 64-bit LCG, the same draws in the same
  order) and moves ``legal[int(u * len)]`` from a stream of uniforms or from CPython's
  Mersenne Twister (ported), so that a deal here is the interpreter's deal for the same seed
  and the same uniforms;
- ``play_l0``: deals finished from positions loaded mid-deal, chance from a card order and a
  stream, both seats L0 over A(I), as ``engines.axes.play.play_out`` finishes them;
- ``play_keys``: whole deals as ``play_uniform`` deals them, moves by ``random.Random.choice``
  on the ported twister, and each seat's information state at its decisions written as two
  64-bit hashes (the screening's coarse states, or the state-space axis's abstracted ones),
  for counting the distinct states.

The tests hold both to the interpreter on every preset and on generated games over the
generator's range.  Anything the interpreter would refuse (an empty menu, an empty hand at a
showdown that reads it) stops the run with a status instead; the caller then plays on the
interpreter, which raises what it raises.  The interpreter stays the reference: this module
is a cache of it in another language, not a second definition of the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit, uint64

# --- table layout (engines.gbg.batch_tables fills these) ----------------------------------------

DEAL, REVEAL, BETTING, SIMULTANEOUS, AUCTION, PEEK, DRAW, SWAP, POSITION, SIDE_BET = range(10)

# Phase table columns.
K_KIND, K_COUNT, K_WHO, K_OPTIONAL, K_COST, K_RISK_PCT, K_RISK_CHIPS, K_TARGET = range(8)
K_POS, K_SOURCE, K_CRITERION, K_PERK, K_PERK_POINTS, K_CAP, K_FORCED0, K_FORCED1 = range(8, 16)
K_FIRST_RULE, K_FIRST_SEAT, K_FALLBACK, K_STAKE_KIND, K_NSIZES, K_PRICING, K_TIE = range(16, 23)
K_ITEM, K_NOPTIONS, K_PROP, K_NEDGES, K_STRAIGHT, K_HIDDEN = range(23, 29)
PHASE_COLUMNS = 29

# Predicate table columns and kinds.
Q_KIND, Q_WHO, Q_NEGATE, Q_RANK, Q_AMOUNT, Q_PHASE, Q_OPTION, Q_POS = range(8)
HOLDS_PAIR, HOLDS_RANK, CHIP_LEADER, POT_AT_LEAST, CHOSE, HOLDS_POSITION = range(6)
W_ALICE, W_BOB, W_EITHER, W_BOTH, W_NEITHER = range(5)

# Metric kinds.
M_HIGH_CARD, M_RANK_SUM, M_LOW_SUM, M_PAIR_WITH_BOARD, M_BEST_FIVE = range(5)

# Menu entry codes of a betting round (other phases use the option's index).
FOLD, CHECK, CALL, BET = 0, 1, 2, 3

# Scalars of a deal.
S_PHASE, S_PLAYER, S_NBETS, S_TOP, S_DECKN, S_BOARDN, S_HN0, S_HN1 = range(8)
S_QN, S_Q0, S_Q1, S_NSIDE, S_WINNER, S_SEL0, S_SEL1, S_MENUN = range(8, 16)
S_MODE, S_ACTED0, S_ACTED1, S_FOLDED, S_ERROR = range(16, 21)
SCALARS = 21

MODE_ENTER, MODE_FINISH, MODE_NEXT, MODE_DECIDE, MODE_DONE = range(5)

# Move sources: uniform over the full menu, every decision drawing (the acceptance filter's
# random play); L0 over A(I), forced decisions drawing nothing (``engines.axes.play``); or
# ``random.Random.choice`` over the full menu (the random play that counts states).
MOVES_UNIFORM, MOVES_L0, MOVES_CHOICE = 0, 1, 2

# Statuses of a run.
OK, EMPTY_MENU, OUT_OF_UNIFORMS, EMPTY_HAND, NO_EDGE, OUT_OF_ROOM = range(6)

# The events of ``engines.gbg.phases`` and ``engines.gbg.state`` that a seat can see before
# its last decision (the showdown's and the settlements' come after it), for the keys of
# ``play_keys``.  From ``E_PEEK`` on, an event names cards (by label: the coarse keys drop
# them).  ``VIS_PUBLIC`` is ``engines.gbg.state.PUBLIC``.
E_PHASE, E_BLINDS, E_ACT, E_SECRET, E_REVEAL_CHOICES, E_TRANSFER, E_AUCTION = range(1, 8)
E_POSITION, E_RISK, E_PEEK, E_PEEK_TOP, E_CARD, E_BOARD, E_DISCARD = range(8, 15)
E_BOARD_SWAP, E_SWAP_TAKE = range(15, 17)
VIS_PUBLIC = 2

# Action strings as numbers, one number per string across the whole game (so that two keys
# are equal exactly when their strings are): the fixed words (``batch_random.WORDS`` gives an
# option named like one of them the same number), ``swap <label>`` by label, and the amounts
# ``bet N``, ``raise N``, ``bid N`` by verb and amount.
N_FOLD, N_CHECK, N_CALL, N_PEEK, N_PASS, N_DRAW, N_STAND = range(1, 8)
N_KEEP, N_SIDE_BET, N_SWAP, N_BET, N_RAISE, N_BID = range(8, 14)
SWAP_BASE = 1 << 32
AMOUNT_BASE = 1 << 40

# The helpers of the loop are compiled without numba's reference counting (``_nrt=False``):
# they allocate nothing, and every array they touch belongs to the entry point that calls
# them, which holds it for the whole call.  With counting on, each call and each view
# (``W[0]``, ``out[1:]``) costs atomic increments and decrements that numba's pruning pass
# cannot remove across calls and branches (numba issues #2345 and #2350); they were most of
# the loop's time.  Per deal over 200,000 random deals, counting on then off (2026-12-06, one
# run after the other): gbg-125 1.17 to 0.42 us, Kuhn 0.70 to 0.23, Leduc 0.85 to 0.34,
# example4643 1.92 to 0.72; the same returns and the same uniforms used.
# A helper that allocated would fail to compile ("NRT required but not enabled").  The option
# goes through a dict because numba's type stubs do not declare it.
_HELPER_OPTIONS: dict[str, Any] = {"cache": True, "_nrt": False}

Table = npt.NDArray[Any]
"""An array of the tables or of a deal's state (int64, uint64 or float64, as ``batch_random``
builds it); numba compiles one version per dtype and layout it meets."""

Whole = int | np.integer[Any]
"""An integer of the loop: a Python int where numba types it int64, or a numpy integer."""

F = TypeVar("F", bound=Callable[..., Any])


def _helper(fn: F) -> F:
    """A function of the loop, compiled into its callers without reference counting."""
    return cast(F, njit(**_HELPER_OPTIONS)(fn))


def _entry(fn: F) -> F:
    """An entry point of the kernel (or the loop they share), compiled and cached on disk."""
    return cast(F, njit(cache=True)(fn))


_MUL = uint64(6364136223846793005)
_INC = uint64(1442695040888963407)


@_helper
def _seed(seed: np.uint64) -> np.uint64:
    """The generator's first state for the uint64 ``seed`` (``rng.splitmix64``)."""
    z = seed + uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint64(27))) * uint64(0x94D049BB133111EB)
    return z ^ (z >> uint64(31))


@_helper
def _below(rng: Table, n: int) -> int:
    """An int below ``n`` from the LCG state ``rng[0]``, advanced (``DealRng.below``)."""
    s = rng[0] * _MUL + _INC
    rng[0] = s
    # As int64: a uint64 meeting an int64 would be unified to a float by numba.
    return int(np.int64(((s >> uint64(32)) * uint64(n)) >> uint64(32)))


_MT_N, _MT_M = 624, 397
_MASK32 = uint64(0xFFFFFFFF)


@_helper
def _mt_next(mt: Table, at: Table) -> np.uint64:
    """The next 32-bit output of the Mersenne Twister ``mt`` (624 words, position ``at[0]``):
    CPython's ``genrand_uint32`` (Modules/_randommodule.c), word for word."""
    if at[0] >= _MT_N:
        upper, lower, matrix = uint64(0x80000000), uint64(0x7FFFFFFF), uint64(0x9908B0DF)
        for kk in range(_MT_N):
            y = (mt[kk] & upper) | (mt[(kk + 1) % _MT_N] & lower)
            value = mt[(kk + _MT_M) % _MT_N] ^ (y >> uint64(1))
            if y & uint64(1):
                value ^= matrix
            mt[kk] = value
        at[0] = 0
    y = mt[at[0]]
    at[0] += 1
    y ^= y >> uint64(11)
    y ^= (y << uint64(7)) & uint64(0x9D2C5680)
    y ^= (y << uint64(15)) & uint64(0xEFC60000)
    y ^= y >> uint64(18)
    return np.uint64(y & _MASK32)


@_helper
def _mt_random(mt: Table, at: Table) -> float:
    """``random.random()`` on the twister's state: 53 bits from two outputs."""
    a = _mt_next(mt, at) >> uint64(5)
    b = _mt_next(mt, at) >> uint64(6)
    return (float(a) * 67108864.0 + float(b)) * (1.0 / 9007199254740992.0)


@_helper
def _fold_a(h: np.uint64, x: Whole) -> np.uint64:
    """Fold the integer ``x`` into the hash ``h`` (SplitMix64's finaliser)."""
    z = h ^ (uint64(x + 8) * uint64(0x9E3779B97F4A7C15) + (h << uint64(6)) + (h >> uint64(2)))
    z = (z ^ (z >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint64(27))) * uint64(0x94D049BB133111EB)
    return z ^ (z >> uint64(31))


@_helper
def _fold_b(h: np.uint64, x: Whole) -> np.uint64:
    """Fold ``x`` into ``h`` by a second, independent mix (MurmurHash3's finaliser), so
    that a key is two 64-bit hashes: two different keys collide with probability 2^-128."""
    z = (h + uint64(x + 8) * uint64(0xC2B2AE3D27D4EB4F)) ^ (h >> uint64(29))
    z = (z ^ (z >> uint64(33))) * uint64(0xFF51AFD7ED558CCD)
    z = (z ^ (z >> uint64(33))) * uint64(0xC4CEB9FE1A85EC53)
    return z ^ (z >> uint64(33))


@_helper
def _fold(H: Table, row: int, x: Whole) -> None:
    H[row, 0] = _fold_a(H[row, 0], x)
    H[row, 1] = _fold_b(H[row, 1], x)


@_helper
def _event(EV: Table, vis: int, kind: int, who: int, a: int, b: int, c: int) -> None:
    """Log an event into the history of each seat that sees it (``vis``: a seat or
    ``VIS_PUBLIC``): its kind, who, and its data ``a, b, c``.  ``EV`` holds per seat its two
    hashes and the kind of key (``EV[:, 2]``: 0 coarse, 1 abstracted), or no rows when the run
    keeps no keys.  A coarse history drops the cards of an event; an abstracted one keeps
    them by label and leaves out the seat's own actions (``State.abstract_state``)."""
    if EV.shape[0] == 0:
        return
    fine = EV[0, 2] != 0
    if not fine and kind >= E_PEEK:
        a, b, c = 0, 0, 0
    for seat in range(2):
        if vis != VIS_PUBLIC and vis != seat:
            continue
        if fine and kind == E_ACT and who == seat:
            continue
        _fold(EV, seat, kind)
        _fold(EV, seat, who)
        _fold(EV, seat, a)
        _fold(EV, seat, b)
        _fold(EV, seat, c)


# Chance sources: the engine's generator (``rng``, as a sampled deal draws), or a fixed card
# order and stream (``rank``, ``aux`` read from ``C[1]``, as ``engines.axes.play`` resolves an
# explicit-chance deal).  ``C[0]`` says which.
CHANCE_RNG, CHANCE_ORDER = 0, 1


@_helper
def _pick(rng: Table, C: Table, aux: Table, n: int) -> int:
    """A uniform index below ``n`` (a random pick)."""
    if C[0] == CHANCE_RNG:
        return _below(rng, n)
    u = aux[C[1] % aux.shape[0]]
    C[1] += 1
    return int(u * n)


@_helper
def _coin(rng: Table, C: Table, aux: Table, percent: int) -> bool:
    """True with probability ``percent`` percent (a risk coin)."""
    if C[0] == CHANCE_RNG:
        return _below(rng, 100) < percent
    u = aux[C[1] % aux.shape[0]]
    C[1] += 1
    return bool(u < percent / 100.0)


@_helper
def _deal_card(
    S: Table,
    deck: Table,
    hands: Table,
    board: Table,
    rng: Table,
    C: Table,
    rank: Table,
    EV: Table,
    CT: Table,
    dest: int,
) -> None:
    """A card request: the deck's top card if one was peeked at, else a draw: uniform from the
    generator, or the first card of the order still in the deck."""
    if S[S_TOP] >= 0:
        card = S[S_TOP]
        S[S_TOP] = -1
    else:
        n = S[S_DECKN]
        if C[0] == CHANCE_RNG:
            i = _below(rng, n)
        else:
            i = 0
            for j in range(1, n):
                if rank[deck[j]] < rank[deck[i]]:
                    i = j
        card = deck[i]
        for j in range(i, n - 1):
            deck[j] = deck[j + 1]
        S[S_DECKN] = n - 1
    if dest < 2:
        hands[dest, S[S_HN0 + dest]] = card
        S[S_HN0 + dest] += 1
        _event(EV, dest, E_CARD, dest, CT[3, card], 0, 0)
    elif dest == 2:
        board[S[S_BOARDN]] = card
        S[S_BOARDN] += 1
        _event(EV, VIS_PUBLIC, E_BOARD, -1, CT[3, card], 0, 0)
    else:
        S[S_TOP] = card


@_helper
def _pay(M: Table, seat: int, amount: int) -> int:
    if amount > M[0, seat]:
        amount = M[0, seat]
    M[0, seat] -= amount
    M[1, seat] += amount
    M[2, seat] += amount
    return amount


@_helper
def _seat_test(
    kind: int,
    rank: int,
    phase: int,
    option: int,
    pos: int,
    seat: int,
    S: Table,
    hands: Table,
    M: Table,
    positions: Table,
    choices: Table,
    CT: Table,
) -> bool:
    if kind == HOLDS_PAIR:
        n = S[S_HN0 + seat]
        for i in range(n):
            for j in range(i + 1, n):
                if CT[1, hands[seat, i]] == CT[1, hands[seat, j]]:
                    return True
        return False
    if kind == HOLDS_RANK:
        for i in range(S[S_HN0 + seat]):  # noqa: SIM110 (numba: plain loops and comparisons)
            if CT[1, hands[seat, i]] == rank:
                return True
        return False
    if kind == CHIP_LEADER:
        return bool(M[0, seat] > M[0, 1 - seat])
    if kind == CHOSE:
        return bool(choices[phase, seat] == option)
    return bool(positions[pos] == seat)  # HOLDS_POSITION


@_helper
def _predicate(
    q: int, PR: Table, S: Table, hands: Table, M: Table, positions: Table, choices: Table, CT: Table
) -> bool:
    negate = PR[q, Q_NEGATE] != 0
    kind = PR[q, Q_KIND]
    if kind == POT_AT_LEAST:
        return bool((M[1, 0] + M[1, 1] >= PR[q, Q_AMOUNT]) != negate)
    rank, phase, option, pos = PR[q, Q_RANK], PR[q, Q_PHASE], PR[q, Q_OPTION], PR[q, Q_POS]
    who = PR[q, Q_WHO]
    if who == W_ALICE or who == W_BOB:  # noqa: SIM109 (numba: plain loops and comparisons)
        seat = 0 if who == W_ALICE else 1
        return bool(
            _seat_test(kind, rank, phase, option, pos, seat, S, hands, M, positions, choices, CT)
            != negate
        )
    t0 = _seat_test(kind, rank, phase, option, pos, 0, S, hands, M, positions, choices, CT)
    t1 = _seat_test(kind, rank, phase, option, pos, 1, S, hands, M, positions, choices, CT)
    if who == W_EITHER:
        return bool((t0 or t1) != negate)
    if who == W_BOTH:
        return bool((t0 and t1) != negate)
    return bool((not (t0 or t1)) != negate)


@_helper
def _compare(a: Table, la: int, b: Table, lb: int) -> int:
    """Python's ordering of two sequences: 1 if a > b, -1 if a < b, 0 if equal."""
    n = la if la < lb else lb
    for i in range(n):
        if a[i] != b[i]:
            return 1 if a[i] > b[i] else -1
    if la == lb:
        return 0
    return 1 if la > lb else -1


@_helper
def _sort_desc(x: Table, n: int) -> None:
    for i in range(1, n):
        v = x[i]
        j = i - 1
        while j >= 0 and x[j] < v:
            x[j + 1] = x[j]
            j -= 1
        x[j + 1] = v


@_helper
def _sort_asc(x: Table, n: int) -> None:
    for i in range(1, n):
        v = x[i]
        j = i - 1
        while j >= 0 and x[j] > v:
            x[j + 1] = x[j]
            j -= 1
        x[j + 1] = v


@_helper
def _straight_high(present: Table) -> int:
    """The top of the highest five-long run in the value set ``present`` (an ace, 14, also
    plays as 1), or 0."""
    n = present.shape[0]
    ace = n > 14 and present[14]
    for v in range(n - 1, -1, -1):
        ok = True
        for k in range(5):
            w = v - k
            if w < 0 or not (present[w] or (w == 1 and ace)):
                ok = False
                break
        if ok:
            return v
    return 0


@_helper
def _best_five(
    values: Table, suits: Table, n: int, n_suits: int, out: Table, W: Table, B: Table
) -> int:
    """``engines.gbg.rules.best_five`` into ``out``; returns the key's length."""
    size = 102
    # Scratch rows of the workspace (no allocation per showdown).
    order, flush, buf, counts = W[8], W[9], W[7], W[3]
    trips, pairs, singles = W[4], W[5], W[6]
    present = B[0]
    # Suits in order of first appearance, as the reference's dict iterates them.
    seen = 0
    for i in range(n):
        s = suits[i]
        known = False
        for k in range(seen):
            if order[k] == s:
                known = True
                break
        if not known:
            order[seen] = s
            seen += 1
    has_flush = False
    for k in range(seen):
        s = order[k]
        m = 0
        for i in range(n):
            if suits[i] == s:
                buf[m] = values[i]
                m += 1
        if m >= 5:
            present[:] = False
            for i in range(m):
                present[buf[i]] = True
            high = _straight_high(present)
            if high:
                out[0] = 8
                out[1] = high
                return 2
            _sort_desc(buf, m)
            if not has_flush or _compare(buf, 5, flush, 5) > 0:
                for i in range(5):
                    flush[i] = buf[i]
                has_flush = True
    counts[:size] = 0
    for i in range(n):
        counts[values[i]] += 1
    top_n, top_v = 0, 0
    for v in range(size - 1, -1, -1):
        if counts[v] > top_n:
            top_n, top_v = counts[v], v
    if top_n >= 4:
        rest = buf
        for i in range(n):
            rest[i] = values[i]
        _sort_desc(rest, n)
        out[0] = 7
        out[1] = top_v
        removed = 0
        length = 2
        for i in range(n):
            if rest[i] == top_v and removed < 4:
                removed += 1
            elif length < 3:
                out[length] = rest[i]
                length += 1
        return length
    nt = np_ = ns = 0
    for v in range(size - 1, -1, -1):
        if counts[v] == 3:
            trips[nt] = v
            nt += 1
        elif counts[v] == 2:
            pairs[np_] = v
            np_ += 1
        elif counts[v] == 1:
            singles[ns] = v
            ns += 1
    if nt > 0 and (nt > 1 or np_ > 0):
        second = -1
        for i in range(1, nt):
            second = max(second, trips[i])
        for i in range(np_):
            second = max(second, pairs[i])
        out[0] = 6
        out[1] = trips[0]
        out[2] = second
        return 3
    if has_flush:
        out[0] = 5
        for i in range(5):
            out[1 + i] = flush[i]
        return 6
    present[:] = False
    for i in range(n):
        present[values[i]] = True
    high = _straight_high(present)
    if high:
        out[0] = 4
        out[1] = high
        return 2
    if nt > 0:
        out[0] = 3
        out[1] = trips[0]
        k = min(2, ns)
        for i in range(k):
            out[2 + i] = singles[i]
        return 2 + k
    if np_ >= 2:
        kicker = 0
        for v in range(size - 1, -1, -1):
            if counts[v] > 0 and v != pairs[0] and v != pairs[1]:
                kicker = v
                break
        out[0] = 2
        out[1] = pairs[0]
        out[2] = pairs[1]
        out[3] = kicker
        return 4
    if np_ == 1:
        out[0] = 1
        out[1] = pairs[0]
        k = min(3, ns)
        for i in range(k):
            out[2 + i] = singles[i]
        return 2 + k
    out[0] = 0
    k = min(5, ns)
    for i in range(k):
        out[1 + i] = singles[i]
    return 1 + k


@_helper
def _showdown_key(
    seat: int,
    S: Table,
    hands: Table,
    board: Table,
    M: Table,
    CT: Table,
    MET: Table,
    RULES: Table,
    n_suits: int,
    out: Table,
    W: Table,
    B: Table,
) -> int:
    """The seat's showdown key into ``out`` (compared as Python compares tuples); its length,
    or -1 when the reference would fail on an empty hand."""
    kind, use_board = MET[0], MET[1] != 0
    hn = S[S_HN0 + seat]
    n = hn + (S[S_BOARDN] if use_board or kind == M_BEST_FIVE else 0)
    cards = W[0]
    for i in range(hn):
        cards[i] = hands[seat, i]
    for i in range(hn, n):
        cards[i] = board[i - hn]
    points = M[3, seat]
    out[0] = points
    if kind == M_RANK_SUM or kind == M_LOW_SUM:  # noqa: SIM109 (numba: plain loops and comparisons)
        total = 0
        for i in range(n):
            total += CT[0, cards[i]]
        for r in range(RULES.shape[0]):
            count = 0
            for i in range(n):
                if CT[1, cards[i]] == RULES[r, 1]:
                    count += 1
            if RULES[r, 0] == 1:  # per card
                total += RULES[r, 2] * count
            elif count >= 2:
                total += RULES[r, 2]
        out[0] = (total if kind == M_RANK_SUM else -total) + points
        return 1
    if kind == M_HIGH_CARD:
        for i in range(n):
            out[1 + i] = CT[0, cards[i]]
        _sort_desc(out[1:], n)
        return int(1 + n)
    if kind == M_PAIR_WITH_BOARD:
        if hn == 0:
            return -1
        best = -1
        paired = -1
        for i in range(hn):
            v = CT[0, hands[seat, i]]
            best = max(best, v)
            for j in range(S[S_BOARDN]):
                if CT[1, board[j]] == CT[1, hands[seat, i]]:
                    paired = max(paired, v)
                    break
        out[1] = 1 if paired >= 0 else 0
        out[2] = paired if paired >= 0 else best
        return 3
    if n == 0:
        return -1
    values, suits = W[1], W[2]
    for i in range(n):
        values[i] = CT[0, cards[i]]
        suits[i] = CT[2, cards[i]]
    return 1 + _best_five(values, suits, n, n_suits, out[1:], W, B)


@_helper
def _measure(crit: int, seat: int, S: Table, hands: Table, M: Table, CT: Table, out: Table) -> int:
    """A position criterion's measure of ``seat`` into ``out``; its length."""
    hn = S[S_HN0 + seat]
    if crit == 0:  # high card
        for i in range(hn):
            out[i] = CT[0, hands[seat, i]]
        _sort_desc(out, hn)
        return int(hn)
    if crit == 1 or crit == 2:  # high sum, low sum
        total = 0
        for i in range(hn):
            total += CT[0, hands[seat, i]]
        out[0] = total if crit == 1 else -total
        return 1
    if crit == 3:  # pair
        out[0] = 0
        for i in range(hn):
            for j in range(i + 1, hn):
                if CT[1, hands[seat, i]] == CT[1, hands[seat, j]]:
                    out[0] = 1
        return 1
    out[0] = M[0, seat]  # chip leader
    return 1


@_helper
def _peek_opponent(
    seat: int, S: Table, hands: Table, rng: Table, C: Table, aux: Table, EV: Table, CT: Table
) -> None:
    """``seat`` sees a uniformly chosen card of the opponent's hand (one pick, if any)."""
    if S[S_HN0 + 1 - seat] > 0:
        k = _pick(rng, C, aux, S[S_HN0 + 1 - seat])
        _event(EV, seat, E_PEEK, seat, CT[3, hands[1 - seat, k]], 0, 0)


@_helper
def _betting_decide(
    p: int, seat: int, S: Table, M: Table, P: Table, SZ: Table, menu: Table, W: Table
) -> None:
    opp = 1 - seat
    facing = M[2, opp] - M[2, seat]
    limit = M[0, seat] - facing
    if M[0, opp] < limit:
        limit = M[0, opp]
    if S[S_NBETS] >= P[p, K_CAP]:
        limit = 0
    m = 0
    if facing > 0:
        menu[0, 0] = FOLD
        menu[1, 0] = CALL
        m = 2
    else:
        menu[0, 0] = CHECK
        m = 1
    n_sizes = P[p, K_NSIZES]
    if P[p, K_STAKE_KIND] == 0:  # fixed sizes (one, or a grid), in declared order
        full = limit >= SZ[p, n_sizes - 1]
        for i in range(n_sizes):
            if full or SZ[p, i] <= limit:
                menu[m, 0] = BET
                menu[m, 1] = SZ[p, i]
                m += 1
    else:  # pot percents: the distinct sizes, ascending
        pot = M[1, 0] + M[1, 1]
        sizes = W[10]
        k = 0
        for i in range(n_sizes):
            size = max(1, (pot * SZ[p, i] + 50) // 100)
            dup = False
            for j in range(k):
                if sizes[j] == size:
                    dup = True
            if not dup:
                sizes[k] = size
                k += 1
        _sort_asc(sizes, k)
        for i in range(k):
            if sizes[i] <= limit:
                menu[m, 0] = BET
                menu[m, 1] = sizes[i]
                m += 1
    S[S_PLAYER] = seat
    S[S_MENUN] = m
    S[S_MODE] = MODE_DECIDE


@_helper
def _options(p: int, seat: int, S: Table, M: Table, P: Table, SZ: Table, menu: Table) -> None:
    """Set the menu of a simultaneous round or an auction for ``seat``."""
    m = 0
    if P[p, K_KIND] == SIMULTANEOUS:
        for i in range(P[p, K_NOPTIONS]):
            menu[m, 0] = i
            m += 1
    else:
        for i in range(P[p, K_NSIZES]):
            if SZ[p, i] <= M[0, seat]:
                menu[m, 0] = i
                m += 1
    S[S_PLAYER] = seat
    S[S_MENUN] = m
    S[S_MODE] = MODE_DECIDE


@_helper
def _two(S: Table, seat: int, a: int, b: int, menu: Table) -> None:
    """A menu of one or two options (codes ``a`` then ``b``; ``b`` < 0 for none)."""
    menu[0, 0] = a
    m = 1
    if b >= 0:
        menu[1, 0] = b
        m = 2
    S[S_PLAYER] = seat
    S[S_MENUN] = m
    S[S_MODE] = MODE_DECIDE


@_helper
def _queue(S: Table, who: int, positions: Table, pos: int) -> None:
    """The seats of ``who`` (alice, bob, both, or a position's holder) as the phase's queue."""
    if who == 3:
        holder = positions[pos]
        S[S_QN] = 0 if holder < 0 else 1
        S[S_Q0] = holder
    elif who == 2:
        S[S_QN] = 2
        S[S_Q0] = 0
        S[S_Q1] = 1
    else:
        S[S_QN] = 1
        S[S_Q0] = who


@_helper
def _pop(S: Table) -> int:
    seat = S[S_Q0]
    S[S_Q0] = S[S_Q1]
    S[S_QN] -= 1
    return int(seat)


@_helper
def _look(
    p: int,
    seat: int,
    S: Table,
    deck: Table,
    hands: Table,
    board: Table,
    M: Table,
    P: Table,
    rng: Table,
    C: Table,
    rank: Table,
    aux: Table,
    EV: Table,
    CT: Table,
) -> None:
    """A peek: the opponent's card or the deck's top card, then the risk coin."""
    if P[p, K_TARGET] == 0:
        _peek_opponent(seat, S, hands, rng, C, aux, EV, CT)
    else:
        if S[S_TOP] < 0:
            _deal_card(S, deck, hands, board, rng, C, rank, EV, CT, 3)
        _event(EV, seat, E_PEEK_TOP, seat, CT[3, S[S_TOP]], 0, 0)
    if P[p, K_RISK_PCT] > 0:
        paid = 0
        if _coin(rng, C, aux, P[p, K_RISK_PCT]):
            paid = _pay(M, seat, P[p, K_RISK_CHIPS])
        _event(EV, VIS_PUBLIC, E_RISK, seat, paid, 0, 0)


@_helper
def _settle(
    winner: int,
    S: Table,
    hands: Table,
    M: Table,
    P: Table,
    PR: Table,
    positions: Table,
    choices: Table,
    CT: Table,
    side: Table,
) -> None:
    S[S_WINNER] = winner
    if winner < 0:
        M[0, 0] += M[1, 0]
        M[0, 1] += M[1, 1]
    else:
        M[0, winner] += M[1, 0] + M[1, 1]
    M[1, 0] = 0
    M[1, 1] = 0
    for k in range(S[S_NSIDE]):
        bettor, p = side[k, 0], side[k, 1]
        q = P[p, K_PROP]
        negate = PR[q, Q_NEGATE] != 0
        if PR[q, Q_KIND] == POT_AT_LEAST:
            won = (M[1, 0] + M[1, 1] >= PR[q, Q_AMOUNT]) != negate
        else:
            won = (
                _seat_test(
                    PR[q, Q_KIND],
                    PR[q, Q_RANK],
                    PR[q, Q_PHASE],
                    PR[q, Q_OPTION],
                    PR[q, Q_POS],
                    bettor,
                    S,
                    hands,
                    M,
                    positions,
                    choices,
                    CT,
                )
                != negate
            )
        taker = bettor if won else 1 - bettor
        M[0, taker] += 2 * P[p, K_COST]
    S[S_PLAYER] = -4
    S[S_MENUN] = 0
    S[S_MODE] = MODE_DONE


@_helper
def _reduced(p: int, P: Table, SZ: Table, menu: Table, m: int, max_amounts: int, W: Table) -> int:
    """A(I) of the menu (``engines.axes.menus.reduce_menu``): its entries' indices into
    ``W[10]``, in menu order; returns how many.  Amounts (a round's bets or raises, an
    auction's bids) beyond ``max_amounts`` keep the smallest ``max_amounts - 2``, the largest
    and the one nearest the midpoint of the rest (ties: the smaller)."""
    kind = P[p, K_KIND]
    values = W[8]
    n = 0
    for i in range(m):
        if kind == BETTING and menu[i, 0] == BET:
            values[n] = menu[i, 1]
            n += 1
        elif kind == AUCTION:
            values[n] = SZ[p, menu[i, 0]]
            n += 1
    out = W[10]
    if n <= max_amounts:
        for i in range(m):
            out[i] = i
        return m
    _sort_asc(values, n)
    smallest = max_amounts - 2
    twice_middle = values[0] + values[n - 1]
    mid = values[smallest]
    for j in range(smallest + 1, n - 1):
        v = values[j]
        if abs(2 * v - twice_middle) < abs(2 * mid - twice_middle):
            mid = v
    k = 0
    for i in range(m):
        if kind == BETTING and menu[i, 0] != BET:
            keep = True
        else:
            v = menu[i, 1] if kind == BETTING else SZ[p, menu[i, 0]]
            keep = v == mid or v == values[n - 1]
            for j in range(smallest):
                if v == values[j]:
                    keep = True
        if keep:
            out[k] = i
            k += 1
    return k


@_helper
def _swap_menu(seat: int, S: Table, hands: Table, CT: Table, menu: Table) -> None:
    """keep, then one entry per distinct label in the seat's hand, labels sorted."""
    menu[0, 0] = -1
    m = 1
    for i in range(S[S_HN0 + seat]):
        label = CT[3, hands[seat, i]]
        dup = False
        for j in range(1, m):
            if menu[j, 0] == label:
                dup = True
        if not dup:
            menu[m, 0] = label
            m += 1
    _sort_asc(menu[1:m, 0], m - 1)
    S[S_PLAYER] = seat
    S[S_MENUN] = m
    S[S_MODE] = MODE_DECIDE


@_helper
def _redecide(
    S: Table, hands: Table, M: Table, P: Table, SZ: Table, CT: Table, menu: Table, W: Table
) -> None:
    """Rebuild the menu of the decision pending in ``S`` (a state loaded mid-deal)."""
    p, seat = S[S_PHASE], S[S_PLAYER]
    kind = P[p, K_KIND]
    if kind == BETTING:
        _betting_decide(p, seat, S, M, P, SZ, menu, W)
    elif kind == SIMULTANEOUS or kind == AUCTION:  # noqa: SIM109 (numba: plain comparisons)
        _options(p, seat, S, M, P, SZ, menu)
    elif kind == PEEK:
        if M[0, seat] >= P[p, K_COST]:
            _two(S, seat, 0, 1, menu)
        else:
            _two(S, seat, 1, -1, menu)
    elif kind == SWAP:
        _swap_menu(seat, S, hands, CT, menu)
    else:  # draw, side bet
        _two(S, seat, 0, 1, menu)


_KEY_A = uint64(0x243F6A8885A308D3)  # the hashes' starting values (digits of pi)
_KEY_B = uint64(0x13198A2E03707344)


@_helper
def _offers_amounts(kind: int, menu: Table, m: int) -> bool:
    """Whether a menu offers two or more amounts (``engines.axes.screening._offers_amounts``:
    bets or raises of a round, an auction's bids; an option's name has no space, so it never
    reads as an amount)."""
    if kind == AUCTION:
        return m >= 2
    if kind != BETTING:
        return False
    n = 0
    for i in range(m):
        if menu[i, 0] == BET:
            n += 1
    return n >= 2


@_helper
def _action_id(
    kind: int, p: int, code: int, amount: int, opened: int, SZ: Table, SIM: Table, coarse: int
) -> int:
    """The number of the action string of menu entry (``code``, ``amount``) of phase ``p``
    (a round's verb is ``raise`` once it is ``opened``); ``coarse``: the string without its
    amount (``engines.axes.menus.coarse_action``)."""
    if kind == BETTING:
        if code == FOLD:
            return N_FOLD
        if code == CHECK:
            return N_CHECK
        if code == CALL:
            return N_CALL
        if coarse:
            return N_RAISE if opened else N_BET
        return AMOUNT_BASE + 4 * amount + opened
    if kind == AUCTION:
        return N_BID if coarse else AMOUNT_BASE + 4 * SZ[p, code] + 2
    if kind == SIMULTANEOUS:
        return int(SIM[p, code, 2])
    if kind == SWAP:
        return N_KEEP if code < 0 else SWAP_BASE + code
    if kind == PEEK:
        return N_PEEK if code == 0 else N_PASS
    if kind == DRAW:
        return N_DRAW if code == 0 else N_STAND
    return N_SIDE_BET if code == 0 else N_PASS  # a side bet


@_helper
def _own(OWN: Table, seat: int, action: int) -> None:
    """Record a seat's decision: ``OWN[seat]`` is the count, then the last three, a ring."""
    n = OWN[seat, 0]
    OWN[seat, 1 + n % 3] = action
    OWN[seat, 0] = n + 1


@_helper
def _key(
    p: int,
    kind: int,
    seat: int,
    S: Table,
    menu: Table,
    m: int,
    hands: Table,
    board: Table,
    M: Table,
    CT: Table,
    SZ: Table,
    SIM: Table,
    OWN: Table,
    EV: Table,
    KH: Table,
    W: Table,
) -> None:
    """The key of ``seat`` at its decision, two hashes into ``KH[0]``.  Coarse
    (``engines.axes.screening.coarse_state``): phase, menu, number of own cards, last three
    own decisions without amounts, seen events without cards.  Abstracted
    (``State.abstract_state``): phase, menu, own cards by label (sorted), last three own
    decisions, both stacks, the pot, the board by label, seen events with cards by label.
    (The known positions are a function of the seen events.)  Each part is a number that
    names the interpreter's value, a count before each sequence, so two keys are equal
    exactly when the states are (but for a collision of both hashes)."""
    fine = EV[0, 2] != 0
    KH[0, 0] = _KEY_A
    KH[0, 1] = _KEY_B
    _fold(KH, 0, p)
    _fold(KH, 0, m)
    opened = 1 if S[S_NBETS] > 0 else 0
    for i in range(m):
        _fold(KH, 0, _action_id(kind, p, menu[i, 0], menu[i, 1], opened, SZ, SIM, False))
    n_hand = S[S_HN0 + seat]
    _fold(KH, 0, n_hand)
    if fine:
        labels = W[9]
        for i in range(n_hand):
            labels[i] = CT[3, hands[seat, i]]
        _sort_asc(labels, n_hand)
        for i in range(n_hand):
            _fold(KH, 0, labels[i])
    n = OWN[seat, 0]
    first = n - 3 if n > 3 else 0
    _fold(KH, 0, n - first)
    for j in range(first, n):
        _fold(KH, 0, OWN[seat, 1 + j % 3])
    if fine:
        _fold(KH, 0, M[0, seat])
        _fold(KH, 0, M[0, 1 - seat])
        _fold(KH, 0, M[1, 0] + M[1, 1])
        _fold(KH, 0, S[S_BOARDN])
        for i in range(S[S_BOARDN]):
            _fold(KH, 0, CT[3, board[i]])
    for lane in range(2):
        _fold(KH, 0, np.int64(EV[seat, lane]))


@_entry
def _play(
    CT: Table,
    P: Table,
    SZ: Table,
    SIM: Table,
    SIMX: Table,
    ET: Table,
    EP: Table,
    PR: Table,
    MET: Table,
    RULES: Table,
    n_suits: int,
    n_positions: int,
    stack: int,
    ante: int,
    rollout: bool,
    seeds: Table,
    uniforms: Table,
    mt: Table,
    mt_at: Table,
    S0: Table,
    deck0: Table,
    hands0: Table,
    board0: Table,
    M0: Table,
    positions0: Table,
    choices0: Table,
    side0: Table,
    job_start: Table,
    job_action: Table,
    ranks: Table,
    auxs: Table,
    moves: Table,
    max_amounts: int,
    returns: Table,
    decisions: Table,
    folded: Table,
    fired: Table,
    reached: Table,
    evaluated: Table,
    held: Table,
    EV: Table,
    KEYS: Table,
    KN: Table,
    multi: Table,
) -> tuple[int, int, int]:
    """The loop of the entry points, one deal per job (one call, so that no deal pays for
    a call).  Random play (``rollout`` false): deal ``d`` starts afresh from ``seeds[d]``,
    chance from the engine's generator, moves uniform over the full menu from ``uniforms``
    read in order across deals (or, when it is empty, the twister ``mt``/``mt_at``).
    Rollouts: job ``d`` loads position ``job_start[d]`` (a decision), plays entry
    ``job_action[d]`` of its menu, then both seats play L0 over A(I) (forced decisions draw
    nothing) with that position's ``moves`` read cyclically and chance from its card order
    ``ranks`` and stream ``auxs``.  Keys (``EV`` with rows, see ``_event``): random play with
    the moves of ``random.Random.choice`` on the twister, each seat's key written to ``KEYS``
    (``KN[0]`` of them) at the decisions its kind counts (``_key``), and per deal the
    decisions with two or more actions in ``multi``.  Returns (status, jobs done, uniforms
    used)."""
    n_cards = CT.shape[1]
    n_phases = P.shape[0]
    S = np.zeros(SCALARS, np.int64)
    deck = np.zeros(n_cards, np.int64)
    hands = np.zeros((2, n_cards), np.int64)
    board = np.zeros(n_cards, np.int64)
    M = np.zeros((4, 2), np.int64)
    positions = np.full(n_positions + 1, -1, np.int64)  # the last slot: held by nobody
    choices = np.full((n_phases, 2), -1, np.int64)
    side = np.zeros((2 * n_phases + 2, 2), np.int64)
    menu = np.zeros((n_cards + SZ.shape[1] + SIM.shape[1] + 3, 2), np.int64)
    key0 = np.zeros(n_cards + 8, np.int64)
    key1 = np.zeros(n_cards + 8, np.int64)
    W = np.zeros((11, n_cards + SZ.shape[1] + SIM.shape[1] + 110), np.int64)  # scratch
    B = np.zeros((1, 102), np.bool_)
    seen = np.zeros(n_phases, np.bool_)
    rng = np.zeros(1, np.uint64)
    C = np.zeros(2, np.int64)
    U = np.zeros(2, np.int64)
    KH = np.zeros((1, 2), np.uint64)  # a key being hashed
    OWN = np.zeros((2, 4), np.int64)  # per seat: its decisions so far, then the last three
    keyed = EV.shape[0] > 0
    fine = keyed and EV[0, 2] != 0
    twister = not rollout and uniforms.shape[0] == 0
    moves_mode = MOVES_L0 if rollout else MOVES_CHOICE if keyed else MOVES_UNIFORM
    n_jobs = job_start.shape[0] if rollout else seeds.shape[0]
    rank = ranks[0]
    aux = auxs[0]
    stream = uniforms
    for d in range(n_jobs):
        U[1] = 0
        if rollout:
            start = job_start[d]
            S[:] = S0[start]
            deck[:] = deck0[start]
            hands[:] = hands0[start]
            board[:] = board0[start]
            M[:] = M0[start]
            positions[:] = positions0[start]
            choices[:] = choices0[start]
            side[:] = side0[start]
            _redecide(S, hands, M, P, SZ, CT, menu, W)
            if job_action[d] >= S[S_MENUN]:
                return EMPTY_MENU, d, U[0]
            first_action = job_action[d]
            C[0] = CHANCE_ORDER
            C[1] = 0
            U[0] = 0
            rank = ranks[start]
            aux = auxs[start]
            stream = moves[start]
        else:
            first_action = -1
            rng[0] = _seed(seeds[d])
            S[:] = 0
            S[S_TOP] = -1
            S[S_WINNER] = -1
            S[S_DECKN] = n_cards
            for c in range(n_cards):
                deck[c] = c
            M[:] = 0
            M[0, 0] = stack - ante
            M[0, 1] = stack - ante
            M[1, 0] = ante
            M[1, 1] = ante
            positions[:] = -1
            choices[:] = -1
            seen[:] = False
            S[S_PHASE] = 0
            fired[0] += 1
            seen[0] = True
            S[S_MODE] = MODE_ENTER
            if keyed:
                for seat in range(2):
                    EV[seat, 0] = _KEY_A
                    EV[seat, 1] = _KEY_B
                OWN[:] = 0
                multi[d] = 0
                _event(EV, VIS_PUBLIC, E_PHASE, -1, 0, 0, 0)
        while True:
            mode = S[S_MODE]
            p = S[S_PHASE]
            if mode == MODE_DONE:
                break
            if mode == MODE_FINISH:
                target = P[p, K_STRAIGHT]
                if target == -2:
                    taken = -1
                    for k in range(P[p, K_NEDGES]):
                        q = EP[p, k]
                        holds = q < 0 or _predicate(q, PR, S, hands, M, positions, choices, CT)
                        if q >= 0:
                            evaluated[p, k] += 1
                            if holds:
                                held[p, k] += 1
                        if holds:
                            taken = k
                            break
                    if taken < 0:
                        return NO_EDGE, d, U[0]
                    target = ET[p, taken]
                if target < 0:
                    # The showdown.
                    l0 = _showdown_key(0, S, hands, board, M, CT, MET, RULES, n_suits, key0, W, B)
                    l1 = _showdown_key(1, S, hands, board, M, CT, MET, RULES, n_suits, key1, W, B)
                    if l0 < 0 or l1 < 0:
                        return EMPTY_HAND, d, U[0]
                    c = _compare(key0, l0, key1, l1)
                    _settle(
                        0 if c > 0 else 1 if c < 0 else -1,
                        S,
                        hands,
                        M,
                        P,
                        PR,
                        positions,
                        choices,
                        CT,
                        side,
                    )
                else:
                    S[S_PHASE] = target
                    fired[target] += 1
                    seen[target] = True
                    S[S_MODE] = MODE_ENTER
                    _event(EV, VIS_PUBLIC, E_PHASE, -1, target, 0, 0)
                continue
            kind = P[p, K_KIND]
            if mode == MODE_ENTER:
                S[S_MODE] = MODE_FINISH  # unless the phase sets a decision
                if kind == DEAL:
                    for _ in range(P[p, K_COUNT]):
                        _deal_card(S, deck, hands, board, rng, C, rank, EV, CT, 0)
                        _deal_card(S, deck, hands, board, rng, C, rank, EV, CT, 1)
                elif kind == REVEAL:
                    for _ in range(P[p, K_COUNT]):
                        _deal_card(S, deck, hands, board, rng, C, rank, EV, CT, 2)
                elif kind == BETTING:
                    M[2, 0] = 0
                    M[2, 1] = 0
                    S[S_ACTED0] = 0
                    S[S_ACTED1] = 0
                    S[S_NBETS] = 0
                    if P[p, K_FORCED0] != 0 or P[p, K_FORCED1] != 0:
                        _pay(M, 0, P[p, K_FORCED0])
                        _pay(M, 1, P[p, K_FORCED1])
                        _event(EV, VIS_PUBLIC, E_BLINDS, -1, P[p, K_FORCED0], P[p, K_FORCED1], 0)
                        S[S_NBETS] = 1 if M[2, 0] != M[2, 1] else 0
                    rule = P[p, K_FIRST_RULE]
                    first = P[p, K_FIRST_SEAT]
                    if rule == 1:
                        holder = positions[P[p, K_POS]]
                        first = P[p, K_FALLBACK] if holder < 0 else holder
                    elif rule >= 2:
                        if M[0, 0] == M[0, 1]:
                            first = P[p, K_FALLBACK]
                        else:
                            leader = 0 if M[0, 0] > M[0, 1] else 1
                            first = leader if rule == 2 else 1 - leader
                    if not (M[2, 0] == M[2, 1] and (M[0, 0] == 0 or M[0, 1] == 0)):
                        _betting_decide(p, first, S, M, P, SZ, menu, W)
                elif kind == SIMULTANEOUS or kind == AUCTION:  # noqa: SIM109 (numba: plain loops and comparisons)
                    S[S_SEL0] = -1
                    S[S_SEL1] = -1
                    _options(p, 0, S, M, P, SZ, menu)
                elif kind == PEEK:
                    _queue(S, P[p, K_WHO], positions, P[p, K_POS])
                    S[S_MODE] = MODE_NEXT
                elif kind == DRAW:
                    if P[p, K_OPTIONAL] == 0:
                        who = P[p, K_WHO]
                        for seat in range(2):
                            if who == 2 or who == seat:
                                for _ in range(P[p, K_COUNT]):
                                    _deal_card(S, deck, hands, board, rng, C, rank, EV, CT, seat)
                    else:
                        _queue(S, P[p, K_WHO], positions, 0)
                        S[S_MODE] = MODE_NEXT
                elif kind == SWAP:
                    _queue(S, P[p, K_WHO], positions, 0)
                    S[S_MODE] = MODE_NEXT
                elif kind == POSITION:
                    l0 = _measure(P[p, K_CRITERION], 0, S, hands, M, CT, key0)
                    l1 = _measure(P[p, K_CRITERION], 1, S, hands, M, CT, key1)
                    c = _compare(key0, l0, key1, l1)
                    holder = 0 if c > 0 else 1 if c < 0 else -1
                    positions[P[p, K_POS]] = holder
                    if P[p, K_HIDDEN] == 0:
                        _event(EV, VIS_PUBLIC, E_POSITION, -1, P[p, K_POS], holder, 0)
                    elif holder >= 0:
                        _event(EV, holder, E_POSITION, -1, P[p, K_POS], holder, 0)
                    if holder >= 0 and P[p, K_PERK] == 1:
                        M[3, holder] += P[p, K_PERK_POINTS]
                    elif holder >= 0 and P[p, K_PERK] == 0:
                        _peek_opponent(holder, S, hands, rng, C, aux, EV, CT)
                elif kind == SIDE_BET:
                    S[S_QN] = 2
                    S[S_Q0] = 0
                    S[S_Q1] = 1
                    S[S_MODE] = MODE_NEXT
                continue
            if mode == MODE_NEXT:
                S[S_MODE] = MODE_FINISH  # when the queue is done
                if kind == PEEK:
                    while S[S_QN] > 0:
                        seat = _pop(S)
                        if P[p, K_OPTIONAL] != 0:
                            if M[0, seat] >= P[p, K_COST]:
                                _two(S, seat, 0, 1, menu)  # peek, pass
                            else:
                                _two(S, seat, 1, -1, menu)  # pass
                            break
                        _look(p, seat, S, deck, hands, board, M, P, rng, C, rank, aux, EV, CT)
                elif kind == DRAW:
                    if S[S_QN] > 0:
                        _two(S, _pop(S), 0, 1, menu)  # draw, stand
                elif kind == SWAP:
                    while S[S_QN] > 0:
                        seat = _pop(S)
                        if P[p, K_SOURCE] == 1 and S[S_BOARDN] == 0:
                            continue
                        _swap_menu(seat, S, hands, CT, menu)
                        break
                elif kind == SIDE_BET:
                    while S[S_QN] > 0:
                        seat = _pop(S)
                        if min(M[0, 0], M[0, 1]) >= P[p, K_COST]:
                            _two(S, seat, 0, 1, menu)  # side_bet, pass
                            break
                continue
            # MODE_DECIDE: the player to move picks.
            m = S[S_MENUN]
            if m == 0:
                return EMPTY_MENU, d, U[0]
            seat = S[S_PLAYER]
            if keyed:
                if m > 1:
                    multi[d] += 1
                if fine or not _offers_amounts(kind, menu, m):
                    if KN[0] >= KEYS.shape[0]:
                        return OUT_OF_ROOM, d, U[0]
                    _key(p, kind, seat, S, menu, m, hands, board, M, CT, SZ, SIM, OWN, EV, KH, W)
                    KEYS[KN[0], 0] = uint64(seat)
                    KEYS[KN[0], 1] = KH[0, 0]
                    KEYS[KN[0], 2] = KH[0, 1]
                    KN[0] += 1
            if first_action >= 0:  # the action the caller plays first
                i = first_action
                first_action = -1
            elif moves_mode == MOVES_CHOICE:  # getrandbits(m.bit_length()) until below m
                bits = 0
                while (m >> bits) > 0:
                    bits += 1
                r = _mt_next(mt, mt_at) >> uint64(32 - bits)
                while r >= uint64(m):
                    r = _mt_next(mt, mt_at) >> uint64(32 - bits)
                i = np.int64(r)
            elif moves_mode == MOVES_UNIFORM:
                if twister:
                    u = _mt_random(mt, mt_at)
                elif U[0] < stream.shape[0]:
                    u = stream[U[0]]
                else:
                    return OUT_OF_UNIFORMS, d, U[0]
                U[0] += 1
                i = int(u * m)
            elif m == 1:
                i = 0  # forced: draws nothing
            else:
                k = _reduced(p, P, SZ, menu, m, max_amounts, W)
                u = stream[U[0] % stream.shape[0]]
                U[0] += 1
                i = W[10, int(u * k)]
            U[1] += 1
            code, amount = menu[i, 0], menu[i, 1]
            action = 0
            if keyed:
                opened = 1 if S[S_NBETS] > 0 else 0  # before the move changes it
                action = _action_id(kind, p, code, amount, opened, SZ, SIM, False)
                own = action if fine else _action_id(kind, p, code, amount, opened, SZ, SIM, True)
                _own(OWN, seat, own)
            if kind == BETTING:
                _event(EV, VIS_PUBLIC, E_ACT, seat, action, 0, 0)
                if code == FOLD:
                    S[S_FOLDED] = 1
                    _settle(1 - seat, S, hands, M, P, PR, positions, choices, CT, side)
                    continue
                opp = 1 - seat
                S[S_ACTED0 + seat] = 1
                if code == BET:
                    pay = M[2, opp] - M[2, seat] + amount
                    M[0, seat] -= pay
                    M[1, seat] += pay
                    M[2, seat] += pay
                    S[S_NBETS] += 1
                    S[S_ACTED0 + opp] = 0
                    _betting_decide(p, opp, S, M, P, SZ, menu, W)
                    continue
                if code == CALL:
                    pay = M[2, opp] - M[2, seat]
                    M[0, seat] -= pay
                    M[1, seat] += pay
                    M[2, seat] += pay
                if S[S_ACTED0 + opp] != 0:
                    S[S_MODE] = MODE_FINISH
                else:
                    _betting_decide(p, opp, S, M, P, SZ, menu, W)
            elif kind == SIMULTANEOUS or kind == AUCTION:  # noqa: SIM109 (numba: plain loops and comparisons)
                choices[p, seat] = code
                _event(EV, seat, E_SECRET, seat, action, 0, 0)
                if seat == 0:
                    S[S_SEL0] = code
                    _options(p, 1, S, M, P, SZ, menu)
                    continue
                a, b = S[S_SEL0], code
                S[S_MODE] = MODE_FINISH
                if kind == SIMULTANEOUS:
                    _event(EV, VIS_PUBLIC, E_REVEAL_CHOICES, -1, SIM[p, a, 2], SIM[p, b, 2], 0)
                    _pay(M, 0, SIM[p, a, 0])
                    M[3, 0] += SIM[p, a, 1]
                    _pay(M, 1, SIM[p, b, 0])
                    M[3, 1] += SIM[p, b, 1]
                    transfer = SIMX[p, a, b]
                    if transfer != 0:
                        payer = 1 if transfer > 0 else 0
                        moved = min(abs(transfer), M[0, payer])
                        M[0, payer] -= moved
                        M[0, 1 - payer] += moved
                        _event(EV, VIS_PUBLIC, E_TRANSFER, 1 - payer, moved, 0, 0)
                else:
                    bid0, bid1 = SZ[p, a], SZ[p, b]
                    if bid0 != bid1:  # noqa: SIM108 (numba: plain loops and comparisons)
                        winner = 0 if bid0 > bid1 else 1
                    else:
                        winner = P[p, K_TIE]
                    price = 0
                    if winner >= 0:
                        mine = bid0 if winner == 0 else bid1
                        theirs = bid1 if winner == 0 else bid0
                        price = mine if P[p, K_PRICING] == 0 else theirs
                        _pay(M, winner, price)
                    _event(EV, VIS_PUBLIC, E_AUCTION, winner, bid0, bid1, price)
                    if winner >= 0:
                        item = P[p, K_ITEM]
                        if item == 0:
                            _deal_card(S, deck, hands, board, rng, C, rank, EV, CT, winner)
                        elif item == 1:
                            _peek_opponent(winner, S, hands, rng, C, aux, EV, CT)
                        else:
                            positions[P[p, K_POS]] = winner
                            _event(EV, VIS_PUBLIC, E_POSITION, -1, P[p, K_POS], winner, 0)
            elif kind == PEEK:
                choices[p, seat] = code
                _event(EV, VIS_PUBLIC, E_ACT, seat, action, 0, 0)
                S[S_MODE] = MODE_NEXT
                if code == 0:  # peek
                    _pay(M, seat, P[p, K_COST])
                    _look(p, seat, S, deck, hands, board, M, P, rng, C, rank, aux, EV, CT)
            elif kind == DRAW:
                choices[p, seat] = code
                _event(EV, VIS_PUBLIC, E_ACT, seat, action, 0, 0)
                S[S_MODE] = MODE_NEXT
                if code == 0:  # draw
                    for _ in range(P[p, K_COUNT]):
                        _deal_card(S, deck, hands, board, rng, C, rank, EV, CT, seat)
            elif kind == SWAP:
                S[S_MODE] = MODE_NEXT
                choices[p, seat] = 0 if code < 0 else 1  # keep, swap
                _event(EV, VIS_PUBLIC, E_ACT, seat, N_KEEP if code < 0 else N_SWAP, 0, 0)
                if code >= 0:
                    hn = S[S_HN0 + seat]
                    at = 0
                    while CT[3, hands[seat, at]] != code:
                        at += 1
                    card = hands[seat, at]
                    for j in range(at, hn - 1):
                        hands[seat, j] = hands[seat, j + 1]
                    S[S_HN0 + seat] = hn - 1
                    _event(EV, seat, E_DISCARD, seat, CT[3, card], 0, 0)
                    source = P[p, K_SOURCE]
                    if source == 0:  # deck
                        _deal_card(S, deck, hands, board, rng, C, rank, EV, CT, seat)
                    elif source == 2:  # opponent: give ours, take one of theirs at random
                        other = 1 - seat
                        on = S[S_HN0 + other]
                        if on == 0:
                            return EMPTY_HAND, d, U[0]
                        k = _pick(rng, C, aux, on)
                        taken = hands[other, k]
                        for j in range(k, on - 1):
                            hands[other, j] = hands[other, j + 1]
                        hands[other, on - 1] = card
                        hands[seat, hn - 1] = taken
                        S[S_HN0 + seat] = hn
                        given, got = CT[3, card], CT[3, taken]
                        _event(EV, seat, E_SWAP_TAKE, seat, given, got, 0)
                        _event(EV, other, E_SWAP_TAKE, seat, given, got, 0)
                    else:  # board: take the last board card, leave ours in its place
                        last = S[S_BOARDN] - 1
                        taken = board[last]
                        board[last] = card
                        hands[seat, hn - 1] = taken
                        S[S_HN0 + seat] = hn
                        _event(EV, VIS_PUBLIC, E_BOARD_SWAP, seat, CT[3, card], CT[3, taken], 0)
            elif kind == SIDE_BET:
                choices[p, seat] = code
                _event(EV, VIS_PUBLIC, E_ACT, seat, action, 0, 0)
                S[S_MODE] = MODE_NEXT
                if code == 0:
                    stake = P[p, K_COST]
                    M[0, 0] -= stake
                    M[0, 1] -= stake
                    side[S[S_NSIDE], 0] = seat
                    side[S[S_NSIDE], 1] = p
                    S[S_NSIDE] += 1

        returns[d] = M[0, 0] - stack
        if not rollout:
            decisions[d] = U[1]
            folded[d] = S[S_FOLDED] != 0
            for k in range(n_phases):
                if seen[k]:
                    reached[k] += 1
    return OK, n_jobs, U[0]


@_entry
def play_uniform(
    CT: Table,
    P: Table,
    SZ: Table,
    SIM: Table,
    SIMX: Table,
    ET: Table,
    EP: Table,
    PR: Table,
    MET: Table,
    RULES: Table,
    n_suits: int,
    n_positions: int,
    stack: int,
    ante: int,
    seeds: Table,
    uniforms: Table,
    mt: Table,
    mt_at: Table,
    returns: Table,
    decisions: Table,
    folded: Table,
    fired: Table,
    reached: Table,
    evaluated: Table,
    held: Table,
) -> tuple[int, int, int]:
    """Play one deal per seed, both seats uniform over the full menu, moves from ``uniforms``
    read in order across deals, or, when ``uniforms`` is empty, from the Mersenne Twister
    state ``mt``/``mt_at`` (advanced in place, as ``random.random()`` would advance it).
    Fills the per-deal outputs and adds to the phase and branch counters; returns (status,
    deals played, uniforms used)."""
    return _from_the_shuffle(
        CT,
        P,
        SZ,
        SIM,
        SIMX,
        ET,
        EP,
        PR,
        MET,
        RULES,
        n_suits,
        n_positions,
        stack,
        ante,
        seeds,
        uniforms,
        mt,
        mt_at,
        returns,
        decisions,
        folded,
        fired,
        reached,
        evaluated,
        held,
        np.zeros((0, 3), np.uint64),
        np.zeros((0, 3), np.uint64),
        np.zeros(1, np.int64),
        np.zeros(1, np.int64),
    )


@_entry
def _from_the_shuffle(
    CT: Table,
    P: Table,
    SZ: Table,
    SIM: Table,
    SIMX: Table,
    ET: Table,
    EP: Table,
    PR: Table,
    MET: Table,
    RULES: Table,
    n_suits: int,
    n_positions: int,
    stack: int,
    ante: int,
    seeds: Table,
    uniforms: Table,
    mt: Table,
    mt_at: Table,
    returns: Table,
    decisions: Table,
    folded: Table,
    fired: Table,
    reached: Table,
    evaluated: Table,
    held: Table,
    EV: Table,
    KEYS: Table,
    KN: Table,
    multi: Table,
) -> tuple[int, int, int]:
    """``_play`` on whole deals from the shuffle (no positions to load): the entry points of
    random play, ``play_uniform`` and ``play_keys``."""
    none = np.zeros((1, 1), np.int64)
    return _play(
        CT,
        P,
        SZ,
        SIM,
        SIMX,
        ET,
        EP,
        PR,
        MET,
        RULES,
        n_suits,
        n_positions,
        stack,
        ante,
        False,
        seeds,
        uniforms,
        mt,
        mt_at,
        np.zeros((1, SCALARS), np.int64),
        none,
        np.zeros((1, 2, 1), np.int64),
        none,
        np.zeros((1, 4, 2), np.int64),
        none,
        np.zeros((1, 1, 2), np.int64),
        np.zeros((1, 1, 2), np.int64),
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
        np.zeros((1, 1), np.int64),
        np.zeros((1, 1), np.float64),
        np.zeros((1, 1), np.float64),
        0,
        returns,
        decisions,
        folded,
        fired,
        reached,
        evaluated,
        held,
        EV,
        KEYS,
        KN,
        multi,
    )


@_entry
def play_l0(
    CT: Table,
    P: Table,
    SZ: Table,
    SIM: Table,
    SIMX: Table,
    ET: Table,
    EP: Table,
    PR: Table,
    MET: Table,
    RULES: Table,
    n_suits: int,
    stack: int,
    S0: Table,
    deck0: Table,
    hands0: Table,
    board0: Table,
    M0: Table,
    positions0: Table,
    choices0: Table,
    side0: Table,
    job_start: Table,
    job_action: Table,
    ranks: Table,
    auxs: Table,
    moves: Table,
    max_amounts: int,
    returns: Table,
) -> tuple[int, int]:
    """Finish many deals from loaded positions: job ``j`` starts from position
    ``job_start[j]`` (a decision, its arrays as ``engines.gbg.batch_random.load`` wrote
    them), plays entry ``job_action[j]`` of its menu, then both seats play L0 over A(I) with
    its start's ``moves`` read cyclically, chance from its start's card order ``ranks`` and
    stream ``auxs`` (``engines.axes.play.play_out``'s deal).  Fills Alice's returns per job;
    returns (status, jobs done)."""
    n_phases = P.shape[0]
    status, done, _ = _play(
        CT,
        P,
        SZ,
        SIM,
        SIMX,
        ET,
        EP,
        PR,
        MET,
        RULES,
        n_suits,
        positions0.shape[1] - 1,
        stack,
        0,
        True,
        np.zeros(0, np.uint64),
        np.zeros(0, np.float64),
        np.zeros(1, np.uint64),
        np.zeros(1, np.int64),
        S0,
        deck0,
        hands0,
        board0,
        M0,
        positions0,
        choices0,
        side0,
        job_start,
        job_action,
        ranks,
        auxs,
        moves,
        max_amounts,
        returns,
        np.zeros(job_start.shape[0], np.int64),
        np.zeros(job_start.shape[0], np.bool_),
        np.zeros(n_phases, np.int64),
        np.zeros(n_phases, np.int64),
        np.zeros(ET.shape, np.int64),
        np.zeros(ET.shape, np.int64),
        np.zeros((0, 3), np.uint64),
        np.zeros((0, 3), np.uint64),
        np.zeros(1, np.int64),
        np.zeros(1, np.int64),
    )
    return status, done


@_entry
def play_keys(
    CT: Table,
    P: Table,
    SZ: Table,
    SIM: Table,
    SIMX: Table,
    ET: Table,
    EP: Table,
    PR: Table,
    MET: Table,
    RULES: Table,
    n_suits: int,
    n_positions: int,
    stack: int,
    ante: int,
    seeds: Table,
    mt: Table,
    mt_at: Table,
    fine: int,
    returns: Table,
    multi: Table,
    KEYS: Table,
    KN: Table,
) -> tuple[int, int, int]:
    """Random play that counts information states: one deal per seed, chance from the engine's
    generator, both seats moving by ``random.Random.choice`` over the full menu on the twister
    ``mt``/``mt_at`` (advanced in place).  Writes Alice's returns and the decisions with two or
    more actions per deal, and the keys (seat, two hashes) to ``KEYS``, ``KN[0]`` of them: the
    screening's coarse states at the decisions that do not offer two amounts, or with
    ``fine`` the state-space axis's abstracted states at every decision (``_key``).  Returns
    (status, deals played, 0); ``OUT_OF_ROOM`` when ``KEYS`` is full."""
    deals = seeds.shape[0]
    n_phases = P.shape[0]
    EV = np.zeros((2, 3), np.uint64)
    EV[:, 2] = 1 if fine else 0
    return _from_the_shuffle(
        CT,
        P,
        SZ,
        SIM,
        SIMX,
        ET,
        EP,
        PR,
        MET,
        RULES,
        n_suits,
        n_positions,
        stack,
        ante,
        seeds,
        np.zeros(0, np.float64),
        mt,
        mt_at,
        returns,
        np.zeros(deals, np.int64),
        np.zeros(deals, np.bool_),
        np.zeros(n_phases, np.int64),
        np.zeros(n_phases, np.int64),
        np.zeros(ET.shape, np.int64),
        np.zeros(ET.shape, np.int64),
        EV,
        KEYS,
        KN,
        multi,
    )
