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
"""

from __future__ import annotations

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


class MalformedReply(Exception):
    """The provider's 2xx body is not the JSON document its API promises (retryable)."""


@dataclass(frozen=True)
class ChatReply:
    """A provider's answer: ``output_tokens`` include any reasoning tokens."""

    text: str | None
    reasoning: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0


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
    ) -> ChatRequest: ...

    def auth_headers(self, api_key: str | None) -> dict[str, str]: ...

    def parse(self, body: Any) -> ChatReply: ...


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


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
    ) -> ChatRequest:
        body: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "system", "content": system}, *messages],
            **settings,
        }
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
        return ChatReply(
            text=text,
            reasoning=reasoning if isinstance(reasoning, str) else None,
            input_tokens=_int(usage.get("prompt_tokens")),
            output_tokens=_int(usage.get("completion_tokens")),
            reasoning_tokens=_int(details.get("reasoning_tokens")),
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
    ) -> ChatRequest:
        body: dict[str, Any] = {
            "model": model,
            "system": system,
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
        return ChatReply(
            text="".join(t for t in texts if isinstance(t, str)) if texts else None,
            reasoning="\n".join(t for t in thoughts if isinstance(t, str)) or None,
            input_tokens=_int(usage.get("input_tokens")),
            output_tokens=_int(usage.get("output_tokens")),
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
    ) -> ChatRequest:
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
        thinking = _int(usage.get("thoughtsTokenCount"))
        return ChatReply(
            text="".join(texts) if texts else None,
            reasoning="\n".join(thoughts) or None,
            input_tokens=_int(usage.get("promptTokenCount")),
            output_tokens=_int(usage.get("candidatesTokenCount")) + thinking,
            reasoning_tokens=thinking,
        )


def make_provider(kind: ProviderKind, base_url: str | None) -> Provider:
    """The provider for a roster entry's ``kind`` (default base URL when none is given)."""
    url = base_url or DEFAULT_BASE_URLS[kind]
    if kind == "openai":
        return OpenAIChat(url)
    if kind == "anthropic":
        return AnthropicMessages(url)
    return GeminiGenerate(url)
