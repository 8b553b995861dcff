"""The inertness check: can every phase of a game change a payoff or what a player knows?

A phase whose prize is worthless lengthens the rulebook and the state count but changes nothing
a player could act on: an auctioned position that no rule reads, a peek after the peeker's last
decision, a side bet on a proposition that can never hold.  ``inert_phases(spec)`` names every
such phase with its reason, one line each; the paper's generation configuration
(``engines.gbg.generator.PAPER_CONFIG``) rejects a game with any (rejection reason
``inert_phase``).

What counts (a phase is *useful* when one of these holds, *inert* otherwise):

- ``position`` (a position phase): its perk gives showdown points (``score_bonus``, non-zero), or
  its perk is a peek and the holder may still decide afterwards; or a rule reads the position
  after it is assigned (a betting round's first actor, a peek by its holder, a branch predicate,
  a side bet's proposition); or its criterion depends on hidden cards and a player who is told
  the result may still decide afterwards (the announcement is then knowledge about hands).  A
  position by chip count announces what both players already see.
- ``auction``: a card changes the winner's hand (always useful); a peek is useful while either
  player may still decide; a position only when a rule reads it afterwards (the winner is
  public and the price carries no information about hands by the rules).
- ``peek`` (an observation phase): useful while a player who may peek can still decide
  afterwards; a peek by a position's holder is inert when nothing assigns that position first.
- ``side_bet``: inert when it is never offered (the stake exceeds what is behind after the ante)
  or its proposition can never hold (a pair with fewer than two cards in hand or a single card
  of each rank, a position nothing assigns).  A proposition that always holds still moves chips.
- ``simultaneous``: inert when no option costs chips or gives points, no matrix cell moves
  chips and no branch reads the choice.

The costs of acquiring a prize (bids, peek costs and risks, side-bet stakes) are not counted as
a use: a worthless prize bought at a price changes payoffs only by a dominated loss.
"""

from __future__ import annotations

from typing import Any

from engines.gbg.parts import Predicate
from engines.gbg.structure import SpecContent, cards_needed, successors

HAND_CRITERIA = ("high_card", "high_sum", "low_sum", "pair")
INERT_REASON = "inert_phase"


def _all(spec: SpecContent) -> list[Any]:
    """The phases, each read by its kind's fields (the checks dispatch on ``kind``)."""
    return list(spec.phases)


def _phase(spec: SpecContent, index: int) -> Any:
    return spec.phases[index]


def _deciders(p: Any) -> set[int]:
    """The seats that may face a decision in phase ``p`` (0 Alice, 1 Bob)."""
    both = {0, 1}
    if p.kind in ("betting", "simultaneous", "auction", "side_bet"):
        return both
    if p.kind in ("peek", "draw") and not p.optional:
        return set()
    if p.kind in ("peek", "draw", "swap"):
        return {"alice": {0}, "bob": {1}}.get(p.who, both)
    return set()


def _reachable_after(spec: SpecContent, index: int) -> list[int]:
    """Indices of every phase some path reaches after leaving phase ``index``."""
    where = {p.id: i for i, p in enumerate(_all(spec))}
    seen: set[int] = set()
    stack = [where[t] for t in successors(spec, index) if t in where]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        stack += [where[t] for t in successors(spec, i) if t in where and where[t] > i]
    return sorted(seen)


def later_deciders(spec: SpecContent, index: int) -> set[int]:
    """The seats that may still decide after phase ``index`` on some path."""
    out: set[int] = set()
    for j in _reachable_after(spec, index):
        out |= _deciders(_phase(spec, j))
    return out


def _predicates(spec: SpecContent, start: int) -> list[Predicate]:
    """Branch predicates evaluated on leaving phase ``start`` or any later phase."""
    return [e.when for p in _all(spec)[start:] for e in p.next if e.when is not None]


def _assigned_before(spec: SpecContent, name: str, index: int) -> bool:
    for p in _all(spec)[:index]:
        if p.kind == "position" and p.name == name:
            return True
        if p.kind == "auction" and p.item.kind == "position" and p.item.position == name:
            return True
    return False


