"""One seat of a GENSTRAT game against a built-in opponent, as a Gymnasium environment.

``GenstratEnv(game, opponent="random", seat=0)`` (registered as ``genstrat/HeadsUp-v0``): the
learner plays ``seat`` of one deal per episode and the opponent, a built-in agent of the project
(``random``, ``heuristic``, ``population``, ``equilibrium`` on games small enough to solve;
``mcts`` on OpenSpiel games), plays the other, from the generator a tournament gives its seat
(``engines.tournament.match.seat_rng(play_seed, deal, seat)``, deal 0 when the learner sits
Alice and 1 when Bob, as the two deals of a tournament run).

- Observation: ``{"observation": float32 vector, "action_mask": int8, "text": str}``
  (``arena.adapters.common``); the same space as the PettingZoo environment's, with one more
  action.
- Actions: the game's action ids, plus a last id, ``wait_action``, legal only when the deal ended
  before the learner's first decision (the opponent folded at once): stepping it (any id then)
  collects that result, so every deal is an episode and the mean reward is the chips per deal.
- Reward: the learner's chips at the end of the deal (0 before); never truncated.
- Seeding: ``reset(seed=s)`` plays the deal of play seed ``s`` (the project's deal of that seed,
  shared by both seats: seat 0 and seat 1 with one seed are a paired run) and seeds
  ``np_random``, from which a ``reset()`` without seed draws the next play seed;
  ``options={"play_seed": n}`` plays deal ``n`` without reseeding.
- Illegal moves: Gymnasium's contract is the action space (``check_env`` steps unmasked samples),
  so an id of the space that the mask rules out is a move that loses: the deal ends as the
  project scores a forfeit, a fold by the learner at that point (``info["forfeit"]`` says why).
  With ``illegal="raise"`` it raises ``gymnasium.error.InvalidAction`` instead.
- Errors: a value outside the action space raises ``gymnasium.error.InvalidAction``; a step
  before ``reset`` or after the deal ended raises ``gymnasium.error.ResetNeeded``; an unknown
  game, seat or opponent raises ``ValueError`` when the environment is made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from arena.adapters.common import TEXT_LIMIT, AdapterGame, GbgGame, load_game, seat_index
from arena.reference_engines import agent_plays, make_builtin
from engines.gbg.generator import GenerationConfig
from engines.gbg.spec import GameSpec
from engines.openspiel.spec import OpenSpielSpec
from engines.tournament.match import forfeit_returns, seat_rng

ENV_ID = "genstrat/HeadsUp-v0"
OPPONENTS = ("random", "heuristic", "population", "equilibrium", "mcts")


def observation_space(game: AdapterGame, actions: int) -> spaces.Dict:
    """The observation space of ``game`` with ``actions`` action ids (see the module docstring)."""
    return spaces.Dict(
        {
            "observation": spaces.Box(
                low=game.encoding_low,
                high=game.encoding_high,
                shape=(game.encoding_size,),
                dtype=np.float32,
            ),
            "action_mask": spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
            "text": spaces.Text(max_length=TEXT_LIMIT, min_length=0, charset=game.charset),
        }
    )


def observe(game: AdapterGame, deal: Any, seat: int, actions: int) -> dict[str, Any]:
    """What ``seat`` sees now, in the shape of :func:`observation_space` (fresh arrays)."""
    return {
        "observation": game.encode(deal, seat),
        "action_mask": game.mask(deal, seat, actions),
        "text": game.text(deal, seat),
    }


def make_opponent(name: str, params: dict[str, Any] | None, game: AdapterGame) -> Any:
    """The built-in agent ``name`` for ``game``, prepared (an equilibrium solved, a population
    ranked) so that a game it cannot play fails here, in one line, not in the first step."""
    if name not in OPPONENTS:
        raise ValueError(f"unknown opponent {name!r}; choose one of: {', '.join(OPPONENTS)}")
    if not agent_plays(name, game.spec):
        kind = "OpenSpiel" if isinstance(game.spec, OpenSpielSpec) else "generated"
        raise ValueError(f"opponent {name!r} does not play {kind} games such as {game.token!r}")
    agent = make_builtin(name, params)
    if isinstance(game, GbgGame):
        if name == "equilibrium":
            agent.policy(game.spec)
        elif name == "population":
            agent.strategy(game.spec)
    return agent


class GenstratEnv(gym.Env[dict[str, Any], np.int64]):
    """One seat against a built-in opponent (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        game: str | GameSpec | OpenSpielSpec | AdapterGame = "kuhn",
        opponent: str = "random",
        opponent_params: dict[str, Any] | None = None,
        seat: int | str = 0,
        config: str | GenerationConfig | None = None,
        release: str | Path | None = None,
        render_mode: str | None = None,
        illegal: str = "forfeit",
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render mode {render_mode!r}; choose ansi or human")
        self.game = load_game(game, config=config, release=release)
        self.seat = seat_index(seat)
        self.opponent_name = opponent
        self.opponent = make_opponent(opponent, opponent_params, self.game)
        self.wait_action = self.game.num_actions
        self.action_space = spaces.Discrete(self.game.num_actions + 1)
        self.observation_space = observation_space(self.game, self.game.num_actions + 1)
        self.render_mode = render_mode
        if illegal not in ("forfeit", "raise"):
            raise ValueError(f"illegal= takes forfeit or raise, got {illegal!r}")
        self.illegal = illegal
        self.deal: Any = None
        self.play_seed: int | None = None
        self._over = False
        self._forfeit: str | None = None

    # --- the deal ----------------------------------------------------------------------------

    def _opponent_moves(self) -> None:
        deal, seat = self.deal, 1 - self.seat
        while deal.current_player == seat:
            deal.apply(self.opponent.act(deal, seat, self._rng))

    def _observe(self) -> dict[str, Any]:
        obs = observe(self.game, self.deal, self.seat, self.game.num_actions + 1)
        if self.deal.current_player < 0 and not self._over:
            obs["action_mask"][self.wait_action] = 1
        if self._forfeit is not None:
            obs["action_mask"][:] = 0
        return obs

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"play_seed": self.play_seed, "seat": self.seat}
        if self.deal.current_player == self.seat:
            info["legal_actions"] = self.game.menu(self.deal)
        if self._forfeit is not None:
            info["forfeit"] = self._forfeit
        if self.deal.current_player < 0 or self._forfeit is not None:
            info["returns"] = self._returns()
        return info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        chosen = (options or {}).get("play_seed")
        if chosen is not None:
            play_seed = int(chosen)
        elif seed is not None:
            play_seed = int(seed)
        else:
            play_seed = int(self.np_random.integers(0, 2**63 - 1))
        self.play_seed = play_seed
        self.deal = self.game.new_deal(play_seed)
        self._rng = seat_rng(play_seed, self.seat, 1 - self.seat)
        self._over = False
        self._forfeit = None
        self._opponent_moves()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.deal is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self._over:
            raise gym.error.ResetNeeded("the deal is over: call reset() for the next one")
        chosen = _as_int(action)
        if chosen is None or not 0 <= chosen <= self.wait_action:
            raise gym.error.InvalidAction(
                f"an action is an integer id in 0..{self.wait_action}, got {action!r}"
            )
        deal = self.deal
        self._forfeit = None
        if deal.current_player >= 0:  # else it ended before the learner's first decision
            if chosen in self.game.legal_ids(deal):
                self.game.apply(deal, chosen)
                self._opponent_moves()
            elif self.illegal == "raise":
                raise gym.error.InvalidAction(
                    f"action {chosen} is not legal here; legal ids: {self.game.menu(deal)}"
                )
            else:
                self._forfeit = f"illegal action {chosen}; legal ids: {self.game.menu(deal)}"
        terminated = deal.current_player < 0 or self._forfeit is not None
        reward = 0.0
        if terminated:
            self._over = True
            reward = float(self._returns()[self.seat])
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, False, self._info()

    def _returns(self) -> tuple[int, int]:
        """The chips of the deal: a forfeit is scored as a fold by the learner at that point
        (``engines.tournament.match.forfeit_returns``)."""
        if self._forfeit is not None:
            return forfeit_returns(list(self.deal.contrib), self.seat)
        return self.game.returns(self.deal)

    def render(self) -> str | None:
        if self.render_mode is None or self.deal is None:
            return None
        view = self.game.text(self.deal, self.seat)
        if self.render_mode == "human":
            print(view)
            return None
        return view

    def close(self) -> None:
        self.deal = None


def _as_int(action: Any) -> int | None:
    """``action`` as an int when it is an integer (numpy scalars included), else None."""
    if isinstance(action, bool):
        return None
    if isinstance(action, int | np.integer):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    return None


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="arena.adapters.gymnasium_env:GenstratEnv")
