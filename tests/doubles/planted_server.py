"""A planted-skill field of "models" behind an OpenAI-compatible server on 127.0.0.1.

Each model of the field (``PlantedModel``) plays at a set strength: every decision it makes is
the strong policy's with probability ``skill``, else a uniform choice from the legal moves, so
the field's true order is known before a tournament starts and a leaderboard can be held to it.
Around the play it behaves like a provider:

- **latency**: a log-normal time per request (median ``latency_s``, spread ``latency_sigma``,
  plus ``per_output_token_s`` per output token), all multiplied by the server's ``time_scale``;
- **tokens**: ``prompt_tokens`` counted from the conversation's characters
  (``chars_per_token``, plus ``MESSAGE_OVERHEAD`` tokens a message, as chat templates add),
  ``completion_tokens`` from the reply's characters plus ``reasoning_tokens`` hidden ones;
- **rate limits**: a token bucket of ``requests_per_minute`` (``burst`` deep) per model; a
  request past it is answered ``429`` with the ``Retry-After`` the bucket needs;
- **overloads**: a share ``overload_rate`` of the attempts is answered ``429`` (``Retry-After``
  ``overload_retry_after_s``), drawn from the request and its attempt number: the
  ``x-retry-count`` header the harness sends with a retry (``arena.llm.transport.RETRY_HEADER``),
  so every run meets the same faults whatever the order identical requests of different matches
  arrive in (``count_sightings``, for a client that sends no such header: the times this server
  saw the request before, which ``forget`` clears, as a restarted provider would);
- **illegal answers**: a share ``illegal_rate`` of the answers names no legal move (half prose
  without an action, half a move that is not legal), which the harness's rethink and fallback
  take care of.

Every draw (the policy's coin and choice, the illegal answers, the latency) comes from a hash of
the model, the conversation and, for faults, the attempt number: the same request gets the same
answer in every run, whatever the timing, so a killed and resumed tournament ends equal to an
uninterrupted one.  The rate limiter alone depends on timing.

The strong policy (``strong_action``):

- **generated games** (GBG) the server knows (``games``: their rulebooks, in both styles, are
  looked up by the system prompt): the built-in ``heuristic``'s rule on the hand's estimated
  showdown strength (``engines.agents.builtin``), read from the turn prompt's "Your hand" and
  "Board" lines (bet the smallest amount when strong, check or call when middling, check or fold
  when weak; other decisions uniformly); an unknown generated game is played at a middling
  strength (check or call);
- **chess**: mate in one if there is one, else the capture of the most valuable piece (the
  cheapest attacker first), else a uniform move; the position is the turn prompt's FEN;
- any other OpenSpiel game: uniform (a planted strength there is not defined).

The server keeps its own account per model (``Account``: requests, 200s, 429s, illegal answers,
prompt and completion tokens billed on its 200s, the bill at the model's price), which a test or
the dress rehearsal compares with the tournament's tables; ``GET /v1/stats`` returns it as JSON
and ``POST /v1/forget`` calls ``forget``.

In-process: ``with PlantedServer(field, games) as server: server.url``.  As a process:
``python -m tests.doubles.planted_server --field FIELD.json [--games GAMES.json] [--port P]``
prints its URL (``FIELD.json``: a list of ``PlantedModel`` fields; ``GAMES.json``: a list of
game spec JSON objects).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import random
import re
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from tests.doubles.scripted_server import Answer, Request, ScriptedServer, _Discard, completion

MESSAGE_OVERHEAD = 4  # tokens a chat template adds per message
RETRY_HEADER = "x-retry-count"  # arena.llm.transport.RETRY_HEADER
_GBG_MENU = re.compile(r"Legal actions: (\[.*\])")
_OPENSPIEL_MENU = re.compile(r"^Legal moves: (.*)$", re.MULTILINE)
_HAND = re.compile(r"^Your hand: (.*)\.$", re.MULTILINE)
_BOARD = re.compile(r"^Board: (.*)\.$", re.MULTILINE)
_FEN = re.compile(r"Position \(FEN\): (\S+ \S+ \S+ \S+ \S+ \S+)")
_RANGE = re.compile(r"^raise N \(any whole N from (\d+) to (\d+)\)$")
PIECE_VALUE = {1: 1, 2: 3, 3: 3, 4: 5, 5: 9, 6: 0}  # python-chess piece types, king 0
PROSE = (
    "Let me think about the position carefully before I commit to anything.",
    "This is a difficult spot; I would rather wait and see what my opponent does.",
    "I am not sure which move is best here.",
)


@dataclass(frozen=True)
class PlantedModel:
    """One model of the field (see the module docstring); prices in USD per million tokens."""

    name: str
    skill: float
    illegal_rate: float = 0.0
    latency_s: float = 0.5
    latency_sigma: float = 0.25
    per_output_token_s: float = 0.0
    requests_per_minute: float | None = None
    burst: float = 2.0
    overload_rate: float = 0.0
    overload_retry_after_s: float = 0.5
    chars_per_token: float = 4.0
    reasoning_tokens: int = 0
    input_per_mtok: float = 1.0
    output_per_mtok: float = 4.0

    def __post_init__(self) -> None:
        for name in ("skill", "illegal_rate", "overload_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"planted model {self.name!r}: {name} must be in [0, 1]")

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.input_per_mtok + completion_tokens * self.output_per_mtok
        ) / 1e6


@dataclass
class Account:
    """What the server saw and billed for one model."""

    requests: int = 0
    answered: int = 0
    rate_limited: int = 0
    overloaded: int = 0
    illegal: int = 0
    strong: int = 0
    uniform: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def planted_field(
    n: int, *, prefix: str = "planted", low: float = 0.0, high: float = 1.0, **common: Any
) -> list[PlantedModel]:
    """``n`` models with skills evenly spaced from ``low`` to ``high`` (the first the weakest),
    named ``<prefix>-00`` ...; ``common``: the other ``PlantedModel`` fields of every model."""
    if n < 1:
        raise ValueError(f"a field needs at least one model, got {n}")
    step = (high - low) / (n - 1) if n > 1 else 0.0
    return [
        PlantedModel(name=f"{prefix}-{i:02d}", skill=round(low + i * step, 6), **common)
        for i in range(n)
    ]


def roster_players(
    models: Iterable[PlantedModel],
    url: str,
    *,
    concurrency: int = 8,
    max_retries: int = 6,
    backoff_base_s: float = 1.0,
    reply_tokens: int | None = None,
    rate_limits: bool = True,
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Roster entries for ``models`` at ``url`` (the server's), each its own provider group
    with the model's rate limit (``rate_limits`` False: none, so the harness learns of the
    limit from the server's 429s), and the ``providers`` mapping of those groups."""
    players: list[dict[str, Any]] = []
    providers: dict[str, dict[str, Any]] = {}
    for m in models:
        group = f"planted-{m.name}"
        players.append(
            {
                "name": m.name,
                "kind": "openai",
                "model": m.name,
                "base_url": url,
                "provider": group,
                "settings": {"temperature": 0, "max_tokens": 64 + m.reasoning_tokens * 4},
                "price": {"input_per_mtok": m.input_per_mtok, "output_per_mtok": m.output_per_mtok},
                "expect": {
                    "reply_tokens": reply_tokens or 8 + m.reasoning_tokens,
                    "latency_s": m.latency_s,
                    "chars_per_token": m.chars_per_token,
                },
            }
        )
        limits: dict[str, Any] = {
            "concurrency": concurrency,
            "max_retries": max_retries,
            "backoff_base_s": backoff_base_s,
        }
        if m.requests_per_minute is not None and rate_limits:
            limits["requests_per_minute"] = m.requests_per_minute
        providers[group] = limits
    return players, providers


