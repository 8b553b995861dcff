"""Werewolf, Game Arena's social-deduction environment (issue 47; docs/WEREWOLF.md).

Eight players, two Werewolves, a Seer, a Doctor and four Villagers; a moderator alternating
night actions and days of statements and votes until one team wins.  Pure code: chance is the
deal, from a seeded generator, and every player's knowledge is a view derived from an event
log with visibility.

Imports inside the package run one way (``tests/engines/werewolf/test_werewolf_imports.py``):

    roles < rules < events < filter < view < state < render, claims < bots < play, schedule
    < conformance;  the package __init__ imports all but conformance
"""

from engines.werewolf.bots import RandomBot, RuleBot, WerewolfBot, make_bot
from engines.werewolf.events import Event
from engines.werewolf.play import play_bots, seat_records
from engines.werewolf.roles import NAMES, SEATS, Role, Team, deal_roles
from engines.werewolf.rules import WerewolfRules
from engines.werewolf.schedule import ScheduledGame, balanced_schedule
from engines.werewolf.state import Move, WerewolfState, new_game, replay
from engines.werewolf.view import PASS, PlayerView, Request

__all__ = [
    "NAMES",
    "PASS",
    "SEATS",
    "Event",
    "Move",
    "PlayerView",
    "RandomBot",
    "Request",
    "Role",
    "RuleBot",
    "ScheduledGame",
    "Team",
    "WerewolfBot",
    "WerewolfRules",
    "WerewolfState",
    "balanced_schedule",
    "deal_roles",
    "make_bot",
    "new_game",
    "play_bots",
    "replay",
    "seat_records",
]
