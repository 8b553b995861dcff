"""The lean HTTP/1.1 transport: framing, keep-alive, stale connections, TLS, content decoding.

Each server here is a raw asyncio server on 127.0.0.1 that the test starts, answering with
exactly the bytes the test gives.
"""

from __future__ import annotations

import asyncio
import datetime
import gzip
import ipaddress
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from arena.llm.http11 import LeanTransport, lean_client

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return head + (await reader.readexactly(length) if length else b"")


async def serve(handler: Handler, exchange: Callable[[str], Awaitable[object]],
                context: ssl.SSLContext | None = None) -> object:  # fmt: skip
    connections = 0

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        try:
            await handler(reader, writer, connections)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    scheme = "https" if context else "http"
    async with server:
        return await exchange(f"{scheme}://127.0.0.1:{port}")


def run(handler: Handler, exchange: Callable[[str], Awaitable[object]]) -> object:
    return asyncio.run(serve(handler, exchange))


def keep_alive(*replies: bytes) -> Handler:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        for reply in replies:
            await read_request(reader)
            writer.write(reply)
            await writer.drain()

    return handler


def test_content_length_chunked_and_read_to_close_bodies() -> None:
    replies = (
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"3;ext=1\r\nabc\r\n4\r\ndefg\r\n0\r\nX-Trailer: t\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n\r\nuntil the end",
    )

    async def exchange(url: str) -> object:
        async with lean_client() as client:
            return [(await client.get(url + f"/{i}")).text for i in range(3)]

    assert run(keep_alive(*replies), exchange) == ["hello", "abcdefg", "until the end"]


def test_connections_are_reused_and_closed_when_asked() -> None:
    seen: list[int] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            request = await read_request(reader)
            seen.append(n)
            close = b"close-me" in request
            extra = b"Connection: close\r\n" if close else b""
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" + extra + b"\r\nok")
            await writer.drain()
            if close:
                return

    async def exchange(url: str) -> object:
        async with lean_client() as client:
            for path in ("/a", "/b", "/close-me", "/c", "/d"):
                assert (await client.post(url + path, content=b"{}")).text == "ok"
        return None

    run(handler, exchange)
    assert seen == [1, 1, 1, 2, 2]  # a new connection only after the server closed one


def test_a_stale_keep_alive_connection_is_replaced_once() -> None:
    closed = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n" + str(n).encode())
        await writer.drain()
        # then close without saying so: the client's idle connection is stale
        writer.close()
        await writer.wait_closed()
        closed.set()

    async def exchange(url: str) -> object:
        async with lean_client() as client:
            first = (await client.get(url)).text
            await closed.wait()  # the server has closed the first connection
            second = (await client.get(url)).text
        return first, second

    assert run(handler, exchange) == ("1", "2")


def test_a_reply_cut_short_is_a_protocol_error() -> None:
    async def exchange(url: str) -> object:
        async with lean_client() as client:
            with pytest.raises(httpx.RemoteProtocolError):
                await client.get(url)
        return None

    run(keep_alive(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\ntoo short"), exchange)
    run(keep_alive(b"garbage\r\n\r\n"), exchange)


def test_timeouts_and_refused_connections_raise_httpx_errors() -> None:
    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await read_request(reader)
        await reader.read()  # never answers: holds the request until the client leaves

    async def exchange(url: str) -> object:
        async with lean_client() as client:
            with pytest.raises(httpx.ReadTimeout):
                await client.get(url, timeout=0.2)
        return None

    run(slow, exchange)

    async def refused() -> None:
        async with lean_client() as client:
            with pytest.raises(httpx.ConnectError):
                await client.get("http://127.0.0.1:9/")

    asyncio.run(refused())

    async def ftp() -> None:
        with pytest.raises(httpx.UnsupportedProtocol):
            await LeanTransport().handle_async_request(httpx.Request("GET", "ftp://h/x"))

    asyncio.run(ftp())


def test_gzip_bodies_are_decoded_by_httpx() -> None:
    body = gzip.compress(b'{"action": "check"}')
    reply = (
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )

    async def exchange(url: str) -> object:
        async with lean_client() as client:
            return (await client.get(url)).json()

    assert run(keep_alive(reply), exchange) == {"action": "check"}


def test_https_with_a_trusted_certificate(tmp_path: Path) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert_file, key_file)
    trusting = ssl.create_default_context(cafile=str(cert_file))

    async def exchange(url: str) -> object:
        assert url.startswith("https://")
        async with lean_client(trusting) as client:
            first = (await client.post(url, json={"a": 1})).text
            second = (await client.post(url, json={"a": 2})).text
        async with lean_client() as untrusting:  # the system's CAs do not know this one
            with pytest.raises(httpx.ConnectError):
                await untrusting.get(url)
        return first, second

    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nsafe"
    result = asyncio.run(serve(keep_alive(reply, reply), exchange, server_context))
    assert result == ("safe", "safe")
