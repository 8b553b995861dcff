"""Reading a move from a model's reply: the lenient parser, rethink feedback and the fallback.

Paper, Section 5 and the per-turn prompt of the appendix: a model answers ``{"action": ...}``; a
lenient parser fixes minor formatting problems; should it fail, the harness plays a fallback
action (the minimum amount for a wager or bid, otherwise a random legal choice).  Game Arena's
"rethink" sits in between: an unparsable or illegal reply earns up to K retries with minimal
feedback, the two sentences in ``FEEDBACK``.

The parser reads JSON only, never prose:

1. collect every balanced ``{...}`` span of the reply (code fences are just text around them);
2. from the last span backwards, take the first that decodes to an object with an ``action``
   key, after these repairs when strict JSON fails: trailing commas removed, single-quoted
   strings turned into double-quoted ones, bare Python literals (``True``, ``None``) mapped;
3. match its value to the legal menu: case and inner whitespace do not matter, an amount may
   be given as a string or number, either inside the action (``"Bet 2"``) or beside it
   (``{"action": "bet", "amount": "2"}``), and a bare amount (``{"action": 3}``) names the one
   amount-taking verb of the menu when there is exactly one.

A reply with no such object is *unparsable*; an object whose action names nothing on the menu
is *illegal*.  Words in the prose around the JSON are never read as a move.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any, Literal

from engines.openspiel.text import read_move

Verdict = Literal["ok", "unparsable", "illegal"]

FEEDBACK: dict[str, str] = {
    "unparsable": (
        'Your reply could not be parsed. Reply with a JSON object {"action": "<one of the '
        'legal actions>"}.'
    ),
    "illegal": (
        'That is not a legal action. Reply with a JSON object {"action": "<one of the '
        'legal actions>"}.'
    ),
}

# Verbs whose second word is an amount of chips (wagers) or a bid.
AMOUNT_VERBS = frozenset({"bet", "raise", "bid"})
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Parsed:
    """What the parser made of a reply: its verdict, the legal action, what the reply said."""

    verdict: Verdict
    action: str | None = None
    said: str | None = None


def json_objects(text: str) -> list[str]:
    """Every balanced ``{...}`` span of ``text`` that is not inside another, in order.

    Braces inside quoted strings (double or single quotes, with backslash escapes) do not count.
    """
    spans: list[str] = []
    depth = 0
    start = -1
    quote = ""
    escaped = False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'" and depth > 0:
            quote = ch
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def _single_to_double_quotes(span: str) -> str:
    """Rewrite single-quoted strings as JSON strings (escaping inner double quotes)."""
    out: list[str] = []
    quote = ""
    escaped = False
    for ch in span:
        if quote:
            if escaped:
                # \' inside a single-quoted string is a plain quote in JSON
                out.append("'" if (quote == "'" and ch == "'") else "\\" + ch)
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
                out.append('"')
            elif ch == '"' and quote == "'":
                out.append('\\"')
            else:
                out.append(ch)
            continue
        if ch in "\"'":
            quote = ch
            out.append('"')
        else:
            out.append(ch)
    return "".join(out)


_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_PY_LITERALS = re.compile(r"\b(True|False|None)\b")


def decode_object(span: str) -> dict[str, Any] | None:
    """``span`` as a JSON object, after the module's repairs; None when it is not one."""
    attempts = [span]
    repaired = _TRAILING_COMMA.sub(r"\1", span)
    attempts.append(repaired)
    quoted = _TRAILING_COMMA.sub(r"\1", _single_to_double_quotes(span))
    attempts.append(quoted)
    attempts.append(
        _PY_LITERALS.sub(lambda m: {"True": "true", "False": "false"}.get(m[1], "null"), quoted)
    )
    for attempt in attempts:
        try:
            value = json.loads(attempt)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def _norm(text: str) -> str:
    return _WS.sub(" ", text.strip()).casefold()


