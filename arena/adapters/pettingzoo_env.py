"""A GENSTRAT game as a PettingZoo AEC environment: both seats of one deal, one agent each.

``env(game)`` (``raw_env`` wrapped in PettingZoo's ``OrderEnforcingWrapper``) takes any game the
project names (``arena.adapters.common.load_game``: a seed under ``config``, a preset, a spec
file, a game of a release with ``release=``, ``openspiel:<name>``).

- Agents: ``player_0`` is seat 0 (Alice, who acts first in a generated game), ``player_1`` Bob;
  the agent to move is the seat to move (generated games let a phase's rules choose the order).
- Observation of an agent: ``{"observation": float32 vector, "action_mask": int8 (1 at the
  legal ids when the agent is to move), "text": the seat's view as the LLM players are
  prompted with it}`` (``arena.adapters.common``: fixed size, a function of the seat's
  information state).
- Actions: the game's action ids (``Discrete``); ``infos[agent]["legal_actions"]`` names the
  legal ones for the agent to move; ``action_id(name)`` finds an id by name.
- Rewards: each seat's chips when the deal ends (0 before); both agents terminate together.
- Seeding: ``reset(seed=s)`` plays the deal of play seed ``s`` (the project's deal of that seed,
  the same one a tournament match with that play seed deals) and seeds ``np_random``, from which
  a ``reset()`` without seed draws the next play seed; ``options={"play_seed": n}`` plays deal
  ``n`` without reseeding.  A deal that is over before anyone decides (a generated game can end
  at the deal) is no episode (PettingZoo starts every episode with its agents live): the next
  play seed is dealt instead, up to ``MAX_SKIPPED_DEALS`` of them, and ``info["play_seed"]``
  names the deal played.
- Errors: an action that is not a legal id of the agent to move raises ``ValueError`` naming the
  legal ids; an action other than None for an agent whose deal is over raises PettingZoo's own
  ``ValueError`` (``AECEnv._was_dead_step``); an unknown game raises ``ValueError`` when the
  environment is made.  PettingZoo's ``TerminateIllegalWrapper`` turns an illegal move into a
  loss for the mover instead, reading the action mask.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import gymnasium
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from arena.adapters.common import AGENTS, AdapterGame, load_game
from arena.adapters.gymnasium_env import observation_space, observe
from engines.gbg.generator import GenerationConfig
from engines.gbg.spec import GameSpec
from engines.openspiel.spec import OpenSpielSpec

MAX_SKIPPED_DEALS = 1_000  # deals over before anyone decides, skipped at one reset


def env(
    game: str | GameSpec | OpenSpielSpec | AdapterGame = "kuhn",
    *,
    config: str | GenerationConfig | None = None,
    release: str | Path | None = None,
    render_mode: str | None = None,
) -> Any:
    """``raw_env`` in PettingZoo's ``OrderEnforcingWrapper`` (the usual ``env()`` of a
    PettingZoo package: it refuses a step or an observation before ``reset``)."""
    return wrappers.OrderEnforcingWrapper(
        raw_env(game, config=config, release=release, render_mode=render_mode)
    )


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo is untyped; raw_env is its name
    """Both seats of one deal of ``game`` (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "genstrat_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str | GameSpec | OpenSpielSpec | AdapterGame = "kuhn",
        *,
        config: str | GenerationConfig | None = None,
        release: str | Path | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render mode {render_mode!r}; choose ansi or human")
        self.game = load_game(game, config=config, release=release)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        actions = self.game.num_actions
        self.observation_spaces = {a: observation_space(self.game, actions) for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(actions) for a in AGENTS}
        self.deal: Any = None
        self.play_seed: int | None = None
        self.np_random, _ = gymnasium.utils.seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, Any]:
        return observe(self.game, self.deal, AGENTS.index(agent), self.game.num_actions)

    def action_id(self, name: str) -> int:
        """The id of the legal action ``name`` of the agent to move (``ValueError`` if none)."""
        return self.game.action_id(self.deal, name)

    def _refresh(self) -> None:
        """Whose turn it is, and each live agent's info."""
        deal = self.deal
        mover = deal.current_player
        for seat, agent in enumerate(AGENTS):
            if agent not in self.infos:
                continue
            info: dict[str, Any] = {"play_seed": self.play_seed}
            if mover == seat:
                info["legal_actions"] = self.game.menu(deal)
            if mover < 0:
                info["returns"] = self.game.returns(deal)
            self.infos[agent] = info
        if mover >= 0:
            self.agent_selection = AGENTS[mover]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
        chosen = (options or {}).get("play_seed")
        if chosen is not None:
            play_seed = int(chosen)
        elif seed is not None:
            play_seed = int(seed)
        else:
            play_seed = int(self.np_random.integers(0, 2**63 - 1))
        first, deal = play_seed, self.game.new_deal(play_seed)
        while deal.current_player < 0:  # over before anyone decides: no episode
            play_seed = (play_seed + 1) % 2**63
            if (play_seed - first) % 2**63 > MAX_SKIPPED_DEALS:
                raise ValueError(
                    f"the game asks no decision in {MAX_SKIPPED_DEALS:,} deals from play seed "
                    f"{first}"
                )
            deal = self.game.new_deal(play_seed)
        self.play_seed = play_seed
        self.deal = deal
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self._refresh()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.apply(self.deal, action)
        self._clear_rewards()
        if self.deal.current_player < 0:
            returns = self.game.returns(self.deal)
            for seat, name in enumerate(AGENTS):
                self.rewards[name] = float(returns[seat])
                self.terminations[name] = True
            self._refresh()
            # the other agent first, then the mover: each takes its last step (None)
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self._refresh()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The view of the agent to move (``ansi`` returns it, ``human`` prints it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; nothing to show")
            return None
        if self.deal is None:
            return None
        view = self.game.text(self.deal, AGENTS.index(self.agent_selection))
        if self.render_mode == "human":
            print(view)
            return None
        return view

    def close(self) -> None:
        self.deal = None
