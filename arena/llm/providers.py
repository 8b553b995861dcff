"""The three chat wire formats: OpenAI-compatible chat completions, Anthropic Messages, Gemini.

Each provider turns (model, system prompt, conversation, settings, optional JSON schema) into an
HTTP request (URL, JSON body, headers other than the key) and reads the provider's JSON reply
into a ``ChatReply``: the text, the reasoning if the provider returns it, and token counts.  The
API key is added by ``auth_headers`` at send time and never enters a body, a URL or a cache key.

``settings`` are provider-native and passed through unchanged (OpenAI and Anthropic: top-level
body fields such as ``temperature`` and ``max_tokens``; Gemini: ``generationConfig`` fields such
as ``temperature`` and ``maxOutputTokens``), so a roster records exactly what was sent.

The OpenAI-compatible format covers OpenAI, vLLM, llama.cpp's server, Ollama, Together and
OpenRouter.  Its ``response_format`` modes: ``json_object`` (any JSON object),
``json_schema`` (OpenAI's structured outputs: ``{"type": "json_schema", "json_schema": ...}``)
and ``json_object_schema`` (``{"type": "json_object", "schema": ...}``, the form llama.cpp's
Python server and Anyscale accept).

Prompt caching (``prompt_cache``): the system prompt is the game's rulebook and comes first, so
every request of a game shares a long, stable prefix that providers bill at a discount once it
is cached.  With caching on, Anthropic's system prompt is sent as one text block marked
``"cache_control": {"type": "ephemeral"}``, and OpenAI's request carries
``"prompt_cache_key": "genstrat-<first 16 hex digits of the rulebook's SHA-256>"`` (requests
with one key are routed to the same cache); Gemini caches prefixes implicitly and needs no
field.  Replies report the cached input tokens: OpenAI's
``usage.prompt_tokens_details.cached_tokens``, Anthropic's ``usage.cache_read_input_tokens``
(and ``cache_creation_input_tokens`` for a prefix written to the cache), Gemini's
``usageMetadata.cachedContentTokenCount``.  ``ChatReply.input_tokens`` is always the whole
prompt (for Anthropic: ``input_tokens`` plus both cache counts).

Bounds (issue 43, items 4, 5, 14): a reply is held to what a chat reply can be before any of it
reaches the response cache or the journal.  ``decode_reply`` reads a body of at most
``MAX_REPLY_BYTES`` (the transport stops reading there) nested at most ``MAX_JSON_DEPTH`` deep
(else ``ReplyRefused``; a body that is not JSON is a ``MalformedReply``); ``parse`` takes a
token count only as an integer from 0 to ``MAX_TOKEN_COUNT`` (an integral float is read as its
integer; a negative, fractional, infinite, huge or non-numeric count makes the reply a
``MalformedReply``, an absent or null one is 0), and keeps at most ``MAX_TEXT_CHARS`` of the
text and ``MAX_REASONING_CHARS`` of the reasoning (``bounded_text``: the beginning and the end,
where the answer's JSON object is, around ``CUT_MARK``).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any, Literal, Protocol

ProviderKind = Literal["openai", "anthropic", "gemini"]
ResponseFormat = Literal["none", "json_object", "json_schema", "json_object_schema"]
Message = dict[str, str]

DEFAULT_BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com/v1",
    "gemini": "https://generativelanguage.googleapis.com/v1beta",
}
ANTHROPIC_VERSION = "2023-06-01"
CACHE_KEY_PREFIX = "genstrat-"

# The bounds of a reply (see the module docstring).  A chat reply is a few kilobytes; a
# reasoning model's longest (a 128k-token thought, JSON-escaped) stays well under 8 MiB.
MAX_REPLY_BYTES = 8 * 1024 * 1024
MAX_JSON_DEPTH = 64
MAX_TOKEN_COUNT = 100_000_000  # per count of one reply: past any model's context window
MAX_TEXT_CHARS = 64 * 1024
MAX_REASONING_CHARS = 256 * 1024
# What replaces the middle of a text past its bound: no brace (the move readers read JSON
# objects only) and no digit (an amount) in it.
CUT_MARK = "\n[... cut: the reply was longer than the harness keeps ...]\n"


def prompt_cache_key(system: str) -> str:
    """OpenAI's ``prompt_cache_key`` for a system prompt (the rulebook): one key per game."""
    return CACHE_KEY_PREFIX + hashlib.sha256(system.encode("utf-8")).hexdigest()[:16]


