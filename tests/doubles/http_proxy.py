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
import threading
from urllib.parse import urlsplit

HOST = "127.0.0.1"


class HttpProxy:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> HttpProxy:
        self._thread = threading.Thread(target=self._run, name="http-proxy", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("proxy did not start")
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is not None and loop.is_running():
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> HttpProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _shutdown(self) -> None:
        assert self._server is not None
        self._server.close()
        current = asyncio.current_task()
        tasks = [t for t in asyncio.all_tasks() if t is not current]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._server = loop.run_until_complete(asyncio.start_server(self._handle, HOST, 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
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
