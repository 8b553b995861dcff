"""Naming a game: a preset name, a seed of the procedural generator, a spec JSON file, or an
OpenSpiel game (``openspiel:<name>[(<params>)]``, ``engines.openspiel.spec``).

Every CLI command and roster that takes ``SEED`` resolves it here, so "what game is this" has
one answer everywhere.  Errors are one line naming the problem and what to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from engines.gbg.presets import PRESETS
from engines.gbg.spec import GameSpec
from engines.openspiel.spec import OpenSpielSpec, is_openspiel_token, parse_openspiel
from engines.tournament.schedule import Game, preset_game_seed


def validation_message(exc: ValidationError) -> str:
    """A pydantic error as one line: ``field.path: reason; ...``."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "spec"
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {msg}")
    return "; ".join(parts)


def load_spec_file(path: Path) -> GameSpec:
    """Read and validate a spec JSON file; ``ValueError`` names the file and the bad field."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read spec file {path}: {exc.strerror}") from None
    try:
        return GameSpec.model_validate_json(text)
    except ValidationError as exc:
        raise ValueError(f"invalid game spec in {path}: {validation_message(exc)}") from None


def resolve_game(token: str) -> GameSpec:
    """The generated game a user means by ``token`` (see the module docstring)."""
    token = token.strip()
    if is_openspiel_token(token):
        raise ValueError(f"{token!r} is an OpenSpiel game; this command takes generated games")
    if token in PRESETS:
        return PRESETS[token]()
    if token.endswith(".json") or Path(token).is_file():
        return load_spec_file(Path(token))
    if token.lstrip("-").isdigit():
        seed = int(token)
        if seed < 0:
            raise ValueError(f"game seed must be a non-negative integer, got {seed}")
        from engines.gbg.generator import generate

        return generate(seed)
    raise ValueError(
        f"{token!r} is not a game: give a seed (a non-negative integer), a preset "
        f"({', '.join(PRESETS)}), a spec .json file or openspiel:<name>"
    )


def resolve_any_game(token: str) -> GameSpec | OpenSpielSpec:
    """The game ``token`` names: a generated game or an OpenSpiel one."""
    if is_openspiel_token(token):
        return parse_openspiel(token)
    return resolve_game(token)


def resolve_games(tokens: Sequence[str]) -> list[Game]:
    """Games from seeds, preset names, spec files or ``openspiel:`` names; ``ValueError`` for a
    bad or repeated one."""
    games: list[Game] = []
    seen: dict[str, str] = {}
    for raw in tokens:
        token = raw.strip()
        if not token:
            raise ValueError("empty game in the game list (check the commas)")
        spec = resolve_any_game(token)
        if spec.spec_hash in seen:
            raise ValueError(f"game {token!r} is the same game as {seen[spec.spec_hash]!r}")
        seen[spec.spec_hash] = token
        seed = int(token) if token.isdigit() else preset_game_seed(spec)
        games.append(Game(token, seed, spec))
    if not games:
        raise ValueError("no games given")
    return games