def caches_by_default(kind: ProviderKind, base_url: str | None) -> bool:
    """Whether prompt caching is on when the roster does not say: Anthropic and Gemini always
    (Gemini's is implicit), OpenAI only at its own endpoint (other OpenAI-compatible servers
    may refuse the unknown ``prompt_cache_key`` field)."""
    if kind == "openai":
        return (base_url or DEFAULT_BASE_URLS["openai"]).rstrip("/") == DEFAULT_BASE_URLS["openai"]
    return True


class MalformedReply(Exception):
    """The provider's 2xx body is not the JSON document its API promises."""


class ReplyRefused(MalformedReply):
    """A reply past the harness's bounds (its size, its nesting): never retried."""


def json_depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (a scalar: 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children if isinstance(child, dict | list))
    return deepest


def decode_reply(
    content: bytes, max_bytes: int = MAX_REPLY_BYTES, max_depth: int = MAX_JSON_DEPTH
) -> Any:
    """A reply's body as JSON within the bounds (``ReplyRefused`` past them,
    ``MalformedReply`` when it is not JSON)."""
    if len(content) > max_bytes:
        raise ReplyRefused(f"a reply of {len(content):,} bytes, past the limit of {max_bytes:,}")
    try:
        value = json.loads(content)
    except RecursionError:
        raise ReplyRefused(f"a reply nested more than {max_depth} levels deep") from None
    except ValueError as exc:  # not JSON, not UTF-8, or an integer of thousands of digits
        raise MalformedReply(f"a body that is not JSON ({_short(str(exc))})") from None
    if json_depth(value) > max_depth:
        raise ReplyRefused(f"a reply nested more than {max_depth} levels deep")
    return value


def bounded_text(text: str, limit: int) -> str:
    """``text``, or when longer than ``limit`` characters its beginning and end around
    ``CUT_MARK`` (``limit`` characters in all)."""
    if len(text) <= limit:
        return text
    keep = max(limit - len(CUT_MARK), 0)
    head = keep // 2
    return text[:head] + CUT_MARK + text[len(text) - (keep - head) :]


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class ChatReply:
    """A provider's answer: ``input_tokens`` count the whole prompt, of which
    ``cached_input_tokens`` were read from the provider's prompt cache and
    ``cache_write_tokens`` written to it; ``output_tokens`` include any reasoning tokens."""

    text: str | None
    reasoning: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True)
class ChatRequest:
    url: str
    body: dict[str, Any]
    headers: dict[str, str]


class Provider(Protocol):
    @property
    def kind(self) -> ProviderKind: ...

    def request(
        self,
        model: str,
        system: str,
        messages: list[Message],
        settings: dict[str, Any],
        schema: dict[str, Any] | None,
        response_format: ResponseFormat,
        prompt_cache: bool = False,
    ) -> ChatRequest: ...

    def auth_headers(self, api_key: str | None) -> dict[str, str]: ...

    def parse(self, body: Any) -> ChatReply: ...


def token_count(usage: dict[str, Any], name: str, where: str = "usage") -> int:
    """The token count ``usage[name]``: 0 when absent or null, else an integer from 0 to
    ``MAX_TOKEN_COUNT`` (an integral float read as its integer), else ``MalformedReply``."""
    found = value = usage.get(name)
    if value is None:
        return 0
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKEN_COUNT:
        return value
    raise MalformedReply(
        f"{where}.{name} is {shown_number(found)}, not a token count (an integer from 0 to "
        f"{MAX_TOKEN_COUNT:,})"
    )


