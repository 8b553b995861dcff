"""Playing against a reference field: the harness side of the anchored scales (issue 19).

``engines.stats.reference_field`` defines the field (engines with fixed settings); this module
turns it into roster entries and plays what the anchored scales and the program track need:

- :func:`field_players`: the field's members as built-in roster entries (their fixed settings);
- :func:`play_program_track`: each strategy program takes the admission test on each game (one
  authoring attempt per program and game, recorded as the program track reads attempts), then
  the admitted programs and the field play a tournament (``run_tournament``: the field's members
  among themselves and against every program, in both seats); returns the attempts and the
  match table.
- :func:`episode_roster`: a roster with the episode bots added (the fixed exploitable
  ``overfolder`` and the planted ``adaptive``), for ``run_episode_tournament``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from arena.programs.sandbox import admit
from arena.roster import Roster, parse_roster, roster_json
from arena.tournament.runner import run_tournament
from engines.stats.reference_field import ReferenceField
from engines.tournament.schedule import Game

EXPLOITABLE = "overfolder"
ADAPTIVE = "adaptive"


def field_players(field: ReferenceField) -> list[dict[str, Any]]:
    """The members as built-in roster entries with the field's settings."""
    return [
        {"name": e.name, "kind": "builtin", "agent": e.agent, "params": e.settings()}
        for e in field.engines()
    ]


def play_program_track(
    programs: Mapping[str, tuple[str, Path]],
    field: ReferenceField,
    games: Sequence[Game],
    runs: int,
    folder: Path,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(authoring attempts, matches) for ``programs`` ({name: (author, path)}) on ``games``."""
    clash = sorted(set(programs) & set(field.members))
    if clash:
        raise ValueError(f"program name(s) {', '.join(clash)} are reference member names")
    rows: list[dict[str, Any]] = []
    admitted: dict[str, Path] = {}
    for name, (author, path) in sorted(programs.items()):
        for game in games:
            verdict = admit(path, game.generated)
            rows.append(
                {
                    "author": author,
                    "game": game.token,
                    "attempt": 0,
                    "admitted": verdict.admitted,
                    "reason": verdict.reason,
                    "program": name if verdict.admitted else None,
                }
            )
            if verdict.admitted:
                admitted[name] = path
    players = [
        *field_players(field),
        *({"name": n, "kind": "program", "path": str(p)} for n, p in sorted(admitted.items())),
    ]
    summary = run_tournament(parse_roster({"players": players}), games, runs, folder)
    matches = pd.read_parquet(summary.matches_path)
    return pd.DataFrame(rows), matches


def episode_roster(roster: Roster) -> Roster:
    """``roster`` with the episode bots added (kept as they are if the roster has them)."""
    data: dict[str, Any] = json.loads(roster_json(roster))
    names = {p["name"] for p in data["players"]}
    for name in (EXPLOITABLE, ADAPTIVE):
        if name not in names:
            data["players"].append({"name": name, "kind": "builtin", "agent": name})
    return parse_roster(data, "roster with the episode bots")