def position_readers(spec: SpecContent, name: str, index: int) -> list[str]:
    """Rules that read position ``name`` after phase ``index`` assigns it, one line each."""
    readers = []
    later = set(_reachable_after(spec, index))
    for j, p in enumerate(_all(spec)):
        if j in later and p.kind == "betting" and p.first.position == name:
            readers.append(f"{p.id} first actor")
        peeks = j in later and p.kind == "peek" and p.who == "position" and p.position == name
        if peeks and later_deciders(spec, j):
            readers.append(f"{p.id} peek")
        if p.kind == "side_bet" and p.proposition.position == name:
            readers.append(f"{p.id} proposition")
    for pred in _predicates(spec, index):
        if pred.kind == "holds_position" and pred.position == name:
            readers.append("a branch")
    return readers


def _position_inert(spec: SpecContent, index: int) -> str | None:
    p = _phase(spec, index)
    deciders = later_deciders(spec, index)
    if p.perk is not None and p.perk.kind == "score_bonus" and p.perk.points:
        return None
    if p.perk is not None and p.perk.kind == "peek" and deciders:
        return None
    if position_readers(spec, p.name, index):
        return None
    if p.criterion in HAND_CRITERIA and deciders:
        return None
    if not deciders:
        return f"position {p.id}: no rule reads {p.name} and nobody decides after it is assigned"
    return f"position {p.id}: no points, no rule reads {p.name} and chip counts are public"


def _auction_inert(spec: SpecContent, index: int) -> str | None:
    p = _phase(spec, index)
    if p.item.kind == "card":
        return None
    if p.item.kind == "peek":
        if later_deciders(spec, index):
            return None
        return f"auction {p.id}: the peek it sells comes after the last decision"
    if position_readers(spec, p.item.position or "", index):
        return None
    return f"auction {p.id}: no rule reads the {p.item.position} position it sells"


def _peek_inert(spec: SpecContent, index: int) -> str | None:
    p = _phase(spec, index)
    if p.who == "position" and not _assigned_before(spec, p.position or "", index):
        return f"peek {p.id}: nothing assigns the {p.position} position before it"
    peekers = {"alice": {0}, "bob": {1}}.get(p.who, {0, 1})
    if peekers & later_deciders(spec, index):
        return None
    return f"peek {p.id}: the peeker never decides afterwards"


def _can_hold(spec: SpecContent, pred: Predicate) -> bool:
    """Whether a side bet's proposition about the bettor's final hand can ever hold."""
    if pred.negate:
        return True
    if pred.kind == "holds_pair":
        same_rank = len(spec.deck.suits) * spec.deck.copies
        return cards_needed(spec)[1] >= 2 and same_rank >= 2
    if pred.kind == "holds_rank":
        return any(r.label == pred.rank for r in spec.deck.ranks)
    if pred.kind == "holds_position":
        return _assigned_before(spec, pred.position or "", len(spec.phases))
    return True


def _side_bet_inert(spec: SpecContent, index: int) -> str | None:
    p = _phase(spec, index)
    if p.stake > spec.stack - spec.ante:
        return f"side bet {p.id}: the stake exceeds every stack after the ante"
    if not _can_hold(spec, p.proposition):
        return f"side bet {p.id}: its proposition can never hold"
    return None


def _simultaneous_inert(spec: SpecContent, index: int) -> str | None:
    p = _phase(spec, index)
    if any(o.pot_chips or o.score_delta for o in p.options):
        return None
    if any(c.transfer for c in p.matrix):
        return None
    if any(q.kind == "chose" and q.phase == p.id for q in _predicates(spec, index)):
        return None
    return f"simultaneous {p.id}: no option has an effect and no branch reads the choice"


_CHECKS = {
    "position": _position_inert,
    "auction": _auction_inert,
    "peek": _peek_inert,
    "side_bet": _side_bet_inert,
    "simultaneous": _simultaneous_inert,
}


def inert_phases(spec: SpecContent) -> list[str]:
    """Every inert phase of ``spec``, one line each naming the phase and why (empty: none)."""
    out = []
    for i, p in enumerate(_all(spec)):
        check = _CHECKS.get(p.kind)
        reason = check(spec, i) if check else None
        if reason:
            out.append(reason)
    return out


def unread_positions(spec: SpecContent) -> list[str]:
    """Positions with no perk that no rule reads (useful only through their announcement)."""
    out = []
    for i, p in enumerate(_all(spec)):
        if p.kind == "position" and p.perk is None and not position_readers(spec, p.name, i):
            out.append(p.id)
        sells = p.kind == "auction" and p.item.kind == "position"
        if sells and not position_readers(spec, p.item.position or "", i):
            out.append(p.id)
    return out
