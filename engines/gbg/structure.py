"""Structural checks of a GameSpec (paper, Appendix A): is the game coherent and playable?

``structural_errors`` lists every violation as one line naming the phase and the problem; a
``GameSpec`` refuses to construct while the list is non-empty.  The generator's repairs (a later
stage) fix what these checks find before a spec is built.

Checks: unique phase ids; edges point to later phases or to the showdown (so every deal ends);
the last edge of a phase is unconditional; every phase is reachable; the deck holds enough
cards for the longest path; antes and blinds fit the stack; every name a predicate, actor,
peek or rule refers to exists; the showdown metric has the cards it needs.  The bounds the
checks compute along the phase graph (cards dealt, decisions, card sequences) serve the engine
and the generator too.

The checks read a spec through ``SpecContent``, its parts and nothing else, so that this module
sits between the parts (``engines.gbg.parts``) and ``GameSpec`` (``engines.gbg.spec``), whose
validator calls ``structural_errors``: imports run one way.
"""

from __future__ import annotations

from typing import Any, Protocol

from engines.gbg.parts import Deck, Phase, Predicate, Showdown


class SpecContent(Protocol):
    """What the checks read of a spec: a ``GameSpec``, or the generator's draft of one (built
    with ``GameSpec.model_construct``, before the repairs have made it coherent)."""

    @property
    def deck(self) -> Deck: ...

    @property
    def stack(self) -> int: ...

    @property
    def ante(self) -> int: ...

    @property
    def phases(self) -> tuple[Phase, ...]: ...

    @property
    def showdown(self) -> Showdown: ...


CHOICE_OPTIONS: dict[str, tuple[str, ...]] = {
    "peek": ("peek", "pass"),
    "draw": ("draw", "stand"),
    "swap": ("keep", "swap"),
    "side_bet": ("side_bet", "pass"),
}


def successors(spec: SpecContent, index: int) -> list[str]:
    """Phase ids (or ``showdown``) that phase ``index`` may lead to."""
    phase = spec.phases[index]
    if phase.next:
        return [e.to for e in phase.next]
    return [spec.phases[index + 1].id if index + 1 < len(spec.phases) else "showdown"]


def cards_needed(spec: SpecContent) -> tuple[int, int, int]:
    """Upper bounds along the longest path: (cards taken from the deck, hand size, board size)."""
    index = {p.id: i for i, p in enumerate(spec.phases)}
    memo: dict[int, tuple[int, int, int]] = {}
    # Edges run forward (checked by ``structural_errors``), so phases are solved from the last
    # to the first, without recursion (a spec may have any number of phases); a backward edge
    # of an invalid spec is ignored here and reported by the edge check.
    for i in range(len(spec.phases) - 1, -1, -1):
        p = spec.phases[i]
        used, hand, board = 0, 0, 0
        seats = 2 if getattr(p, "who", "both") in ("both", "position") else 1
        if p.kind == "deal":
            used, hand = 2 * p.count, p.count
        elif p.kind == "reveal":
            used, board = p.count, p.count
        elif p.kind == "draw":
            used, hand = seats * p.count, p.count
        elif p.kind == "swap" and p.source == "deck":
            used = seats
        elif p.kind == "auction" and p.item.kind == "card":
            used, hand = 1, 1
        best = (0, 0, 0)
        for target in successors(spec, i):
            if index.get(target, -1) > i:
                sub = memo[index[target]]
                best = (max(best[0], sub[0]), max(best[1], sub[1]), max(best[2], sub[2]))
        if p.kind == "peek" and p.target == "deck_top":
            # The peeked card stays on top and is the next one dealt: it needs a card only
            # when nothing later takes one.
            best = (max(1, best[0]), best[1], best[2])
        memo[i] = (used + best[0], hand + best[1], board + best[2])
    return memo.get(0, (0, 0, 0))


def chance_paths(spec: SpecContent) -> int:
    """An upper bound on the number of distinct card sequences a deal can draw."""
    used = cards_needed(spec)[0]
    paths = 1
    for k in range(used):
        paths *= spec.deck.size - k
    return paths


