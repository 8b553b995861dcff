"""The standard transport (httpx's own, proxies from the environment, HTTP/2 available) for
remote endpoints, the lean one for loopback: a roster player plays a match through a loopback
HTTP proxy started by the test."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from arena.games import resolve_games
from arena.llm.clients import http2_available, http_client
from arena.llm.http11 import LeanTransport
from arena.roster import parse_roster
from arena.tournament.journal import MOVES
from arena.tournament.runner import run_tournament
from tests.doubles.http_proxy import HttpProxy
from tests.doubles.scripted_server import ScriptedServer


def roster(url: str, transport: str) -> Any:
    return parse_roster(
        {
            "players": [
                {"name": "bot", "kind": "builtin", "agent": "random"},
                {"name": "llm", "kind": "openai", "model": "m", "base_url": url,
                 "transport": transport},
            ]
        }
    )  # fmt: skip


@pytest.fixture
def proxied(monkeypatch: pytest.MonkeyPatch) -> Any:
    with HttpProxy() as proxy:
        for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        yield proxy


def test_a_player_plays_a_match_through_the_proxy(tmp_path: Path, proxied: HttpProxy) -> None:
    with ScriptedServer() as server:
        summary = run_tournament(roster(server.url, "standard"), resolve_games(["kuhn"]), 2,
                                 tmp_path / "t")  # fmt: skip
        received = len(server.requests)
    assert summary.finished and summary.status_counts == {"complete": 4}
    llm = pd.read_parquet(tmp_path / "t" / MOVES).query("player == 'llm'")
    assert received == len(llm) > 0
    carried = [t for m, t in proxied.seen if m == "POST"]
    assert len(carried) == received  # every request of the player went through the proxy
    assert all(t == f"{server.url}/chat/completions" for t in carried)


def test_loopback_auto_picks_the_lean_transport_which_needs_no_proxy(
    tmp_path: Path, proxied: HttpProxy
) -> None:
    r = roster("http://127.0.0.1:1/v1", "auto")
    assert r.player("llm").transport_kind == "lean"
    with ScriptedServer() as server:
        summary = run_tournament(roster(server.url, "auto"), resolve_games(["kuhn"]), 1,
                                 tmp_path / "t")  # fmt: skip
        assert summary.finished and server.requests
    assert proxied.seen == []


def test_transport_detection() -> None:
    def kind(url: str, choice: str = "auto") -> str:
        entry = roster(url, choice).player("llm")
        return str(entry.transport_kind)

    assert kind("http://127.0.0.1:8080/v1") == "lean"
    assert kind("http://localhost:8080/v1") == "lean"
    assert kind("http://[::1]:8080/v1") == "lean"
    assert kind("https://api.openai.com/v1") == "standard"
    assert kind("https://127.0.0.1.example.com/v1") == "standard"
    assert kind("https://api.openai.com/v1", "lean") == "lean"
    assert kind("http://127.0.0.1:8080/v1", "standard") == "standard"
    with pytest.raises(ValueError, match="transport"):
        roster("http://127.0.0.1:1/v1", "h3")


def test_clients_per_kind() -> None:
    assert http2_available()  # h2 is a pinned dependency

    async def check() -> None:
        lean = http_client("lean")
        standard = http_client("standard")
        try:
            assert isinstance(lean._transport, LeanTransport)
            assert not isinstance(standard._transport, LeanTransport)
            assert standard._trust_env and not lean._trust_env
        finally:
            await lean.aclose()
            await standard.aclose()

    asyncio.run(check())


def test_the_proxy_tunnels_connect() -> None:
    """The double's CONNECT tunnel (how HTTPS travels through a proxy) carries a request."""
    with ScriptedServer() as server, HttpProxy() as proxy:
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
            sock.sendall(f"CONNECT 127.0.0.1:{server.port} HTTP/1.1\r\n\r\n".encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            sock.sendall(b"GET /v1/models HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n")
            data = b""
            while b"scripted" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
        assert b"200 OK" in data and json.loads(data.split(b"\r\n\r\n", 1)[1])["object"] == "list"
        assert proxy.seen == [("CONNECT", f"127.0.0.1:{server.port}")]
