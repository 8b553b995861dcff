"""The action set A(I) of a decision, and an action's neighbours (Appendix C, "Objects",
"Precision").

When a player chooses an amount from more than six values, A(I) keeps at most six of them: the
four smallest, the midpoint and the largest.  The paper leaves "midpoint" open; we take the
value nearest the arithmetic midpoint of the smallest and largest amounts among the values not
already kept (ties: the smaller), so that six distinct values are always kept.  Amounts are
grouped by verb (``bet``, ``raise``, ``bid``); every other action is kept.

Neighbours, for the precision axis (Section 3.1: "adjacent amounts of the wager grid for bets
and bids"): an amount whose verb offers two or more amounts has as neighbours the adjacent
amounts of the full legal menu, the wager grid (one or two), whether A(I) keeps them or not;
any other action (a categorical choice, or the only amount on offer) has every other action of
A(I).  When A(I) keeps every amount the two are the same; when it cut the menu, a kept amount's
neighbour may be one A(I) left out (of 1..7, A(I) keeps 1, 2, 3, 4, 5 and 7, and 5's
neighbours are 4 and 6, not 4 and 7), which the replays then value too (``grid_extras``).
"""

from __future__ import annotations

from functools import lru_cache

AMOUNT_VERBS = frozenset({"bet", "raise", "bid"})
MAX_AMOUNTS = 6


def amount_of(action: str) -> tuple[str, int] | None:
    """``("bet", 3)`` for ``"bet 3"``; ``None`` for an action that is not an amount."""
    verb, _, rest = action.partition(" ")
    if verb in AMOUNT_VERBS and rest.isdigit():
        return verb, int(rest)
    return None


def coarse_action(action: str) -> str:
    """A decision with its amount dropped (``raise 40`` -> ``raise``)."""
    parsed = amount_of(action)
    return parsed[0] if parsed is not None else action


def kept_amounts(amounts: list[int], max_amounts: int = MAX_AMOUNTS) -> list[int]:
    """The amounts A(I) keeps from a sorted list (see the module docstring)."""
    if len(amounts) <= max_amounts:
        return list(amounts)
    smallest = max_amounts - 2
    kept = [*amounts[:smallest], amounts[-1]]
    middle = (amounts[0] + amounts[-1]) / 2
    rest = amounts[smallest:-1]
    kept.append(min(rest, key=lambda v: (abs(v - middle), v)))
    return sorted(kept)


@lru_cache(maxsize=65_536)
def reduce_menu(menu: tuple[str, ...], max_amounts: int = MAX_AMOUNTS) -> tuple[str, ...]:
    """A(I): the legal ``menu`` with each verb's amounts cut to at most ``max_amounts``."""
    by_verb: dict[str, list[int]] = {}
    for action in menu:
        parsed = amount_of(action)
        if parsed is not None:
            by_verb.setdefault(parsed[0], []).append(parsed[1])
    if all(len(v) <= max_amounts for v in by_verb.values()):
        return menu
    keep = {verb: set(kept_amounts(sorted(v), max_amounts)) for verb, v in by_verb.items()}
    out = []
    for action in menu:
        parsed = amount_of(action)
        if parsed is None or parsed[1] in keep[parsed[0]]:
            out.append(action)
    return tuple(out)


@lru_cache(maxsize=65_536)
def neighbours(
    menu: tuple[str, ...], action: str, legal: tuple[str, ...] | None = None
) -> tuple[str, ...]:
    """The actions that ``action`` of ``menu`` (an A(I)) is compared with for precision: for
    an amount, the adjacent amounts of the same verb on the wager grid of ``legal`` (the full
    legal menu A(I) was cut from; ``menu`` itself when None); otherwise every other action of
    ``menu`` (see the module docstring)."""
    if action not in menu:
        raise ValueError(f"{action!r} is not in the menu {list(menu)}")
    parsed = amount_of(action)
    if parsed is not None:
        verb, value = parsed
        grid = menu if legal is None else legal
        same = sorted(a for a in (amount_of(m) for m in grid) if a is not None and a[0] == verb)
        values = [v for _, v in same]
        if len(values) >= 2:
            i = values.index(value)
            near = [values[j] for j in (i - 1, i + 1) if 0 <= j < len(values)]
            return tuple(f"{verb} {v}" for v in near)
    return tuple(m for m in menu if m != action)


@lru_cache(maxsize=65_536)
def grid_extras(menu: tuple[str, ...], legal: tuple[str, ...]) -> tuple[str, ...]:
    """The neighbours on the wager grid of ``legal`` of the amounts of ``menu`` (an A(I) cut
    from ``legal``) that ``menu`` does not keep, in the order of ``legal``: the actions the
    precision axis values beyond A(I) (none when A(I) keeps the whole menu)."""
    if menu == legal:
        return ()
    wanted = {n for a in menu if amount_of(a) is not None for n in neighbours(menu, a, legal)}
    return tuple(a for a in legal if a in wanted and a not in menu)
