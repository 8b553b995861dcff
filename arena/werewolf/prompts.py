"""The prompt a Werewolf player gets, from its view alone, and how its reply is read.

Why it exists: Game Arena's harness prompts "with a chronological event log, a phase-specific
task definition, and a system directive to prioritize team victory over individual survival",
and the model "generates private reasoning alongside actions" (Game Arena report, "Werewolf").

- **System**: who the player is, the rulebook (``engines.werewolf.render.rules_text``), the
  directive, and the reply format.
- **User**: what the seat knows privately (role, pack, the Seer's findings: kept whatever is
  cut), the living players, the game log in order (``engines.werewolf.render.transcript``), the
  task of this request, the reply format and, for a choice, ``Legal actions: [...]`` as the last
  line (the menu line every GENSTRAT prompt ends with).
- **Reply**: one JSON object, ``{"reasoning": ..., "action": <a legal action>}`` for a choice
  (read by the project's lenient parser, ``engines.agents.parser.parse_reply``) or
  ``{"reasoning": ..., "statement": <text>}`` to speak (``parse_statement``: the last object of
  the reply with a string ``statement``).  ``reasoning`` is never shown to other players.

**Truncation** (Game Arena: "iterative truncation (preserve latest 75% context each time) for
context overflows"): when the user message would exceed ``context_chars`` characters, the
oldest quarter of the log's lines (at least one) is dropped, and again, until it fits or no
line is left; a line says how many were omitted.  The private summary, the living players and
the task are never cut, so a player always knows its role, its findings and what to do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engines.agents.parser import decode_object, json_objects
from engines.werewolf.render import ROLE_NAMES, rules_text, transcript
from engines.werewolf.roles import Role, name_of
from engines.werewolf.rules import WerewolfRules
from engines.werewolf.view import PlayerView, Request

KEEP = 0.75  # the share of the log's lines each truncation keeps (the latest)
DEFAULT_CONTEXT_CHARS = 24_000
MIN_CONTEXT_CHARS = 1_000
STATEMENT_FEEDBACK = (
    'Your reply could not be read. Reply with a JSON object {"reasoning": "<your private '
    'thinking>", "statement": "<what you say to the table>"}.'
)
DIRECTIVE = (
    "Your goal is your team's victory, which matters more than your own survival. Other "
    "players may lie. Think privately, then act."
)


@dataclass(frozen=True)
class Prompt:
    """A request's system and user text, and how many log lines truncation omitted."""

    system: str
    user: str
    omitted: int = 0


def system_prompt(view: PlayerView, rules: WerewolfRules) -> str:
    return "\n\n".join(
        [
            f"You are {view.name}, a player of the social deduction game Werewolf.",
            rules_text(rules),
            DIRECTIVE,
            "Answer every request with one JSON object as the request says; its reasoning "
            "field stays private.",
        ]
    )


def private_summary(view: PlayerView) -> list[str]:
    """What the seat knows that no truncation may drop."""
    team = "the Werewolves" if view.role is Role.WEREWOLF else "the village"
    lines = [f"You are {view.name}. Your role is {ROLE_NAMES[view.role]} (team: {team})."]
    if view.pack:
        lines.append(f"The Werewolves are {' and '.join(name_of(s) for s in view.pack)}.")
    if view.inspections:
        found = "; ".join(
            f"{name_of(t)} {'is' if w else 'is not'} a Werewolf" for t, w in view.inspections
        )
        lines.append(f"Your findings as the Seer: {found}.")
    lines.append(f"Living players: {', '.join(name_of(s) for s in view.alive)}.")
    return lines


def task_lines(request: Request, rules: WerewolfRules) -> list[str]:
    """The phase-specific task and reply format of ``request``."""
    d = request.day
    choice = (
        'Reply with a JSON object {"reasoning": "<your private thinking>", "action": "<one of '
        'the legal actions>"}.'
    )
    if request.kind == "speak":
        return [
            f"Day {d}, discussion: say something to the other players (at most "
            f"{rules.statement_chars} characters; an empty statement says nothing).",
            'Reply with a JSON object {"reasoning": "<your private thinking>", "statement": '
            '"<what you say to the table>"}.',
        ]
    task = {
        "nominate": f"Night {d}: choose the pack's victim, a living player who is not a "
        "Werewolf, or pass. The last nomination of the night is the victim.",
        "protect": f"Night {d}: choose a living player to protect from the Werewolves tonight "
        "(you may protect yourself), or pass.",
        "inspect": f"Night {d}: choose a living player to inspect; you will learn whether that "
        "player is a Werewolf. Or pass.",
        "vote": f"Day {d}, vote: vote to exile a living player, or pass to abstain. A player "
        "with more than half of the living players' votes is exiled.",
    }[request.kind]
    return [task, choice, f"Legal actions: {json.dumps(list(request.options))}"]


def user_text(view: PlayerView, rules: WerewolfRules, omitted: int = 0) -> str:
    """The user message of ``view``'s pending request with the oldest ``omitted`` log lines
    left out (and a line saying so)."""
    if view.request is None:
        raise ValueError(f"{view.name} has no pending request to prompt for")
    log = transcript(view)[omitted:]
    note = [f"({omitted} earlier lines omitted to fit the context.)"] if omitted else []
    return "\n".join(
        [
            *private_summary(view),
            "",
            "Game log, oldest first:",
            *note,
            *log,
            "",
            *task_lines(view.request, rules),
        ]
    )


def build_prompt(view: PlayerView, rules: WerewolfRules, context_chars: int) -> Prompt:
    """The prompt of ``view``'s pending request, truncated to ``context_chars`` (docstring)."""
    if context_chars < MIN_CONTEXT_CHARS:
        raise ValueError(f"context_chars must be at least {MIN_CONTEXT_CHARS}, got {context_chars}")
    lines = len(view.events)  # one transcript line per event
    omitted = 0
    user = user_text(view, rules)
    while len(user) > context_chars and omitted < lines:
        left = lines - omitted
        omitted += max(1, left - int(left * KEEP))
        user = user_text(view, rules, omitted)
    return Prompt(system_prompt(view, rules), user, omitted)


def parse_statement(text: str | None) -> str | None:
    """The statement of a reply: the last JSON object with a string ``statement`` (None when
    there is none)."""
    if not text:
        return None
    for span in reversed(json_objects(text)):
        obj = decode_object(span)
        if obj is None:
            continue
        keys = {str(k).strip().casefold(): k for k in obj}
        value = obj[keys["statement"]] if "statement" in keys else None
        if isinstance(value, str):
            return value
    return None


def reply_schema(request: Request) -> dict[str, Any]:
    """The JSON schema of a reply (for providers that take a response format)."""
    if request.kind == "speak":
        field: dict[str, Any] = {"type": "string"}
        name = "statement"
    else:
        field, name = {"type": "string", "enum": list(request.options)}, "action"
    return {
        "type": "object",
        "properties": {"reasoning": {"type": "string"}, name: field},
        "required": ["reasoning", name],
        "additionalProperties": False,
    }
