"""The OpenSpiel adapter: names, seeded chance, termination, zero-sum returns, the move reader."""

from __future__ import annotations

import random

import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assets.run_profiles import get_profile
from engines.agents.parser import parse_move
from engines.openspiel import OpenSpielState, parse_openspiel
from engines.openspiel.determinize import determinize
from engines.openspiel.spec import PROTOCOLS
from engines.openspiel.text import read_move, rules_text

TOKENS = list(get_profile("paper").openspiel_games)  # the seven games the paper profile plays
SPECS = {token: parse_openspiel(token) for token in TOKENS}
CHANCE = ["openspiel:liars_dice", "openspiel:hunl"]


def random_deal(token: str, play_seed: int, move_seed: int) -> OpenSpielState:
    state = SPECS[token].new_deal(play_seed)
    rng = random.Random(move_seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)  # named, unique
        state.apply(rng.choice(legal))
    return state


@pytest.mark.parametrize("token", TOKENS)
@settings(max_examples=8, deadline=None)
@given(play_seed=st.integers(0, 2**63 - 1), move_seed=st.integers(0, 2**32))
def test_every_random_deal_ends_zero_sum(token: str, play_seed: int, move_seed: int) -> None:
    state = random_deal(token, play_seed, move_seed)
    a, b = state.returns()
    assert a + b == 0 and isinstance(a, int)
    spec = SPECS[token]
    if spec.move_cap is not None:
        assert len(state.moves) <= spec.move_cap
    if state.adjudicated is None:
        assert state.ps.is_terminal()
        assert (a, b) == tuple(round(v) for v in state.ps.returns())
    else:
        assert (a, b) == (0, 0) and len(state.moves) == spec.move_cap


@pytest.mark.parametrize("token", CHANCE)
@settings(max_examples=25, deadline=None)
@given(
    play_seed=st.integers(0, 2**63 - 1), first=st.integers(0, 2**32), second=st.integers(0, 2**32)
)
def test_paired_seats_share_the_deal(token: str, play_seed: int, first: int, second: int) -> None:
    """Two deals of one play seed deal the same cards/dice to the same seat, whatever is played
    (so with the seats swapped each player gets the other's hand: the duplicate format)."""
    one = random_deal(token, play_seed, first)
    two = random_deal(token, play_seed, second)
    n = min(len(one.chance_outcomes), len(two.chance_outcomes))
    assert n >= 2  # the private deal comes first
    assert one.chance_outcomes[:n] == two.chance_outcomes[:n]
    private = [one.ps.information_state_string(0), two.ps.information_state_string(0)]
    if token == "openspiel:liars_dice":
        assert private[0].split()[0] == private[1].split()[0]


def test_play_seeds_change_the_deal() -> None:
    hands = {tuple(SPECS["openspiel:hunl"].new_deal(s).chance_outcomes[:4]) for s in range(30)}
    assert len(hands) > 25


def test_perfect_information_games_start_alike_whatever_the_seed() -> None:
    for token in ("openspiel:chess", "openspiel:go(board_size=9)"):
        assert SPECS[token].new_deal(1).legal_actions() == SPECS[token].new_deal(2).legal_actions()


def test_names_follow_each_family_notation() -> None:
    chess = SPECS["openspiel:chess"].new_deal(0)
    assert chess.current_player == 1  # OpenSpiel's White is player 1
    assert {"e2e4", "g1f3", "a2a3"} <= set(chess.legal_actions())  # UCI
    go = SPECS["openspiel:go(board_size=9)"].new_deal(0)
    assert {"a1", "e5", "j9", "pass"} <= set(go.legal_actions()) and "i1" not in go.legal_actions()
    assert SPECS["openspiel:connect_four"].new_deal(0).legal_actions() == tuple("abcdefg")
    assert "a1" in SPECS["openspiel:hex(board_size=7)"].new_deal(0).legal_actions()
    poker = SPECS["openspiel:hunl"].new_deal(0)
    menu = poker.legal_actions()
    # Preflop the small blind (seat 1) acts first facing the big blind of 2: fold, call, raises.
    assert poker.current_player == 1
    assert menu[:3] == ("fold", "call", "raise 4") and menu[-1] == "raise 200"
    assert poker.phase_id == "preflop" and poker.contrib == [2, 1]


