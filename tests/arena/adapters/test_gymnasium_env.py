"""The Gymnasium wrapper: ``check_env``, the opponents, seeding, paired seats and bad input."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.adapters.gymnasium_env import ENV_ID, GenstratEnv
from engines.agents.builtin import RandomAgent
from engines.gbg.engine import new_deal
from engines.gbg.generator import GenerationConfig
from engines.gbg.presets import holdem_limit, kuhn
from engines.tournament.match import forfeit_returns, seat_rng
from tests.arena.adapters.support import GENERATED, OPENSPIEL, PRESETS, generated_id


def checked(environment: gym.Env) -> None:  # type: ignore[type-arg]
    # check_env warns about OpenSpiel's unbounded tensors and about render modes it cannot
    # try without a registry spec: advice; its assertions are the test.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(environment)


@pytest.mark.parametrize("game", PRESETS + OPENSPIEL)
@pytest.mark.parametrize("seat", [0, 1])
def test_check_env_passes_on_presets_and_openspiel_games(game: str, seat: int) -> None:
    checked(GenstratEnv(game, opponent="random", seat=seat))


@pytest.mark.parametrize("case", GENERATED, ids=generated_id)
def test_check_env_passes_across_the_complexity_dial(case: tuple[str, GenerationConfig]) -> None:
    checked(GenstratEnv(case[0], opponent="heuristic", config=case[1], seat=int(case[0]) % 2))


@pytest.mark.parametrize(
    ("game", "opponent"),
    [
        ("leduc", "heuristic"),
        ("example4643", "population"),
        ("kuhn", "equilibrium"),
        ("openspiel:connect_four", "mcts"),
    ],
)
def test_check_env_passes_against_every_kind_of_opponent(game: str, opponent: str) -> None:
    checked(GenstratEnv(game, opponent=opponent))


def test_the_registered_environment_is_made_and_checked_with_its_render_modes() -> None:
    made = gym.make(ENV_ID, game="leduc", opponent="heuristic", seat="bob")
    assert made.spec is not None and made.spec.id == ENV_ID
    checked(made.unwrapped)
    made.close()


def test_a_random_learner_replays_a_tournament_deal_of_the_same_play_seed() -> None:
    """The opponent draws from the generator a tournament gives its seat, so a learner that
    plays the tournament's random agent from its own seat's generator replays the deal."""
    spec = holdem_limit()
    for seat in (0, 1):
        environment = GenstratEnv(spec, opponent="random", seat=seat)
        for play_seed in range(30):
            environment.reset(seed=play_seed)
            mine = seat_rng(play_seed, seat, seat)
            agent = RandomAgent()
            reward, terminated, info = 0.0, False, {}
            while not terminated:
                deal = environment.deal
                if deal.current_player == seat:
                    action = environment.game.action_id(deal, agent.act(deal, seat, mine))
                else:
                    action = environment.wait_action
                _, reward, terminated, truncated, info = environment.step(action)
                assert not truncated
            rngs = (seat_rng(play_seed, seat, 0), seat_rng(play_seed, seat, 1))
            bare = new_deal(spec, play_seed)
            while bare.current_player >= 0:
                bare.apply(agent.act(bare, bare.current_player, rngs[bare.current_player]))
            assert reward == bare.returns()[seat] == info["returns"][seat]


def test_a_deal_over_before_the_learners_first_decision_is_collected_with_wait() -> None:
    environment = GenstratEnv(holdem_limit(), opponent="random", seat=1)
    for play_seed in range(500):
        obs, info = environment.reset(seed=play_seed)
        if environment.deal.current_player < 0:
            break
    else:
        pytest.fail("no deal in 500 where the opponent ends it before Bob decides")
    assert np.flatnonzero(obs["action_mask"]).tolist() == [environment.wait_action]
    obs, reward, terminated, _, info = environment.step(environment.wait_action)
    assert terminated and reward == info["returns"][1] == environment.deal.returns()[1] > 0
    assert not obs["action_mask"].any()


def test_an_illegal_id_of_the_space_forfeits_the_deal_as_a_fold() -> None:
    environment = GenstratEnv("kuhn", opponent="random")
    obs, _ = environment.reset(seed=4)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    contrib = list(environment.deal.contrib)
    obs, reward, terminated, truncated, info = environment.step(illegal)
    assert terminated and not truncated
    assert reward == forfeit_returns(contrib, 0)[0] == -1
    assert info["forfeit"].startswith(f"illegal action {illegal}")
    assert not obs["action_mask"].any()
    with pytest.raises(gym.error.ResetNeeded, match="the deal is over"):
        environment.step(0)


def test_illegal_raise_mode_and_values_outside_the_space_raise_invalid_action() -> None:
    environment = GenstratEnv("kuhn", opponent="random", illegal="raise")
    obs, _ = environment.reset(seed=4)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(gym.error.InvalidAction, match=f"action {illegal} is not legal here"):
        environment.step(illegal)
    for bad in (-1, environment.wait_action + 1, "check", 1.5):
        with pytest.raises(gym.error.InvalidAction, match="an action is an integer id"):
            environment.step(bad)
    assert environment.deal.history == []
    with pytest.raises(ValueError, match="illegal= takes forfeit or raise"):
        GenstratEnv("kuhn", illegal="ignore")


def test_a_step_before_reset_needs_a_reset() -> None:
    with pytest.raises(gym.error.ResetNeeded, match="call reset"):
        GenstratEnv("kuhn").step(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "nope"}, "'nope' is not a game"),
        ({"game": "kuhn", "opponent": "grandmaster"}, "unknown opponent 'grandmaster'"),
        ({"game": "openspiel:kuhn_poker", "opponent": "heuristic"}, "does not play OpenSpiel"),
        ({"game": "kuhn", "opponent": "mcts"}, "does not play generated games"),
        ({"game": "kuhn", "seat": 2}, "unknown seat 2"),
        ({"game": "kuhn", "opponent": "heuristic", "opponent_params": {"x": 1}}, "no parameter"),
    ],
)
def test_bad_settings_raise_one_clear_value_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GenstratEnv(**kwargs)  # type: ignore[arg-type]


def test_equilibrium_refuses_a_game_too_large_to_solve_when_made() -> None:
    with pytest.raises(ValueError, match="too large for the equilibrium agent"):
        GenstratEnv("example4643", opponent="equilibrium", opponent_params={"max_histories": 100})


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1), seat=st.sampled_from([0, 1]))
def test_a_seed_is_the_play_seed_and_both_seats_get_its_deal(seed: int, seat: int) -> None:
    environment = GenstratEnv("kuhn", opponent="heuristic", seat=seat)
    obs, info = environment.reset(seed=seed)
    assert info["play_seed"] == seed
    assert environment.deal.hands[0] == new_deal(kuhn(), seed).hands[0]
    again, _ = GenstratEnv("kuhn", opponent="heuristic", seat=seat).reset(seed=seed)
    assert again["text"] == obs["text"]
    assert np.array_equal(again["observation"], obs["observation"])
    # the next unseeded deal is drawn from the seeded generator: the same in both
    first, second = environment.reset()[1]["play_seed"], environment.reset(seed=seed)
    assert second[1]["play_seed"] == seed
    assert environment.reset()[1]["play_seed"] == first
