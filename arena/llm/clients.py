"""The HTTP clients LLM players send through: httpx's standard transport or the lean one.

- ``standard`` (remote endpoints): httpx's own transport (httpcore): HTTP/2 when the server
  offers it (the ``h2`` package is a dependency; ALPN negotiates it on TLS, plain ``http://``
  stays HTTP/1.1), proxies, ``NO_PROXY`` and certificate settings from the environment
  (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``SSL_CERT_FILE``), so a user behind an
  HTTPS proxy reaches every provider.
- ``lean`` (loopback servers): ``arena.llm.http11``, a small HTTP/1.1 keep-alive transport that
  costs a fraction of httpcore's CPU per request; at the hundreds of requests per second a
  local server answers, httpx's pool is what saturates the core (``benchmarks/`` measures
  it).  It ignores proxies, which a loopback server never needs.

A roster entry chooses with ``transport: auto | lean | standard``; ``auto`` (the default) picks
``lean`` for a loopback host (``127.x.x.x``, ``::1``, ``localhost``) and ``standard`` otherwise
(``arena.roster.ApiEntry.transport_kind``).
"""

from __future__ import annotations

import importlib.util
import ssl
from typing import Literal

import httpx

from arena.llm.http11 import lean_client


def http2_available() -> bool:
    """Whether httpx can speak HTTP/2 here (the ``h2`` package is installed)."""
    return importlib.util.find_spec("h2") is not None


def http_client(
    kind: Literal["lean", "standard"], tls: ssl.SSLContext | None = None
) -> httpx.AsyncClient:
    """A client on the ``kind`` transport (see the module docstring)."""
    if kind == "lean":
        return lean_client(tls)
    return httpx.AsyncClient(
        http2=http2_available(),
        trust_env=True,
        verify=tls if tls is not None else True,
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
    )
