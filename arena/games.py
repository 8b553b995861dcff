"""Naming a game: a preset name, a seed of the procedural generator, a spec JSON file, or an
OpenSpiel game (``openspiel:<name>[(<params>)]``, ``engines.openspiel.spec``).

Every CLI command and roster that takes ``SEED`` resolves it here, so "what game is this" has
one answer everywhere.  Errors are one line naming the problem and what to do.

A seed names a game only together with a generation configuration (``default``, ``paper`` or a
configuration file: :func:`generation_config`); a bare seed means the configuration the caller
passes, the default one when it passes none.  Downstream of the benchmark's selection a game's
identity is carried, never re-derived (docs/EDITIONS.md, "Game identity"): the stages and the
release hand over a *catalogue* ``{token: spec}`` read from a table that holds the specs
(:func:`catalogue_from_table`), and :func:`resolve_games` takes a listed token's spec from it.
:func:`game_records` / :func:`games_from_records` carry games across a process boundary (the
tournament's worker processes) the same way: as their specs, not their tokens.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import yaml
from pydantic import ValidationError

from engines.gbg.generator import CONFIGS, GenerationConfig
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


def generation_config(choice: str | GenerationConfig | None) -> GenerationConfig:
    """The generation configuration ``choice`` names: ``default``, ``paper``, or a JSON or YAML
    file of a ``GenerationConfig``; ``None`` is the default one.  ``ValueError`` in one line."""
    if choice is None:
        return CONFIGS["default"]
    if isinstance(choice, GenerationConfig):
        return choice
    if choice in CONFIGS:
        return CONFIGS[choice]
    path = Path(choice)
    if path.suffix not in (".json", ".yaml", ".yml") and not path.is_file():
        raise ValueError(
            f"unknown generation configuration {choice!r}: give {' or '.join(CONFIGS)}, "
            "or a configuration file (.json or .yaml)"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read config file {path}: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text) if path.suffix in (".yaml", ".yml") else json.loads(text)
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        reason = str(exc).splitlines()[0]
        kind = path.suffix[1:] or "JSON"
        raise ValueError(f"config file {path} is not valid {kind}: {reason}") from None
    if not isinstance(data, dict):
        raise ValueError(f"config file {path} must hold a mapping of settings")
    try:
        return GenerationConfig.model_validate(data)
    except ValidationError as exc:
        raise ValueError(
            f"invalid generation config in {path}: {validation_message(exc)}"
        ) from None


def resolve_game(token: str, config: str | GenerationConfig | None = None) -> GameSpec:
    """The generated game a user means by ``token`` (see the module docstring); a seed is
    generated under ``config`` (:func:`generation_config`)."""
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

        return generate(seed, generation_config(config))
    raise ValueError(
        f"{token!r} is not a game: give a seed (a non-negative integer), a preset "
        f"({', '.join(PRESETS)}), a spec .json file or openspiel:<name>"
    )


def resolve_any_game(
    token: str, config: str | GenerationConfig | None = None
) -> GameSpec | OpenSpielSpec:
    """The game ``token`` names: a generated game (a seed under ``config``) or an OpenSpiel one."""
    if is_openspiel_token(token):
        return parse_openspiel(token)
    return resolve_game(token, config)


def resolve_games(
    tokens: Sequence[str],
    config: str | GenerationConfig | None = None,
    catalogue: Mapping[str, GameSpec] | None = None,
) -> list[Game]:
    """Games from seeds, preset names, spec files or ``openspiel:`` names; ``ValueError`` for a
    bad or repeated one.  A token listed in ``catalogue`` is that spec (the game's carried
    identity); any other seed is generated under ``config``."""
    games: list[Game] = []
    seen: dict[str, str] = {}
    listed = catalogue or {}
    for raw in tokens:
        token = raw.strip()
        if not token:
            raise ValueError("empty game in the game list (check the commas)")
        spec = listed[token] if token in listed else resolve_any_game(token, config)
        if spec.spec_hash in seen:
            raise ValueError(f"game {token!r} is the same game as {seen[spec.spec_hash]!r}")
        seen[spec.spec_hash] = token
        seed = int(token) if token.isdigit() else preset_game_seed(spec)
        games.append(Game(token, seed, spec))
    if not games:
        raise ValueError("no games given")
    return games


def catalogue_from_table(frame: pd.DataFrame) -> dict[str, GameSpec]:
    """``{token: spec}`` of a table that holds games' specs (``benchmark_games``,
    ``accepted_games``, a release's ``benchmark_games``): the token is the ``game`` column, else
    the ``seed``; the spec is ``spec_json``.  ``ValueError`` in one line for a table without
    specs, a spec that does not validate, or a token listed twice with different specs."""
    if "spec_json" not in frame.columns or not {"game", "seed"} & set(frame.columns):
        raise ValueError("the table holds no game specs (it needs spec_json and game or seed)")
    tokens = frame["game"] if "game" in frame.columns else frame["seed"]
    catalogue: dict[str, GameSpec] = {}
    for raw, text in zip(tokens, frame["spec_json"], strict=True):
        token = str(raw)
        try:
            spec = GameSpec.model_validate_json(str(text))
        except ValidationError as exc:
            raise ValueError(f"game {token}: invalid spec: {validation_message(exc)}") from None
        if token in catalogue and catalogue[token].spec_hash != spec.spec_hash:
            raise ValueError(f"game {token} is listed twice with different specs")
        catalogue[token] = spec
    return catalogue


def catalogued_game(token: str, catalogue: Mapping[str, GameSpec], where: str) -> Game:
    """The game ``token`` as ``catalogue`` holds it; a preset or an OpenSpiel game (whose names
    need no configuration) when it is not listed.  A seed that is not listed is refused in one
    line: downstream of the selection a seed is never generated again under an assumed
    configuration."""
    if token in catalogue or token in PRESETS or is_openspiel_token(token):
        (game,) = resolve_games([token], catalogue=catalogue)
        return game
    raise ValueError(
        f"game {token!r} is not in {where}: a seed names a game only with its generation "
        f"configuration, which {where} records; materialize {where} first (or play the game "
        "outside the graph: genstrat tournament run --config ...)"
    )


def game_records(games: Sequence[Game]) -> tuple[dict[str, Any], ...]:
    """``games`` as JSON-ready records that carry their specs (for another process)."""
    return tuple(
        {"token": g.token, "game_seed": g.game_seed}
        | ({"spec_json": g.spec.canonical_json()} if isinstance(g.spec, GameSpec) else {})
        for g in games
    )


def games_from_records(records: Sequence[Mapping[str, Any]]) -> list[Game]:
    """The games of :func:`game_records`, each with the spec it carried (an OpenSpiel game is
    parsed again from its name, which is its whole identity)."""
    games: list[Game] = []
    for record in records:
        token = str(record["token"])
        text = record.get("spec_json")
        spec = GameSpec.model_validate_json(text) if text else parse_openspiel(token)
        games.append(Game(token, int(record["game_seed"]), spec))
    return games
