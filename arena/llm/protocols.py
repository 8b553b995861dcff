"""Move protocols: how many answers a model gets for one move, and what happens when none is legal.

Two named protocols, chosen by the run profile (``assets.run_profiles.Profile.protocol``) or a
roster's ``protocol`` field, and recorded with the roster and the release:

- ``paper``: the GENSTRAT paper's (Section 5): the model answers once; if the lenient parser
  cannot read a legal action from that answer, the harness plays the fallback (the minimum
  amount for a wager or bid, else a random legal choice from the match's generator).  No
  rethink request is ever sent, whatever ``rethinks`` the roster sets.
- ``arena``: Game Arena's rethink: an unparsable or illegal answer earns up to K more requests
  with one sentence of feedback (``engines.agents.parser.FEEDBACK``), K being the roster's
  ``rethinks`` (default 1) or a player's own; then the same fallback.

Both use the paper's fallback (``engines.agents.parser.fallback_action``).  The paper protocol is
also the paper's prompt: applied to a roster (``arena.roster.with_protocol``: ``tournament run
--protocol paper``, the paper profile), it sends the paper-style rulebook (``engines.gbg.rulebook``,
Appendix B's style) unless the roster names a rulebook style of its own; ``arena`` leaves the
style to the roster and the profile.  So margins and fallback rates under ``paper`` are
comparable with the paper's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ProtocolName = Literal["paper", "arena"]
DEFAULT_PROTOCOL: ProtocolName = "arena"


@dataclass(frozen=True)
class MoveProtocol:
    name: ProtocolName
    description: str
    rethinks: int | None  # None: the roster's (or the player's) K
    rulebook_style: str | None = None  # the rulebook it sends; None: the roster's or profile's

    def rethinks_for(self, configured: int) -> int:
        """The rethinks a player gets under this protocol, given its configured K."""
        return configured if self.rethinks is None else self.rethinks


PROTOCOLS: dict[str, MoveProtocol] = {
    "paper": MoveProtocol(
        "paper", "one answer, the paper's fallback, no rethink, the paper's rulebook", 0, "paper"
    ),
    "arena": MoveProtocol(
        "arena", "rethink with minimal feedback, then the paper's fallback", None
    ),
}


def move_protocol(name: str) -> MoveProtocol:
    """The protocol called ``name`` (``ValueError`` naming the choices)."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise ValueError(
            f"unknown protocol {name!r}; choose one of: {', '.join(sorted(PROTOCOLS))}"
        ) from None
