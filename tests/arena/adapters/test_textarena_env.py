"""The TextArena environment, played through TextArena's own loop and wrappers."""

from __future__ import annotations

import json
import random
import re

import pytest
import textarena as ta
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.adapters.textarena_env import ENV_ID, PRESET_IDS, GenstratTextArenaEnv
from engines.gbg.engine import new_deal
from engines.gbg.generator import GenerationConfig
from engines.gbg.presets import leduc
from tests.arena.adapters.support import OPENSPIEL


class MenuAgent(ta.Agent):  # type: ignore[misc]
    """A text agent: reads the last legal menu shown to it and answers one entry, in brackets
    (or bare, for ActionFormattingWrapper to bracket), from its own seeded generator."""

    def __init__(self, seed: int, bracket: bool = True) -> None:
        self.rng = random.Random(seed)
        self.bracket = bracket

    def __call__(self, observation: str | list[tuple[int, str, object]]) -> str:
        if not isinstance(observation, str):  # a raw environment: the messages themselves
            observation = "\n".join(message for _, message, _ in observation)
        menus = re.findall(r"Legal actions: (\[.*\])", observation)
        if menus:
            choice = self.rng.choice(json.loads(menus[-1]))
        else:
            choice = self.rng.choice(re.findall(r"Legal moves: (.*)", observation)[-1].split(", "))
        return f"[{choice}]" if self.bracket else choice


def play(env: ta.Env, seed: int | None, agents: dict[int, ta.Agent]) -> tuple[dict, dict, list]:
    """TextArena's loop, as its README writes it."""
    env.reset(num_players=2, seed=seed)
    done, seen = False, []
    while not done:
        player_id, observation = env.get_observation()
        seen.append((player_id, observation))
        done, _ = env.step(action=agents[player_id](observation))
    rewards, game_info = env.close()
    return rewards, game_info, seen


@pytest.mark.parametrize("env_id", [ENV_ID, f"{ENV_ID}-train", f"{ENV_ID}-raw", *PRESET_IDS])
def test_every_registered_id_plays_to_the_end_in_textarenas_loop(env_id: str) -> None:
    env = ta.make(env_id)
    bracket = env_id.endswith("-raw")  # without ActionFormattingWrapper the agent brackets
    for seed in range(5):
        rewards, info, _ = play(env, seed, {0: MenuAgent(1, bracket), 1: MenuAgent(2, bracket)})
        assert rewards[0] + rewards[1] == 0
        assert info[0]["chips"] == rewards[0] and "reason" in info[1]


@pytest.mark.parametrize("game", ["leduc", "example4643", "7", *OPENSPIEL])
def test_the_rewards_are_the_chips_of_the_same_deal_on_the_engine(game: str) -> None:
    env = ta.make(ENV_ID, game=game)
    unwrapped = env.env.env
    for seed in range(10):
        rewards, _, _ = play(env, seed, {0: MenuAgent(seed), 1: MenuAgent(seed + 1)})
        deal = unwrapped.deal
        spec = unwrapped.game.spec
        replay = spec.new_deal(seed) if game.startswith("openspiel") else new_deal(spec, seed)
        moves = deal.moves if game.startswith("openspiel") else deal.history
        for move in moves:
            replay.apply(move[1] if game.startswith("openspiel") else move.action)
        assert replay.returns() == (rewards[0], rewards[1])


def history(view: str) -> str:
    """The part of a turn prompt that tells what has happened (the menu left out)."""
    return view.split("What has happened so far")[1].split("It is your turn")[0].strip()


def test_a_seat_is_told_nothing_it_may_not_see() -> None:
    """In example4643 Alice chooses secretly before Bob: what Bob is shown does not change with
    her choice, and no player receives the other's raw replies."""
    env = GenstratTextArenaEnv("example4643")
    secrets = 0
    for seed in range(30):
        env.reset(num_players=2, seed=seed)
        agents = {0: MenuAgent(seed), 1: MenuAgent(seed + 7)}
        while not env.state.done:
            seat = env.state.current_player_id
            _, messages = env.get_observation()
            for sender, _, kind in messages:
                assert sender in (seat, ta.GAME_ID)
                if kind == ta.ObservationType.PLAYER_ACTION:
                    assert sender == seat
            before = history(env.game.text(env.deal, 1))
            env.step(agents[seat](env.game.text(env.deal, seat)))
            if seat == 0 and env.deal.events[-1][:3] == (0, "secret", 0):
                secrets += 1
                assert history(env.game.text(env.deal, 1)) == before
    assert secrets > 0


def test_an_invalid_move_gets_a_retry_then_forfeits_as_a_fold() -> None:
    env = ta.make(ENV_ID, game="leduc")
    env.reset(num_players=2, seed=0)
    env.get_observation()
    done, _ = env.step(action="[dance]")
    assert not done
    player, retry = env.get_observation()
    assert player == 0 and "'[dance]' is not a legal action; legal:" in retry
    done, _ = env.step(action="fly away")
    assert done
    rewards, info = env.close()
    assert rewards == {0: -1, 1: 1}  # the ante: Alice's chips in the pot
    assert info[0]["invalid_move"] and "forfeits" in info[0]["reason"]


def test_an_answer_may_be_the_projects_json() -> None:
    env = GenstratTextArenaEnv("kuhn")
    env.reset(num_players=2, seed=1)
    legal = env.deal.legal_actions()
    env.step(f'I think {{"action": "{legal[-1].upper()}"}}')
    assert env.deal.history[0].action == legal[-1]


def test_without_a_seed_the_deals_are_a_sequence_the_same_in_every_environment() -> None:
    first, second = GenstratTextArenaEnv("leduc"), GenstratTextArenaEnv("leduc")
    seeds = []
    for env in (first, second):
        env.reset(num_players=2)
        a = env.play_seed
        env.reset(num_players=2)
        seeds.append((a, env.play_seed))
    assert seeds[0] == seeds[1] and seeds[0][0] != seeds[0][1]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_a_seed_is_the_play_seed(seed: int) -> None:
    env = GenstratTextArenaEnv(leduc())
    env.reset(num_players=2, seed=seed)
    assert env.deal.hands == new_deal(leduc(), seed).hands
    _, messages = env.get_observation()
    label = env.deal.g.label_of[env.deal.hands[0][0]]
    assert f"Your hand: {label}." in messages[-1][1]


def test_bad_input_raises_value_errors() -> None:
    with pytest.raises(ValueError, match="'nope' is not a game"):
        ta.make(ENV_ID, game="nope")
    env = GenstratTextArenaEnv("kuhn", config=GenerationConfig())
    with pytest.raises(ValueError, match="call reset"):
        env.step("[check]")
    with pytest.raises(ValueError, match="for two players, not 3"):
        env.reset(num_players=3)
    env.reset(num_players=2, seed=2)
    while not env.state.done:
        env.step(f"[{env.deal.legal_actions()[0]}]")
    with pytest.raises(ValueError, match="the game is over"):
        env.step("[check]")
    with pytest.raises(ValueError, match="error_allowance"):
        GenstratTextArenaEnv("kuhn", error_allowance=-1)


def test_the_prompt_states_textarenas_protocol_not_the_projects() -> None:
    env = GenstratTextArenaEnv("openspiel:kuhn_poker", error_allowance=2)
    env.reset(num_players=2, seed=0)
    _, messages = env.get_observation()
    prompt = messages[0][1]
    assert "try again 2 more time(s); after that you forfeit" in prompt
    assert "a fallback move is played for you" not in prompt
