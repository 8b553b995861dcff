"""Reference fields of the OpenSpiel families and their anchored scales (issue 46, item 2).

Why it exists: a family's Bradley-Terry Elo (``engines.stats.families``) is anchored at the
corpus's lowest player, so it moves when the roster does. GameBench 2 scores entrants against a
fixed reference field and Game Arena calibrates against fixed Stockfish levels; this module
fixes one field per OpenSpiel family (``engines.stats.reference_field``: named engines with
frozen settings, uniform random the anchor at rating 0 and Elo 0) and fits the anchored scales
of ``engines.stats.anchored`` on each family's matches alone:

- every family: ``random`` and ``mcts-40`` (OpenSpiel's MCTS, 40 simulations, the other
  settings at their defaults);
- chess adds the Stockfish ladder :data:`CHESS_LADDER`, four documented ``(skill, nodes)``
  levels of ``arena.reference_engines.stockfish``, weakest first; its calibration
  (``engines.stats.calibration``) is a measured ladder, since no published list rates these
  settings.

:func:`family_anchored_tables` gives one table per family, every entrant with a rank: an
entrant whose evidence is partial (``engines.stats.provisional``) keeps its rank and is flagged
``partial`` with the reason, as GameBench 2 keeps "Partial" entrants ranked.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from engines.stats.anchored import scales_with_flags
from engines.stats.calibration import Ladder
from engines.stats.families import GameUnit, family_generator
from engines.stats.provisional import ProvisionalRules
from engines.stats.reference_field import (
    REFERENCE_ENGINES,
    REFERENCE_FIELDS,
    ReferenceEngine,
    ReferenceField,
    register_reference_engine,
    register_reference_field,
)

MCTS_MEMBER = "mcts-40"
STOCKFISH_LEVELS: tuple[tuple[str, int, int], ...] = (
    ("stockfish-s0-n100", 0, 100),
    ("stockfish-s4-n400", 4, 400),
    ("stockfish-s8-n1000", 8, 1000),
    ("stockfish-s14-n4000", 14, 4000),
)
CHESS_LADDER = Ladder(tuple(name for name, _, _ in STOCKFISH_LEVELS))
FAMILIES = (
    "breakthrough",
    "chess",
    "connect_four",
    "go",
    "hex",
    "liars_dice",
    "universal_poker",
)
FIELD_VERSION = 1

for _engine in (
    ReferenceEngine(MCTS_MEMBER, "mcts", (("simulations", 40),), note="OpenSpiel's MCTSBot"),
    *(
        ReferenceEngine(
            name,
            "stockfish",
            (("nodes", nodes), ("skill", skill)),
            note="Stockfish 15.1, its skill rule on a seeded generator (a measured ladder)",
        )
        for name, skill, nodes in STOCKFISH_LEVELS
    ),
):
    if _engine.name not in REFERENCE_ENGINES:
        register_reference_engine(_engine)


def field_name(family: str) -> str:
    return f"openspiel-{family}"


def family_field(family: str) -> ReferenceField:
    """The reference field of ``family`` (OpenSpiel's short name); ``ValueError`` for a family
    without one."""
    if family not in FAMILIES:
        raise ValueError(f"no reference field for OpenSpiel family {family!r}")
    key = f"{field_name(family)}-v{FIELD_VERSION}"
    if key in REFERENCE_FIELDS:
        return REFERENCE_FIELDS[key]
    members: tuple[str, ...] = ("random", MCTS_MEMBER)
    if family == "chess":
        members = (*members, *CHESS_LADDER.levels)
    return register_reference_field(
        ReferenceField(
            field_name(family),
            FIELD_VERSION,
            f"openspiel:{family}",
            members,
            anchor="random",
            description=(
                "uniform random (the anchor), OpenSpiel's MCTS at 40 simulations"
                + (", Stockfish at four (skill, nodes) levels" if family == "chess" else "")
            ),
        )
    )


for _family in FAMILIES:
    family_field(_family)


def rank_with_flags(table: pd.DataFrame) -> pd.DataFrame:
    """An anchored table (``engines.stats.anchored.ANCHORED_COLUMNS``) in which every entrant
    with a score keeps a rank (by score, then rating), ``partial`` flagging the provisional
    ones (their ``reason`` says why); members stay unranked."""
    out = table.copy()
    out["partial"] = out["status"] == "provisional"
    scored = (out["role"] == "entrant") & out["score"].notna()
    order = out.loc[scored].sort_values(
        ["score", "rating", "model"], ascending=[False, False, True], kind="stable"
    )
    out["rank"] = pd.array([pd.NA] * len(out), dtype="Int64")
    out.loc[order.index, "rank"] = np.arange(1, len(order) + 1)
    return out


def family_anchored_tables(
    matches: pd.DataFrame,
    units: Mapping[str, GameUnit],
    n_boot: int,
    seed: int,
    rules: ProvisionalRules | None = None,
) -> tuple[pd.DataFrame, dict[str, str]]:
    """Each family's anchored scales against its field (module docstring), one table with a
    ``family`` and ``field`` column, and the note of each family whose scales could not be
    fitted (e.g. a corpus without the field's members). ``matches``: the corpus of any
    OpenSpiel games (every status); ``units``: each game's family."""
    tables, notes = [], {}
    games = matches["game"].astype(str)
    by_family: dict[str, list[str]] = {}
    for game in sorted(games.unique()):
        if game not in units:
            raise ValueError(f"no unit for game {game}")
        by_family.setdefault(units[game].family, []).append(game)
    for family, members in sorted(by_family.items()):
        field = family_field(family)
        subset = matches.loc[games.isin(members)]
        table, note = scales_with_flags(
            subset, field, family_generator(seed, family), n_boot=n_boot, rules=rules
        )
        if note:
            notes[family] = note
        ranked = rank_with_flags(table)
        ranked.insert(0, "family", family)
        tables.append(ranked)
    if not tables:
        return pd.DataFrame(columns=["family"]), notes
    return pd.concat(tables, ignore_index=True), notes