def _digest(*parts: object) -> bytes:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).digest()


def _draw(*parts: object) -> random.Random:
    return random.Random(_digest(*parts))


class GameBook:
    """The games the server knows, by the system prompt (rulebook) that names them."""

    def __init__(self, specs: Iterable[Any] = ()) -> None:
        self._by_prompt: dict[str, Any] = {}
        self._compiled: dict[str, Any] = {}
        for spec in specs:
            self.add(spec)

    def add(self, spec: Any) -> None:
        from engines.gbg import GameSpec, rulebook
        from engines.openspiel.text import rules_text

        if isinstance(spec, GameSpec):
            texts = {rulebook(spec, style=style) for style in ("compact", "paper")}
        else:
            texts = {rules_text(spec)}
        for text in texts:
            self._by_prompt[hashlib.sha256(text.encode()).hexdigest()] = spec

    def spec(self, system: str) -> Any:
        return self._by_prompt.get(hashlib.sha256(system.encode()).hexdigest())

    def compiled(self, spec: Any) -> Any:
        from engines.gbg.rules import game_rules

        game = self._compiled.get(spec.spec_hash)
        if game is None:
            game = self._compiled[spec.spec_hash] = game_rules(spec)
        return game


class _WhatIf:
    """The fields a showdown metric reads (``engines.gbg.rules.Cards``)."""

    __slots__ = ("board", "hands", "points")

    def __init__(self, hands: list[list[int]], board: list[int]) -> None:
        self.hands = hands
        self.board = board
        self.points = [0, 0]


