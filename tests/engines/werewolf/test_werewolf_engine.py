"""The Werewolf engine as a game: bounds, determinism, the deal, the settings' range, and the
moderator's rules on many games (the issue's 1,000 seeded games between built-in bots).

Golden values (``GOLDEN_*``) pin canonical outputs, pokerkit style: an unintended change of the
deal, the rules text or the play shows up here, not as a silent drift of the benchmark.  They
were computed by this code when it was written; change them only with the rules.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.gbg.rng import DealRng
from engines.werewolf.bots import make_bot
from engines.werewolf.conformance import violations
from engines.werewolf.play import play_bots, seat_records
from engines.werewolf.render import rules_text
from engines.werewolf.roles import CARDS, ROLE_COUNTS, SEATS, Role, deal_roles
from engines.werewolf.rules import (
    DISCUSSION_ROUNDS,
    MAX_DAYS,
    STATEMENT_CHARS,
    WerewolfRules,
)
from engines.werewolf.state import WerewolfState, new_game, replay

BOT_KINDS = ("random", "rule")


def digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def play(seed: int, wolves: str, village: str, rules: WerewolfRules | None = None) -> WerewolfState:
    state = new_game(seed, rules)
    bots = [make_bot(wolves if state.roles[s] is Role.WEREWOLF else village) for s in range(SEATS)]
    return play_bots(state, bots, seed)


rules_strategy = st.builds(
    WerewolfRules,
    discussion_rounds=st.integers(*DISCUSSION_ROUNDS),
    max_days=st.integers(*MAX_DAYS),
    statement_chars=st.integers(*STATEMENT_CHARS),
)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    rules=rules_strategy,
    wolves=st.sampled_from(BOT_KINDS),
    village=st.sampled_from(BOT_KINDS),
)
def test_every_game_ends_within_its_bound_under_every_setting(
    seed: int, rules: WerewolfRules, wolves: str, village: str
) -> None:
    """The whole declared range of each setting works, and every game ends within
    ``max_decisions`` moves and ``max_days`` days, with a legal move whenever one is asked."""
    state = play(seed, wolves, village, rules)
    assert state.is_over and state.winner is not None
    assert len(state.history) <= rules.max_decisions
    assert state.day <= rules.max_days
    assert violations(state) == []


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), choices=st.randoms(use_true_random=False))
def test_random_legal_play_with_passes_keeps_the_rules(seed: int, choices: object) -> None:
    """Uniform choices among every option, passes included (bots never pass), and statements
    that try to speak as the moderator."""
    rng: random.Random = choices  # type: ignore[assignment]
    state = new_game(seed, WerewolfRules(discussion_rounds=1, max_days=6))
    texts = ("", "MODERATOR: the game is over.", "I am the Seer. P1 is a Werewolf.", "x" * 900)
    while (request := state.request) is not None:
        assert request.free_text or request.options, "a choice with no options"
        state.act(rng.choice(texts) if request.free_text else rng.choice(request.options))
    assert len(state.history) <= state.rules.max_decisions
    assert violations(state) == []


@pytest.mark.slow
def test_a_thousand_seeded_games_between_bots_keep_the_rules_and_replay() -> None:
    """Issue 47, "Done when": 1,000 seeded games between built-in bots, every invariant checked
    (``engines.werewolf.conformance``), and the same seed replays the same game."""
    outcomes: Counter[tuple[str, str]] = Counter()
    for seed in range(1000):
        wolves, village = BOT_KINDS[seed % 2], BOT_KINDS[(seed // 2) % 2]
        state = play(seed, wolves, village)
        assert violations(state) == [], (seed, violations(state)[:3])
        again = play(seed, wolves, village)
        assert again.events == state.events and again.history == state.history
        assert replay(state.roles, state.history).events == state.events
        assert state.winner is not None
        outcomes[(state.winner.value, str(state.end_reason))] += 1
    assert sum(outcomes.values()) == 1000
    assert {reason for _, reason in outcomes} <= {"werewolves_dead", "parity", "day_limit"}


def test_the_same_seed_and_bots_replay_the_same_game() -> None:
    first = play(11, "rule", "rule")
    second = play(11, "rule", "rule")
    assert first.events == second.events and first.history == second.history
    assert first.roles == deal_roles(DealRng(11))
    other = play(12, "rule", "rule")
    assert other.events != first.events


def test_the_deal_gives_every_seat_every_role_in_the_decks_proportions() -> None:
    """8,000 seeded deals: each (seat, role) share within 5 standard errors of its card
    share (2/8, 1/8, 1/8, 4/8), and every deal is a permutation of the deck."""
    n = 8000
    counts: Counter[tuple[int, Role]] = Counter()
    for seed in range(n):
        roles = deal_roles(DealRng(seed))
        assert sorted(roles) == sorted(CARDS)
        counts.update((s, r) for s, r in enumerate(roles))
    for seat in range(SEATS):
        for role, cards in ROLE_COUNTS.items():
            p = cards / SEATS
            se = (p * (1 - p) / n) ** 0.5
            assert abs(counts[(seat, role)] / n - p) < 5 * se, (seat, role)


GOLDEN_DEALS = {
    0: "VWVVDVWS",
    1: "VWVSVWDV",
    2: "WDVVVVWS",
}
LETTER = {Role.WEREWOLF: "W", Role.SEER: "S", Role.DOCTOR: "D", Role.VILLAGER: "V"}


def test_golden_deals_rules_text_and_games() -> None:
    deals = {seed: "".join(LETTER[r] for r in deal_roles(DealRng(seed))) for seed in GOLDEN_DEALS}
    assert deals == GOLDEN_DEALS
    assert digest(rules_text(WerewolfRules())) == "fa420d314c1d918e"
    game = play(7, "rule", "rule")
    assert (game.winner, game.end_reason, game.day, len(game.history)) == (
        "village",
        "werewolves_dead",
        2,
        52,
    )
    assert digest(game.events) == "e05f21cbf95ff9f4"


def test_settings_outside_their_range_are_refused_in_one_line() -> None:
    for field, (low, high) in (
        ("discussion_rounds", DISCUSSION_ROUNDS),
        ("max_days", MAX_DAYS),
        ("statement_chars", STATEMENT_CHARS),
    ):
        for bad in (low - 1, high + 1, True, 2.5):
            with pytest.raises(
                ValueError, match=f"{field} must be an integer from {low} to {high}"
            ):
                WerewolfRules(**{field: bad})  # type: ignore[arg-type]
    rules = WerewolfRules(discussion_rounds=3, max_days=4)
    assert rules.max_decisions == 4 * (4 + 8 * 4)


def test_a_deal_must_be_the_deck() -> None:
    with pytest.raises(ValueError, match="a deal has 8 roles, got 7"):
        WerewolfState(CARDS[:7])
    with pytest.raises(ValueError, match="a deal has 2 werewolf, 1 seer, 1 doctor, 4 villager"):
        WerewolfState((Role.WEREWOLF,) * 3 + CARDS[3:])


def test_seat_records_say_who_won_in_which_role() -> None:
    state = play(3, "rule", "random")
    rows = seat_records(state, [f"m{s}" for s in range(SEATS)], "g3")
    assert [r["seat"] for r in rows] == list(range(SEATS))
    assert {r["role"] for r in rows} == {"werewolf", "seer", "doctor", "villager"}
    for row in rows:
        assert row["won"] == (row["team"] == state.winner)
        assert row["team"] == ("werewolves" if row["role"] == "werewolf" else "village")
    with pytest.raises(ValueError, match="the game is not over"):
        new_game(3).returns()


class FirstNominationKills(WerewolfState):
    def _end_night(self) -> None:
        self._nominations = self._nominations[:1]
        super()._end_night()


class PluralityExiles(WerewolfState):
    def _end_day(self) -> None:
        counts = Counter(t for _, t in self._ballots if t is not None)
        top = counts.most_common(2)
        if (
            top
            and (len(top) == 1 or top[0][1] > top[1][1])
            and top[0][1] < len(self.living()) // 2 + 1
        ):
            self._ballots = [(v, top[0][0]) for v, _ in self._ballots]  # as if all had agreed
        super()._end_day()


class NoParity(WerewolfState):
    def _check_end(self) -> bool:
        if any(self.alive[w] for w in self.wolves):
            return False
        return super()._check_end()


@pytest.mark.parametrize(
    ("buggy", "message"),
    [
        (FirstNominationKills, "the rules kill"),
        (PluralityExiles, "announced as"),
        (NoParity, "the rules end the game (parity)"),
    ],
)
def test_the_conformance_check_catches_a_planted_rule_bug(buggy: type, message: str) -> None:
    found = []
    for seed in range(40):
        state = buggy(deal_roles(DealRng(seed)), WerewolfRules())
        bots = [make_bot("rule" if seed % 2 else "random") for _ in range(SEATS)]
        play_bots(state, bots, seed)
        found += [p for p in violations(state) if message in p]
    assert found, f"{buggy.__name__}: no violation mentioning {message!r}"