def structural_errors(spec: SpecContent) -> list[str]:
    errors: list[str] = []
    ids = [p.id for p in spec.phases]
    index = {pid: i for i, pid in enumerate(ids)}
    if len(set(ids)) != len(ids):
        errors.append(f"phase ids must be unique, got {ids}")
    if "showdown" in index:
        errors.append("'showdown' is reserved and cannot be a phase id")
    if spec.phases[0].kind != "deal":
        errors.append(f"phase '{ids[0]}': the first phase must deal the hands")
    ranks = {r.label for r in spec.deck.ranks}
    positions = {p.name for p in spec.phases if p.kind == "position"}
    positions |= {
        p.item.position
        for p in spec.phases
        if p.kind == "auction" and p.item.kind == "position" and p.item.position
    }
    options: dict[str, set[str]] = {}
    for p in spec.phases:
        if p.kind == "simultaneous":
            options[p.id] = {o.name for o in p.options}
        elif p.kind in CHOICE_OPTIONS:
            options[p.id] = set(CHOICE_OPTIONS[p.kind])

    def check_predicate(where: str, pred: Predicate, before: int) -> None:
        if pred.kind == "holds_rank" and pred.rank not in ranks:
            errors.append(f"{where}: predicate names rank '{pred.rank}', not in the deck")
        if pred.kind == "holds_position" and pred.position not in positions:
            errors.append(f"{where}: predicate names unknown position '{pred.position}'")
        if pred.kind == "chose":
            j = index.get(pred.phase or "")
            if j is None or j > before:
                errors.append(f"{where}: predicate refers to phase '{pred.phase}', not earlier")
            elif pred.option not in options.get(pred.phase or "", set()):
                errors.append(
                    f"{where}: predicate option '{pred.option}' is not a choice of '{pred.phase}'"
                )

    reached = {0}
    for i, p in enumerate(spec.phases):
        where = f"phase '{p.id}'"
        for k, edge in enumerate(p.next):
            if edge.to != "showdown":
                j = index.get(edge.to)
                if j is None:
                    errors.append(f"{where}: edge to unknown phase '{edge.to}'")
                    continue
                if j <= i:
                    errors.append(f"{where}: edge to '{edge.to}' goes backwards (no loops)")
            if edge.when is not None:
                check_predicate(where, edge.when, i)
            if k == len(p.next) - 1 and edge.when is not None:
                errors.append(f"{where}: the last edge must be unconditional")
        if i in reached:
            reached.update(index[t] for t in successors(spec, i) if t in index)
        if p.kind == "betting":
            if p.first.rule == "position" and p.first.position not in positions:
                errors.append(f"{where}: first actor is unknown position '{p.first.position}'")
            if spec.ante + max(p.forced) > spec.stack:
                errors.append(f"{where}: ante plus forced bets exceed the stack {spec.stack}")
        elif p.kind == "simultaneous":
            names = {o.name for o in p.options}
            if len(names) != len(p.options):
                errors.append(f"{where}: simultaneous options must be distinct")
            for cell in p.matrix:
                if cell.alice not in names or cell.bob not in names:
                    errors.append(f"{where}: matrix cell names an unknown option")
        elif p.kind == "auction":
            if list(p.bids) != sorted(set(p.bids)) or p.bids[0] < 0:
                errors.append(f"{where}: bids must be distinct, ascending and non-negative")
            if p.item.kind == "position" and not p.item.position:
                errors.append(f"{where}: a position auction needs a position name")
        elif p.kind == "peek":
            if (p.who == "position") != (p.position is not None):
                errors.append(f"{where}: 'who: position' needs a position name, and only it")
            elif p.who == "position" and p.position not in positions:
                errors.append(f"{where}: peek by unknown position '{p.position}'")
            if not p.optional and (p.cost or p.risk):
                errors.append(f"{where}: only an optional peek can carry a cost or a risk")
        elif p.kind == "side_bet":
            check_predicate(where, p.proposition, i)
    for i, pid in enumerate(ids):
        if i not in reached:
            errors.append(f"phase '{pid}' is unreachable")
    if spec.ante > spec.stack:
        errors.append(f"ante {spec.ante} exceeds the stack {spec.stack}")
    for rule in spec.showdown.metric.rules:
        if rule.rank not in ranks:
            errors.append(f"showdown rule names rank '{rule.rank}', not in the deck")
    if errors:
        return errors
    used, hand, board = cards_needed(spec)
    if used > spec.deck.size:
        errors.append(f"the longest path deals {used} cards but the deck holds {spec.deck.size}")
    metric = spec.showdown.metric
    if metric.kind == "best_five" and hand + board < 5:
        errors.append("showdown 'best_five' needs at least five cards from hand and board")
    if metric.kind == "pair_with_board" and board == 0:
        errors.append("showdown 'pair_with_board' needs a board reveal")
    return errors


def _phase_decisions(p: Any) -> int:
    """An upper bound on the decisions one phase can ask for."""
    seats = 2 if getattr(p, "who", "both") == "both" else 1
    if p.kind == "betting":
        return int(p.raise_cap) + 2
    if p.kind in ("simultaneous", "auction", "side_bet"):
        return 2
    if p.kind == "peek":
        return seats if p.optional else 0
    if p.kind == "draw":
        return seats if p.optional else 0
    if p.kind == "swap":
        return seats
    return 0


def max_decisions(spec: SpecContent) -> int:
    """The most decisions any deal of ``spec`` can take (the longest path of the phase graph)."""
    index = {p.id: i for i, p in enumerate(spec.phases)}
    memo: dict[int, int] = {}

    def walk(i: int) -> int:
        if i not in memo:
            rest = [walk(index[t]) for t in successors(spec, i) if t in index]
            memo[i] = _phase_decisions(spec.phases[i]) + max(rest, default=0)
        return memo[i]

    return walk(0)
