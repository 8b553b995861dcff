"""Werewolf "models" of set strengths behind the scripted OpenAI-compatible loopback server.

A script for ``tests.doubles.scripted_server.ScriptedServer`` that answers Werewolf prompts
(``arena.werewolf.prompts``) from their text alone, as a model would, with a strength set per
model (``PlantedWerewolf``): each decision is the *sharp* policy's with probability ``skill``,
else a uniform choice among the legal actions (and silence when asked to speak).  The sharp
policy reads the prompt's private summary (role, pack, the Seer's findings, the living players)
and the game log's statements with the phrases the rule bots understand
(``engines.werewolf.claims``):

- Seer: inspects a living player it has not inspected; when it has findings it says "I am the
  Seer." with every finding and "I vote for <a Werewolf it found>."; votes for a Werewolf it
  found;
- Doctor: protects the first living Seer claimant, else itself;
- village: votes for a living player the first Seer claimant named a Werewolf, else at
  random among those not cleared;
- Werewolf: nominates and votes against the first living Seer claimant, else at random among
  the non-Werewolves; says nothing.

Every draw comes from a hash of the model and the conversation, so the same prompt gets the
same answer in every run.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engines.werewolf.claims import FINDING, SEER_CLAIM
from tests.doubles.scripted_server import Answer, Request, completion, legal_menu

_ROLE = re.compile(r"^You are (P[1-8])\. Your role is (\w+) ", re.M)
_PACK = re.compile(r"^The Werewolves are (.*)\.$", re.M)
_FOUND = re.compile(r"^Your findings as the Seer: (.*)\.$", re.M)
_LIVING = re.compile(r"^Living players: (.*)\.$", re.M)
_SAYS = re.compile(r"^(P[1-8]) says: (.*)$", re.M)


@dataclass(frozen=True)
class PlantedWerewolf:
    """A model of the field: its model id and how often it plays the sharp policy."""

    model: str
    skill: float


def _draw(model: str, request: Request) -> random.Random:
    text = json.dumps([model, request.body.get("messages")], sort_keys=True)
    return random.Random(hashlib.sha256(text.encode()).digest())


def _user(request: Request) -> str:
    users = [m for m in request.body["messages"] if m["role"] == "user"]
    return str(users[0]["content"])


def _seats(text: str) -> list[str]:
    return re.findall(r"P[1-8]", text)


def first_claim(log: str) -> tuple[str | None, dict[str, bool]]:
    """The first Seer claimant of the log and its findings (seat -> is a Werewolf)."""
    claimant: str | None = None
    findings: dict[str, bool] = {}
    for speaker, text in _SAYS.findall(log):
        if claimant is None and SEER_CLAIM.search(text):
            claimant = speaker
        if speaker == claimant:
            for seat, negated in FINDING.findall(text):
                findings[seat.upper()] = not negated
    return claimant, findings


def sharp(user: str, menu: Sequence[str], rng: random.Random) -> dict[str, str]:
    """The sharp policy's reply (module docstring) to a prompt's user message."""
    me, role = _ROLE.search(user).groups()  # type: ignore[union-attr]
    pack = _seats(m.group(1)) if (m := _PACK.search(user)) else []
    found_line = m.group(1) if (m := _FOUND.search(user)) else ""
    found = {s: not neg for s, neg in re.findall(r"(P[1-8]) is (not )?a Werewolf", found_line)}
    living = _seats(_LIVING.search(user).group(1))  # type: ignore[union-attr]
    claimant, claimed = first_claim(user)
    picks = [o for o in menu if o != "pass"]

    def pick(preferred: Sequence[str]) -> str:
        good = [p for p in preferred if p in picks]
        return good[0] if good else (rng.choice(picks) if picks else "pass")

    if not menu:  # a statement
        if role == "Seer" and found:
            named = " ".join(f"{s} is {'' if w else 'not '}a Werewolf." for s, w in found.items())
            wolves = [s for s, w in found.items() if w and s in living]
            vote = f" I vote for {wolves[0]}." if wolves else ""
            return {"statement": f"I am the Seer. {named}{vote}"}
        return {"statement": ""}
    if "choose the pack's victim" in user or (role == "Werewolf" and "vote to exile" in user):
        target = [claimant] if claimant and claimant in living and claimant not in pack else []
        return {"action": pick(target + rng.sample(picks, len(picks)))}
    if "choose a living player to protect" in user:
        target = [claimant] if claimant and claimant in living else []
        return {"action": pick([*target, me])}
    if "choose a living player to inspect" in user:
        fresh = [p for p in picks if p not in found]
        return {"action": pick(rng.sample(fresh, len(fresh)))}
    # the village's vote
    wolves = [s for s, w in found.items() if w] + [s for s, w in claimed.items() if w]
    cleared = {s for s, w in claimed.items() if not w} | {s for s, w in found.items() if not w}
    others = [p for p in picks if p not in cleared]
    return {"action": pick(wolves + rng.sample(others, len(others)))}


def planted_script(field: Mapping[str, PlantedWerewolf]) -> object:
    """A ``ScriptedServer`` script answering for the models of ``field`` (by model id)."""

    def script(request: Request) -> Answer:
        model = field[str(request.body["model"])]
        rng = _draw(model.model, request)
        menu = legal_menu(request)
        if rng.random() < model.skill:
            reply = sharp(_user(request), menu, rng)
        elif menu:
            reply = {"action": rng.choice(menu)}
        else:
            reply = {"statement": ""}
        return completion(json.dumps({"reasoning": "planted", **reply}))

    return script