def _amount_text(value: Any) -> str | None:
    """An amount given as an int, an integral float or a numeric string, as digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"[+-]?\d+(\.0*)?", text):
            return str(int(float(text)))
    return None


def match_action(value: Any, legal: tuple[str, ...], amount: Any = None) -> str | None:
    """The legal action that ``value`` (and an optional separate ``amount``) names, if any."""
    index = {_norm(a): a for a in legal}
    bare = _amount_text(value)
    if bare is not None and amount is None:
        verbs = {a.split(" ", 1)[0] for a in legal if a.split(" ", 1)[0] in AMOUNT_VERBS}
        if len(verbs) == 1:
            return index.get(f"{verbs.pop()} {bare}")
        return None
    if not isinstance(value, str):
        return None
    said = _norm(value)
    if amount is not None:
        digits = _amount_text(amount)
        if digits is None:
            return None
        combined = index.get(f"{said} {digits}")
        if combined is not None:
            return combined
        own = _amount(said)
        # {"action": "check", "amount": 0} is a check; {"action": "bet 2", "amount": 4} is
        # contradictory and names nothing.
        return index.get(said) if own is None or str(own) == digits else None
    found = index.get(said)
    if found is not None:
        return found
    verb, _, rest = said.partition(" ")
    digits = _amount_text(rest) if rest else None
    if digits is not None:
        return index.get(f"{verb} {digits}")
    return None


def parse_reply(text: str | None, legal: tuple[str, ...]) -> Parsed:
    """Apply the lenient parser (module docstring) to ``text`` against the menu ``legal``."""
    if not text:
        return Parsed("unparsable")
    for span in reversed(json_objects(text)):
        obj = decode_object(span)
        if obj is None:
            continue
        keys = {str(k).strip().casefold(): k for k in obj}
        if "action" not in keys:
            continue
        value = obj[keys["action"]]
        amount = obj[keys["amount"]] if "amount" in keys else None
        said = value if isinstance(value, str) else json.dumps(value)
        if amount is not None:
            said = f"{said} {amount}"
        action = match_action(value, legal, amount)
        if action is None:
            return Parsed("illegal", said=said)
        return Parsed("ok", action=action, said=said)
    return Parsed("unparsable")


def _amount(action: str) -> int | None:
    verb, _, rest = action.partition(" ")
    if verb in AMOUNT_VERBS and rest.lstrip("-").isdigit():
        return int(rest)
    return None


def fallback_action(legal: tuple[str, ...], rng: random.Random) -> str:
    """The paper's fallback: the minimum amount for a wager or bid, else a random legal choice.

    A wager decision (the menu offers ``check``, ``call``, ``bet N`` or ``raise N``) falls back
    to the smallest commitment of chips that stays in the deal: ``check`` (0 chips), else
    ``call``, else the smallest bet or raise.  A bid falls back to the smallest bid.  Any other
    decision (swaps, peeks, simultaneous choices, side bets, ...) falls back to a uniform draw
    from ``rng``, the match's seeded generator.
    """
    if not legal:
        raise ValueError("no legal action to fall back to")
    if "check" in legal:
        return "check"
    if "call" in legal:
        return "call"
    amounts = [(amount, i) for i, a in enumerate(legal) if (amount := _amount(a)) is not None]
    if amounts:
        return legal[min(amounts)[1]]
    return rng.choice(legal)


def action_schema(legal: tuple[str, ...]) -> dict[str, Any]:
    """A JSON schema that admits exactly ``{"action": <one of legal>}``."""
    return {
        "type": "object",
        "properties": {"action": {"type": "string", "enum": list(legal)}},
        "required": ["action"],
        "additionalProperties": False,
    }


def parse_move(state: Any, reply: str | None) -> tuple[str, str | None]:
    """(verdict, move) for a reply in an OpenSpiel game: the JSON ``{"action": ...}`` reader,
    then ``engines.openspiel.text.read_move`` for a name the menu spells otherwise."""
    legal = state.legal_actions()
    # Chess names differ by case alone (bxc3 / Bxc3): its moves are read by ``read_move`` only.
    parsed = parse_reply(reply, () if state.spec.family == "chess" else legal)
    if parsed.verdict == "ok":
        return "ok", parsed.action
    if parsed.verdict == "illegal" and parsed.said is not None:
        found = read_move(state, parsed.said)
        if found is not None:
            return "ok", found
    return parsed.verdict, None
