"""The moderator's words: the rules, and each event as one line of text for one seat.

Why it exists: a player (a model in a prompt, a person in a terminal) reads the game as text.
``event_line`` renders an event as the seat it is shown to reads it (its own private events in
the second person), ``transcript`` a view's events in order, and ``rules_text`` the rulebook of
a ``WerewolfRules``; nothing here reads anything but a view or the rules.  The announcement
phrases ("was eliminated during the night", "exiled by the village", "night falls") are among
the filter's markers (``engines.werewolf.filter``), so no statement can forge one.
"""

from __future__ import annotations

from engines.werewolf.events import Event
from engines.werewolf.roles import NAMES, ROLE_COUNTS, Role, Team, name_of
from engines.werewolf.rules import WerewolfRules
from engines.werewolf.view import PlayerView

ROLE_NAMES = {
    Role.WEREWOLF: "Werewolf",
    Role.SEER: "Seer",
    Role.DOCTOR: "Doctor",
    Role.VILLAGER: "Villager",
}
TEAM_WIN = {Team.WEREWOLVES: "the Werewolves win", Team.VILLAGE: "the village wins"}
REASONS = {
    "werewolves_dead": "no Werewolf is alive",
    "parity": "the Werewolves are as many as the other living players",
    "day_limit": "the last day ended with a Werewolf alive",
}


def _who(seat: int | None, viewer: int) -> str:
    if seat is None:
        return "no one"
    return "you" if seat == viewer else name_of(seat)


def event_line(event: Event, viewer: int) -> str:
    """``event`` as ``viewer`` reads it (``ValueError`` if ``viewer`` cannot see it)."""
    if not event.visible_to(viewer):
        raise ValueError(f"seat {viewer} cannot see {event.kind} event")
    kind = event.kind
    if kind == "role":
        assert event.role is not None
        return f"You are {name_of(viewer)}. Your role is {ROLE_NAMES[event.role]}."
    if kind == "pack":
        others = [name_of(s) for s in event.seats if s != viewer]
        return f"The Werewolves are {' and '.join(name_of(s) for s in event.seats)}" + (
            f" (your partner: {', '.join(others)})." if others else "."
        )
    if kind == "night":
        return f"Night {event.day} falls."
    if kind == "nominate":
        actor = "You" if event.actor == viewer else name_of(event.actor or 0)
        if event.target is None:
            return f"{actor} passed: no nomination."
        return f"{actor} nominated {name_of(event.target)} as the pack's victim."
    if kind == "protect":
        return f"You protect {_who(event.target, viewer)} tonight."
    if kind == "inspect":
        if event.target is None:
            return "You inspect no one tonight."
        verdict = "is a Werewolf" if event.werewolf else "is not a Werewolf"
        return f"You inspect {name_of(event.target)}: {name_of(event.target)} {verdict}."
    if kind == "dawn":
        head = f"Day {event.day} begins."
        if event.target is None:
            return f"{head} No one was eliminated during the night."
        victim = "You were" if event.target == viewer else f"{name_of(event.target)} was"
        return f"{head} {victim} eliminated during the night."
    if kind == "statement":
        speaker = "You" if event.actor == viewer else name_of(event.actor or 0)
        said = "say" if event.actor == viewer else "says"
        if not event.text:
            return f"{speaker} {said} nothing."
        return f"{speaker} {said}: {event.text}"
    if kind == "ballot":
        if event.target is None:
            return "You abstain."
        return f"You vote for {name_of(event.target)}."
    if kind == "votes":
        parts = [
            f"{name_of(v)} -> {'abstain' if t is None else name_of(t)}" for v, t in event.ballots
        ]
        return f"Votes of day {event.day}: {', '.join(parts)}."
    if kind == "exile":
        if event.target is None:
            return (
                f"No one is exiled: no player has a majority ({event.needed} votes needed, "
                f"the most was {event.count})."
            )
        return (
            f"{name_of(event.target)} is exiled by the village ({event.count} votes, "
            f"{event.needed} needed)."
        )
    assert kind == "game_over" and event.winner is not None and event.reason is not None
    roles = ", ".join(f"{name_of(s)} {ROLE_NAMES[r]}" for s, r in enumerate(event.roles))
    return f"The game is over: {TEAM_WIN[event.winner]} ({REASONS[event.reason]}). Roles: {roles}."


def transcript(view: PlayerView) -> list[str]:
    """Every event of ``view``, one line each, in order."""
    return [event_line(e, view.seat) for e in view.events]


def rules_text(rules: WerewolfRules) -> str:
    """The rulebook of a game under ``rules`` (docs/WEREWOLF.md says the same)."""
    counts = ", ".join(f"{n} {ROLE_NAMES[r]}{'s' if n > 1 else ''}" for r, n in ROLE_COUNTS.items())
    return "\n".join(
        [
            "WEREWOLF",
            f"Players: {len(NAMES)} ({', '.join(NAMES)}). Roles, dealt secretly: {counts}.",
            "Teams: the two Werewolves (who know each other) against the village "
            "(the Seer, the Doctor and the Villagers).",
            "Night: each living Werewolf nominates a living non-Werewolf (or passes); the last "
            "nomination is the pack's victim. The Doctor protects one living player, possibly "
            "itself. The Seer inspects another living player and learns whether that player "
            "is a Werewolf. The victim dies unless protected. A dead player's role is not "
            "revealed.",
            f"Day: {rules.discussion_rounds} round(s) of statements, each living player "
            "speaking once a round in turn; then every living player votes for another living "
            "player or abstains. A player with more than half of the living players' votes is "
            "exiled; otherwise no one is.",
            "The village wins when no Werewolf is alive. The Werewolves win when they are at "
            "least as many as the other living players, or if a Werewolf is still alive after "
            f"day {rules.max_days}.",
            f"Statements are filtered: at most {rules.statement_chars} characters, no markup, "
            "and no sentence that speaks as the moderator or the system.",
        ]
    )
