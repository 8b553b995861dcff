"""The roster: who plays, through which provider, with which request settings (YAML + pydantic).

::

    players:
      - {name: random, kind: builtin, agent: random}
      - {name: search-2, kind: builtin, agent: search, params: {depth: 2}}
      - name: local-llm
        kind: openai            # openai | anthropic | gemini | builtin | program | python
        model: smollm2
        base_url: http://127.0.0.1:8765/v1
        api_key_env: LOCAL_LLM_KEY   # the NAME of an environment variable, never the key
        settings: {temperature: 0, max_tokens: 64}   # provider-native, recorded with every move
        family: smollm2              # optional: family/variant for sibling comparisons
        # reasoning: {low: {reasoning_effort: low}, high: {reasoning_effort: high}}
        #   optional: one entrant per setting (local-llm@low, ...), one family (reasoning_variants)
        block: block-1               # optional (default block-1)
        price: {input_per_mtok: 0, output_per_mtok: 0, cached_input_per_mtok: 0}
        response_format: none        # none | json_object | json_schema | json_object_schema
        provider: local              # optional: shares limits with other players of "local"
        prompt_cache: null           # optional: null = the provider's default (see below)
        transport: auto              # auto | lean | standard (see below)
        max_usd: null                # optional budget: no new match once spent
        expect: {reply_tokens: 24, latency_s: 2.0}   # for ``tournament plan`` only
      - name: cautious
        kind: program                # a strategy program, played in a sandbox
        path: programs/cautious.py   # relative to the roster file's folder
        limits: {move_seconds: 2, memory_mb: 512, cpu_seconds: 20}   # optional
      - name: my-agent
        kind: python                 # an in-process agent
        entry: mypackage.agents:MyAgent   # importable module:Class, built with ``params``
        params: {depth: 3}
    providers:                       # optional limits per provider (default: 8 in flight)
      local: {concurrency: 4, requests_per_minute: 600, burst: 10, max_retries: 6}
    rethinks: 1                      # K, retries after an unparsable or illegal reply
    schedule: {first_block_games: null, opponents: 4}
    protocol: null                   # paper | arena (arena.llm.protocols); null: arena
    max_usd: null                    # optional budget of the whole run
    rulebook_style: null             # compact | paper: the LLM players' rulebooks; null: compact
                                     # (paper under --protocol paper and the paper profile)

Cost control and reach (all left out of the fingerprint: they change what a run spends or how
requests travel, not how a player plays): ``prompt_cache`` (default: on for Anthropic, Gemini
and OpenAI's own endpoint, off for other OpenAI-compatible servers, see
``arena.llm.providers``); ``price.cached_input_per_mtok`` (default 0) and
``price.cache_write_per_mtok`` (default: the input price); ``max_usd`` per player and for the
run (``arena.tournament.budget``); ``transport``: ``lean`` is the hand-written HTTP/1.1
transport of ``arena.llm.http11`` (fast on loopback), ``standard`` is httpx's own (HTTP/2 when
the server offers it, proxies and certificates from the environment: ``HTTPS_PROXY``,
``NO_PROXY``, ``SSL_CERT_FILE``), ``auto`` picks ``lean`` for a loopback endpoint and
``standard`` otherwise.  The ``protocol`` (``paper``: one answer; ``arena``: rethinks) is part
of every LLM player's fingerprint through the rethinks it grants.  The ``rulebook_style`` (the
profile's, applied by the ``roster`` asset: ``paper`` in the paper profile; the paper
protocol's, ``paper``, when ``with_protocol`` applies it to a roster that names none) is part of
it when it is ``paper``; compact leaves fingerprints and the roster's JSON as before.

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
edit of its program cannot play the edited code under the old fingerprint.  What a release
records holds no folder of the machine and no URL credentials (:func:`released_roster_json`):
a program by its file name and ``code_sha256``, an endpoint without ``user:password@``.
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
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from arena.llm.protocols import ProtocolName, move_protocol
from arena.llm.providers import DEFAULT_BASE_URLS, ResponseFormat, caches_by_default
from arena.programs.sandbox import Limits
from arena.reasoning_variants import expand_reasoning

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
    cached_input_per_mtok: float = Field(
        default=0.0, ge=0, description="input read from the prompt cache (default 0: no guess)"
    )
    cache_write_per_mtok: float | None = Field(
        default=None, ge=0, description="input written to the prompt cache (default: input price)"
    )


class ExpectSpec(_Strict):
    """What ``tournament plan`` assumes of a model it has not seen play."""

    reply_tokens: int = Field(default=24, ge=1, le=1_000_000, description="output per call")
    latency_s: float = Field(default=2.0, gt=0, description="seconds per call")
    chars_per_token: float = Field(default=4.0, gt=0, description="prompt characters per token")


TransportChoice = Literal["auto", "lean", "standard"]


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
    prompt_cache: bool | None = Field(default=None, description="null: the provider's default")
    transport: TransportChoice = "auto"
    max_usd: float | None = Field(default=None, ge=0, description="this player's budget")
    expect: ExpectSpec = Field(default_factory=ExpectSpec)

    @property
    def caches_prompt(self) -> bool:
        if self.prompt_cache is not None:
            return self.prompt_cache
        return caches_by_default(self.kind, self.base_url)

    @property
    def transport_kind(self) -> Literal["lean", "standard"]:
        """The transport for this endpoint: the roster's choice, or by detection (``lean``
        for a loopback host, ``standard`` otherwise)."""
        if self.transport != "auto":
            return self.transport
        import ipaddress
        from urllib.parse import urlsplit

        host = (urlsplit(self.endpoint).hostname or "").lower()
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host == "localhost"
        return "lean" if loopback else "standard"

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

    def behaviour(self, rethinks: int) -> dict[str, Any]:
        """What determines the play, with the ``rethinks`` the roster's protocol grants."""
        return {
            "kind": self.kind,
            "model": self.model,
            "endpoint": self.endpoint,
            "settings": self.settings,
            "response_format": self.response_format,
            "rethinks": rethinks,
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


ENTRY_PATTERN = r"^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_]*$"


class PythonEntry(_PlayerBase):
    """An in-process agent: ``entry`` names ``module:Class``, built as ``Class(**params)``; the
    class implements ``engines.agents.base.Agent`` (``act(state, seat, rng) -> str``) or
    ``Player`` (``async decide(state, seat, rng, call_id) -> Decision``)."""

    kind: Literal["python"]
    entry: str = Field(pattern=ENTRY_PATTERN, description="module:Class")
    params: dict[str, Any] = Field(default_factory=dict, description="the class's arguments")
    code_sha256: str | None = Field(
        default=None,
        pattern=SHA256_PATTERN,
        validate_default=True,
        description="SHA-256 of the module's source: filled in when left out, checked when given",
    )

    @field_validator("code_sha256")
    @classmethod
    def _module_digest(cls, given: str | None, info: ValidationInfo) -> str | None:
        entry = info.data.get("entry")
        if entry is None:
            return given
        from arena.python_player import agent_class, source_sha256

        agent_class(entry)  # ValueError names the problem
        digest = source_sha256(entry)
        if given is not None and given != digest:
            raise ValueError(
                f"the module of {entry} has changed since this roster was recorded; "
                "read the roster file again"
            )
        return digest

    def behaviour(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "entry": self.entry,
            "params": self.params,
            "code_sha256": self.code_sha256,
        }


AnyEntry = BuiltinEntry | ApiEntry | ProgramEntry | PythonEntry
PlayerEntry = Annotated[AnyEntry, Field(discriminator="kind")]


class ProviderLimits(_Strict):
    concurrency: int = Field(default=8, ge=1, le=1024)
    requests_per_minute: float | None = Field(default=None, gt=0)
    burst: int | None = Field(
        default=None, ge=1,
        description="request starts allowed back to back (default: a second's worth of the rate)",
    )  # fmt: skip
    max_retries: int = Field(default=6, ge=0, le=50)
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=60.0, ge=0)
    max_retry_after_s: float = Field(default=60.0, ge=0)


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
    protocol: ProtocolName | None = Field(
        default=None, description="paper | arena (arena.llm.protocols); null: arena"
    )
    max_usd: float | None = Field(default=None, ge=0, description="the run's budget")
    rulebook_style: Literal["compact", "paper"] | None = Field(
        default=None, description="compact | paper: the LLM players' rulebooks; null: compact"
    )
    # True when ``rulebook_style`` is the protocol's (set by ``with_protocol``), not named by
    # the roster: a style chosen afterwards (``--style``, a profile's) replaces it.
    _style_of_protocol: bool = PrivateAttr(default=False)

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
        """The rethinks the player gets: its own K, else the roster's, as the protocol allows."""
        configured = self.rethinks
        if isinstance(entry, ApiEntry) and entry.rethinks is not None:
            configured = entry.rethinks
        return move_protocol(self.protocol_name).rethinks_for(configured)

    @property
    def protocol_name(self) -> ProtocolName:
        return self.protocol if self.protocol is not None else "arena"

    def limits(self, group: str) -> ProviderLimits:
        return self.providers.get(group, ProviderLimits())

    def fingerprint(self, name: str) -> str:
        entry = self.player(name)
        behaviour = (
            entry.behaviour(self.rethinks_of(entry))
            if isinstance(entry, ApiEntry)
            else entry.behaviour()
        )
        if isinstance(entry, ApiEntry) and self.rulebook_style == "paper":
            behaviour["rulebook_style"] = "paper"  # another prompt; compact keeps the old print
        text = json.dumps(behaviour, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_TAGS = frozenset({"builtin", "openai", "anthropic", "gemini", "program", "python"})


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
    data = expand_reasoning(data)  # one entrant per reasoning setting (issue 46)
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
    """The roster as canonical JSON (what a release records: names of key variables, no keys).

    The fields a roster leaves at their defaults that older rosters did not have (the
    protocol, budgets) are left out, so a roster's JSON stays what it was before they existed."""
    data = roster.model_dump(mode="json")
    for name in ("protocol", "max_usd", "rulebook_style"):
        if data.get(name) is None:
            data.pop(name, None)
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


_URL_CREDENTIALS = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)[^/?#]*@")


def public_url(url: str) -> str:
    """``url`` without credentials before its host (``http://u:p@host/v1`` ->
    ``http://host/v1``), as a release records an endpoint; no parsing, so any text a roster
    accepted is handled."""
    return _URL_CREDENTIALS.sub(r"\1", url)


def released_program_path(path: str) -> str:
    """A program's file as a release records it: its name only (``cautious.py``), with no
    folder of the machine that ran it; the player's ``code_sha256`` says which code it is."""
    return Path(path).name


def released_roster_json(text: str) -> str:
    """A roster's JSON (:func:`roster_json`) as a release records it (issue 43): each program's
    ``path`` its file name (:func:`released_program_path`; its ``code_sha256`` stays), each
    ``base_url`` without credentials (:func:`public_url`); the same canonical form, everything
    else as it was. Read back with ``parse_roster``, a program is looked for by that name in the
    reader's folder and must still match its ``code_sha256``."""
    data = json.loads(text)
    for player in data.get("players") or []:
        if not isinstance(player, dict):
            continue
        if player.get("kind") == "program" and isinstance(player.get("path"), str):
            player["path"] = released_program_path(player["path"])
        if isinstance(player.get("base_url"), str):
            player["base_url"] = public_url(player["base_url"])
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def with_protocol(roster: Roster, protocol: str) -> Roster:
    """``roster`` under ``protocol`` (a profile's, or ``--protocol``); ``ValueError`` when the
    roster names another one.  A protocol with a rulebook of its own (``paper``: the paper's
    prompt) sets the rulebook style of a roster that names none; a style chosen afterwards
    (:func:`with_rulebook_style`) replaces it, and a roster's own style is kept."""
    chosen = move_protocol(protocol)
    if roster.protocol is not None and roster.protocol != protocol:
        raise ValueError(
            f"the roster names protocol {roster.protocol!r} but the profile uses {protocol!r}"
        )
    update: dict[str, Any] = {"protocol": protocol}
    derived = roster.rulebook_style is None and chosen.rulebook_style is not None
    if derived:
        update["rulebook_style"] = chosen.rulebook_style
    out = roster.model_copy(update=update)
    out._style_of_protocol = derived or roster._style_of_protocol
    return out


def with_rulebook_style(roster: Roster, style: str) -> Roster:
    """``roster`` with the LLM players' rulebooks in ``style`` (a profile's, or ``--style``);
    the compact style is left unset so that a roster's JSON and fingerprints stay as before;
    ``ValueError`` when the roster names another style (a style its protocol set is
    replaced)."""
    if style not in ("compact", "paper"):
        raise ValueError(f"unknown rulebook style {style!r}; choose compact or paper")
    named = None if roster._style_of_protocol else roster.rulebook_style
    if named is not None and named != style:
        raise ValueError(
            f"the roster names rulebook style {named!r} but the profile uses {style!r}"
        )
    out = roster.model_copy(update={"rulebook_style": None if style == "compact" else style})
    out._style_of_protocol = False
    return out
