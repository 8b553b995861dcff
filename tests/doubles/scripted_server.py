"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests, benchmarks and demos.

It speaks just enough HTTP/1.1 (keep-alive, ``Content-Length`` bodies) to serve
``POST /v1/chat/completions`` and ``GET /v1/models``, and answers each request from a *script*:
a function of the request that returns an ``Answer``.  An answer can be a normal completion, an
HTTP error with headers (``429`` with ``Retry-After``), a stall past the client's timeout, a
connection reset, an empty or truncated body, prose, or an illegal action, so that the harness
meets every fault of the issue without any network beyond the loopback interface.  An answer
can also be written slowly (``drip_s``: one byte at a time, that many seconds apart) or be a
body too large to hold (``huge_completion``: a completion whose text is ``size`` bytes, written
in pieces as it is generated, framed by ``Content-Length``, chunked, or ended by closing the
connection), so the server's own memory stays small.

The default script plays a legal action: it reads the menu from the last user message (the
per-turn prompt ends with ``Legal actions: [...]``) and answers ``{"action": <first>}``.

Run it in-process with ``ScriptedServer(script).start()`` (a thread with its own event loop)
or as a process: ``python -m tests.doubles.scripted_server --delay-ms 200`` prints its URL.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import struct
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from tests.doubles.loopback import HOST, LoopbackServer

_MENU = re.compile(r"Legal actions: (\[.*\])")


@dataclass(frozen=True)
class Request:
    """What the server received (headers with lower-case names)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    number: int


Framing = Literal["length", "chunked", "close"]


@dataclass(frozen=True)
class Answer:
    """How to answer one request (see the module docstring): ``pieces`` (with ``length``
    bytes in all), when given, is the body written piece by piece in ``framing``; ``hold``,
    when given, is awaited in the server's loop before the answer (the request counted in
    flight meanwhile), so a test can hold requests until a condition of its own."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    reset: bool = False
    drip_s: float = 0.0
    pieces: Callable[[], Iterator[bytes]] | None = None
    length: int = 0
    framing: Framing = "length"
    hold: Callable[[], Awaitable[None]] | None = None


PIECE_BYTES = 1 << 20


def huge_completion(size: int, framing: Framing = "length", tail: str = "") -> Answer:
    """A 200 completion whose message content is ``size`` bytes of ``x`` then ``tail``,
    generated a piece at a time (the server never holds it)."""
    head = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "'
    end = (
        json.dumps(tail)[1:-1].encode()
        + b'"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, '
        b'"completion_tokens": 8}}'
    )

    def pieces() -> Iterator[bytes]:
        yield head
        left = size
        while left > 0:
            n = min(left, PIECE_BYTES)
            yield b"x" * n
            left -= n
        yield end

    return Answer(200, pieces=pieces, length=len(head) + size + len(end), framing=framing)


def legal_menu(request: Request) -> list[str]:
    """The legal actions of the last user message of a chat request (empty if none)."""
    messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
    for message in reversed(messages):
        if message.get("role") == "user":
            found = _MENU.search(str(message.get("content", "")))
            if found:
                menu = json.loads(found.group(1))
                return [str(a) for a in menu]
    # a rethink's feedback message has no menu: look further back
    for message in reversed(messages):
        found = _MENU.search(str(message.get("content", "")))
        if found:
            return [str(a) for a in json.loads(found.group(1))]
    return []


def completion(content: str | None, prompt_tokens: int = 100, completion_tokens: int = 8) -> Answer:
    """A 200 chat-completions reply whose message says ``content``."""
    body = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
    return Answer(200, json.dumps(body).encode())


def first_legal(request: Request) -> Answer:
    """The default script: answer the first legal action."""
    menu = legal_menu(request)
    return completion(json.dumps({"action": menu[0] if menu else "check"}))


