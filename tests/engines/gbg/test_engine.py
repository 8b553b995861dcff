"""The engine enforces the rules as stated: menus, payoffs, chance, the move triad, replay."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engines.gbg import CHANCE, TERMINAL, new_deal, presets
from engines.gbg.conformance import random_playout
from engines.gbg.engine import State
from engines.gbg.steps import replay


def _deal_cards(state: State, cards: list[int]) -> None:
    for card in cards:
        assert state.current_player == CHANCE
        state.apply_chance(card)


def _kuhn(alice: int, bob: int) -> State:
    state = new_deal(presets.kuhn(), explicit_chance=True)
    _deal_cards(state, [alice, bob])
    return state


J, Q, K = 0, 1, 2  # Kuhn card ids: ranks in deck order, one suit.


@pytest.mark.parametrize(
    ("actions", "cards", "expected"),
    [
        # OpenSpiel kuhn_poker returns: pass-pass is a showdown for the antes (+-1),
        # bet-call a showdown for 2, a fold loses the ante.
        (["check", "check"], (K, J), (1, -1)),
        (["check", "check"], (J, Q), (-1, 1)),
        (["bet 1", "call"], (Q, K), (-2, 2)),
        (["bet 1", "fold"], (J, K), (1, -1)),
        (["check", "bet 1", "fold"], (K, Q), (-1, 1)),
        (["check", "bet 1", "call"], (K, Q), (2, -2)),
    ],
)
def test_kuhn_payoffs(
    actions: list[str], cards: tuple[int, int], expected: tuple[int, int]
) -> None:
    state = _kuhn(*cards)
    for action in actions:
        state.apply(action)
    assert state.is_terminal()
    assert state.returns() == expected


def test_kuhn_menus_match_openspiel_structure() -> None:
    state = _kuhn(J, Q)
    assert state.legal_actions() == ("check", "bet 1")
    state.apply("check")
    assert state.current_player == 1
    assert state.legal_actions() == ("check", "bet 1")
    state.apply("bet 1")
    # One bet at most: facing it, Alice can only fold or call.
    assert state.legal_actions() == ("fold", "call")


def test_leduc_menus_and_raise_cap() -> None:
    state = new_deal(presets.leduc(), explicit_chance=True)
    _deal_cards(state, [0, 2])
    assert state.legal_actions() == ("check", "bet 2")
    state.apply("bet 2")
    assert state.legal_actions() == ("fold", "call", "raise 2")
    state.apply("raise 2")
    assert state.legal_actions() == ("fold", "call")  # two raises per round
    state.apply("call")
    assert state.current_player == CHANCE  # the board card
    state.apply_chance(4)
    assert state.current_player == 0  # player 0 opens both rounds
    assert state.legal_actions() == ("check", "bet 4")
    assert state.pot() == 2 + 2 * 4


def test_leduc_pair_with_board_wins() -> None:
    # Cards: J♠ J♥ Q♠ Q♥ K♠ K♥ = 0..5. Alice J♠, Bob K♠, board J♥: Alice pairs and wins.
    state = new_deal(presets.leduc(), explicit_chance=True)
    _deal_cards(state, [0, 4])
    state.apply("check")
    state.apply("check")
    state.apply_chance(1)
    state.apply("check")
    state.apply("check")
    assert state.returns() == (1, -1)


def test_holdem_blinds_and_option() -> None:
    state = new_deal(presets.holdem_limit(), 7)
    assert state.current_player == 0
    assert state.legal_actions() == ("fold", "call", "raise 2")
    state.apply("call")
    # The big blind has the option: check or raise (the blind counted as the first bet).
    assert state.current_player == 1
    assert state.legal_actions() == ("check", "raise 2")
    state.apply("raise 2")
    state.apply("raise 2")
    state.apply("raise 2")  # the fourth bet of the round
    assert state.legal_actions() == ("fold", "call")


def test_move_triad() -> None:
    state = _kuhn(J, Q)
    assert not state.can_apply("raise 9")
    with pytest.raises(ValueError, match="illegal action 'raise 9'; legal: \\['check', 'bet 1'\\]"):
        state.verify_apply("raise 9")
    with pytest.raises(ValueError, match="illegal action"):
        state.apply("raise 9")
    assert state.history == []
    move = state.apply("check")
    assert (move.ply, move.seat, move.phase, move.action) == (0, 0, "bet", "check")
    with pytest.raises(AttributeError):
        move.action = "bet 1"  # type: ignore[misc]
    state.apply("check")
    assert state.current_player == TERMINAL
    with pytest.raises(ValueError, match="terminal"):
        state.verify_apply("check")


def test_sampled_deals_are_reproducible() -> None:
    spec = presets.example4643()

    def play(seed: int) -> tuple[object, ...]:
        rng = random.Random(99)
        state = new_deal(spec, seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        return (tuple(state.history), tuple(state.events), state.returns())

    assert play(5) == play(5)
    assert len({play(s)[1] for s in range(20)}) > 15  # different seeds, different deals


def test_explicit_replay_reproduces_a_deal() -> None:
    spec = presets.example4643()
    rng = random.Random(3)
    for _ in range(30):
        final, steps = random_playout(spec, rng)
        again = replay(spec, steps)
        assert again.events == final.events
        assert again.returns() == final.returns()


def test_clone_is_independent() -> None:
    state = new_deal(presets.leduc(), 11)
    copy = state.clone()
    state.apply(state.legal_actions()[-1])
    assert copy.history == []
    assert copy.legal_actions() == ("check", "bet 2")
    copy.apply("check")
    assert len(state.history) == 1 and state.history[0].action == "bet 2"


def test_observation_hides_the_opponent_hand() -> None:
    state = _kuhn(J, K)
    obs = state.observation("alice")
    assert obs["hand"] == ["J♠"]
    assert "K♠" not in repr(obs)
    assert obs["legal_actions"] == ["check", "bet 1"]
    assert "legal_actions" not in state.observation("bob")


def test_information_state_is_perfect_recall() -> None:
    a = _kuhn(J, K)
    b = _kuhn(J, Q)
    assert a.information_state(0) == b.information_state(0)  # Bob's card is unseen
    assert a.information_state(1) != b.information_state(1)
    a.apply("check")
    b.apply("bet 1")
    assert a.information_state(1) != b.information_state(1)  # Alice's action is public


def test_every_feature_of_example4643_occurs() -> None:
    spec = presets.example4643()
    kinds: Counter[str] = Counter()
    phases: Counter[str] = Counter()
    rng = random.Random(0)
    for seed in range(400):
        state = new_deal(spec, seed)
        while not state.is_terminal():
            phases[state.phase_id] += 1
            state.apply(rng.choice(state.legal_actions()))
        kinds.update(ev[1] for ev in state.events)
    for kind in ("position", "peek", "risk", "reveal_choices", "transfer", "swap_take", "show"):
        assert kinds[kind] > 0, kind
    for phase in ("bet1", "risky_peek", "bet2", "standoff", "swap"):
        assert phases[phase] > 0, phase


def test_unknown_seat_is_refused() -> None:
    state = _kuhn(J, Q)
    with pytest.raises(ValueError, match="unknown seat 'carol'"):
        state.observation("carol")
