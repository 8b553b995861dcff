"""Reading the table: Seer claims, their findings, declared votes and the ballots so far.

Why it exists: the rule-based bots (``engines.werewolf.bots``) decide from what was said and
how people voted, and a person or a model can use the same phrases to be understood by them.
The reader knows a few fixed phrases, matched case-insensitively anywhere in a statement:

- ``I am the Seer`` claims the Seer's role (the claimant's first such statement dates it);
- ``P4 is a Werewolf`` / ``P4 is not a Werewolf`` is a finding, counted only from a claimant
  (in the same statement as the claim or a later one);
- ``I vote for P4`` declares a vote (the speaker's latest declaration of the day counts).

Everything is read from a ``PlayerView``'s public events, so a bot knows only what its seat
was told.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engines.werewolf.roles import seat_of
from engines.werewolf.view import PlayerView

SEER_CLAIM = re.compile(r"\bI am the Seer\b", re.I)
FINDING = re.compile(r"\b(P[1-8]) is (not )?a Werewolf\b", re.I)
DECLARED_VOTE = re.compile(r"\bI vote for (P[1-8])\b", re.I)


@dataclass
class Table:
    """What was said and voted, in order of first claim (``claimants``)."""

    claimants: list[int] = field(default_factory=list)
    findings: dict[int, dict[int, bool]] = field(default_factory=dict)  # claimant -> target
    declared: dict[int, int] = field(default_factory=dict)  # today's: speaker -> target
    ballots: list[tuple[int, int, int | None]] = field(default_factory=list)  # day, voter, t


def _seat(text: str) -> int:
    return seat_of(text.upper())


def read_table(view: PlayerView) -> Table:
    """The claims, findings, today's declared votes and every announced ballot of ``view``."""
    table = Table()
    for event in view.events:
        if event.kind == "votes":
            table.ballots.extend((event.day, v, t) for v, t in event.ballots)
            continue
        if event.kind != "statement" or event.actor is None:
            continue
        speaker, text = event.actor, event.text
        if SEER_CLAIM.search(text) and speaker not in table.claimants:
            table.claimants.append(speaker)
            table.findings[speaker] = {}
        if speaker in table.findings:
            for match in FINDING.finditer(text):
                table.findings[speaker][_seat(match.group(1))] = match.group(2) is None
        if event.day == view.day:
            for match in DECLARED_VOTE.finditer(text):
                table.declared[speaker] = _seat(match.group(1))
    return table