Script = Callable[[Request], Answer]

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class ScriptedServer(LoopbackServer):
    """The server (see the module docstring); ``requests`` records what it received."""

    name = "scripted-server"
    backlog = 1024

    def __init__(self, script: Script = first_legal, delay_s: float = 0.0) -> None:
        super().__init__()
        self.script = script
        self.delay_s = delay_s
        self.requests: list[Request] = []
        self._count = 0
        # requests being answered at once, and the most at any moment: concurrency shown by
        # the server, not by a wall clock
        self.in_flight = 0
        self.most_in_flight = 0

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    async def serve_forever(self, port: int = 0) -> None:
        """Serve in the current event loop (the process entry point)."""
        server = await asyncio.start_server(self.handle, HOST, port, backlog=1024)
        self.port = server.sockets[0].getsockname()[1]
        print(self.url, flush=True)
        async with server:
            await server.serve_forever()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0"))
                raw = await reader.readexactly(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = None
                self._count += 1
                request = Request(method, path, headers, body, self._count)
                self.requests.append(request)
                if method == "GET" and path.rstrip("/").endswith("/models"):
                    answer = Answer(200, b'{"object": "list", "data": [{"id": "scripted"}]}')
                else:
                    answer = self.script(request)
                delay = answer.delay_s + self.delay_s
                if delay or answer.hold is not None:
                    self.in_flight += 1
                    self.most_in_flight = max(self.most_in_flight, self.in_flight)
                    try:
                        if answer.hold is not None:
                            await answer.hold()
                        await asyncio.sleep(delay)
                    finally:
                        self.in_flight -= 1
                if answer.reset:
                    sock = writer.get_extra_info("socket")
                    if sock is not None:
                        sock.setsockopt(
                            socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                        )
                    writer.transport.abort()
                    return
                reason = _REASONS.get(answer.status, "Status")
                extra = "".join(f"{k}: {v}\r\n" for k, v in answer.headers.items())
                if answer.pieces is not None:
                    await self._write_pieces(writer, answer, reason, extra)
                    if answer.framing == "close":
                        return
                    continue
                reply = (
                    f"HTTP/1.1 {answer.status} {reason}\r\ncontent-type: application/json\r\n"
                    f"content-length: {len(answer.body)}\r\n{extra}\r\n".encode("latin-1")
                    + answer.body
                )
                if answer.drip_s:
                    for i in range(len(reply)):
                        writer.write(reply[i : i + 1])
                        await writer.drain()
                        await asyncio.sleep(answer.drip_s)
                    continue
                writer.write(reply)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            writer.transport.abort()
            raise
        finally:
            if not writer.is_closing():
                writer.close()

    @staticmethod
    async def _write_pieces(
        writer: asyncio.StreamWriter, answer: Answer, reason: str, extra: str
    ) -> None:
        """A body from ``answer.pieces``, framed as ``answer.framing`` says."""
        assert answer.pieces is not None
        framing = {
            "length": f"content-length: {answer.length}\r\n",
            "chunked": "transfer-encoding: chunked\r\n",
            "close": "connection: close\r\n",
        }[answer.framing]
        writer.write(
            f"HTTP/1.1 {answer.status} {reason}\r\ncontent-type: application/json\r\n"
            f"{framing}{extra}\r\n".encode("latin-1")
        )
        for piece in answer.pieces():
            if answer.framing == "chunked":
                writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            else:
                writer.write(piece)
            await writer.drain()
        if answer.framing == "chunked":
            writer.write(b"0\r\n\r\n")
        await writer.drain()
        if answer.framing == "close":
            writer.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay-ms", type=float, default=0.0, help="added to every answer")
    args = parser.parse_args(argv)
    server = ScriptedServer(first_legal, delay_s=args.delay_ms / 1000.0)
    server.requests = _Discard()
    try:
        asyncio.run(server.serve_forever(args.port))
    except KeyboardInterrupt:
        return 0
    return 0


class _Discard(list[Request]):
    """A request log that keeps nothing (a long-running server must not grow)."""

    def append(self, item: Request) -> None:
        return None


if __name__ == "__main__":
    sys.exit(main())
