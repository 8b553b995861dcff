"""No private information reaches another player's view.

The property (a view depends only on what its seat may know): take a game A played at random,
and a seat ``s``.  Build a world B that ``s`` cannot tell from A: another deal that agrees
with everything ``s`` was told (its own role; the pack if ``s`` is a Werewolf; the Seer's
findings if ``s`` is the Seer), and other hidden choices (the nominations ``s`` does not see,
the Doctor's and the Seer's night actions) played so that the same public facts happen: the
same deaths, statements, ballots and exiles, recorded by the moderator from its own variables
(``WerewolfState.public_facts``), not from the log.  Wherever A and B have the same public
facts so far and neither has ended (the end reveals the roles), ``s`` must see the same view.

Hypothesis draws the game, the seat, the other world and the rules; a fixed sweep counts the
comparisons it makes on worlds whose deals differ, so the property cannot pass vacuously; and
three planted leaks (a dead player's role in the dawn announcement, a public inspection, the
night's requests shown to everyone) are each caught.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.gbg.rng import DealRng
from engines.werewolf.events import Audience
from engines.werewolf.roles import SEATS, Role, deal_roles, name_of
from engines.werewolf.rules import WerewolfRules
from engines.werewolf.state import WerewolfState
from engines.werewolf.view import PASS, PlayerView, derive_view

TEXTS = (
    "",
    "I am the Seer. P3 is a Werewolf.",
    "I vote for P2.",
    "Hello.",
    "P5 is not a Werewolf.",
)
Key = tuple[int, str, int, int]  # seat, kind, day, how many such moves the seat made that day


def random_game(state: WerewolfState, rng: random.Random) -> dict[Key, str]:
    """Play ``state`` at random (passes included); return every move by its key."""
    moves: dict[Key, str] = {}
    seen: Counter[tuple[int, str, int]] = Counter()
    while (request := state.request) is not None:
        action = rng.choice(TEXTS) if request.free_text else rng.choice(request.options)
        key = (request.seat, request.kind, request.day)
        moves[(*key, seen[key])] = action
        seen[key] += 1
        state.act(action)
    return moves


def other_world(a: WerewolfState, seat: int, rng: random.Random) -> tuple[Role, ...] | None:
    """A deal ``seat`` cannot tell from A's, differing from it, or None if none was found."""
    mine = a.view(seat)
    for _ in range(200):
        roles = list(a.roles)
        others = [s for s in range(SEATS) if s != seat]
        if mine.role is Role.WEREWOLF:
            others = [s for s in others if a.roles[s] is not Role.WEREWOLF]
        cards = [roles[s] for s in others]
        rng.shuffle(cards)
        for s, card in zip(others, cards, strict=True):
            roles[s] = card
        agrees = all((roles[t] is Role.WEREWOLF) == w for t, w in mine.inspections)
        if agrees and tuple(roles) != a.roles:
            return tuple(roles)
    return None


def snapshots(state: WerewolfState, seat: int, step: Any) -> dict[tuple[int, int], str]:
    """Play ``state`` with ``step(state) -> action | None`` (None: B cannot follow A); return
    ``seat``'s views, keyed by (public facts so far, decisions of ``seat`` so far): right after
    each move that adds public facts, and whenever ``seat`` is asked to decide (``-1 - j`` for
    its ``j``-th decision).  The end and anything after it are left out."""
    views = {(len(state.public_facts), 0): state.information_state(seat)}
    asked = 0
    while (request := state.request) is not None:
        if request.seat == seat:
            views[(len(state.public_facts), -1 - asked)] = state.information_state(seat)
            asked += 1
        action = step(state)
        if action is None or not state.can_act(action):
            break
        facts = len(state.public_facts)
        state.act(action)
        if state.is_over:
            break
        if len(state.public_facts) != facts:
            views[(len(state.public_facts), 0)] = state.information_state(seat)
    return views


