"""A loopback TCP server in a thread of its own, for the test doubles (the scripted provider
server, the HTTP proxy): a subclass answers each connection in ``handle``; ``start`` returns once
it listens on a free port of 127.0.0.1; ``stop`` (or leaving the ``with`` block) closes the
listener, cancels the open connections' handlers and joins the thread.  ``unused_port`` gives a
port where nothing listens (a dead endpoint)."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Self

HOST = "127.0.0.1"


def unused_port() -> int:
    """A port of 127.0.0.1 with nothing listening on it (a dead endpoint: connections are
    refused), chosen by binding a socket and closing it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


class LoopbackServer:
    """Subclasses define ``handle`` (one connection); ``name`` names the thread."""

    name = "loopback-server"
    backlog = 100

    def __init__(self) -> None:
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError(f"{self.name} did not start")
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is not None and self._server is not None and loop.is_running():
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _shutdown(self) -> None:
        """Close the listener and every open connection's handler before the loop stops."""
        assert self._server is not None
        self._server.close()
        current = asyncio.current_task()
        handlers = [t for t in asyncio.all_tasks() if t is not current]
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._server = loop.run_until_complete(
            asyncio.start_server(self.handle, HOST, 0, backlog=self.backlog)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()
