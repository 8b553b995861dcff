"""The attempt number of a retried request (``x-retry-count``, as OpenAI's SDK sends it): the
transport numbers its retries, and the planted-skill server draws its overloads from the
request and that number, so identical requests of different matches meet the same faults in
whatever order they arrive (a resumed run then equals an uninterrupted one, calls included)."""

from __future__ import annotations

import asyncio
import random

import httpx

from arena.llm.transport import RETRY_HEADER, ProviderGate, Transport
from arena.retry import RetryPolicy
from tests.doubles.planted_server import PlantedModel, PlantedServer
from tests.doubles.scripted_server import Answer, Request, ScriptedServer


def test_the_transport_numbers_its_retries() -> None:
    seen: list[str | None] = []

    def script(request: Request) -> Answer:
        seen.append(request.headers.get(RETRY_HEADER))
        if len(seen) < 3:
            return Answer(429, b"{}", headers={"retry-after": "0.001"})
        return Answer(200, b'{"ok": 1}')

    async def post(url: str) -> int:
        async with httpx.AsyncClient() as client:
            transport = Transport(
                client, ProviderGate(1), RetryPolicy(max_retries=4, backoff_base_s=0.001),
                random.Random(0),
            )  # fmt: skip
            return (await transport.post_json(url, {"a": 1}, {})).requests

    with ScriptedServer(script) as server:
        assert asyncio.run(post(f"{server.url}/chat/completions")) == 3
    assert seen == [None, "1", "2"]  # the first attempt carries none


def chat(messages: list[dict[str, str]], retry: str | None, number: int) -> Request:
    headers = {RETRY_HEADER: retry} if retry is not None else {}
    body = {"model": "m", "messages": messages}
    return Request("POST", "/v1/chat/completions", headers, body, number)


def test_identical_requests_meet_the_same_faults_in_any_order() -> None:
    model = PlantedModel("m", skill=0.5, overload_rate=0.5, latency_s=0.0)
    prompts = [
        [{"role": "user", "content": f'Legal actions: ["check", "bet {n}"]'}] for n in range(40)
    ]
    server = PlantedServer([model])
    first = [server.answer(chat(p, None, 0)).status for p in prompts]
    again = [server.answer(chat(p, None, 0)).status for p in reversed(prompts)][::-1]
    assert first == again and {429, 200} <= set(first)  # by the request, not its arrival
    retried = [server.answer(chat(p, "1", 0)).status for p in prompts]
    assert retried != first  # the retry is another draw
    assert server.stats()["m"]["overloaded"] == 2 * first.count(429) + retried.count(429)
    # a client that numbers nothing: the server counts its sightings, until it forgets them
    counting = PlantedServer([model], count_sightings=True)
    statuses = [counting.answer(chat(prompts[0], None, 0)).status for _ in range(8)]
    assert len(set(statuses)) == 2
    counting.forget()
    assert [counting.answer(chat(prompts[0], None, 0)).status for _ in range(8)] == statuses
