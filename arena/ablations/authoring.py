"""Strategy programs written by models (paper, Section 8; GameBench 2, Section 2).

A model receives one prompt: the game's rulebook, the programming interface
``act(observation, legal_actions, rng) -> action`` with an example observation, and the
constraints of the sandbox.  It answers with one Python file.  Steps of ``author_program``:

1. ask the model (through ``LLMPlayer.ask``: the same HTTP clients, retries and response cache
   as the tournament, so a rerun costs no call);
2. extract the code from the reply (the longest fenced block defining ``act``, else the whole
   reply if it defines ``act``);
3. run admission (``arena.programs.sandbox.admit``: it loads, plays legal moves on a short test,
   median move at most 100 ms);
4. if extraction or admission fails, ONE repair turn: the reply and the errors are appended to
   the conversation and the model answers again; its program is extracted and admitted.

Every attempt is recorded (prompt hash, raw reply, extracted code hash, admission verdict and
reason).  A failure is a legitimate outcome, not an error of the harness: writing a working
program is part of the task.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arena.llm.player import LLMPlayer
from arena.llm.providers import Message
from arena.programs.sandbox import Admission, admit, program_observation
from engines.agents.base import MoveFailed, PlayerStopped
from engines.gbg import rulebook
from engines.gbg.engine import new_deal
from engines.gbg.spec import GameSpec

INTERFACE = """\
## Your task: write a strategy program for this game

Write ONE Python file that defines

    def act(observation: dict, legal_actions: list, rng) -> str

It is called at every decision of your seat (you may be either player) and must return one of
the strings in `legal_actions`.  `observation` is what the seat has seen, for example:

{example}

Constraints (the program runs in a sandbox and is rejected otherwise):
- deterministic given its inputs; draw chance only from `rng` (a `random.Random`);
- no clocks, threads, processes, network, file writes or native code; no state kept between
  calls (each call starts fresh);
- standard library only; a median move of at most 100 ms.

Reply with the whole file in one ```python fenced block.
"""

REPAIR = """\
Your program was rejected: {errors}

Fix it and reply with the whole corrected file in one ```python fenced block.
"""

_FENCE = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Attempt:
    """One attempt at a program (``attempt`` 0 is the first answer, 1 the repair)."""

    author: str
    model: str
    game: str
    spec_hash: str
    attempt: int
    prompt_sha256: str
    raw_reply: str
    code_sha256: str | None
    admitted: bool
    reason: str
    median_move_ms: float | None
    path: str | None

    def record(self) -> dict[str, Any]:
        return asdict(self)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def program_prompt(spec: GameSpec) -> tuple[str, str]:
    """(system, user): the rulebook as the system prompt, the interface as the request."""
    state = new_deal(spec, 0)
    example = json.dumps(program_observation(state, state.current_player), ensure_ascii=False)
    return rulebook(spec), INTERFACE.format(example=example)


def extract_code(reply: str) -> str | None:
    """The program in a reply: the longest fenced block defining ``act``, else the reply itself
    when it defines ``act``, else None."""
    blocks = [b for b in _FENCE.findall(reply) if "def act" in b]
    if blocks:
        return str(max(blocks, key=len)).strip() + "\n"
    if "def act" in reply and "```" not in reply:
        return reply.strip() + "\n"
    return None


async def author_program(
    author: LLMPlayer,
    spec: GameSpec,
    game: str,
    folder: Path,
    *,
    repairs: int = 1,
    admission_seed: int = 0,
) -> list[Attempt]:
    """Ask ``author`` for a program for ``spec`` (see the module steps); every attempt, in order.

    The last attempt is admitted or the author failed.  Programs are written to ``folder`` named
    by their code hash.  A stopped player or exhausted retries end the authoring with a failed
    attempt naming the reason.
    """
    if repairs < 0:
        raise ValueError(f"repairs must be 0 or more, got {repairs}")
    folder.mkdir(parents=True, exist_ok=True)
    system, request = program_prompt(spec)
    messages: list[Message] = [{"role": "user", "content": request}]
    attempts: list[Attempt] = []
    for attempt in range(repairs + 1):
        prompt_hash = sha256_text(json.dumps([system, messages], ensure_ascii=False))
        call_id = f"author/{author.name}/{spec.spec_hash}/{attempt}"
        try:
            reply, _, _, _ = await author.ask(system, messages, (), call_id)
        except (PlayerStopped, MoveFailed) as exc:
            attempts.append(
                Attempt(author.name, author.model, game, spec.spec_hash, attempt, prompt_hash,
                        "", None, False, f"no reply: {exc}", None, None)
            )  # fmt: skip
            break
        text = reply.text or ""
        code = extract_code(text)
        path: Path | None = None
        verdict: Admission
        if code is None:
            verdict = Admission(False, "no Python code defining act() in the reply", None, 0)
        else:
            path = folder / f"{sha256_text(code)[:16]}.py"
            path.write_text(code, encoding="utf-8")
            verdict = admit(path, spec, seed=admission_seed)
        attempts.append(
            Attempt(
                author.name, author.model, game, spec.spec_hash, attempt, prompt_hash, text,
                sha256_text(code) if code is not None else None, verdict.admitted,
                verdict.reason, verdict.median_move_ms, str(path) if path else None,
            )
        )  # fmt: skip
        if verdict.admitted:
            break
        messages = [
            *messages,
            {"role": "assistant", "content": text or "(empty reply)"},
            {"role": "user", "content": REPAIR.format(errors=verdict.reason)},
        ]
    return attempts
