"""GENSTRAT games as a TextArena two-player environment, registered with TextArena's wrappers.

``GenStrat-v0`` (``ta.make("GenStrat-v0", game="leduc")``; any game the project names, see
``arena.adapters.common.load_game``) and one id per preset (``GenStrat-Kuhn-v0``,
``GenStrat-Leduc-v0``, ``GenStrat-Example4643-v0``) are registered when this module is imported,
each with TextArena's standard wrappers as its other environments have them: the default id with
``LLMObservationWrapper`` and ``ActionFormattingWrapper``, ``-train`` with
``GameMessagesAndCurrentBoardObservationWrapper`` and ``ActionFormattingWrapper``, ``-raw``
without wrappers.

- Players: TextArena's player 0 is seat 0 (Alice in a generated game), player 1 Bob.  At reset
  each receives the rules (the rulebook the LLM players get) and its role; the player to move
  then receives its view of the deal, the same per-turn prompt the project's LLM players get.
  Nothing a seat may not see is sent to it: a move's text goes to its author only, and each
  view is read through the seat's visibility (an opponent's secret choice stays hidden).
- Moves: ``[action]`` (TextArena's convention; the action named as on the menu, case and
  spacing free), or the project's JSON ``{"action": ...}``; an OpenSpiel game's moves are read
  as its LLM players' are (SAN or UCI in chess, ...).
- Invalid moves, TextArena's way: the player is told why and may try again ``error_allowance``
  times (default 1); after that it forfeits, scored as the project scores a forfeit (a fold at
  that point: it loses its chips in the pot, ``engines.tournament.match.forfeit_returns``).
- Rewards: each player's chips at the end of the deal (``env.close()`` returns them with the
  game info, whose ``reason`` states the result).
- Seeding: ``reset(num_players=2, seed=s)`` plays the deal of play seed ``s`` (the project's
  deal of that seed); without a seed the environment plays its own sequence of deals, the same
  in every process (no global random state is touched).
- Errors: an unknown game raises ``ValueError`` when the environment is made, as ``ta.make``
  does for an unknown id; a number of players other than two, and a step after the game ended,
  raise ``ValueError``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import textarena as ta  # type: ignore[import-untyped]
from textarena.envs.registration import (  # type: ignore[import-untyped]
    ENV_REGISTRY,
    register_with_versions,
)

from arena.adapters.common import AdapterGame, GbgGame, load_game
from engines.agents.parser import match_action, parse_reply
from engines.gbg.generator import GenerationConfig
from engines.gbg.rng import derive_seed
from engines.gbg.spec import GameSpec
from engines.openspiel.spec import OpenSpielSpec
from engines.openspiel.text import read_move, side_name
from engines.tournament.match import forfeit_returns

ENV_ID = "GenStrat-v0"
PRESET_IDS = {
    "GenStrat-Kuhn-v0": "kuhn",
    "GenStrat-Leduc-v0": "leduc",
    "GenStrat-Example4643-v0": "example4643",
}
UNSEEDED = 0x7E47A5EED  # the stem of the deals played without a seed
PROTOCOL_TAIL = "\n\nAnswer every turn with a JSON object"  # engines.openspiel.text.rules_text
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")

WRAPPERS = {
    "default": [ta.wrappers.LLMObservationWrapper, ta.wrappers.ActionFormattingWrapper],
    "-train": [
        ta.wrappers.GameMessagesAndCurrentBoardObservationWrapper,
        ta.wrappers.ActionFormattingWrapper,
    ],
}


class GenstratTextArenaEnv(ta.Env):  # type: ignore[misc]  # TextArena is untyped
    """One deal of a GENSTRAT game for two TextArena players (see the module docstring)."""

    def __init__(
        self,
        game: str | GameSpec | OpenSpielSpec | AdapterGame = "kuhn",
        config: str | GenerationConfig | None = None,
        release: str | Path | None = None,
        error_allowance: int = 1,
    ) -> None:
        super().__init__()
        if error_allowance < 0:
            raise ValueError(f"error_allowance must be 0 or more, got {error_allowance}")
        self.game = load_game(game, config=config, release=release)
        self.error_allowance = error_allowance
        self.deal: Any = None
        self.play_seed: int | None = None
        self._unseeded = 0

    # --- names and words ---------------------------------------------------------------------

    def role(self, seat: int) -> str:
        if isinstance(self.game, GbgGame):
            return ("Alice", "Bob")[seat]
        return f"Player {seat}"

    def _prompt(self, player_id: int, game_state: dict[str, Any]) -> str:
        spec = self.game.spec
        if isinstance(spec, OpenSpielSpec):
            side = side_name(spec.family, player_id)
            you = f"You are player {player_id}: you play {side}."
        else:
            you = f"You are {self.role(player_id)} (player {player_id})."
        # an OpenSpiel game's rules end with the project's own protocol; TextArena's is below
        rules = self.game.rules().split(PROTOCOL_TAIL, 1)[0].rstrip()
        retries = self.error_allowance
        return (
            f"{rules}\n\n{you} Each turn you are shown your view of the game and the legal "
            "actions. Answer with one legal action in square brackets, for example [check], or "
            'with a JSON object {"action": "<one of the legal actions>"}. If your answer names '
            f"no legal action you are told why and may try again {retries} more time(s); after "
            "that you forfeit the deal and lose the chips you have put in the pot."
        )

    def read(self, said: str) -> str | None:
        """The legal action ``said`` names (see the module docstring), or None."""
        legal: tuple[str, ...] = self.deal.legal_actions()
        parsed = parse_reply(said, legal)
        if parsed.verdict == "ok":
            return parsed.action
        spans = _BRACKETS.findall(said) or [said]
        for span in reversed(spans):
            if isinstance(self.game, GbgGame):
                found = match_action(span.strip(), legal)
            else:
                found = read_move(self.deal, span)
            if found is not None:
                return found
        return None

    # --- the TextArena interface -------------------------------------------------------------

    def reset(self, num_players: int, seed: int | None = None) -> None:
        if num_players != 2:
            raise ValueError(f"GENSTRAT games are for two players, not {num_players}")
        if seed is None:
            play_seed = derive_seed(UNSEEDED, self._unseeded)
            self._unseeded += 1
        else:
            play_seed = int(seed)
        self.play_seed = play_seed
        self.deal = self.game.new_deal(play_seed)
        # no seed: TextArena's State would seed Python's global generator with it
        self.state = ta.TwoPlayerState(
            num_players=2, seed=None, error_allowance=self.error_allowance
        )
        self.state.reset(
            game_state={"game": self.game.token, "play_seed": play_seed},
            player_prompt_function=self._prompt,
            role_mapping={0: self.role(0), 1: self.role(1)},
        )
        self._next_turn()

    def _next_turn(self) -> None:
        """Hand the turn to the seat to move and show it its view, or settle a finished deal."""
        mover = self.deal.current_player
        if mover >= 0:
            self.state.manually_set_current_player_id(mover)
            self.state.add_observation(
                to_id=mover,
                message=self.game.text(self.deal, mover),
                observation_type=ta.ObservationType.GAME_BOARD,
            )
            return
        returns = self.game.returns(self.deal)
        for seat in (0, 1):
            self.state.add_observation(
                to_id=seat,
                message=self.game.text(self.deal, seat),
                observation_type=ta.ObservationType.GAME_BOARD,
            )
        self._finish(returns, self._result(returns))

    def _result(self, returns: tuple[int, int]) -> str:
        if returns[0] == returns[1]:
            return "The deal is a tie: nobody wins chips."
        winner = 0 if returns[0] > returns[1] else 1
        return f"{self.role(winner)} wins {returns[winner]} from {self.role(1 - winner)}."

    def _finish(self, returns: tuple[int, int], reason: str) -> None:
        state = self.state
        state.rewards = {0: returns[0], 1: returns[1]}
        for seat in (0, 1):
            state.game_info[seat]["reason"] = reason
            state.game_info[seat]["chips"] = returns[seat]
        state.add_observation(message=reason, observation_type=ta.ObservationType.GAME_ADMIN)
        state.done = True

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        if self.deal is None:
            raise ValueError("call reset(num_players=2) before step()")
        state = self.state
        if state.done:
            raise ValueError("the game is over: call reset() for a new one")
        seat = state.current_player_id
        state.add_observation(
            from_id=seat,
            to_id=seat,
            message=action,
            observation_type=ta.ObservationType.PLAYER_ACTION,
        )
        move = self.read(action)
        if move is None:
            legal = ", ".join(f"[{a}]" for a in self.deal.legal_actions())
            reason = f"{action!r} is not a legal action; legal: {legal}."
            if state.error_allowance > state.error_count:
                state.set_invalid_move(reason=reason)
            else:
                returns = forfeit_returns(list(self.deal.contrib), seat)
                state.game_info[seat]["invalid_move"] = True
                self._finish(
                    returns,
                    f"{self.role(seat)} forfeits after an invalid move ({reason}) and loses "
                    f"{-returns[seat]} chips.",
                )
            done, info = state.step(rotate_player=False)
            return bool(done), dict(info)
        self.deal.apply(move)
        state.add_observation(
            to_id=seat,
            message=f"You played {move}.",
            observation_type=ta.ObservationType.GAME_ACTION_DESCRIPTION,
        )
        _, info = state.step(rotate_player=False)  # counts the turn of ``seat``
        self._next_turn()
        return bool(state.done), dict(info)


def register_envs() -> None:
    """Register ``GenStrat-v0`` and the preset ids (with their ``-train`` and ``-raw``
    versions) unless they are registered already."""
    if ENV_ID not in ENV_REGISTRY:
        register_with_versions(
            id=ENV_ID, entry_point=GenstratTextArenaEnv, wrappers=WRAPPERS, game="kuhn"
        )
    for env_id, game in PRESET_IDS.items():
        if env_id not in ENV_REGISTRY:
            register_with_versions(
                id=env_id, entry_point=GenstratTextArenaEnv, wrappers=WRAPPERS, game=game
            )


register_envs()
