"""The players of a tournament: built-in agents, strategy programs, and LLM players with their
shared resources.

A strategy program plays through one sandboxed ``Program`` process per roster entry per lineup
(so per tournament process), started at its first move and restarted after a crash or a
timeout; ``Lineup.aclose`` ends them.  Program players are given the lineup's API keys as
secrets, so that nothing a program returns or raises can carry a key into a table, the journal
or a log (the sandbox already keeps the keys out of its reach).  LLM players of one provider
group and transport share an HTTP client (``arena.llm.clients``: httpx's own transport, with
HTTP/2 and the environment's proxies, for a remote endpoint; the lean HTTP/1.1 transport of
``arena.llm.http11`` for a loopback one, or as the roster's ``transport`` says) and a
``ProviderGate`` (concurrency, request rate, Retry-After pauses); all share the tournament's
response cache.  Each LLM player's transport has its own circuit breaker
(``arena.llm.transport.CircuitBreaker``: ``max_connection_failures`` consecutive connection
failures make the player unavailable; 0 turns it off).  The API key of a player is read from
the environment variable its roster entry names, and lives only in the memory of the players
(its own, and the program players', which redact it).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.llm.cache import ResponseCache
from arena.programs.player import ProgramPlayer
from arena.programs.sandbox import Program
from arena.reference_engines import make_builtin
from arena.roster import ApiEntry, BuiltinEntry, ProgramEntry, PythonEntry, Roster
from engines.agents.base import BuiltinPlayer, Player


@dataclass
class Lineup:
    """The tournament's players, the shared resources of the LLM players, and whether every
    player is a built-in agent (then matches need no event loop)."""

    players: dict[str, Player]
    fingerprints: dict[str, str]
    cache: ResponseCache
    clients: list[Any] = field(default_factory=list)
    all_builtin: bool = True
    stopped: dict[str, str] = field(default_factory=dict)
    secrets: tuple[str, ...] = field(default=(), repr=False)  # the players' API keys
    # matches not played, per player whose stop left them out
    not_played: Counter[str] = field(default_factory=Counter)

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()
        for player in self.players.values():
            if isinstance(player, ProgramPlayer):
                await player.aclose()


def provider_gate(roster: Roster, group: str, share: int = 1) -> Any:
    """The gate of provider ``group`` for one of ``share`` processes."""
    from arena.llm.transport import ProviderGate

    limits = roster.limits(group)
    rate = limits.requests_per_minute
    return ProviderGate(
        max(1, -(-limits.concurrency // share)),
        rate / share if rate is not None else None,
        burst=max(1, limits.burst // share) if limits.burst is not None else None,
    )


def build_lineup(
    roster: Roster,
    cache: ResponseCache,
    rng: random.Random,
    environ: dict[str, str] | None = None,
    share: int = 1,
    max_connection_failures: int | None = None,
) -> Lineup:
    """Players for every roster entry (must run inside the event loop when LLMs play).

    An LLM player whose key variable is unset starts stopped, with a message naming the
    variable (never a value).  ``share``: how many processes split the providers' limits (each
    gets 1/share of a provider's concurrency and request rate).  ``max_connection_failures``:
    the threshold of each LLM player's circuit breaker (None: the default,
    ``arena.llm.transport.DEFAULT_MAX_CONNECTION_FAILURES``; 0: no breaker).
    """
    env = dict(os.environ) if environ is None else environ
    fingerprints = {p.name: roster.fingerprint(p.name) for p in roster.players}
    players: dict[str, Player] = {}
    api_entries = [p for p in roster.players if isinstance(p, ApiEntry)]
    keys = tuple(
        env[e.api_key_env] for e in api_entries if e.api_key_env and env.get(e.api_key_env)
    )
    clients: dict[tuple[str, str], list[Any]] = {}
    if api_entries:
        import httpx

        from arena.llm.clients import http_client
        from arena.llm.player import LLMPlayer, Price
        from arena.llm.providers import make_provider
        from arena.llm.transport import (
            DEFAULT_MAX_CONNECTION_FAILURES,
            CircuitBreaker,
            Transport,
        )
        from arena.retry import RetryPolicy

        threshold = (
            DEFAULT_MAX_CONNECTION_FAILURES
            if max_connection_failures is None
            else max_connection_failures
        )

        groups = sorted({p.provider_group for p in api_entries})
        gates = {g: provider_gate(roster, g, share) for g in groups}
        # one client per provider group and transport (arena.llm.clients), all sharing one
        # TLS context (building one reads the CA bundle: tens of milliseconds)
        tls = httpx.create_ssl_context()
        routes = sorted({(p.provider_group, p.transport_kind) for p in api_entries})
        clients = {route: [http_client(route[1], tls)] for route in routes}
    for entry in roster.players:
        if isinstance(entry, BuiltinEntry):
            agent = make_builtin(entry.agent, entry.params)
            players[entry.name] = BuiltinPlayer(
                name=entry.name, agent=agent, model=entry.agent, settings=dict(entry.params)
            )
            continue
        if isinstance(entry, PythonEntry):
            from arena.python_player import python_player

            players[entry.name] = python_player(entry.name, entry.entry, entry.params)
            continue
        if isinstance(entry, ProgramEntry):
            players[entry.name] = ProgramPlayer(
                name=entry.name,
                program=Program(entry.path, entry.sandbox_limits(), secrets=keys),
                model=entry.path.name,
                settings={"code_sha256": entry.code_sha256, **entry.limits.model_dump()},
                secrets=keys,
            )
            continue
        limits = roster.limits(entry.provider_group)
        retry = RetryPolicy(
            max_retries=limits.max_retries,
            backoff_base_s=limits.backoff_base_s,
            backoff_max_s=limits.backoff_max_s,
            max_retry_after_s=limits.max_retry_after_s,
        )
        transport = Transport(
            clients[(entry.provider_group, entry.transport_kind)],
            gates[entry.provider_group],
            retry,
            random.Random(rng.getrandbits(64)),
            timeout_s=entry.timeout_s,
            breaker=CircuitBreaker(threshold) if threshold > 0 else None,
        )
        key = env.get(entry.api_key_env) if entry.api_key_env else None
        player = LLMPlayer(
            name=entry.name,
            provider=make_provider(entry.kind, entry.base_url),
            model=entry.model,
            transport=transport,
            cache=cache,
            api_key=key,
            settings=dict(entry.settings),
            rethinks=roster.rethinks_of(entry),
            response_format=entry.response_format,
            price=Price(
                entry.price.input_per_mtok,
                entry.price.output_per_mtok,
                entry.price.cached_input_per_mtok,
                entry.price.cache_write_per_mtok,
            ),
            prompt_cache=entry.caches_prompt,
            rulebook_style=roster.rulebook_style or "compact",
        )
        if entry.api_key_env and not key and not cache.offline:
            player.stopped = (
                f"player {entry.name!r} stopped: environment variable {entry.api_key_env} "
                "is not set (it should hold the API key)"
            )
        players[entry.name] = player
    every_client = [c for group in clients.values() for c in group]
    all_builtin = all(isinstance(p, BuiltinEntry) for p in roster.players)
    return Lineup(players, fingerprints, cache, every_client, all_builtin=all_builtin, secrets=keys)
