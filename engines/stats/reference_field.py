"""Versioned reference fields: the fixed opponents every release is scored against.

Why it exists: the leaderboard's strengths sum to zero over the models of one corpus, so adding
or removing a model moves every number. GameBench 2 scores each entrant against a *fixed*
reference field ("the set of programs that every program is scored against"; Section 4) and
Game Arena calibrates its Elo against fixed engines (Stockfish levels). A reference field here
is that fixed set for one game set: named players with fixed settings, one of them the *anchor*
(uniform random = 0 chips/game and 0 Elo), frozen under a version. Two releases that play the
same field version report entrants on one scale (``engines.stats.anchored``).

Members are looked up by name in ``REFERENCE_ENGINES``, a registry that other engines join with
:func:`register_reference_engine` (e.g. the reference engines of classic games: MCTS, engine
levels, named agents). A registered name is frozen: registering it again with other settings is
an error, so a field's meaning cannot change under its version.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines.agents.builtin import BUILTIN_AGENTS, agent_class

FIELD_SEPARATOR = "-v"


@dataclass(frozen=True)
class ReferenceEngine:
    """One reference player: the name it plays under in a corpus, the built-in agent (or other
    engine) it is, its fixed settings and, optionally, a declared Elo for calibration."""

    name: str
    agent: str
    params: tuple[tuple[str, Any], ...] = ()
    elo: float | None = None
    note: str = ""

    def settings(self) -> dict[str, Any]:
        return dict(self.params)

    def identity(self) -> dict[str, Any]:
        return {"name": self.name, "agent": self.agent, "params": self.settings(), "elo": self.elo}


@dataclass(frozen=True)
class ReferenceField:
    """A frozen set of reference engines for one game set, with its anchor.

    ``anchor_rating`` is the anchor's value on the chips/game scale (0 for uniform random; an
    equilibrium anchor would carry the game's value) and ``anchor_elo`` its Elo.
    """

    name: str
    version: int
    game_set: str
    members: tuple[str, ...]
    anchor: str
    anchor_rating: float = 0.0
    anchor_elo: float = 0.0
    description: str = ""

    def __post_init__(self) -> None:
        if self.version < 1:
            raise ValueError(f"reference field {self.name!r}: version must be >= 1")
        if len(set(self.members)) != len(self.members) or len(self.members) < 2:
            raise ValueError(
                f"reference field {self.name!r} needs at least two distinct members, "
                f"got {list(self.members)}"
            )
        if self.anchor not in self.members:
            raise ValueError(
                f"reference field {self.name!r}: anchor {self.anchor!r} is not a member"
            )

    @property
    def key(self) -> str:
        """``name-vN``: what a release records as the field its scales are anchored to."""
        return f"{self.name}{FIELD_SEPARATOR}{self.version}"

    def engines(self) -> tuple[ReferenceEngine, ...]:
        return tuple(reference_engine(name) for name in self.members)

    def calibration(self) -> dict[str, float]:
        """Declared Elo per member (the anchor always has one: ``anchor_elo``)."""
        declared = {e.name: float(e.elo) for e in self.engines() if e.elo is not None}
        declared[self.anchor] = self.anchor_elo
        return declared

    def fingerprint(self) -> str:
        """SHA-256 of the field's canonical JSON (members with their settings)."""
        body = {
            "name": self.name,
            "version": self.version,
            "game_set": self.game_set,
            "anchor": self.anchor,
            "anchor_rating": self.anchor_rating,
            "anchor_elo": self.anchor_elo,
            "members": [e.identity() for e in self.engines()],
        }
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()


REFERENCE_ENGINES: dict[str, ReferenceEngine] = {}


def register_reference_engine(engine: ReferenceEngine) -> ReferenceEngine:
    """Add ``engine`` to the registry; the same name with other settings is refused."""
    known = REFERENCE_ENGINES.get(engine.name)
    if known is not None and known.identity() != engine.identity():
        raise ValueError(
            f"reference engine {engine.name!r} is already registered with other settings "
            f"({known.identity()}); a frozen name cannot change, register a new name"
        )
    REFERENCE_ENGINES[engine.name] = engine
    return engine


def reference_engine(name: str) -> ReferenceEngine:
    if name not in REFERENCE_ENGINES:
        raise ValueError(
            f"unknown reference engine {name!r}; known: {', '.join(sorted(REFERENCE_ENGINES))}"
        )
    return REFERENCE_ENGINES[name]


for _engine in (
    ReferenceEngine("random", "random", note="uniform over legal actions (L0); the anchor"),
    ReferenceEngine("heuristic", "heuristic", (("strong", 0.65), ("weak", 0.35))),
    ReferenceEngine("search-1", "search", (("depth", 1), ("worlds", 8))),
    ReferenceEngine("search-2", "search", (("depth", 2), ("worlds", 8))),
    ReferenceEngine(
        "equilibrium", "equilibrium", (("iterations", 300),), note="CFR+ (small games)"
    ),
):
    register_reference_engine(_engine)


REFERENCE_FIELDS: dict[str, ReferenceField] = {}


def register_reference_field(field: ReferenceField) -> ReferenceField:
    """Add a field version; a key already taken by another definition is refused."""
    for name in field.members:
        reference_engine(name)
    known = REFERENCE_FIELDS.get(field.key)
    if known is not None and known.fingerprint() != field.fingerprint():
        raise ValueError(f"reference field {field.key!r} is already defined differently")
    REFERENCE_FIELDS[field.key] = field
    return field


register_reference_field(
    ReferenceField(
        "gbg-builtin",
        1,
        "generated games (GBG)",
        ("random", "heuristic", "search-2"),
        anchor="random",
        description="the demo roster's fixed-setting built-ins: L0, the hand-strength heuristic, "
        "depth-2 search over 8 worlds",
    )
)
register_reference_field(
    ReferenceField(
        "gbg-solvable",
        1,
        "small solvable games (kuhn, leduc)",
        ("random", "heuristic", "search-2", "equilibrium"),
        anchor="random",
        description="gbg-builtin plus the CFR+ equilibrium bot (games up to 50,000 histories)",
    )
)


def reference_field(key: str) -> ReferenceField:
    """The field called ``key`` (``name-vN``)."""
    if key not in REFERENCE_FIELDS:
        raise ValueError(
            f"unknown reference field {key!r}; known: {', '.join(sorted(REFERENCE_FIELDS))}"
        )
    return REFERENCE_FIELDS[key]


def _effective(agent: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` over the built-in agent's defaults (literal params for other engines)."""
    if agent not in BUILTIN_AGENTS:
        return dict(params)
    defaults = {
        f.name: f.default
        for f in dataclasses.fields(agent_class(agent))
        if not f.name.startswith("_") and f.name != "name" and f.default is not dataclasses.MISSING
    }
    return {**defaults, **params}


def roster_mismatches(
    field: ReferenceField, roster: Mapping[str, tuple[str, Mapping[str, Any]]]
) -> list[str]:
    """Members whose roster entry (name -> (agent, params)) plays other settings than the
    field fixes (defaults filled in for built-in agents).

    A member absent from the roster is not a mismatch (the scales then flag it as missing).
    """
    problems: list[str] = []
    for engine in field.engines():
        if engine.name not in roster:
            continue
        agent, params = roster[engine.name]
        if agent != engine.agent or _effective(agent, params) != _effective(
            engine.agent, engine.settings()
        ):
            problems.append(
                f"{engine.name}: the roster plays {agent} {dict(params)}, the field "
                f"{field.key} fixes {engine.agent} {engine.settings()}"
            )
    return problems
