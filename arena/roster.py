"""The roster: who plays, through which provider, with which request settings (YAML + pydantic).

::

    players:
      - {name: random, kind: builtin, agent: random}
      - {name: search-2, kind: builtin, agent: search, params: {depth: 2}}
      - name: local-llm
        kind: openai            # openai | anthropic | gemini | builtin | program
        model: smollm2
        base_url: http://127.0.0.1:8765/v1
        api_key_env: LOCAL_LLM_KEY   # the NAME of an environment variable, never the key
        settings: {temperature: 0, max_tokens: 64}   # provider-native, recorded with every move
        family: smollm2              # optional: family/variant for sibling comparisons
        block: block-1               # optional (default block-1)
        price: {input_per_mtok: 0, output_per_mtok: 0}
        response_format: none        # none | json_object | json_schema | json_object_schema
        provider: local              # optional: shares limits with other players of "local"
      - name: cautious
        kind: program                # a strategy program, played in a sandbox
        path: programs/cautious.py   # relative to the roster file's folder
        limits: {move_seconds: 2, memory_mb: 512, cpu_seconds: 20}   # optional
    providers:                       # optional limits per provider (default: 8 in flight)
      local: {concurrency: 4, requests_per_minute: 600, max_retries: 6}
    rethinks: 1                      # K, retries after an unparsable or illegal reply
    schedule: {first_block_games: null, opponents: 4}

Validation errors name the field (``players[2].api_key_env: ...``) and never echo a value
(a program file that cannot be read is named by its path), so a key pasted by mistake into
``api_key_env`` does not end up in a log.  A player's
*fingerprint* hashes what determines its play (kind, agent and params; or model, endpoint,
settings, response format and rethinks; or a program's code, by its SHA-256, and its sandbox
limits); match ids include it, so changing a setting or editing a program plays new matches
instead of mixing old ones in.

A program's ``path`` is resolved when the roster is read: against the roster file's folder
(``load_roster``) or the given folder, by default the current one (``parse_roster``).  The
roster then holds the absolute path and the code's ``code_sha256``; given in the data (as in
``roster_json``), ``code_sha256`` must still match the file, so a roster recorded before an
edit of its program cannot play the edited code under the old fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from arena.llm.providers import DEFAULT_BASE_URLS, ResponseFormat
from arena.programs.sandbox import Limits

DEFAULT_BLOCK = "block-1"
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._+@-]{0,63}$"
ENV_PATTERN = r"^[A-Z_][A-Z0-9_]{0,127}$"
SHA256_PATTERN = r"^[0-9a-f]{64}$"
FOLDER_CONTEXT = "folder"  # validation context: the folder relative program paths start from


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PriceSpec(_Strict):
    input_per_mtok: float = Field(default=0.0, ge=0)
    output_per_mtok: float = Field(default=0.0, ge=0)


class _PlayerBase(_Strict):
    name: str = Field(pattern=NAME_PATTERN, description="unique name in the corpus")
    family: str | None = Field(default=None, description="model family for sibling comparisons")
    variant: str | None = Field(default=None, description="variant within the family")
    block: str = Field(default=DEFAULT_BLOCK, min_length=1, description="tournament block")


class BuiltinEntry(_PlayerBase):
    kind: Literal["builtin"]
    agent: str = Field(min_length=1, description="random | population | heuristic | search | ...")
    params: dict[str, Any] = Field(default_factory=dict, description="the agent's parameters")

    @model_validator(mode="after")
    def _known_agent(self) -> BuiltinEntry:
        from arena.reference_engines import make_builtin

        make_builtin(self.agent, self.params)  # ValueError names the problem
        return self

    def behaviour(self) -> dict[str, Any]:
        from arena.reference_engines import agent_version

        out: dict[str, Any] = {"kind": self.kind, "agent": self.agent, "params": self.params}
        version = agent_version(self.agent)  # versioned agents (mcts, stockfish) only
        if version is not None:
            out["version"] = version
        return out


class ApiEntry(_PlayerBase):
    kind: Literal["openai", "anthropic", "gemini"]
    model: str = Field(min_length=1, description="the provider's model identifier")
    base_url: str | None = Field(default=None, pattern=r"^https?://", description="API root")
    api_key_env: str | None = Field(
        default=None, pattern=ENV_PATTERN, description="name of the env var holding the key"
    )
    settings: dict[str, Any] = Field(default_factory=dict, description="provider-native settings")
    price: PriceSpec = Field(default_factory=PriceSpec)
    response_format: ResponseFormat = "none"
    provider: str | None = Field(default=None, min_length=1, description="limits group")
    rethinks: int | None = Field(default=None, ge=0, le=10)
    timeout_s: float = Field(default=120.0, gt=0)

    @model_validator(mode="after")
    def _supported_format(self) -> ApiEntry:
        if self.kind == "anthropic" and self.response_format != "none":
            raise ValueError("anthropic players take no response_format (use none)")
        if self.kind == "gemini" and self.response_format == "json_object_schema":
            raise ValueError("gemini players take response_format none, json_object or json_schema")
        return self

    @property
    def endpoint(self) -> str:
        return self.base_url or DEFAULT_BASE_URLS[self.kind]

    @property
    def provider_group(self) -> str:
        return self.provider or f"{self.kind}@{self.endpoint}"

    def behaviour(self, default_rethinks: int) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "model": self.model,
            "endpoint": self.endpoint,
            "settings": self.settings,
            "response_format": self.response_format,
            "rethinks": self.rethinks if self.rethinks is not None else default_rethinks,
        }


class ProgramLimits(_Strict):
    """The sandbox limits of a strategy program (``arena.programs.sandbox.Limits``)."""

    move_seconds: float = Field(
        default=Limits.move_seconds, gt=0, le=60, description="wall time per move"
    )
    memory_mb: int = Field(
        default=Limits.memory_mb, ge=64, le=65536, description="address space of the process"
    )
    cpu_seconds: int = Field(
        default=Limits.cpu_seconds,
        ge=1,
        le=86400,
        description="CPU time of one program process (replaced once it has used half)",
    )


class ProgramEntry(_PlayerBase):
    """A strategy program (``act(observation, legal_actions, rng)``) played in a sandbox."""

    kind: Literal["program"]
    path: Path = Field(description="the program file (relative: to the roster's folder)")
    code_sha256: str | None = Field(
        default=None,
        pattern=SHA256_PATTERN,
        validate_default=True,
        description="SHA-256 of the file: filled in when left out, checked when given",
    )
    limits: ProgramLimits = Field(default_factory=ProgramLimits)

    @field_validator("path")
    @classmethod
    def _readable(cls, path: Path, info: ValidationInfo) -> Path:
        folder = (info.context or {}).get(FOLDER_CONTEXT) or Path.cwd()
        full = (Path(folder) / path.expanduser()).resolve()
        if not full.is_file():
            raise ValueError(f"no strategy program file at {full}")
        try:
            with full.open("rb") as handle:
                handle.read(1)
        except OSError as exc:
            raise ValueError(f"cannot read {full}: {exc.strerror}") from None
        return full

    @field_validator("code_sha256")
    @classmethod
    def _the_file_digest(cls, given: str | None, info: ValidationInfo) -> str | None:
        path = info.data.get("path")
        if path is None:  # the path was refused; that error is reported
            return given
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as exc:
            raise ValueError(f"cannot read {path}: {exc.strerror}") from None
        if given is not None and given != digest:
            raise ValueError(
                f"{path} has changed since this roster was recorded; read the roster file again"
            )
        return digest

    def sandbox_limits(self) -> Limits:
        return Limits(**self.limits.model_dump())

    def behaviour(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "code_sha256": self.code_sha256,
            "limits": self.limits.model_dump(mode="json"),
        }


AnyEntry = BuiltinEntry | ApiEntry | ProgramEntry
PlayerEntry = Annotated[AnyEntry, Field(discriminator="kind")]


class ProviderLimits(_Strict):
    concurrency: int = Field(default=8, ge=1, le=1024)
    requests_per_minute: float | None = Field(default=None, gt=0)
    max_retries: int = Field(default=6, ge=0, le=50)
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=60.0, ge=0)
    max_retry_after_s: float = Field(default=600.0, ge=0)


class ScheduleSpec(_Strict):
    first_block_games: int | None = Field(
        default=None, ge=1, description="block 1 plays the first N games (default all)"
    )
    opponents: int = Field(default=4, ge=1, description="later blocks: opponents per new model")


class Roster(_Strict):
    players: list[PlayerEntry] = Field(min_length=2)
    providers: dict[str, ProviderLimits] = Field(default_factory=dict)
    rethinks: int = Field(default=1, ge=0, le=10)
    schedule: ScheduleSpec = Field(default_factory=ScheduleSpec)

    @model_validator(mode="after")
    def _unique_names(self) -> Roster:
        names = [p.name for p in self.players]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise ValueError(f"player names must be unique; repeated: {', '.join(duplicated)}")
        return self

    def blocks(self) -> list[str]:
        """Block names in order of first appearance."""
        seen: list[str] = []
        for player in self.players:
            if player.block not in seen:
                seen.append(player.block)
        return seen

    def player(self, name: str) -> AnyEntry:
        for entry in self.players:
            if entry.name == name:
                return entry
        raise ValueError(f"no player {name!r} in the roster")

    def rethinks_of(self, entry: AnyEntry) -> int:
        if isinstance(entry, ApiEntry) and entry.rethinks is not None:
            return entry.rethinks
        return self.rethinks

    def limits(self, group: str) -> ProviderLimits:
        return self.providers.get(group, ProviderLimits())

    def fingerprint(self, name: str) -> str:
        entry = self.player(name)
        behaviour = (
            entry.behaviour(self.rethinks) if isinstance(entry, ApiEntry) else entry.behaviour()
        )
        text = json.dumps(behaviour, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_TAGS = frozenset({"builtin", "openai", "anthropic", "gemini", "program"})


def _where(loc: tuple[int | str, ...]) -> str:
    """``players[2].api_key_env`` from pydantic's location (the union's tag left out)."""
    out = ""
    previous: int | str | None = None
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not (isinstance(previous, int) and part in _TAGS):
            out += f".{part}" if out else str(part)
        previous = part
    return out or "roster"


def roster_error(exc: ValidationError) -> str:
    """A pydantic error as one line naming each field, without echoing any input value."""
    parts = []
    for err in exc.errors(include_input=False, include_url=False):
        message = re.sub(r"^Value error, ", "", err["msg"])
        parts.append(f"{_where(tuple(err['loc']))}: {message}")
    return "; ".join(parts)


def parse_roster(data: Any, source: str = "roster", folder: Path | None = None) -> Roster:
    """Validate roster data; ``ValueError`` naming ``source`` and the bad fields.

    Relative program paths start from ``folder`` (default: the current directory).
    """
    if not isinstance(data, dict):
        raise ValueError(f"{source}: a roster is a mapping with a 'players' list")
    context = {FOLDER_CONTEXT: folder if folder is not None else Path.cwd()}
    try:
        return Roster.model_validate(data, context=context)
    except ValidationError as exc:
        raise ValueError(f"{source}: {roster_error(exc)}") from None


def load_roster(path: Path) -> Roster:
    """Read and validate a roster YAML file (``ValueError`` names the file and the field);
    relative program paths start from the file's folder."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read roster {path}: {exc.strerror}") from None
    if len(text) > MAX_ROSTER_CHARS:
        raise ValueError(f"roster {path} is larger than {MAX_ROSTER_CHARS:,} characters")
    try:
        data = bounded_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ValueError(f"roster {path} is not valid YAML{where}") from None
    except ValueError as exc:
        raise ValueError(f"roster {path}: {exc}") from None
    return parse_roster(data, f"roster {path}", path.resolve().parent)


