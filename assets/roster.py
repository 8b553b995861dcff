"""Stage: ``roster``, the players of the tournament (paper, Section 5, "Models").

One row per player: its kind, the built-in agent and parameters, the provider's model id,
endpoint and every request setting, or a strategy program's file, code SHA-256 and sandbox
limits; its block and family, its price, and its fingerprint (the hash of what determines its
play, part of every match id).  For an LLM player only the *name* of the environment variable
holding its key is recorded, never a key.

The roster file comes from the asset's config (``path``); left unset, from the ``roster_file``
resource: ``$GENSTRAT_ROSTER`` when set (the file ``roster_sensor`` watches), else the demo roster
(``assets/rosters/demo.yaml``, built-in bots only, so the default refresh needs no API key).  Any
profile plays the LLM players of the roster it is given (issue 41, item 5: ``GENSTRAT_ROSTER=my.yaml
make run`` plays them in the demo's minutes); one whose ``api_key_env`` names a variable that is
not set is refused here, in one line naming the players and the variables (never a value), rather
than after the pool and the axes, when its first match would stop it.
"""

import json
import os
from pathlib import Path

import dagster as dg
import pandas as pd
from pydantic import Field

from arena.roster import (
    ApiEntry,
    BuiltinEntry,
    ProgramEntry,
    PythonEntry,
    Roster,
    load_roster,
    roster_json,
    with_protocol,
    with_rulebook_style,
)
from assets.metadata import declared_columns, markdown_table
from assets.resources import DEMO_ROSTER, RosterFile, RunProfile

GROUP_NAME = "tournament"

COLUMNS: tuple[dg.TableColumn, ...] = declared_columns("roster")


class RosterConfig(dg.Config):
    """Which roster file to read (YAML); unset means the ``roster_file`` resource's."""

    path: str | None = Field(
        default=None, description="roster YAML file; default: $GENSTRAT_ROSTER, else demo roster"
    )


def roster_table(roster: Roster) -> pd.DataFrame:
    """The roster as the asset's table (one row per player)."""
    whole = roster_json(roster)
    rows = []
    for entry in roster.players:
        row: dict[str, object] = {
            "name": entry.name,
            "kind": entry.kind,
            "block": entry.block,
            "family": entry.family,
            "variant": entry.variant,
            "rethinks": roster.rethinks_of(entry),
            "fingerprint": roster.fingerprint(entry.name),
            "roster_json": whole,
            "path": None,
            "code_sha256": None,
        }
        if isinstance(entry, BuiltinEntry):
            row |= {
                "model": entry.agent,
                "endpoint": "",
                "api_key_env": None,
                "settings": json.dumps(entry.params, sort_keys=True),
                "response_format": "none",
                "input_per_mtok": 0.0,
                "output_per_mtok": 0.0,
            }
        elif isinstance(entry, PythonEntry):
            row |= {
                "model": entry.entry,
                "endpoint": "",
                "api_key_env": None,
                "settings": json.dumps(entry.params, sort_keys=True),
                "response_format": "none",
                "input_per_mtok": 0.0,
                "output_per_mtok": 0.0,
                "code_sha256": entry.code_sha256,
            }
        elif isinstance(entry, ProgramEntry):
            row |= {
                "model": entry.path.name,
                "endpoint": "",
                "api_key_env": None,
                "settings": json.dumps(entry.limits.model_dump(mode="json"), sort_keys=True),
                "response_format": "none",
                "input_per_mtok": 0.0,
                "output_per_mtok": 0.0,
                "path": str(entry.path),
                "code_sha256": entry.code_sha256,
            }
        else:
            assert isinstance(entry, ApiEntry)
            row |= {
                "model": entry.model,
                "endpoint": entry.endpoint,
                "api_key_env": entry.api_key_env,
                "settings": json.dumps(entry.settings, sort_keys=True),
                "response_format": entry.response_format,
                "input_per_mtok": entry.price.input_per_mtok,
                "output_per_mtok": entry.price.output_per_mtok,
            }
        rows.append(row)
    frame = pd.DataFrame(rows, columns=[c.name for c in COLUMNS])
    frame["rethinks"] = frame["rethinks"].astype("int64")
    return frame


def roster_from_table(table: pd.DataFrame) -> Roster:
    """The ``Roster`` a ``roster`` table was made from."""
    from arena.roster import parse_roster

    if table.empty:
        raise ValueError("the roster table is empty")
    return parse_roster(json.loads(str(table["roster_json"].iloc[0])), "roster asset")


def missing_keys(roster: Roster, environ: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(player, variable) of each LLM player whose ``api_key_env`` is not set (or empty)."""
    env = os.environ if environ is None else environ
    return [
        (p.name, p.api_key_env)
        for p in roster.players
        if isinstance(p, ApiEntry) and p.api_key_env and not env.get(p.api_key_env)
    ]


@dg.asset(
    group_name=GROUP_NAME,
    kinds={"pandas", "parquet"},
    description="The tournament's players: provider, model id, request settings, block, family.",
    metadata={"dagster/column_schema": dg.TableSchema(columns=list(COLUMNS))},
)
def roster(
    config: RosterConfig, profile: RunProfile, roster_file: RosterFile
) -> dg.Output[pd.DataFrame]:
    chosen = profile.get()
    path = Path(config.path) if config.path else roster_file.file()
    parsed = with_protocol(load_roster(path), chosen.protocol)  # the profile's move protocol
    parsed = with_rulebook_style(parsed, chosen.rulebook_style)  # and its rulebooks' style
    unset = missing_keys(parsed)
    if unset:
        named = ", ".join(f"{name} ({variable})" for name, variable in unset)
        raise ValueError(
            f"roster {path}: the API key variable of LLM player(s) {named} is not set; export "
            "it (or remove the player) and materialize again"
        )
    frame = roster_table(parsed)
    shown = frame[["name", "kind", "model", "block", "settings", "fingerprint"]]
    return dg.Output(
        frame,
        metadata={
            "dagster/row_count": len(frame),
            "source": str(path),
            "protocol": chosen.protocol,
            "rulebook_style": chosen.rulebook_style,
            "players": dg.MetadataValue.md(markdown_table(shown)),
        },
    )


__all__ = [
    "DEMO_ROSTER",
    "GROUP_NAME",
    "missing_keys",
    "roster",
    "roster_from_table",
    "roster_table",
]

ASSETS: list[dg.AssetsDefinition] = [roster]
CHECKS: list[dg.AssetChecksDefinition] = []