def observed_strength(game: Any, prompt: str, rng: random.Random, samples: int = 48) -> float:
    """The chance that the hand of the turn prompt beats a random unseen hand of the same size
    at showdown (ties half), as the built-in heuristic estimates it; 0.5 when unreadable."""
    ids = {label: i for i, label in enumerate(game.label_of)}
    hand_line, board_line = _HAND.search(prompt), _BOARD.search(prompt)
    if hand_line is None:
        return 0.5
    own = [ids[c] for c in hand_line.group(1).split() if c in ids]
    board = (
        [ids[c] for c in board_line.group(1).split() if c in ids] if board_line is not None else []
    )
    unseen = [c for c in range(game.n_cards) if c not in set(own) | set(board)]
    if not own or len(unseen) < len(own):
        return 0.5
    wins = 0.0
    for _ in range(samples):
        what_if = _WhatIf([own, rng.sample(unseen, len(own))], board)
        try:
            mine, theirs = game.showdown_key(what_if, 0), game.showdown_key(what_if, 1)
        except (ValueError, IndexError):
            return 0.5
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return wins / samples


def heuristic_choice(legal: Sequence[str], strength: float, rng: random.Random) -> str:
    """The built-in heuristic's rule (``engines.agents.builtin.HeuristicAgent``)."""
    betting = [a for a in legal if a.split(" ")[0] in ("bet", "raise")]
    if not set(legal) & {"check", "call", "fold"}:
        return rng.choice(list(legal))
    if strength >= 0.65 and betting:
        return betting[0]
    passive = "check" if "check" in legal else "call"
    if strength >= 0.35 or "fold" not in legal:
        return passive
    return "fold"


def chess_moves(fen: str) -> list[str]:
    import chess

    board = chess.Board(fen)
    return [board.san(m) for m in board.legal_moves]


def chess_strong(fen: str, rng: random.Random) -> str:
    """Mate in one, else the most valuable capture (cheapest attacker), else uniform (SAN)."""
    import chess

    board = chess.Board(fen)
    moves = list(board.legal_moves)
    best: tuple[float, str] | None = None
    for move in moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return board.san(move)
        victim = board.piece_at(move.to_square)
        if victim is None and board.is_en_passant(move):
            gain = 1.0
        elif victim is not None:
            attacker = board.piece_at(move.from_square)
            gain = PIECE_VALUE[victim.piece_type] - PIECE_VALUE[attacker.piece_type] / 10  # type: ignore[union-attr]
        else:
            continue
        if best is None or gain > best[0]:
            best = (gain, board.san(move))
    if best is not None:
        return best[1]
    return board.san(rng.choice(moves))


def _menu(prompt: str) -> list[str]:
    found = _GBG_MENU.search(prompt)
    if found:
        return [str(a) for a in json.loads(found.group(1))]
    found = _OPENSPIEL_MENU.search(prompt)
    if not found:
        return []
    out: list[str] = []
    for item in found.group(1).split(", "):
        ranged = _RANGE.match(item.strip())
        if ranged:
            out += [f"raise {n}" for n in range(int(ranged.group(1)), int(ranged.group(2)) + 1)]
        else:
            out.append(item.strip())
    return out


