"""The mover's public entry: ``new_deal`` starts one deal of a GBG.

``new_deal(spec, play_seed)`` starts a deal whose chance events (cards, coins, random picks) all
come from a generator derived from ``play_seed``; with ``explicit_chance=True`` the deal instead
stops at chance nodes and lists their outcomes with probabilities, OpenSpiel style, so that a
caller (the OpenSpiel bridge, a test) chooses them.

A deal is a ``State`` (``engines.gbg.state``: the moves, chance, the event log and what each
seat may see of it).  Sampled deals of games small enough are played on the memoised game tree
(``engines.gbg.tree``), a memo of the interpreter that gives the same deal for the same seed;
this module sits above both and chooses.  It also re-exports the state's names, so that the
mover is imported from one place: ``from engines.gbg.engine import State, new_deal``.
"""

from __future__ import annotations

from engines.gbg.rng import DealRng
from engines.gbg.rules import game_rules
from engines.gbg.spec import GameSpec
from engines.gbg.state import (
    CARD_EVENTS,
    CHANCE,
    PAIR_EVENTS,
    PUBLIC,
    TERMINAL,
    ChanceRequest,
    Event,
    Move,
    State,
    initial_state,
)
from engines.gbg.tree import GameTree, TreeState

__all__ = [
    "CARD_EVENTS",
    "CHANCE",
    "ENGINE_VERSION",
    "PAIR_EVENTS",
    "PUBLIC",
    "TERMINAL",
    "ChanceRequest",
    "Event",
    "Move",
    "State",
    "new_deal",
]

ENGINE_VERSION = "1.0.0"


def new_deal(
    spec: GameSpec, play_seed: int = 0, *, explicit_chance: bool = False, tree: bool = True
) -> State:
    """Start a deal of ``spec``.

    Chance comes from a generator seeded by ``play_seed`` unless ``explicit_chance``, in which
    case the deal stops at chance nodes for the caller to resolve.  Sampled deals of games
    small enough are played on the memoised game tree (``engines.gbg.tree``) unless ``tree``
    is false; both give the same deal for the same seed.
    """
    game = game_rules(spec)
    if not explicit_chance and tree and game.tree_eligible:
        game_tree = game.tree
        if game_tree is None:
            game_tree = game.tree = GameTree(game)
        if game_tree.enabled:
            return TreeState(game_tree, DealRng(play_seed))
    return initial_state(game, None if explicit_chance else DealRng(play_seed))