def shown_number(value: Any) -> str:
    """A value found where a count belongs, shown short (a huge integer by its magnitude)."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, int) and not isinstance(value, bool):
        if abs(value) < 10**15:
            return str(value)
        return f"{'-' if value < 0 else ''}about 10^{int(abs(value).bit_length() * 0.30103)}"
    return _short(repr(value), 40)


def _text(value: str | None, limit: int = MAX_TEXT_CHARS) -> str | None:
    return None if value is None else bounded_text(value, limit)


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise MalformedReply(what)


@dataclass(frozen=True)
class OpenAIChat:
    """``POST {base_url}/chat/completions``."""

    base_url: str
    kind: ProviderKind = "openai"

    def request(
        self,
        model: str,
        system: str,
        messages: list[Message],
        settings: dict[str, Any],
        schema: dict[str, Any] | None,
        response_format: ResponseFormat,
        prompt_cache: bool = False,
    ) -> ChatRequest:
        body: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "system", "content": system}, *messages],
            **settings,
        }
        if prompt_cache:
            body.setdefault("prompt_cache_key", prompt_cache_key(system))
        if response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        elif response_format == "json_schema" and schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "action", "schema": schema, "strict": True},
            }
        elif response_format == "json_object_schema" and schema is not None:
            body["response_format"] = {"type": "json_object", "schema": schema}
        url = self.base_url.rstrip("/") + "/chat/completions"
        return ChatRequest(url, body, {"content-type": "application/json"})

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {api_key}"} if api_key else {}

    def parse(self, body: Any) -> ChatReply:
        _expect(isinstance(body, dict), "reply is not a JSON object")
        choices = body.get("choices")
        _expect(isinstance(choices, list) and bool(choices), "reply has no choices")
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        if not isinstance(message, dict):
            raise MalformedReply("reply's first choice has no message")
        content = message.get("content")
        text = content if isinstance(content, str) else None
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
        details = usage.get("completion_tokens_details")
        details = details if isinstance(details, dict) else {}
        prompt_details = usage.get("prompt_tokens_details")
        prompt_details = prompt_details if isinstance(prompt_details, dict) else {}
        return ChatReply(
            text=_text(text),
            reasoning=_text(reasoning, MAX_REASONING_CHARS) if isinstance(reasoning, str) else None,
            input_tokens=token_count(usage, "prompt_tokens"),
            output_tokens=token_count(usage, "completion_tokens"),
            reasoning_tokens=token_count(
                details, "reasoning_tokens", "usage.completion_tokens_details"
            ),
            cached_input_tokens=token_count(
                prompt_details, "cached_tokens", "usage.prompt_tokens_details"
            ),
        )


@dataclass(frozen=True)
class AnthropicMessages:
    """``POST {base_url}/messages`` (``max_tokens`` is required by the API; default 1024)."""

    base_url: str
    kind: ProviderKind = "anthropic"

    def request(
        self,
        model: str,
        system: str,
        messages: list[Message],
        settings: dict[str, Any],
        schema: dict[str, Any] | None,
        response_format: ResponseFormat,
        prompt_cache: bool = False,
    ) -> ChatRequest:
        system_field: str | list[dict[str, Any]] = system
        if prompt_cache:
            system_field = [
                {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}
            ]
        body: dict[str, Any] = {
            "model": model,
            "system": system_field,
            "messages": messages,
            "max_tokens": 1024,
            **settings,
        }
        url = self.base_url.rstrip("/") + "/messages"
        headers = {"content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        return ChatRequest(url, body, headers)

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {"x-api-key": api_key} if api_key else {}

    def parse(self, body: Any) -> ChatReply:
        _expect(isinstance(body, dict), "reply is not a JSON object")
        blocks = body.get("content")
        _expect(isinstance(blocks, list), "reply has no content blocks")
        texts = [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        thoughts = [
            b["thinking"] for b in blocks if isinstance(b, dict) and b.get("type") == "thinking"
        ]
        usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
        read = token_count(usage, "cache_read_input_tokens")
        written = token_count(usage, "cache_creation_input_tokens")
        return ChatReply(
            text=_text("".join(t for t in texts if isinstance(t, str))) if texts else None,
            reasoning=_text(
                "\n".join(t for t in thoughts if isinstance(t, str)), MAX_REASONING_CHARS
            )
            or None,
            input_tokens=token_count(usage, "input_tokens") + read + written,
            output_tokens=token_count(usage, "output_tokens"),
            cached_input_tokens=read,
            cache_write_tokens=written,
        )


def gemini_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema in the OpenAPI subset Gemini's ``responseSchema`` takes: upper-case
    types, and no ``additionalProperties`` (every other keyword kept as it is)."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "additionalProperties":
            continue
        if key == "type" and isinstance(value, str):
            out[key] = value.upper()
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: gemini_schema(sub) for name, sub in value.items()}
        elif key == "items" and isinstance(value, dict):
            out[key] = gemini_schema(value)
        else:
            out[key] = value
    return out


@dataclass(frozen=True)
class GeminiGenerate:
    """``POST {base_url}/models/{model}:generateContent`` (the key goes in a header)."""

    base_url: str
    kind: ProviderKind = "gemini"

    def request(
        self,
        model: str,
        system: str,
        messages: list[Message],
        settings: dict[str, Any],
        schema: dict[str, Any] | None,
        response_format: ResponseFormat,
        prompt_cache: bool = False,
    ) -> ChatRequest:
        # Gemini caches a repeated prefix implicitly: ``prompt_cache`` adds no field
        config: dict[str, Any] = dict(settings)
        if response_format != "none":
            config["responseMimeType"] = "application/json"
            if schema is not None and response_format != "json_object":
                config["responseSchema"] = gemini_schema(schema)
        body: dict[str, Any] = {
            "systemInstruction": {"parts": [{"text": system}]},
            "contents": [
                {
                    "role": "model" if m["role"] == "assistant" else "user",
                    "parts": [{"text": m["content"]}],
                }
                for m in messages
            ],
        }
        if config:
            body["generationConfig"] = config
        url = f"{self.base_url.rstrip('/')}/models/{model}:generateContent"
        return ChatRequest(url, body, {"content-type": "application/json"})

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {"x-goog-api-key": api_key} if api_key else {}

    def parse(self, body: Any) -> ChatReply:
        _expect(isinstance(body, dict), "reply is not a JSON object")
        candidates = body.get("candidates")
        _expect(isinstance(candidates, list) and bool(candidates), "reply has no candidates")
        content = candidates[0].get("content") if isinstance(candidates[0], dict) else None
        parts = content.get("parts", []) if isinstance(content, dict) else []
        parts = [p for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
        texts = [p["text"] for p in parts if not p.get("thought")]
        thoughts = [p["text"] for p in parts if p.get("thought")]
        usage = body.get("usageMetadata") if isinstance(body.get("usageMetadata"), dict) else {}
        thinking = token_count(usage, "thoughtsTokenCount", "usageMetadata")
        return ChatReply(
            text=_text("".join(texts)) if texts else None,
            reasoning=_text("\n".join(thoughts), MAX_REASONING_CHARS) or None,
            input_tokens=token_count(usage, "promptTokenCount", "usageMetadata"),
            output_tokens=token_count(usage, "candidatesTokenCount", "usageMetadata") + thinking,
            reasoning_tokens=thinking,
            cached_input_tokens=token_count(usage, "cachedContentTokenCount", "usageMetadata"),
        )


def make_provider(kind: ProviderKind, base_url: str | None) -> Provider:
    """The provider for a roster entry's ``kind`` (default base URL when none is given)."""
    url = base_url or DEFAULT_BASE_URLS[kind]
    if kind == "openai":
        return OpenAIChat(url)
    if kind == "anthropic":
        return AnthropicMessages(url)
    return GeminiGenerate(url)
