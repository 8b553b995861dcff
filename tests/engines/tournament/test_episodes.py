"""Multi-hand episodes: paired mirrors, carried stacks, visible history, and the adaptation
measure rising for a planted adaptive bot against a fixed exploitable one (issue 19)."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.agents.adaptive import AdaptiveAgent, OverfoldAgent, fold_to_bets
from engines.agents.base import BuiltinPlayer, Player
from engines.agents.builtin import builtin_agent
from engines.gbg.engine import new_deal
from engines.gbg.presets import PRESETS
from engines.stats.adaptation import adaptation, adaptation_table, per_episode, per_hand
from engines.tournament.episodes import (
    HAND_COLUMNS,
    EpisodeConfig,
    HandRecord,
    episode_schedule,
    history_text,
    play_builtin_episode,
)
from engines.tournament.schedule import Game, preset_game_seed


def game(name: str) -> Game:
    spec = PRESETS[name]()
    return Game(name, preset_game_seed(spec), spec)


def lineup(*pairs: tuple[str, str]) -> dict[str, Player]:
    return {name: BuiltinPlayer(name, builtin_agent(agent)) for name, agent in pairs}


def play(pairs, games, episodes, config, players) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    schedule = episode_schedule(pairs, games, episodes, config)
    rows = [row for ep in schedule for row in play_builtin_episode(ep, players, config)]
    return pd.DataFrame(rows, columns=list(HAND_COLUMNS))


@pytest.fixture(scope="module")
def kuhn_episodes() -> pd.DataFrame:
    players = lineup(
        ("overfolder", "overfolder"), ("adaptive", "adaptive"), ("heuristic", "heuristic")
    )
    pairs = [("adaptive", "overfolder"), ("heuristic", "overfolder")]
    return play(pairs, [game("kuhn")], 30, EpisodeConfig(hands=20), players)


def test_the_adaptive_bot_margin_rises_over_the_hands(kuhn_episodes: pd.DataFrame) -> None:
    """Against the fixed exploitable bot, the planted adaptive strategy's margin rises over the
    20 hands (interval above 0); the non-adaptive heuristic's does not (interval holds 0)."""
    rng = np.random.default_rng(19)
    adaptive = adaptation(kuhn_episodes, "adaptive", "overfolder", 1000, rng)
    fixed = adaptation(kuhn_episodes, "heuristic", "overfolder", 1000, rng)
    assert adaptive["change"].low > 0.0
    assert fixed["change"].low < 0.0 < fixed["change"].high
    assert adaptive["change"].value > fixed["change"].value + 0.2
    assert adaptive["late"].value > adaptive["early"].value
    # the opponent's view is the mirror image
    against = adaptation(kuhn_episodes, "overfolder", "adaptive", 10, rng)
    assert against["change"].value == pytest.approx(-adaptive["change"].value)
    table = adaptation_table(kuhn_episodes, 200, rng)
    row = table[(table["player"] == "adaptive") & (table["quantity"] == "change")]
    assert row["episode_pairs"].item() == 30 and row["hands"].item() == 2 * 30 * 20


def test_per_episode_and_per_hand_statistics(kuhn_episodes: pd.DataFrame) -> None:
    episodes = per_episode(kuhn_episodes)
    assert len(episodes) == 2 * 2 * 30 and (episodes["hands"] == 20).all()
    total = kuhn_episodes.groupby("episode_id")["margin_first"].sum()
    assert episodes.set_index("episode_id")["margin_first"].equals(
        total.loc[episodes["episode_id"]]
    )
    hands = per_hand(kuhn_episodes, "adaptive", "overfolder")
    assert list(hands["hand"]) == list(range(20)) and (hands["episodes"] == 60).all()


def test_mirrored_episodes_share_hand_seeds_with_seats_swapped(kuhn_episodes: pd.DataFrame) -> None:
    for _, pair in kuhn_episodes.groupby("pair_id"):
        zero = pair[pair["mirror"] == 0].set_index("hand")
        one = pair[pair["mirror"] == 1].set_index("hand")
        assert (zero["play_seed"] == one["play_seed"]).all()
        assert (zero["alice"] == one["bob"]).all()
        # within an episode the seats alternate hand by hand
        assert (zero["alice"].iloc[::2] == zero["first"].iloc[::2]).all()
        assert (zero["alice"].iloc[1::2] == zero["second"].iloc[1::2]).all()
    assert (kuhn_episodes["alice_chip_delta"] + kuhn_episodes["bob_chip_delta"] == 0).all()


