"""Keeping secrets out of everything the harness records.

The tournament handles API keys (a roster names the environment variable of each key, never
the key), and untrusted text passes through it: providers' replies and error bodies, strategy
programs' answers and exceptions.  This module is the one place that knows what a secret looks
like, used three ways:

- ``redact(text, secrets)``: every known secret value replaced by ``REDACTED`` (the provider
  transport and the LLM player, before anything is cached or journalled);
- ``scrub(text, secrets)``: that, plus anything shaped like a credential and the value of any
  ``NAME_KEY=value`` assignment, on one bounded line (what a strategy program says);
- ``CREDENTIAL_SHAPES`` and ``SECRET_NAME``: the shapes and variable names that the release's
  redaction scan (``quality.redaction``) searches every published file for.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8
MAX_SCRUBBED_CHARS = 300

# Well-known credential shapes, by name (regular expressions as text; a token must start at a
# word boundary, so that ordinary words such as "risk-free-..." do not match).
CREDENTIAL_SHAPES: dict[str, str] = {
    "openai/anthropic key (sk-…)": r"sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}",
    "google api key (AIza…)": r"AIza[0-9A-Za-z_\-]{35}",
    "bearer token": r"(?i:bearer)\s+[A-Za-z0-9\-._~+/]{16,}=*",
    "github token": r"gh[pousr]_[A-Za-z0-9]{36,}",
    "aws access key": r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    "slack token": r"xox[abposr]-[A-Za-z0-9-]{10,}",
    "hugging face token": r"hf_[A-Za-z0-9]{30,}",
    "private key": r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
}
WORD_START = r"(?<![A-Za-z0-9_])"
SECRET_NAME = re.compile(r"(?i)(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)$")

_CREDENTIAL = re.compile(WORD_START + "(?:" + "|".join(CREDENTIAL_SHAPES.values()) + ")")
# ``NAME_KEY=value`` (an environment dump, a config line): the value goes.
_ASSIGNED = re.compile(
    r"(?i)(\b[A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)\b['\"]?\s*[=:]\s*['\"]?)[^\s'\",;]+"
)


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with every secret replaced (secrets shorter than 4 characters are ignored)."""
    for secret in secrets:
        if secret and len(secret) >= 4 and secret in text:
            text = text.replace(secret, REDACTED)
    return text


def environment_secrets(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of the environment variables whose names look secret (``*_KEY``, ``*_TOKEN``,
    ``*_SECRET``, ``*_PASSWORD``), at least ``MIN_SECRET_CHARS`` long."""
    env = os.environ if environ is None else environ
    return tuple(
        value
        for name, value in sorted(env.items())
        if SECRET_NAME.search(name) and len(value.strip()) >= MIN_SECRET_CHARS
    )


def redact_all(text: str, secrets: tuple[str, ...], *, assignments: bool = True) -> str:
    """``text`` with every known secret (longest first) and anything shaped like a credential
    redacted, and with ``assignments`` the value of any ``NAME_KEY=value`` too (for error text;
    a model's reply keeps its words: ``{"monkey": 3}`` is not a secret)."""
    text = redact(text, tuple(sorted(secrets, key=len, reverse=True)))
    text = _CREDENTIAL.sub(REDACTED, text)
    return _ASSIGNED.sub(lambda m: m.group(1) + REDACTED, text) if assignments else text


# The free-text fields of the match and move rows: what a player, a provider or an exception
# said.  Everything else in a row is computed by the harness.
MATCH_TEXT_FIELDS = ("error",)
MOVE_TEXT_FIELDS = ("raw_response", "reasoning", "earlier_responses")


def redacted_rows(
    match: dict[str, Any], moves: list[dict[str, Any]], secrets: tuple[str, ...]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A match row and its move rows with every free-text field passed through ``redact_all``
    (the error as one bounded line), ready for the journal and the tables."""

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return redact_all(value, secrets, assignments=False)
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    match = dict(match)
    for key in MATCH_TEXT_FIELDS:
        if isinstance(match.get(key), str):
            match[key] = scrub(match[key], secrets)
    cleaned = []
    for move in moves:
        move = dict(move)
        for key in MOVE_TEXT_FIELDS:
            if key in move:
                move[key] = clean(move[key])
        cleaned.append(move)
    return match, cleaned


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` safe to record: every known secret redacted (longest first), anything shaped
    like a credential redacted, on one line of at most ``MAX_SCRUBBED_CHARS`` characters."""
    text = " ".join(redact_all(text, secrets).split())
    return text if len(text) <= MAX_SCRUBBED_CHARS else text[: MAX_SCRUBBED_CHARS - 1] + "…"
