"""Game Arena's poker format for heads-up no-limit hold'em (issue 46, item 3): duplicate
100-hand episodes at blinds 1-2 and 100 big blinds, stacks reset each hand, both hole cards
revealed after every hand, the seats and cards swapped between the two episodes of a pair, and
the retry rule (a second illegal answer plays check or fold)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import resolve_games
from arena.reference_engines import make_builtin
from arena.roster import parse_roster
from arena.tournament.poker_episodes import (
    GAME_ARENA,
    HAND_COLUMNS,
    PokerFormat,
    bb_per_100,
    check_format_game,
    first_chips_per_pair,
    play_builtin_poker_episode,
    poker_schedule,
    run_poker_tournament,
)
from engines.agents.base import BuiltinPlayer, Player
from tests.doubles.scripted_server import Answer, Request, ScriptedServer, completion

HUNL = resolve_games(["openspiel:hunl"])[0]


def bots() -> dict[str, Player]:
    return {
        "mcts": BuiltinPlayer("mcts", make_builtin("mcts", {"simulations": 10})),
        "random": BuiltinPlayer("random", make_builtin("random")),
    }


@pytest.fixture(scope="module")
def duplicate() -> pd.DataFrame:
    """One Game Arena episode pair (2 x 100 hands) of MCTS against random."""
    rows = [
        row
        for episode in poker_schedule([("random", "mcts")], HUNL, 1)
        for row in play_builtin_poker_episode(episode, bots())
    ]
    return pd.DataFrame(rows, columns=list(HAND_COLUMNS))


def test_the_default_format_is_game_arenas() -> None:
    assert PokerFormat(hands=100, duplicate=True, reveal="all") == GAME_ARENA
    spec = check_format_game(HUNL)
    assert spec.protocol.name == "game-arena-poker"
    assert (spec.protocol.rethinks, spec.protocol.exhausted) == (1, "conservative")


def test_an_episode_pair_plays_100_hands_each_with_seats_and_cards_swapped(
    duplicate: pd.DataFrame,
) -> None:
    assert duplicate.groupby("mirror").size().to_dict() == {0: 100, 1: 100}
    assert (duplicate["status"] == "complete").all()
    zero = duplicate.loc[duplicate["mirror"] == 0].set_index("hand")
    one = duplicate.loc[duplicate["mirror"] == 1].set_index("hand")
    assert (zero["deck_seed"] == one["deck_seed"]).all()
    # the same cards to the same seat, held by the other player
    assert (zero["alice_cards"] == one["alice_cards"]).all()
    assert (zero["bob_cards"] == one["bob_cards"]).all()
    assert (zero["alice"] == one["bob"]).all()
    # the button alternates hand by hand
    assert list(zero["alice"].iloc[:4]) == ["mcts", "random", "mcts", "random"]
    assert zero["alice_cards"].nunique() > 90  # fresh decks every hand


def test_every_hand_starts_from_100_big_blinds(duplicate: pd.DataFrame) -> None:
    """Stacks reset: no hand moves more than 200 chips, and all-in hands move exactly 200 at
    any point of the episode, whatever was won or lost before."""
    assert duplicate["alice_chip_delta"].abs().max() == 200
    assert (duplicate["alice_chip_delta"] + duplicate["bob_chip_delta"] == 0).all()
    all_in = duplicate.loc[duplicate["alice_chip_delta"].abs() == 200, "hand"]
    assert all_in.min() < 20 and all_in.max() > 80


def test_plain_dealing_gives_the_second_episode_other_decks() -> None:
    plain = poker_schedule([("a", "b")], HUNL, 1, PokerFormat(duplicate=False))
    dup = poker_schedule([("a", "b")], HUNL, 1)
    assert dup[0].deck_seeds == dup[1].deck_seeds
    assert plain[0].deck_seeds == dup[0].deck_seeds
    assert set(plain[0].deck_seeds).isdisjoint(plain[1].deck_seeds)


def test_the_per_pair_margin_is_the_first_players_chips() -> None:
    rows = [{"pair_id": "p", "margin_first": 10}, {"pair_id": "p", "margin_first": -4}]
    assert first_chips_per_pair(rows) == {"p": 3.0}
    assert bb_per_100(3.0, 200) == pytest.approx(0.75)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 1000), st.booleans(), st.sampled_from(["showdown", "all"]))
def test_every_declared_format_schedules(hands: int, duplicate: bool, reveal: str) -> None:
    fmt = PokerFormat(hands=hands, duplicate=duplicate, reveal=reveal)  # type: ignore[arg-type]
    pair = poker_schedule([("x", "y")], HUNL, 1, fmt)
    assert [len(e.deck_seeds) for e in pair] == [hands, hands]
    assert pair[0].seats(0) == pair[1].seats(1) == ("x", "y")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"hands": 0}, "an episode has 1 to 1000 hands"),
        ({"hands": 1001}, "an episode has 1 to 1000 hands"),
        ({"reveal": "never"}, "reveal must be showdown or all"),
    ],
)
def test_a_bad_format_is_one_line(args: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PokerFormat(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("openspiel:chess", "is not hold'em"),
        ("openspiel:universal_poker", "is not played at blinds 1-2 with 100 big blinds"),
    ],
)
def test_another_game_is_refused(token: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        poker_schedule([("a", "b")], resolve_games([token])[0], 1)


# --- an LLM over the loopback interface ---------------------------------------------------------

_EARLIER = re.compile(r"Earlier hands of this episode \((\d+)\)")


class Recorder:
    """A script that answers ``check``/``call`` (or nonsense, when ``illegal``) and keeps every
    request's last user message."""

    def __init__(self, illegal: bool) -> None:
        self.illegal = illegal
        self.prompts: list[str] = []

    def __call__(self, request: Request) -> Answer:
        text = str(request.body["messages"][-1]["content"])
        self.prompts.append(text)
        if self.illegal:
            return completion(json.dumps({"action": "raise the roof"}))
        move = "check" if "check" in text.split("Legal moves:")[-1] else "call"
        return completion(json.dumps({"action": move}))


