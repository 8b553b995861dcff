"""The moderator's filter on statements: what a player says, as the table hears it.

Why it exists: Game Arena's harness passes every statement through "a deterministic rule-based
filter to intercept inappropriate language" (Game Arena report, "Werewolf").  Here the
inappropriate text is meta-text: a player writing as the moderator, the system or the event
log, or addressing the harness instead of the table, which would let one model forge the
moderator's announcements in another's prompt.  Claims made as a player ("I am the Seer",
"P4 is a Werewolf") are play, and pass untouched.  The moderator applies the filter to every
statement, whoever makes it; the log holds the filtered text.

The rules, in order (``filter_statement``; the result is a fixed point, tested):

1. Unicode NFKC normalisation (full-width and compatibility forms become plain letters, so
   "ＭＯＤＥＲＡＴＯＲ" is caught by rule 5).
2. Markup characters are removed: ``< > [ ] { } | # * ` ~ _ \\ =`` (no forged tags, headings,
   separators or fenced blocks).
3. Every control or format character and every run of whitespace (newlines included) becomes
   one space; the text is stripped.
4. Length cap: a text longer than ``limit`` characters is cut to its longest prefix of at most
   ``limit - 3`` characters ending before a space (or exactly ``limit - 3`` when it has no
   space), stripped, and ``...`` is appended.
5. A sentence (the text is cut after every ``.``, ``!`` or ``?`` followed by a space) that
   contains a meta marker (``META_MARKERS``, matched case-insensitively on word boundaries) is
   removed and the rest joined by single spaces; this repeats until nothing changes (removing
   a sentence may join two others into a new marker).  Rule 5 only shortens the text, so the
   cap still holds; it comes after the cap so that a cut word cannot become a marker.

Rules 1-5 are applied again until the text no longer changes (removing a markup character
between a letter and a combining accent makes a pair that NFKC composes).  After the first
pass the text is normalised, so a later pass that changes it can only remove or compose
characters: it gets shorter each time, the loop ends, and its result is a fixed point.

An empty result is a player who says nothing.
"""

from __future__ import annotations

import re
import unicodedata

MARKUP = frozenset("<>[]{}|#*`~_\\=")
META_MARKERS: tuple[str, ...] = (
    "moderator",
    "narrator",
    "game master",
    "gamemaster",
    "system",
    "assistant",
    "game over",
    "the game is over",
    "the game has ended",
    "prompt",
    "instructions",
    "was eliminated during the night",
    "no one was eliminated",
    "exiled by the village",
    "night falls",
)
ELLIPSIS = "..."
_META = re.compile(r"\b(?:" + "|".join(re.escape(m) for m in META_MARKERS) + r")\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _spaces(text: str) -> str:
    """Rule 3: control and format characters and whitespace runs to one space, stripped."""
    out = [" " if unicodedata.category(ch)[0] in "CZ" or ch.isspace() else ch for ch in text]
    return " ".join("".join(out).split())


def sentences(text: str) -> list[str]:
    """``text`` (rule 3 applied) cut into sentences, each with its closing punctuation."""
    return [p for p in _SENTENCE_END.split(text) if p]


def has_meta(text: str) -> bool:
    """Whether ``text`` contains a meta marker (rule 5)."""
    return _META.search(text) is not None


def _cap(text: str, limit: int) -> str:
    """Rule 4."""
    if len(text) <= limit:
        return text
    room = limit - len(ELLIPSIS)
    head = text[: room + 1]
    cut = head.rfind(" ")
    kept = text[:cut] if cut > 0 else text[:room]
    return kept.rstrip() + ELLIPSIS


def filter_statement(text: str, limit: int) -> str:
    """The statement the table hears (module docstring, rules 1-5)."""
    if limit < len(ELLIPSIS) + 1:
        raise ValueError(f"a statement limit must be at least {len(ELLIPSIS) + 1}, got {limit}")
    while True:  # rules 1-5 again until nothing changes (module docstring)
        before = text
        text = unicodedata.normalize("NFKC", text)
        text = "".join(ch for ch in text if ch not in MARKUP)
        text = _cap(_spaces(unicodedata.normalize("NFKC", text)), limit)
        while True:
            kept = _spaces(" ".join(s for s in sentences(text) if not has_meta(s)))
            if kept == text:
                break
            text = kept
        if text == before:
            return text
