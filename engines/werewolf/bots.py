"""Built-in Werewolf players: pure decision logic from a player's view.

Why it exists: a benchmark needs opponents and a planted field of known strengths (issue 47,
items 2 and 5).  A bot sees only a ``PlayerView`` (``engines.werewolf.view``) and draws chance
only from the generator it is handed; it returns a legal choice (a seat's name or ``pass``) or,
asked to speak, a statement.

- ``RandomBot`` (``random``): a uniformly random seat among the options (never ``pass`` when a
  seat can be picked), and a random short remark that claims nothing.
- ``RuleBot`` (``rule``): plays by its role and by what the table said and voted
  (``engines.werewolf.claims``); each of its four habits can be switched off, which is how the
  planted fields are built:

  * ``seer_reveals`` (Seer): from its first finding on, every statement says "I am the Seer."
    and every finding ("P4 is a Werewolf." / "P4 is not a Werewolf."), then its vote.
    Switched off, the Seer keeps its findings to itself (it still votes for a Werewolf it
    found).
  * ``doctor_guards`` (Doctor): protects the trusted Seer claimant while one lives, else
    itself.  Switched off, it protects a random living player.
  * ``follows_seer`` (village): trusts the earliest living Seer claimant (its findings name
    Werewolves and clear others).  Switched off, it reads no claims and votes on the ballots
    alone.
  * ``wolf_fakes`` (Werewolf): when a Seer claimant has named a Werewolf and no Werewolf has
    claimed yet, the lowest living Werewolf claims the Seer's role and names that claimant a
    Werewolf.

  The village side's vote: a Werewolf it knows of; else the target declared ("I vote for P4.")
  by at least two players today, unless cleared; else the most suspicious player (a later Seer
  claimant +2, one point per ballot cast against a cleared player or the trusted claimant);
  else a random uncleared player.  The Werewolves' victim: the partner's nomination of
  tonight if there is one; else the trusted Seer claimant; else the player whose ballots and
  declarations went most against the pack; else a random villager.  Their vote: a non-wolf
  bandwagon target, else a Seer claimant, else the most dangerous villager.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engines.werewolf.claims import Table, read_table
from engines.werewolf.roles import Role, name_of
from engines.werewolf.view import PASS, PlayerView, Request


class WerewolfBot(Protocol):
    """Chooses for the seat of ``view`` (which must carry a request) using only ``rng``."""

    @property
    def name(self) -> str: ...

    def act(self, view: PlayerView, rng: random.Random) -> str: ...


def _request(view: PlayerView) -> Request:
    if view.request is None:
        raise ValueError(f"{view.name} has nothing to decide")
    return view.request


def _picks(request: Request) -> list[str]:
    return [o for o in request.options if o != PASS]


REMARKS = ("", "I suspect {x}.", "I trust {x}.", "{x} is quiet today.", "Let us think carefully.")


@dataclass(frozen=True)
class RandomBot:
    """Uniformly random choices and remarks (module docstring)."""

    name: str = "random"

    def act(self, view: PlayerView, rng: random.Random) -> str:
        request = _request(view)
        if request.kind == "speak":
            others = [name_of(s) for s in view.alive if s != view.seat]
            remark = rng.choice(REMARKS)
            return remark.format(x=rng.choice(others)) if others else ""
        picks = _picks(request)
        return rng.choice(picks) if picks else PASS


@dataclass(frozen=True)
class Knowledge:
    """What a village-side ``RuleBot`` believes (``RuleBot.knowledge``)."""

    seer: int | None  # the trusted Seer (itself when it is the Seer)
    wolves: frozenset[int]  # known Werewolves
    cleared: frozenset[int]  # known non-Werewolves
    suspicion: Mapping[int, int]


@dataclass(frozen=True)
class RuleBot:
    """The rule-based player of the module docstring."""

    name: str = "rule"
    seer_reveals: bool = True
    doctor_guards: bool = True
    follows_seer: bool = True
    wolf_fakes: bool = True

    def act(self, view: PlayerView, rng: random.Random) -> str:
        request = _request(view)
        table = read_table(view)
        if view.role is Role.WEREWOLF:
            return self._wolf(view, request, table, rng)
        knows = self.knowledge(view, table)
        if request.kind == "speak":
            return self._village_statement(view, knows, table, rng)
        if request.kind == "protect":
            return self._protect(view, request, knows, rng)
        if request.kind == "inspect":
            return self._inspect(view, request, knows, rng)
        return _name_or_pass(self._village_vote(view, knows, table, rng))

    # -- the village ------------------------------------------------------------------------

    def knowledge(self, view: PlayerView, table: Table) -> Knowledge:
        """The trusted Seer, known Werewolves, cleared players and suspicion (docstring)."""
        living = set(view.alive)
        wolves: set[int] = set()
        cleared: set[int] = {view.seat}
        seer: int | None = None
        claimants = [c for c in table.claimants if c in living and c != view.seat]
        if view.role is Role.SEER:
            seer = view.seat
            for target, is_wolf in view.inspections:
                (wolves if is_wolf else cleared).add(target)
            wolves.update(claimants)  # anyone else claiming the Seer's role lies
        elif self.follows_seer and claimants:
            seer = claimants[0]
            cleared.add(seer)
            for target, is_wolf in table.findings[seer].items():
                (wolves if is_wolf else cleared).add(target)
        cleared -= wolves
        suspicion: Counter[int] = Counter()
        if self.follows_seer or view.role is Role.SEER:
            for claimant in claimants:
                if claimant != seer:
                    suspicion[claimant] += 2
        for _, voter, against in table.ballots:
            if against is not None and (against in cleared or against == seer) and voter != seer:
                suspicion[voter] += 1
        return Knowledge(seer, frozenset(wolves), frozenset(cleared), suspicion)

    def _village_vote(
        self, view: PlayerView, knows: Knowledge, table: Table, rng: random.Random
    ) -> int | None:
        others = [s for s in view.alive if s != view.seat]
        found = [s for s in others if s in knows.wolves]
        if found:
            return found[0]
        declared = Counter(t for t in table.declared.values() if t in others)
        bandwagon = [t for t, n in declared.most_common() if n >= 2 and t not in knows.cleared]
        if bandwagon:
            return bandwagon[0]
        suspects = [s for s in others if knows.suspicion.get(s, 0) > 0 and s not in knows.cleared]
        if suspects:
            top = max(knows.suspicion[s] for s in suspects)
            return rng.choice([s for s in suspects if knows.suspicion[s] == top])
        open_ = [s for s in others if s not in knows.cleared]
        return rng.choice(open_) if open_ else None

    def _village_statement(
        self, view: PlayerView, knows: Knowledge, table: Table, rng: random.Random
    ) -> str:
        parts: list[str] = []
        if view.role is Role.SEER and self.seer_reveals and view.inspections:
            parts.append("I am the Seer.")
            for seen, is_wolf in view.inspections:
                parts.append(f"{name_of(seen)} is {'' if is_wolf else 'not '}a Werewolf.")
        target = self._village_vote(view, knows, table, rng)
        parts.append(f"I vote for {name_of(target)}." if target is not None else "No lead yet.")
        return " ".join(parts)

    def _protect(
        self, view: PlayerView, request: Request, knows: Knowledge, rng: random.Random
    ) -> str:
        if not self.doctor_guards:
            return rng.choice(_picks(request))
        if knows.seer is not None and knows.seer in view.alive:
            return name_of(knows.seer)
        return name_of(view.seat)

    def _inspect(
        self, view: PlayerView, request: Request, knows: Knowledge, rng: random.Random
    ) -> str:
        seen = {t for t, _ in view.inspections}
        fresh = [s for s in view.alive if s != view.seat and s not in seen]
        if not fresh:
            return rng.choice(_picks(request))
        top = max(knows.suspicion.get(s, 0) for s in fresh)
        return name_of(rng.choice([s for s in fresh if knows.suspicion.get(s, 0) == top]))

    # -- the pack -----------------------------------------------------------------------------

    def _threats(self, view: PlayerView, table: Table) -> Counter[int]:
        """Villagers by how much they went against the pack (ballots, declarations, claims)."""
        pack = set(view.pack)
        threat: Counter[int] = Counter()
        for _, voter, target in table.ballots:
            if target in pack and voter not in pack:
                threat[voter] += 1
        for speaker, target in table.declared.items():
            if target in pack and speaker not in pack:
                threat[speaker] += 1
        for claimant, found in table.findings.items():
            if claimant not in pack and any(found.get(w) for w in pack):
                threat[claimant] += 5
        return threat

    def _wolf_target(self, view: PlayerView, table: Table, rng: random.Random) -> int | None:
        pack = set(view.pack)
        villagers = [s for s in view.alive if s not in pack]
        if not villagers:
            return None
        claimants = [c for c in table.claimants if c in villagers]
        if claimants:
            return claimants[0]
        threat = self._threats(view, table)
        top = max(threat.get(s, 0) for s in villagers)
        return rng.choice([s for s in villagers if threat.get(s, 0) == top])

    def _wolf_vote(self, view: PlayerView, table: Table, rng: random.Random) -> int | None:
        pack = set(view.pack)
        declared = Counter(t for t in table.declared.values() if t in view.alive)
        for target, _ in declared.most_common():
            if target not in pack and target != view.seat:
                return target
        return self._wolf_target(view, table, rng)

    def _wolf(self, view: PlayerView, request: Request, table: Table, rng: random.Random) -> str:
        if request.kind == "nominate":
            tonight = [
                e.target
                for e in view.events
                if e.kind == "nominate" and e.day == view.day and e.target is not None
            ]
            if tonight:
                return name_of(tonight[-1])
            return _name_or_pass(self._wolf_target(view, table, rng))
        if request.kind == "vote":
            return _name_or_pass(self._wolf_vote(view, table, rng))
        target = self._wolf_vote(view, table, rng)
        vote = f"I vote for {name_of(target)}." if target is not None else "No lead yet."
        accusers = [
            c
            for c in table.claimants
            if c in view.alive
            and c not in view.pack
            and any(table.findings[c].get(w) for w in view.pack)
        ]
        living_pack = [w for w in view.pack if w in view.alive]
        pack_claimed = any(c in view.pack for c in table.claimants)
        if self.wolf_fakes and accusers and not pack_claimed and view.seat == min(living_pack):
            accuser = accusers[0]
            return (
                f"I am the Seer. {name_of(accuser)} is a Werewolf. I vote for {name_of(accuser)}."
            )
        return vote


def _name_or_pass(seat: int | None) -> str:
    return PASS if seat is None else name_of(seat)


BOTS: dict[str, Callable[..., WerewolfBot]] = {"random": RandomBot, "rule": RuleBot}
RULE_HABITS = ("seer_reveals", "doctor_guards", "follows_seer", "wolf_fakes")


def make_bot(
    kind: str, params: Mapping[str, Any] | None = None, name: str | None = None
) -> WerewolfBot:
    """The bot ``kind`` (``random`` or ``rule``) with ``params`` (a rule bot's habits, each a
    boolean); ``ValueError`` naming an unknown kind or parameter."""
    params = dict(params or {})
    if kind not in BOTS:
        raise ValueError(f"unknown werewolf bot {kind!r}; known: {', '.join(sorted(BOTS))}")
    allowed = RULE_HABITS if kind == "rule" else ()
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(
            f"werewolf bot {kind!r} takes no parameter {', '.join(unknown)}"
            + (f"; it takes {', '.join(allowed)}" if allowed else "")
        )
    bad = [k for k, v in params.items() if not isinstance(v, bool)]
    if bad:
        raise ValueError(f"werewolf bot parameters {', '.join(sorted(bad))} must be true or false")
    return BOTS[kind](name=name or kind, **params)
