"""OpenSpiel's two-player zero-sum games through the tournament harness (issue 18).

``spec``: naming a game (``openspiel:<name>[(<params>)]``), its move cap, adjudication and
illegal-move protocol, and its ``spec_hash``.  ``state``: the State-like adapter the match loop
and the agents drive (named legal actions, observations per seat, returns), with chance
outcomes drawn from the deal's play seed.  ``text``: rules per game family, move names and the
per-turn prompt, and the lenient move reader.  ``mcts``: OpenSpiel's MCTS as a built-in agent.
"""

from engines.openspiel.spec import OpenSpielSpec, is_openspiel_token, parse_openspiel
from engines.openspiel.state import OpenSpielState

__all__ = ["OpenSpielSpec", "OpenSpielState", "is_openspiel_token", "parse_openspiel"]