def test_the_move_cap_adjudicates_a_draw() -> None:
    spec = parse_openspiel("openspiel:chess")
    assert spec.move_cap == 400 and spec.adjudication == "draw"
    state = spec.new_deal(0)
    rng = random.Random(1)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    # Random game 1 runs into the cap (found by playing seeds 0-11: 0 ends by the rules after
    # 354 moves, 1 reaches the cap with the game still open).
    assert not state.ps.is_terminal() and len(state.moves) == 400
    assert state.adjudicated == "draw at the move cap (400 moves)"
    assert state.returns() == (0, 0) and state.legal_actions() == ()


def test_the_reader_takes_san_variants_and_uci() -> None:
    state = SPECS["openspiel:chess"].new_deal(0)
    for said, move in [("Nf3", "g1f3"), ("g1f3", "g1f3"), ("e2-e4", "e2e4"), ("nf3", "g1f3")]:
        assert read_move(state, said) == move
    for move in ("e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6"):
        state.apply(str(read_move(state, move)))
    assert read_move(state, "0-0") == "e1g1" and read_move(state, "O-O") == "e1g1"
    assert read_move(state, "Ke2+") == "e1e2"
    assert read_move(state, "Nxe5") == "f3e5" and read_move(state, "Ne5") == "f3e5"
    assert read_move(state, "Qh5#") is None  # not legal: the queen's path is blocked
    assert parse_move(state, '{"action": "Nxe5"}') == ("ok", "f3e5")
    assert parse_move(state, '{"action": "Ke3"}') == ("illegal", None)
    assert parse_move(state, "I castle") == ("unparsable", None)


def test_bishop_and_pawn_captures_are_told_apart() -> None:
    """SAN names differ by case alone (bxa6 pawn, Bxa6 bishop): each reads as itself."""
    state = SPECS["openspiel:chess"].new_deal(0)
    game = "f3 f5 a4 d6 g3 e6 e3 g6 h3 c5 Bg2 Bg7 Bf1 Qh4 Ba6 d5 Na3 d4 Ne2 Bd7 Ng1 e5 d3 Bb5 b3"
    for move in game.split():  # the first such position of random game 0 (found by search)
        state.apply(str(read_move(state, move)))
    assert {"b5a6", "b7a6"} <= set(state.legal_actions())
    assert parse_move(state, '{"action": "bxa6"}') == ("ok", "b7a6")
    assert parse_move(state, '{"action": "Bxa6"}') == ("ok", "b5a6")
    assert parse_move(state, '{"action": "b7a6"}') == ("ok", "b7a6")


@settings(max_examples=15, deadline=None)
@given(move_seed=st.integers(0, 2**32))
def test_cached_chess_names_are_the_fresh_ones(move_seed: int) -> None:
    """Names come from a cache by (seat, action id), promotions named from the position: they
    must equal what OpenSpiel says of the position itself, move after move."""
    from engines.openspiel.text import fresh_names

    state = SPECS["openspiel:chess"].new_deal(0)
    rng = random.Random(move_seed)
    while not state.is_terminal():
        names = state.legal_actions()
        assert list(names) == fresh_names(
            "chess", state.ps, state.current_player, state.action_ids()
        )
        state.apply(rng.choice(names))


def test_promotions_and_piece_moves_to_the_last_rank_are_told_apart() -> None:
    """One action id is a pawn's queen promotion (``a7a8q``) or a piece's move (``a7a8``): in
    random games, with a fresh spec (an empty name cache), both kinds occur and every menu
    equals OpenSpiel's own names of the position."""
    from engines.openspiel.text import _last_rank, fresh_names

    spec = parse_openspiel("openspiel:chess")
    seen = {"promotion": 0, "piece": 0}
    for seed in range(6):
        state = spec.new_deal(0)
        rng = random.Random(seed)
        while not state.is_terminal():
            names = state.legal_actions()
            seat = state.current_player
            assert list(names) == fresh_names("chess", state.ps, seat, state.action_ids())
            seen["promotion"] += sum(len(n) == 5 and n[4] == "q" for n in names)
            seen["piece"] += sum(_last_rank(n, seat) for n in names)
            state.apply(rng.choice(names))
    assert seen["promotion"] > 0 and seen["piece"] > 0, seen