@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(["kuhn", "leduc", "example4643"]),
    hands=st.integers(1, 12),
    reveal=st.sampled_from(["showdown", "all"]),
    k=st.integers(0, 3),
)
def test_carried_stacks_follow_the_bankrolls(name: str, hands: int, reveal: str, k: int) -> None:
    """Carried stacks: each hand is played at the smaller bankroll; an episode stops early only
    when a bankroll can no longer pay the ante and one chip."""
    g = game(name)
    players = lineup(("a", "random"), ("b", "heuristic"))
    config = EpisodeConfig(hands=hands, stacks="carried", reveal=reveal)  # type: ignore[arg-type]
    schedule = episode_schedule([("a", "b")], [g], k + 1, config)[-2:]
    for episode in schedule:
        rows = play_builtin_episode(episode, players, config)
        bank = {"a": g.spec.stack, "b": g.spec.stack}
        for row in rows:
            assert row["stack"] == min(bank.values())
            assert row["alice_chip_delta"] + row["bob_chip_delta"] == 0
            assert -row["stack"] <= row["alice_chip_delta"] <= row["stack"]
            bank[row["alice"]] += row["alice_chip_delta"]
            bank[row["bob"]] += row["bob_chip_delta"]
        assert sum(bank.values()) == 2 * g.spec.stack
        if len(rows) < hands:
            assert min(bank.values()) < g.spec.ante + 1


def test_reset_stacks_play_the_game_as_specified(kuhn_episodes: pd.DataFrame) -> None:
    assert (kuhn_episodes["stack"] == PRESETS["kuhn"]().stack).all()
    assert (kuhn_episodes["spec_hash"] == PRESETS["kuhn"]().spec_hash).all()


class Recorder:
    """A history-reading agent that records what it was shown and checks or calls."""

    name = "recorder"

    def __init__(self) -> None:
        self.seen: list[tuple[int, str]] = []

    def act(self, state, seat, rng):  # type: ignore[no-untyped-def]
        return self.act_with_history(state, seat, rng, (), "")

    def act_with_history(self, state, seat, rng, history, me):  # type: ignore[no-untyped-def]
        self.seen.append((len(history), history_text(history, me)))
        legal = state.legal_actions()
        return "check" if "check" in legal else "call" if "call" in legal else legal[0]


@pytest.mark.parametrize("reveal", ["showdown", "all"])
def test_earlier_hands_are_visible_with_the_cards_shown(reveal: str) -> None:
    recorder = Recorder()
    players: dict[str, Player] = {
        "rec": BuiltinPlayer("rec", recorder),
        "bot": BuiltinPlayer("bot", OverfoldAgent(fold_rate=1.0)),
    }
    config = EpisodeConfig(hands=6, reveal=reveal)  # type: ignore[arg-type]
    episode = episode_schedule([("bot", "rec")], [game("kuhn")], 1, config)[0]
    rows = play_builtin_episode(episode, players, config)
    counts = [n for n, _ in recorder.seen]
    assert counts == sorted(counts) and counts[0] == 0 and counts[-1] == 5
    last = recorder.seen[-1][1]
    assert last.startswith("Earlier hands of this episode (5)")
    for row in rows[:5]:
        assert f"Hand {row['hand'] + 1}: you sat" in last
    # nobody bets, so every hand is a showdown and both hands are shown under either rule
    assert all(r["ended_by"] == "showdown" for r in rows)
    assert last.count("showed") == 2 * 5


def test_cards_after_a_fold_are_shown_only_when_everything_is_revealed() -> None:
    h = HandRecord(
        0, "a", "b", (("alice", "bet 1"), ("bob", "fold")), (), "fold", 1, -1, "complete"
    )
    text = history_text([h], "b")
    assert "you sat Bob" in text and "Alice bet 1, Bob fold" in text and "No cards shown" in text
    assert "Your result: -1 chips" in text
    for reveal, shown in (("showdown", 0), ("all", 2)):
        watcher = Watcher()
        players: dict[str, Player] = {
            "x": BuiltinPlayer("x", watcher),
            "y": BuiltinPlayer("y", OverfoldAgent()),
        }
        config = EpisodeConfig(hands=30, reveal=reveal)  # type: ignore[arg-type]
        episode = episode_schedule([("x", "y")], [game("kuhn")], 1, config)[0]
        play_builtin_episode(episode, players, config)
        folds = [h for h in watcher.history if h.ended_by == "fold"]
        assert folds  # the overfolder folds to the adaptive bot's bets
        assert all(len(h.shown) == shown for h in folds)
        assert all(len(h.shown) == 2 for h in watcher.history if h.ended_by == "showdown")