MAX_ROSTER_CHARS = 1_000_000
MAX_YAML_VALUES = 100_000
MAX_YAML_DEPTH = 64


def bounded_yaml(text: str) -> Any:
    """``yaml.safe_load`` with bounds: at most ``MAX_YAML_VALUES`` values once aliases are
    expanded (an alias bomb is refused before it is built), nesting at most ``MAX_YAML_DEPTH``
    deep, no recursive alias; ``ValueError`` names the bound."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:
        raise ValueError(f"YAML nested deeper than {MAX_YAML_DEPTH} levels") from None
    if node is None:
        return None
    expanded: dict[int, int] = {}  # node id -> values it expands to
    depth: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    open_nodes: set[int] = set()
    while stack:
        current, children_done = stack.pop()
        key = id(current)
        children = _children(current)
        if children_done:
            open_nodes.discard(key)
            expanded[key] = 1 + sum(expanded[id(c)] for c in children)
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0)
            if expanded[key] > MAX_YAML_VALUES:
                raise ValueError(
                    f"YAML aliases expand past {MAX_YAML_VALUES:,} values (an alias bomb?)"
                )
            if depth[key] > MAX_YAML_DEPTH:
                raise ValueError(f"YAML nested deeper than {MAX_YAML_DEPTH} levels")
            continue
        if key in expanded:
            continue
        if key in open_nodes:
            raise ValueError("YAML alias refers to itself (a recursive structure)")
        open_nodes.add(key)
        stack.append((current, True))
        stack.extend((child, False) for child in children if id(child) not in expanded)
    return yaml.safe_load(text)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def roster_json(roster: Roster) -> str:
    """The roster as canonical JSON (what a release records: names of key variables, no keys)."""
    return json.dumps(roster.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