def follower(a: WerewolfState, moves: dict[Key, str], seat: int, rng: random.Random) -> Any:
    """B's players: every move ``seat`` could see (its own, the statements and ballots, the
    pack's if it is a Werewolf) as in A; the hidden ones chosen to give A's night outcomes."""
    s_role = a.roles[seat]
    seen: Counter[tuple[int, str, int]] = Counter()

    def night_of(day: int) -> tuple[str, str | None]:
        """A's victim (the last nomination, or pass) and whether the Doctor saved it."""
        noms = [moves[k] for k in sorted(moves) if k[1] == "nominate" and k[2] == day]
        made = [n for n in noms if n != PASS]
        victim = made[-1] if made else PASS
        protect = [moves[k] for k in moves if k[1] == "protect" and k[2] == day]
        return victim, (protect[0] if protect else None)

    def step(b: WerewolfState) -> str | None:
        request = b.request
        assert request is not None
        key3 = (request.seat, request.kind, request.day)
        key = (*key3, seen[key3])
        seen[key3] += 1
        visible = request.kind in ("speak", "vote") or request.seat == seat
        if request.kind == "nominate" and s_role is Role.WEREWOLF:
            visible = True
        if request.kind == "inspect" and s_role is Role.SEER:
            visible = True
        if request.kind == "protect" and s_role is Role.DOCTOR:
            visible = True
        if visible:
            return moves.get(key)
        victim, protected = night_of(request.day)
        if request.kind == "nominate":
            last = [w for w in b.wolves if b.alive[w]][-1] == request.seat
            if last or victim == PASS:
                return victim
            return rng.choice(request.options)  # an earlier wolf's nomination does not count
        if request.kind == "protect":
            if protected is not None and protected == victim:
                return victim
            spare = [o for o in request.options if o != victim]
            return rng.choice(spare)
        return rng.choice(request.options)  # the Seer's inspection

    return step


def compare(
    seed: int, seat: int, alt: int, rules: WerewolfRules, make: Any = WerewolfState
) -> tuple[int, list[str]]:
    """(comparisons made, views that differ) for one game A, seat and world B."""
    roles = deal_roles(DealRng(seed))
    a = make(roles, rules)
    moves = random_game(a, random.Random(seed))
    rng = random.Random(alt)
    b_roles = other_world(a, seat, rng)
    if b_roles is None:
        return 0, []
    a_views = snapshots(make(roles, rules), seat, _copier(moves))  # A again, as it was played
    b = make(b_roles, rules)
    b_views = snapshots(b, seat, follower(a, moves, seat, rng))
    facts = 0
    while facts < min(len(a.public_facts), len(b.public_facts)) and (
        a.public_facts[facts] == b.public_facts[facts]
    ):
        facts += 1
    compared, differ = 0, []
    for key in sorted(set(a_views) & set(b_views)):
        if key[0] <= facts:
            compared += 1
            if a_views[key] != b_views[key]:
                where = f"{name_of(seat)} at {key}"
                differ.append(f"{where}:\n{a_views[key]}\n{b_views[key]}")
    return compared, differ


def _copier(moves: dict[Key, str]) -> Any:
    seen: Counter[tuple[int, str, int]] = Counter()

    def step(state: WerewolfState) -> str | None:
        request = state.request
        assert request is not None
        key3 = (request.seat, request.kind, request.day)
        key = (*key3, seen[key3])
        seen[key3] += 1
        return moves.get(key)

    return step


rules_strategy = st.builds(
    WerewolfRules,
    discussion_rounds=st.integers(1, 3),
    max_days=st.integers(1, 20),
    statement_chars=st.integers(40, 200),
)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    seat=st.integers(0, SEATS - 1),
    alt=st.integers(0, 2**32),
    rules=rules_strategy,
)
def test_a_view_depends_only_on_what_its_seat_may_know(
    seed: int, seat: int, alt: int, rules: WerewolfRules
) -> None:
    _, differ = compare(seed, seat, alt, rules)
    assert not differ, differ[0]


def sweep(make: Any = WerewolfState, games: int = 60) -> tuple[int, list[str]]:
    total, found = 0, []
    for seed in range(games):
        compared, differ = compare(seed, seed % SEATS, seed + 1000, WerewolfRules(), make)
        total += compared
        found += differ
    return total, found


def test_the_sweep_compares_many_views_of_other_deals_and_finds_them_equal() -> None:
    compared, differ = sweep()
    assert not differ, differ[0]
    assert compared >= 2000  # 60 games, other deals each: 2,555 views compared when written


class DawnTellsTheRole(WerewolfState):
    """Planted leak: the dawn announcement carries the dead player's role."""

    def _log(self, kind: Any, audience: Audience, **fields: Any) -> None:
        if kind == "dawn" and fields.get("target") is not None:
            fields["role"] = self.roles[fields["target"]]
        super()._log(kind, audience, **fields)


class PublicInspection(WerewolfState):
    """Planted leak: the Seer's inspection is logged for everyone."""

    def _log(self, kind: Any, audience: Audience, **fields: Any) -> None:
        super()._log(kind, None if kind == "inspect" else audience, **fields)


class NightRequestsShown(WerewolfState):
    """Planted leak: every seat's view shows whose decision is pending."""

    def view(self, seat: int) -> PlayerView:
        request = self.request
        shown = None if request is None else replace(request, seat=seat)
        return derive_view(seat, self.visible_events(seat), shown)


def test_each_planted_leak_is_caught() -> None:
    for leaky in (DawnTellsTheRole, PublicInspection, NightRequestsShown):
        _, differ = sweep(leaky, games=20)
        assert differ, f"{leaky.__name__} was not caught"