class PlantedServer(ScriptedServer):
    """The server (see the module docstring)."""

    name = "planted-server"

    def __init__(
        self,
        models: Iterable[PlantedModel],
        games: Iterable[Any] = (),
        *,
        time_scale: float = 1.0,
        keep_requests: bool = False,
        count_sightings: bool = False,
    ) -> None:
        super().__init__(self.answer)
        self.models = {m.name: m for m in models}
        self.book = GameBook(games)
        self.time_scale = time_scale
        self.accounts = {name: Account() for name in self.models}
        self._buckets: dict[str, tuple[float, float]] = {}  # model -> (tokens, at)
        self._seen: dict[bytes, int] = {}  # request digest -> times received
        self.count_sightings = count_sightings
        self._lock = threading.Lock()
        if not keep_requests:
            self.requests = _Discard()

    # --- the account -----------------------------------------------------------------------

    def stats(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {name: a.as_dict() for name, a in sorted(self.accounts.items())}

    def forget(self) -> None:
        """Forget which requests were seen (a restarted provider): the next attempt of each
        is its first again."""
        with self._lock:
            self._seen.clear()

    def totals(self) -> dict[str, Any]:
        """The accounts summed over the models."""
        out: dict[str, Any] = {}
        for account in self.stats().values():
            for key, value in account.items():
                out[key] = out.get(key, 0) + value
        return out

    # --- answering -------------------------------------------------------------------------

    def answer(self, request: Request) -> Answer:
        if request.method == "GET" and request.path.rstrip("/").endswith("/stats"):
            return Answer(200, json.dumps(self.stats()).encode())
        if request.method == "POST" and request.path.rstrip("/").endswith("/forget"):
            self.forget()
            return Answer(200, b"{}")
        body = request.body if isinstance(request.body, dict) else {}
        model = self.models.get(str(body.get("model")))
        if model is None:
            message = {"error": {"message": f"model {body.get('model')!r} does not exist"}}
            return Answer(404, json.dumps(message).encode())
        messages = body.get("messages") or []
        key = _digest(model.name, messages)
        with self._lock:
            if self.count_sightings:
                retry = str(self._seen.get(key, 0))
                self._seen[key] = int(retry) + 1
            else:
                retry = request.headers.get(RETRY_HEADER, "0")
            account = self.accounts[model.name]
            account.requests += 1
            wait = self._take(model)
            if wait is not None:
                account.rate_limited += 1
                return self._too_many(f"rate limit of {model.name} reached", wait)
            fault = _draw("overload", key.hex(), retry)
            if fault.random() < model.overload_rate:
                account.overloaded += 1
                return self._too_many(
                    f"{model.name} is overloaded", model.overload_retry_after_s * self.time_scale
                )
        content, kind = self.play(model, messages)
        prompt_tokens = sum(
            math.ceil(len(str(m.get("content") or "")) / model.chars_per_token) + MESSAGE_OVERHEAD
            for m in messages
        )
        thought = _draw("reasoning", model.name, messages).randint(
            model.reasoning_tokens // 2, model.reasoning_tokens * 3 // 2
        )
        completion_tokens = math.ceil(len(content) / model.chars_per_token) + thought
        with self._lock:
            account.answered += 1
            account.prompt_tokens += prompt_tokens
            account.completion_tokens += completion_tokens
            account.cost_usd += model.cost(prompt_tokens, completion_tokens)
            if kind == "illegal":
                account.illegal += 1
            elif kind == "strong":
                account.strong += 1
            else:
                account.uniform += 1
        timing = _draw("latency", key.hex(), retry)
        seconds = model.latency_s * math.exp(timing.gauss(0.0, model.latency_sigma))
        seconds += model.per_output_token_s * completion_tokens
        reply = completion(content, prompt_tokens, completion_tokens)
        data = json.loads(reply.body)
        data["model"] = model.name
        if thought:
            data["usage"]["completion_tokens_details"] = {"reasoning_tokens": thought}
        return Answer(200, json.dumps(data).encode(), delay_s=seconds * self.time_scale)

    def _take(self, model: PlantedModel) -> float | None:
        """Take a request from the model's bucket; the wait until one is free if none is."""
        if model.requests_per_minute is None:
            return None
        rate = model.requests_per_minute / 60.0
        now = time.monotonic()
        tokens, at = self._buckets.get(model.name, (model.burst, now))
        tokens = min(model.burst, tokens + (now - at) * rate)
        if tokens < 1.0:
            self._buckets[model.name] = (tokens, now)
            return (1.0 - tokens) / rate
        self._buckets[model.name] = (tokens - 1.0, now)
        return None

    @staticmethod
    def _too_many(message: str, wait: float) -> Answer:
        body = json.dumps({"error": {"message": message, "type": "rate_limit_exceeded"}})
        return Answer(429, body.encode(), headers={"retry-after": f"{max(wait, 0.0):.3f}"})

    def play(self, model: PlantedModel, messages: list[dict[str, Any]]) -> tuple[str, str]:
        """The reply's text and what it was: ``strong``, ``uniform`` or ``illegal``."""
        system = next((str(m.get("content")) for m in messages if m.get("role") == "system"), "")
        prompt = next((str(m.get("content")) for m in messages if m.get("role") == "user"), "")
        rng = _draw("play", model.name, messages)
        if rng.random() < model.illegal_rate:
            if rng.random() < 0.5:
                return rng.choice(PROSE), "illegal"
            return json.dumps({"action": "teleport to the winning position"}), "illegal"
        fen = _FEN.search(prompt)
        legal = chess_moves(fen.group(1)) if fen else _menu(prompt)
        if not legal:
            return rng.choice(PROSE), "illegal"
        if rng.random() < model.skill:
            return json.dumps({"action": self.strong_action(system, prompt, legal, rng)}), "strong"
        return json.dumps({"action": rng.choice(legal)}), "uniform"

    def strong_action(self, system: str, prompt: str, legal: list[str], rng: random.Random) -> str:
        """The strong policy (see the module docstring)."""
        from engines.gbg import GameSpec

        fen = _FEN.search(prompt)
        if fen:
            return chess_strong(fen.group(1), rng)
        spec = self.book.spec(system)
        if _GBG_MENU.search(prompt):
            strength = 0.5
            if isinstance(spec, GameSpec):
                strength = observed_strength(self.book.compiled(spec), prompt, rng)
            return heuristic_choice(legal, strength, rng)
        return rng.choice(legal)


def load_field(path: Path) -> list[PlantedModel]:
    """A field from a JSON list of ``PlantedModel`` fields (unknown keys refused)."""
    known = {f.name for f in fields(PlantedModel)}
    out = []
    for item in json.loads(path.read_text()):
        extra = set(item) - known
        if extra:
            raise ValueError(f"{path}: unknown planted-model field(s) {sorted(extra)}")
        out.append(PlantedModel(**item))
    return out


def load_games(path: Path) -> list[Any]:
    """Game specs from a JSON list of spec objects (generated games) or OpenSpiel tokens."""
    from arena.games import resolve_games
    from engines.gbg import GameSpec

    out: list[Any] = []
    for item in json.loads(path.read_text()):
        if isinstance(item, str):
            out += [g.spec for g in resolve_games([item])]
        else:
            out.append(GameSpec.model_validate(item))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--field", required=True, type=Path, help="JSON list of models")
    parser.add_argument("--games", type=Path, default=None, help="JSON list of game specs")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--time-scale", type=float, default=1.0)
    args = parser.parse_args(argv)
    games = load_games(args.games) if args.games else []
    server = PlantedServer(load_field(args.field), games, time_scale=args.time_scale)
    try:
        asyncio.run(server.serve_forever(args.port))
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = [
    "Account",
    "GameBook",
    "PlantedModel",
    "PlantedServer",
    "heuristic_choice",
    "load_field",
    "observed_strength",
    "planted_field",
    "roster_players",
]
