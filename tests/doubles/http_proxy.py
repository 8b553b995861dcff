"""A loopback HTTP proxy for tests: ``CONNECT`` tunnels and absolute-form forwarding.

Like a corporate proxy a researcher sits behind, it carries HTTPS as a ``CONNECT host:port``
tunnel (bytes piped both ways once it answers ``200 Connection established``) and plain HTTP
as requests in absolute form (``POST http://host:port/path HTTP/1.1``), which it forwards in
origin form over its own keep-alive connection to the target and relays the reply
(``Content-Length`` bodies, as the scripted server sends).  ``seen`` records each
``(method, target)`` it carried, so a test can prove that a player's requests went through it.

Run it in-process with ``HttpProxy().start()`` (a thread with its own event loop); ``url`` is
what ``HTTP_PROXY``/``HTTPS_PROXY`` should hold.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

from tests.doubles.loopback import HOST, LoopbackServer


class HttpProxy(LoopbackServer):
    name = "http-proxy"

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str]] = []

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, version = lines[0].split(" ", 2)
                headers = [line for line in lines[1:] if line]
                self.seen.append((method, target))
                if method == "CONNECT":
                    host, _, port = target.rpartition(":")
                    up_reader, up_writer = await asyncio.open_connection(host, int(port))
                    writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    await writer.drain()
                    await asyncio.gather(
                        _pipe(reader, up_writer), _pipe(up_reader, writer), return_exceptions=True
                    )
                    return
                parts = urlsplit(target)
                if parts.scheme != "http" or not parts.hostname:
                    writer.write(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
                    await writer.drain()
                    return
                length = _length(headers)
                body = await reader.readexactly(length) if length else b""
                if upstream is None:
                    upstream = await asyncio.open_connection(parts.hostname, parts.port or 80)
                path = parts.path + (f"?{parts.query}" if parts.query else "")
                kept = [h for h in headers if not h.lower().startswith("proxy-")]
                upstream[1].write(
                    f"{method} {path} {version}\r\n{''.join(h + chr(13) + chr(10) for h in kept)}"
                    "\r\n".encode("latin-1")
                    + body
                )
                await upstream[1].drain()
                reply_head = await upstream[0].readuntil(b"\r\n\r\n")
                reply_lines = reply_head.decode("latin-1").split("\r\n")
                reply_body = await upstream[0].readexactly(_length(reply_lines[1:]))
                writer.write(reply_head + reply_body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, OSError):
            pass
        finally:
            if upstream is not None:
                upstream[1].close()
            with contextlib.suppress(Exception):
                writer.close()


def _length(headers: list[str]) -> int:
    for line in headers:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            return int(value.strip())
    return 0


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    finally:
        with contextlib.suppress(Exception):
            writer.close()