def llm_roster(url: str) -> dict[str, object]:
    players: list[dict[str, object]] = [
        {"name": "random", "kind": "builtin", "agent": "random"},
        {"name": "llm", "kind": "openai", "model": "scripted", "base_url": url,
         "settings": {"temperature": 0, "max_tokens": 16}},
    ]  # fmt: skip
    return {"players": players, "providers": {f"openai@{url}": {"concurrency": 1}}}


def play_llm(script: Recorder, folder: Path, hands: int) -> pd.DataFrame:
    with ScriptedServer(script) as server:
        roster = parse_roster(llm_roster(server.url))
        path, stopped = run_poker_tournament(
            roster, [("llm", "random")], HUNL, 1, folder, PokerFormat(hands=hands)
        )
    assert stopped == {}
    return pd.read_parquet(path)


def test_an_llm_plays_100_hand_episodes_and_sees_every_hand_revealed(tmp_path: Path) -> None:
    script = Recorder(illegal=False)
    hands = play_llm(script, tmp_path, 100)
    assert len(hands) == 200 and (hands["status"] == "complete").all()
    assert set(hands["first"]) == {"llm"} and set(hands["second"]) == {"random"}
    # a prompt of hand k (k > 0) of an episode lists the k earlier hands with both hands' cards
    seen = [int(m.group(1)) for p in script.prompts if (m := _EARLIER.search(p))]
    assert max(seen) == 99
    last = next(p for p in reversed(script.prompts) if "(99)" in p)
    first_mirror_1 = hands.loc[hands["mirror"] == 1].sort_values("hand").iloc[0]
    llm_cards = first_mirror_1["alice_cards" if first_mirror_1["alice"] == "llm" else "bob_cards"]
    other = first_mirror_1["bob_cards" if first_mirror_1["alice"] == "llm" else "alice_cards"]
    assert "Hand 1: you were" in last
    assert f"Your cards {llm_cards}, your opponent's {other}." in last
    assert last.count("Your cards ") == 99


def test_a_second_illegal_answer_plays_check_or_fold(tmp_path: Path) -> None:
    script = Recorder(illegal=True)
    hands = play_llm(script, tmp_path, 6)
    assert (hands["status"] == "complete").all()  # no forfeit
    # one retry per move: two requests per decision
    decisions = len(script.prompts) // 2
    assert len(script.prompts) == 2 * decisions and decisions >= 6
    folds = hands.loc[hands["ended_by"] == "fold"]
    assert len(folds) > 0
    # the histories the LLM read: each of its own moves was a check or a fold
    own = []
    for prompt in script.prompts:
        for role, acts in re.findall(r"you were (the \w+ blind)\. Actions: ([^.]*)\.", prompt):
            own += [a.removeprefix(role + " ") for a in acts.split(", ") if a.startswith(role)]
    assert own and set(own) <= {"check", "fold"}
    # a folded hand's cards are revealed too (Game Arena: whether or not it reached a showdown)
    assert any(re.search(r"Ended by fold\. Your cards \w{4}, your opponent's \w{4}\.", p)
               for p in script.prompts)  # fmt: skip
