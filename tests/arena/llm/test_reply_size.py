"""A reply's body is read within a byte bound, from the stream (issue 43, item 5: a 100 MiB reply
gave 2.1 GB of RSS, a 419 MB journal, a 420 MB cache and 100 MB ``raw_response`` cells).

The scripted server writes the reply a piece at a time as it generates it, framed by
``Content-Length``, chunked, or ended by closing the connection, so the test process never
holds it; the tournament runs in a child process whose peak RSS is measured."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.llm.http11 import lean_client
from arena.llm.providers import MAX_REPLY_BYTES
from arena.llm.transport import ProviderGate, ReplyRejected, Transport
from arena.retry import RetryPolicy
from tests.doubles.scripted_server import (
    Answer,
    Framing,
    Request,
    ScriptedServer,
    first_legal,
    huge_completion,
)
from tests.support import REPO_ROOT

MIB = 1024 * 1024
FRAMINGS: tuple[Framing, ...] = ("length", "chunked", "close")

CHILD = r"""
import json, resource, sys
from pathlib import Path

# a regression must fail here, not take the machine's memory: 1 GiB of address space above
# what the process has once warmed up
def limit_memory():
    size = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1])
    cap = (size + 1024 * 1024) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.runner import run_tournament

url, out = sys.argv[1], Path(sys.argv[2])

def roster(url):
    return parse_roster({"players": [
        {"name": "bot", "kind": "builtin", "agent": "random"},
        {"name": "llm", "kind": "openai", "model": "m", "base_url": url}],
        "providers": {f"openai@{url}": {"max_retries": 1, "backoff_base_s": 0.01}}})

kuhn = resolve_games(["kuhn"])
run_tournament(roster(url), kuhn, 1, out / "warm")  # every import and code path once
limit_memory()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
summary = run_tournament(roster(url + "/huge"), kuhn, 1, out / "huge")
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"growth_kib": after - before, "statuses": summary.status_counts}))
"""


@pytest.mark.parametrize("framing", FRAMINGS)
def test_a_100_mib_reply_is_an_error_of_its_request_in_bounded_memory(
    tmp_path: Path, framing: Framing
) -> None:
    """The red team's reply, 100 MiB: the child's peak RSS grows by less than 64 MiB, and the
    journal, the cache and the tables stay small."""

    def script(request: Request) -> Answer:
        if "/huge/" in request.path:
            return huge_completion(100 * MIB, framing, tail='{"action": "check"}')
        return first_legal(request)

    out = tmp_path / "t"
    with ScriptedServer(script) as server:
        child = subprocess.run(
            [sys.executable, "-c", CHILD, server.url, str(out)],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        huge_requests = sum("/huge/" in r.path for r in server.requests)
    assert child.returncode == 0, child.stderr[-3000:]
    report = json.loads(child.stdout.splitlines()[-1])
    assert report["statuses"] == {"error": 2}
    assert report["growth_kib"] < 64 * 1024, report
    folder = out / "huge"
    sizes = {p.name: p.stat().st_size for p in folder.iterdir() if p.is_file()}
    assert sizes["journal.jsonl"] < 64 * 1024 and sizes["cache.sqlite"] < MIB, sizes
    entries = [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]
    llm = [m for e in entries for m in e["moves"] if m["player"] == "llm"]
    assert all(len(m["raw_response"] or "") < 1024 for m in llm)
    assert sum(m["calls"] for m in llm) == huge_requests == 2  # refused, not retried
    for entry in entries:
        assert "refused a reply larger than 8,388,608 bytes" in entry["match"]["error"]


class Counted:
    """A huge reply whose pieces the server counts as it writes them."""

    def __init__(self, size: int, framing: Framing) -> None:
        self.answer = huge_completion(size, framing)
        self.written = 0

    def __call__(self, request: Request) -> Answer:
        pieces = self.answer.pieces
        assert pieces is not None

        def counted() -> Iterator[bytes]:
            for piece in pieces():
                self.written += len(piece)
                yield piece

        return Answer(200, pieces=counted, length=self.answer.length, framing=self.answer.framing)


def post(url: str, client: httpx.AsyncClient, max_reply_bytes: int) -> Any:
    async def go() -> Any:
        async with client:
            transport = Transport(client, ProviderGate(2), RetryPolicy(max_retries=3),
                                  random.Random(0), timeout_s=60,
                                  max_reply_bytes=max_reply_bytes)  # fmt: skip
            return await transport.post_json(url + "/chat/completions", {"model": "m"}, {})

    return asyncio.run(go())


@pytest.mark.parametrize("framing", FRAMINGS)
@pytest.mark.parametrize("kind", ["lean", "standard"])
def test_the_body_is_given_up_as_soon_as_it_passes_the_bound(kind: str, framing: Framing) -> None:
    """On both clients, whatever the framing: refused once, never retried, and the server got
    to write little more than the bound (the rest never left it)."""
    size = 64 * MIB
    script = Counted(size, framing)
    client = lean_client() if kind == "lean" else httpx.AsyncClient(trust_env=False)
    with ScriptedServer(script) as server:
        with pytest.raises(ReplyRejected, match="larger than 1,048,576 bytes") as info:
            post(server.url, client, MIB)
        assert len(server.requests) == 1
    assert info.value.requests == 1
    assert script.written < 24 * MIB  # the bound, the socket buffers and one piece in flight


def test_a_reply_within_the_bound_is_read_whole_on_both_clients() -> None:
    answer = huge_completion(MAX_REPLY_BYTES - 4096, "chunked")
    for client in (lean_client(), httpx.AsyncClient(trust_env=False)):
        with ScriptedServer(lambda request: answer) as server:
            body = post(server.url, client, MAX_REPLY_BYTES).body
        assert len(body["choices"][0]["message"]["content"]) == MAX_REPLY_BYTES - 4096


def gzip_bomb(size: int) -> bytes:
    """A gzip body of ``size`` bytes of JSON-ish text, about a thousandth of that on the wire."""
    pack = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [pack.compress(b'{"choices": [{"message": {"content": "')]
    parts += [pack.compress(b"x" * MIB) for _ in range(size // MIB)]
    return b"".join([*parts, pack.compress(b'"}}]}'), pack.flush()])


@pytest.mark.parametrize("kind", ["lean", "standard"])
def test_a_compressed_reply_is_bounded_decoded(kind: str) -> None:
    """Replies are asked for uncompressed; a server compressing anyway (100 MiB in 100 KB)
    is given up once the decoded body passes the bound."""
    bomb = Answer(200, gzip_bomb(100 * MIB), {"content-encoding": "gzip"})
    client = lean_client() if kind == "lean" else httpx.AsyncClient(trust_env=False)
    with ScriptedServer(lambda request: bomb) as server:
        with pytest.raises(ReplyRejected, match="larger than 1,048,576 bytes"):
            post(server.url, client, MIB)
        (request,) = server.requests
    assert request.headers["accept-encoding"] == "identity"
