"""One model at several reasoning settings, rated as separate entrants of one family (issue 46,
item 5; GameBench 2 rates each model at several reasoning settings).

A roster's LLM entry may list its reasoning settings under ``reasoning``, each a label and the
provider-native settings it adds::

    - name: gpt-5
      kind: openai
      model: gpt-5
      settings: {max_completion_tokens: 4096}
      reasoning:
        low: {reasoning_effort: low}
        high: {reasoning_effort: high}

:func:`expand_reasoning` turns it into one entrant per label, before the roster is validated:
``gpt-5@low`` and ``gpt-5@high``, each with the entry's settings updated by the label's, linked
as one family (``family``: the entry's own family, else its name; ``variant``: the label), so
each is rated on its own and the tables can set them side by side. A label's settings may not
override one the entry sets (that would be two settings under one name); labels are names of
their own (letters, digits, ``._-``).
"""

from __future__ import annotations

import re
from typing import Any

LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,23}$")
SEPARATOR = "@"


def expand_reasoning(data: Any) -> Any:
    """Roster data with every ``reasoning`` entry expanded (module docstring); anything else
    unchanged. ``ValueError`` (one line) for a malformed ``reasoning``."""
    if not isinstance(data, dict) or not isinstance(data.get("players"), list):
        return data
    players: list[Any] = []
    for entry in data["players"]:
        if not isinstance(entry, dict) or "reasoning" not in entry:
            players.append(entry)
            continue
        players.extend(_variants(entry))
    return {**data, "players": players}


def _variants(entry: dict[str, Any]) -> list[dict[str, Any]]:
    name = str(entry.get("name", "?"))
    reasoning = entry["reasoning"]
    if entry.get("kind") not in ("openai", "anthropic", "gemini"):
        raise ValueError(f"player {name}: reasoning settings are for LLM players only")
    if not isinstance(reasoning, dict) or not reasoning:
        raise ValueError(f"player {name}: reasoning must map labels to settings")
    if entry.get("variant") is not None:
        raise ValueError(f"player {name}: give reasoning labels or a variant, not both")
    base = {k: v for k, v in entry.items() if k != "reasoning"}
    settings = base.get("settings") or {}
    if not isinstance(settings, dict):
        raise ValueError(f"player {name}: settings must be a mapping")
    out = []
    for label, extra in reasoning.items():
        if not isinstance(label, str) or not LABEL.match(label):
            raise ValueError(f"player {name}: reasoning label {label!r} is not a short name")
        if not isinstance(extra, dict):
            raise ValueError(f"player {name}: reasoning {label} must be a mapping of settings")
        clash = sorted(set(extra) & set(settings))
        if clash:
            raise ValueError(
                f"player {name}: reasoning {label} sets {', '.join(clash)}, which its settings set"
            )
        out.append(
            {
                **base,
                "name": f"{name}{SEPARATOR}{label}",
                "settings": {**settings, **extra},
                "family": base.get("family") or name,
                "variant": label,
            }
        )
    return out