def test_other_families_read_leniently() -> None:
    c4 = SPECS["openspiel:connect_four"].new_deal(0)
    assert read_move(c4, "column d") == "d" and parse_move(c4, '{"action": "D"}') == ("ok", "d")
    dice = SPECS["openspiel:liars_dice"].new_deal(0)
    assert read_move(dice, "1-3") == "bid 1-3" and read_move(dice, "BID 2-6") == "bid 2-6"
    poker = SPECS["openspiel:hunl"].new_deal(0)
    assert (
        read_move(poker, "raise to 10") == "raise 10" and read_move(poker, "all-in") == "raise 200"
    )
    assert parse_move(poker, '{"action": "raise", "amount": 12}') == ("ok", "raise 12")
    bt = SPECS["openspiel:breakthrough"].new_deal(0)
    assert read_move(bt, "a7-a6") == "a7a6"


def test_parameters_and_aliases_hash_as_the_game() -> None:
    assert (
        parse_openspiel("openspiel:go").spec_hash
        == parse_openspiel("openspiel:go(board_size=19)").spec_hash
    )
    assert (
        parse_openspiel("openspiel:go").spec_hash != SPECS["openspiel:go(board_size=9)"].spec_hash
    )
    assert SPECS["openspiel:hunl"].short_name == "universal_poker"
    assert SPECS["openspiel:chess"].protocol == PROTOCOLS["game-arena-chess"]
    assert SPECS["openspiel:hunl"].protocol.exhausted == "conservative"


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("openspiel:", "names no OpenSpiel game"),
        ("openspiel:no_such_game", "OpenSpiel has no game 'no_such_game'"),
        ("openspiel:go(board_size=x)", "not an OpenSpiel game OpenSpiel can load"),
        ("openspiel:kuhn_poker(players=3)", "has 3 players"),
        ("openspiel:matrix_rps", "not a sequential game"),
        ("openspiel:oshi_zumo(horizon=3)", "not a sequential game"),
    ],
)
def test_unfit_games_are_one_clear_line(token: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        parse_openspiel(token)
    assert "\n" not in str(info.value)


def test_rules_name_the_notation_and_the_protocol() -> None:
    chess = rules_text(SPECS["openspiel:chess"])
    assert "standard algebraic notation" in chess and "400 moves" in chess
    assert "3 more time(s); after that, you lose the game" in chess
    assert "blinds 1-2" in rules_text(SPECS["openspiel:hunl"])
    generic = rules_text(parse_openspiel("openspiel:tic_tac_toe"))
    assert "Tic Tac Toe" in generic and "fallback move" in generic


def test_chess_prompt_hides_the_menu_and_others_show_it() -> None:
    chess = SPECS["openspiel:chess"].new_deal(0)
    chess.apply("e2e4")
    chess.apply("e7e5")
    chess.apply("g1f3")
    prompt = chess.turn_prompt(0)
    assert "You play Black" in prompt and "1. e4 e5 2. Nf3" in prompt
    assert "Legal moves" not in prompt
    assert "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq" in prompt
    poker = SPECS["openspiel:hunl"].new_deal(0).turn_prompt(1)
    assert "Legal moves: fold, call, raise N (any whole N from 4 to 200)" in poker


@settings(max_examples=20, deadline=None)
@given(play_seed=st.integers(0, 2**63 - 1), move_seed=st.integers(0, 2**32))
def test_a_determinized_world_keeps_what_the_seat_knows(play_seed: int, move_seed: int) -> None:
    state = SPECS["openspiel:hunl"].new_deal(play_seed)
    rng = random.Random(move_seed)
    for _ in range(rng.randrange(0, 4)):
        if state.is_terminal():
            break
        state.apply(rng.choice([a for a in state.legal_actions() if a != "fold"]))
    if state.is_terminal():
        return
    seat = state.current_player
    world = determinize(state.spec.game, list(state.ps.history()), seat, rng)
    assert world.information_state_string(seat) == state.ps.information_state_string(seat)
    assert world.legal_actions() == state.ps.legal_actions()


def test_a_determinized_world_redraws_the_hidden_die() -> None:
    state = SPECS["openspiel:liars_dice"].new_deal(5)
    seat = state.current_player
    hidden = {
        determinize(state.spec.game, list(state.ps.history()), seat, random.Random(i))
        .information_state_string(1 - seat)
        .split()[0]
        for i in range(40)
    }
    assert len(hidden) >= 4  # the opponent's die is drawn afresh, not copied


def test_pyspiel_is_the_declared_version() -> None:
    from engines.openspiel.spec import OPEN_SPIEL_VERSION

    assert OPEN_SPIEL_VERSION == "2.0.2"
    assert pyspiel.load_game("chess").num_players() == 2
