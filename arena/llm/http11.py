"""A lean HTTP/1.1 transport for ``httpx``: keep-alive connections on asyncio streams.

Why: at a few hundred requests per second ``httpx``'s default transport (httpcore's connection
pool, anyio, h11) costs more CPU per request than everything else the harness does for a move,
and one event loop saturates a core.  The harness only sends small JSON POSTs and reads whole
JSON replies, which needs a small part of HTTP/1.1.  ``LeanTransport`` is that part, plugged into
``httpx.AsyncClient(transport=...)``, so the client API, request building, content decoding and
exceptions stay httpx's:

1. a connection per (scheme, host, port) is taken from an idle list or opened
   (``asyncio.open_connection``, TLS with the given context for https);
2. the request line, headers and body go out in one write;
3. the reply is read: status line, headers, then the body by ``Content-Length``, by chunks
   (``Transfer-Encoding: chunked``, trailers skipped) or until the server closes;
4. the connection goes back to the idle list unless either side said ``Connection: close``;
5. an idle connection the server has already closed is dropped before anything is written on
   it; a reused connection that fails after the request was written, before any byte of a
   reply, is replaced once and the request written again (the server may have received both).

Each write of the request is counted on the request's ``request_writes`` extension
(``WRITES_EXTENSION``, a ``RequestWrites``) as it is handed to the socket, so the caller knows
how many times the request went out however the exchange ends: a reply, an error, or a
cancellation from outside (``RequestWrites.trace`` counts the same for httpx's own transport).

Timeouts come from the request (httpx's ``timeout`` extension: connect, write, read); failures
are raised as httpx's exceptions (``ConnectError``, ``ReadTimeout``, ``RemoteProtocolError``,
...).  Proxies are not supported (the harness builds its clients with ``trust_env=False``).

A body is read within a bound: the request's ``max_body_bytes`` extension (``MAX_BODY_EXTENSION``;
none: no bound).  A declared ``Content-Length`` past it is refused before any of the body is
read, a chunked or close-delimited body as soon as it passes it; either way the connection is
closed and ``BodyTooLarge`` raised, so a reply never holds more than the bound in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from dataclasses import dataclass
from typing import Any

import httpx

MAX_HEADER_BYTES = 1 << 20
MAX_BODY_EXTENSION = "max_body_bytes"
WRITES_EXTENSION = "request_writes"
READ_BYTES = 1 << 16  # a close-delimited body is read this much at a time


@dataclass
class RequestWrites:
    """How many times a request was put on the wire: its bytes handed to a socket, whole."""

    count: int = 0

    async def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's ``trace`` extension: a request body sent in full is a write."""
        if event.endswith(".send_request_body.complete"):
            self.count += 1


class BodyTooLarge(httpx.TransportError):
    """A reply's body passed the request's ``max_body_bytes`` (the connection is closed)."""

    def __init__(self, limit: int, request: httpx.Request | None = None) -> None:
        super().__init__(f"the reply's body is larger than {limit:,} bytes", request=request)
        self.limit = limit


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class _StaleConnection(Exception):
    """A reused connection was closed by the server before any byte of the reply."""


class _TooLarge(Exception):
    def __init__(self, limit: int) -> None:
        self.limit = limit


class LeanTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 with keep-alive (see the module docstring)."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None, max_idle: int = 64) -> None:
        self._ssl = ssl_context
        self._max_idle = max_idle
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"unsupported scheme {url.scheme!r}", request=request)
        key = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        body = await request.aread()
        head = [f"{request.method} ".encode("ascii") + url.raw_path + b" HTTP/1.1\r\n"]
        for name, value in request.headers.raw:
            head.append(name + b": " + value + b"\r\n")
        if b"content-length" not in {n.lower() for n, _ in request.headers.raw} and body:
            head.append(b"Content-Length: " + str(len(body)).encode("ascii") + b"\r\n")
        payload = b"".join(head) + b"\r\n" + body
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if connection.reader.at_eof() or connection.writer.is_closing():
                connection.close()  # closed by the server while idle: nothing was sent on it
                continue
            try:
                return await self._exchange(request, key, connection, payload, timeouts, True)
            except _StaleConnection:
                break
        connection = await self._connect(request, key, timeouts.get("connect"))
        try:
            return await self._exchange(request, key, connection, payload, timeouts, False)
        except _StaleConnection:
            raise httpx.RemoteProtocolError(
                "server closed the connection without a reply", request=request
            ) from None

    async def _connect(
        self, request: httpx.Request, key: tuple[str, str, int], timeout: float | None
    ) -> _Connection:
        scheme, host, port = key
        context = None
        if scheme == "https":
            context = self._ssl or ssl.create_default_context()
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(
                    host,
                    port,
                    ssl=context,
                    server_hostname=host if context else None,
                    limit=MAX_HEADER_BYTES,
                ),
                timeout,
            )
        except TimeoutError:
            raise httpx.ConnectTimeout(
                f"connecting to {host}:{port} timed out", request=request
            ) from None
        except OSError as exc:
            raise httpx.ConnectError(
                f"cannot connect to {host}:{port}: {exc}", request=request
            ) from None
        return _Connection(reader, writer)

    async def _exchange(
        self,
        request: httpx.Request,
        key: tuple[str, str, int],
        connection: _Connection,
        payload: bytes,
        timeouts: dict[str, float | None],
        reused: bool,
    ) -> httpx.Response:
        started = False
        writes = request.extensions.get(WRITES_EXTENSION)
        try:
            connection.writer.write(payload)
            if writes is not None:
                writes.count += 1
            try:
                await asyncio.wait_for(connection.writer.drain(), timeouts.get("write"))
            except TimeoutError:
                raise httpx.WriteTimeout("sending the request timed out", request=request) from None
            status, reason, headers, close = await asyncio.wait_for(
                self._read_head(connection.reader, reused), timeouts.get("read")
            )
            started = True
            limit = request.extensions.get(MAX_BODY_EXTENSION)
            content, reusable = await asyncio.wait_for(
                self._read_body(connection.reader, headers, request.method, status, limit),
                timeouts.get("read"),
            )
        except _TooLarge as exc:
            connection.close()
            raise BodyTooLarge(exc.limit, request=request) from None
        except _StaleConnection:
            connection.close()
            raise
        except TimeoutError:
            connection.close()
            raise httpx.ReadTimeout("reading the reply timed out", request=request) from None
        except asyncio.IncompleteReadError:
            connection.close()
            what = "in the middle of the reply" if started else "before the reply ended"
            raise httpx.RemoteProtocolError(
                f"server closed the connection {what}", request=request
            ) from None
        except (ConnectionError, OSError) as exc:
            connection.close()
            if reused and not started:
                raise _StaleConnection from None
            raise httpx.ReadError(f"connection failed: {exc}", request=request) from None
        except ValueError as exc:
            connection.close()
            raise httpx.RemoteProtocolError(f"malformed reply: {exc}", request=request) from None
        except BaseException:
            connection.close()
            raise
        if close or not reusable:
            connection.close()
        else:
            idle = self._idle.setdefault(key, [])
            if len(idle) < self._max_idle:
                idle.append(connection)
            else:
                connection.close()
        return httpx.Response(
            status,
            headers=headers,
            content=content,
            request=request,
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason},
        )

    @staticmethod
    async def _read_head(
        reader: asyncio.StreamReader, reused: bool
    ) -> tuple[int, bytes, list[tuple[bytes, bytes]], bool]:
        try:
            raw = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if reused and not exc.partial:
                raise _StaleConnection from None
            raise
        except asyncio.LimitOverrunError:
            raise ValueError("reply headers too long") from None
        lines = raw[:-4].split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
            raise ValueError(f"bad status line {lines[0][:80]!r}")
        status = int(parts[1])
        reason = parts[2] if len(parts) > 2 else b""
        headers: list[tuple[bytes, bytes]] = []
        close = parts[0] == b"HTTP/1.0"
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep:
                raise ValueError(f"bad header line {line[:80]!r}")
            name, value = name.strip(), value.strip()
            headers.append((name, value))
            if name.lower() == b"connection":
                close = value.lower() == b"close" or (close and value.lower() != b"keep-alive")
        return status, reason, headers, close

    @staticmethod
    async def _read_body(
        reader: asyncio.StreamReader,
        headers: list[tuple[bytes, bytes]],
        method: str,
        status: int,
        limit: int | None = None,
    ) -> tuple[bytes, bool]:
        """(the body, whether the connection can carry another request); ``_TooLarge`` as soon
        as the body passes ``limit`` bytes."""
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return b"", True
        fields = {name.lower(): value for name, value in headers}
        chunks: list[bytes] = []
        size = 0
        if fields.get(b"transfer-encoding", b"").lower().endswith(b"chunked"):
            while True:
                size_line = await reader.readuntil(b"\r\n")
                chunk = int(size_line.split(b";", 1)[0].strip(), 16)
                if chunk == 0:
                    while await reader.readuntil(b"\r\n") != b"\r\n":
                        pass  # trailers
                    return b"".join(chunks), True
                size += chunk
                if limit is not None and size > limit:
                    raise _TooLarge(limit)
                chunks.append(await reader.readexactly(chunk))
                await reader.readexactly(2)
        if b"content-length" in fields:
            length = int(fields[b"content-length"])
            if length < 0:
                raise ValueError(f"negative Content-Length {length}")
            if limit is not None and length > limit:
                raise _TooLarge(limit)
            return (await reader.readexactly(length) if length else b""), True
        while piece := await reader.read(READ_BYTES):  # no length: it ends when the server closes
            size += len(piece)
            if limit is not None and size > limit:
                raise _TooLarge(limit)
            chunks.append(piece)
        return b"".join(chunks), False

    async def aclose(self) -> None:
        for idle in self._idle.values():
            for connection in idle:
                connection.close()
        self._idle.clear()


def lean_client(ssl_context: ssl.SSLContext | None = None, **kwargs: Any) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` on ``LeanTransport`` (no proxies from the environment)."""
    return httpx.AsyncClient(transport=LeanTransport(ssl_context), trust_env=False, **kwargs)