class Watcher(AdaptiveAgent):
    """The adaptive bot, keeping the longest history it was shown."""

    def __init__(self) -> None:
        super().__init__()
        self.history: list[HandRecord] = []

    def act_with_history(self, state, seat, rng, history, me):  # type: ignore[no-untyped-def]
        if len(history) > len(self.history):
            self.history = list(history)
        return super().act_with_history(state, seat, rng, history, me)


def test_adaptive_bot_reads_fold_frequency_from_history() -> None:
    bet_fold = (("alice", "bet 1"), ("bob", "fold"))
    check_bet_call = (("alice", "check"), ("bob", "bet 1"), ("alice", "call"))
    hands = [
        HandRecord(0, "me", "op", bet_fold, (), "fold", 1, -1, "complete"),
        HandRecord(1, "op", "me", check_bet_call, (), "showdown", 2, -2, "complete"),
        HandRecord(2, "op", "me", bet_fold, (), "fold", 1, -1, "complete"),
    ]
    assert fold_to_bets(hands, "me") == (1, 2)
    assert fold_to_bets(hands, "op") == (1, 1)
    agent = AdaptiveAgent()
    assert agent.bluff_rate([], "me") == pytest.approx(0.25)
    assert agent.bluff_rate(hands, "me") == pytest.approx(2 / 6)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"hands": 0}, "1 to 1000 hands"),
        ({"hands": 1001}, "1 to 1000 hands"),
        ({"stacks": "kept"}, "stacks must be one of reset, carried"),
        ({"reveal": "never"}, "reveal must be one of showdown, all"),
    ],
)
def test_bad_episode_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EpisodeConfig(**kwargs)  # type: ignore[arg-type]


def test_bad_schedules_and_agents_are_refused() -> None:
    with pytest.raises(ValueError, match="two different players"):
        episode_schedule([("a", "a")], [game("kuhn")], 1, EpisodeConfig())
    with pytest.raises(ValueError, match="at least 1"):
        episode_schedule([("a", "b")], [game("kuhn")], 0, EpisodeConfig())
    with pytest.raises(ValueError, match="fold_rate"):
        OverfoldAgent(fold_rate=1.5)
    with pytest.raises(ValueError, match="prior"):
        AdaptiveAgent(prior_calls=0.0)
    with pytest.raises(ValueError, match="no decided hands"):
        adaptation(pd.DataFrame(columns=list(HAND_COLUMNS)), "a", "b", 10, np.random.default_rng(0))


def test_overfolder_is_a_fixed_policy() -> None:
    state = new_deal(PRESETS["kuhn"](), 3)
    state.apply("bet 1")
    agent = OverfoldAgent(fold_rate=0.8)
    folds = sum(agent.act(state, 1, random.Random(s)) == "fold" for s in range(2000))
    assert 0.77 < folds / 2000 < 0.83


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(["kuhn", "leduc", "holdem-limit", "example4643"]),
    seed=st.integers(0, 2**32 - 1),
    fold_rate=st.floats(0.0, 1.0),
    weak=st.floats(0.0, 1.0),
    gap=st.floats(0.0, 1.0),
    prior=st.tuples(st.floats(0.01, 50.0), st.floats(0.01, 50.0)),
)
def test_episode_bots_play_legally_over_their_parameter_ranges(
    name: str,
    seed: int,
    fold_rate: float,
    weak: float,
    gap: float,
    prior: tuple[float, float],
) -> None:
    """Every setting the two bots accept plays a whole two-hand episode legally, with either
    stack mode, on every preset."""
    strong = weak + (1.0 - weak) * gap
    players: dict[str, Player] = {
        "o": BuiltinPlayer("o", OverfoldAgent(fold_rate=fold_rate)),
        "a": BuiltinPlayer(
            "a", AdaptiveAgent(strong=strong, weak=weak, prior_folds=prior[0], prior_calls=prior[1])
        ),
    }
    for stacks in ("reset", "carried"):
        config = EpisodeConfig(hands=2, stacks=stacks)  # type: ignore[arg-type]
        episode = episode_schedule([("a", "o")], [game(name)], 1 + seed % 3, config)[-1]
        rows = play_builtin_episode(episode, players, config)
        assert rows and all(r["status"] == "complete" for r in rows)
