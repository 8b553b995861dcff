"""The Inspect AI task (arena/adapters/inspect_task.py; issue 45, item 3).

A model under Inspect's model API plays the games against the reference field with the paper
protocol; every deal is a sample with its transcript; the score is the leaderboard's anchored
score (``engines.stats.anchored.scales_with_flags``) on the deals played.

- Inspect's ``mockllm`` model plays in process, with scripted outputs; and through the
  documented ``inspect eval --model mockllm/model`` command with its default output, whose usage
  ``mockllm`` counts with tiktoken's ``o200k_base`` encoding: the task puts the file tiktoken
  would download in its cache, and the command runs behind a proxy that refuses every
  connection.
- The local llama.cpp server plays through Inspect's OpenAI-compatible provider, with the
  ``inspect eval`` command (skipped when ``GENSTRAT_LOCAL_LLM_URL`` is unset outside CI, failed
  under CI, as tests/arena/llm/test_local_llm.py).
- The log opens in ``inspect view`` under headless Chromium; the screenshots go to
  ``$GENSTRAT_INSPECT_SHOTS`` (default /tmp/genstrat-issue45).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model

from arena.adapters import inspect_task
from arena.adapters.inspect_task import (
    ENTRANT,
    MATCH_KEY,
    MOVES_KEY,
    O200K_SHA256,
    O200K_URL,
    PlanArgs,
    genstrat,
    plan_of,
    seed_token_encoding,
)
from arena.games import resolve_games
from arena.roster import parse_roster
from arena.tournament.reference_play import field_players
from arena.tournament.runner import run_tournament
from engines.agents.parser import FEEDBACK
from engines.gbg.engine import new_deal
from engines.gbg.generator import GenerationConfig, generate
from engines.gbg.presets import kuhn
from engines.gbg.render import turn_prompt
from engines.gbg.rulebook import rulebook
from engines.stats.anchored import scales_with_flags
from engines.stats.provisional import ProvisionalRules
from engines.stats.reference_field import reference_field
from tests.servers import free_port
from tests.support import REPO_ROOT
from tests.waiting import until

TASK_FILE = REPO_ROOT / "arena" / "adapters" / "inspect_task.py"
URL_ENV = "GENSTRAT_LOCAL_LLM_URL"
SHOTS = Path(os.environ.get("GENSTRAT_INSPECT_SHOTS", "/tmp/genstrat-issue45"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Inspect's retry policy warns on tenacity's current release (not this code's concern)
pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated")

GAMES = "kuhn,12"  # a preset and a generated game (seed 12, default configuration)
FIELD_RUNS = 3
BOOTSTRAP = 200

Policy = Callable[[list[str]], str]


def menu(messages: list[ChatMessage]) -> list[str]:
    """The legal actions the last turn prompt offers."""
    prompts = [m.text for m in messages if m.role == "user" and "Legal actions:" in m.text]
    found = re.search(r"Legal actions: (\[.*\])", prompts[-1])
    assert found is not None
    actions: list[str] = json.loads(found.group(1))
    return actions


def scripted(policy: Policy, calls: list[int] | None = None) -> Model:
    """``mockllm`` answering ``policy(menu)``, with usage given (so no tiktoken)."""

    def reply(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        if calls is not None:
            calls.append(1)
        output = ModelOutput.from_content("mockllm/model", policy(menu(messages)))
        output.usage = ModelUsage(input_tokens=7, output_tokens=3, total_tokens=10)
        return output

    return get_model("mockllm/model", custom_outputs=reply)


def last_legal(actions: list[str]) -> str:
    return json.dumps({"action": actions[-1]})


def run(model: Model, log_dir: Path, **task_args: Any) -> EvalLog:
    args = {"field_runs": FIELD_RUNS, "bootstrap": BOOTSTRAP, **task_args}
    [log] = inspect_eval(genstrat(**args), model=model, display="none", log_dir=str(log_dir))
    return log


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {name: m.value for s in log.results.scores for name, m in s.metrics.items()}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, Path]:
    """Kuhn and seed 12, one run per member, the model answering the last legal action."""
    log_dir = tmp_path_factory.mktemp("inspect_logs")
    log = run(scripted(last_legal), log_dir, games=GAMES, runs=1)
    assert log.status == "success", log.error
    return log, log_dir


def test_every_deal_is_a_sample_with_its_conversation_and_moves(
    played: tuple[EvalLog, Path],
) -> None:
    log, _ = played
    assert log.samples is not None
    field = reference_field("gbg-builtin-v1")
    games = resolve_games(GAMES.split(","))
    # one sample per game, member, run and seat
    assert len(log.samples) == len(games) * len(field.members) * 1 * 2
    specs = {g.token: g.generated for g in games}
    by_run: dict[str, list[dict[str, Any]]] = {}
    for sample in log.samples:
        row = sample.store[MATCH_KEY]
        moves = sample.store[MOVES_KEY]
        assert sample.id == row["match_id"] and row["status"] == "complete"
        assert ENTRANT in (row["alice"], row["bob"])
        assert {row["alice"], row["bob"]} - {ENTRANT} == {sample.metadata["opponent"]}
        by_run.setdefault(row["run_id"], []).append(row)
        # the score: the model's chips, the match row in the metadata
        seat = "alice" if row["alice"] == ENTRANT else "bob"
        score = sample.scores["deal_chips"] if sample.scores else None
        assert score is not None and score.value == row[f"{seat}_chip_delta"]
        assert score.metadata is not None and score.metadata["match"] == row
        # the conversation: the rulebook, then each turn prompt and the model's answer
        spec = specs[row["game"]]
        assert sample.messages[0].role == "system"
        assert sample.messages[0].text == rulebook(spec)
        mine = [m for m in moves if m["player"] == ENTRANT]
        assert [m.role for m in sample.messages[1:]] == ["user", "assistant"] * len(mine)
        for move, asked, answered in zip(
            mine, sample.messages[1::2], sample.messages[2::2], strict=True
        ):
            assert json.loads(answered.text) == {"action": move["legal_actions"][-1]}
            assert move["action"] == move["legal_actions"][-1] and not move["fallback"]
            assert (move["calls"], move["input_tokens"], move["output_tokens"]) == (1, 7, 3)
            assert "Legal actions:" in asked.text
        # the transcript: one event per move and one for the result
        infos = [e for e in sample.events if e.event == "info" and e.source == "genstrat"]
        assert len(infos) == len(moves) + 1
        assert all(
            f"plays `{m['action']}`" in str(e.data) for m, e in zip(moves, infos[:-1], strict=True)
        )
        model_calls = [e for e in sample.events if e.event == "model"]
        assert len(model_calls) == len(mine)
    # a run is two deals of one play seed, the model in each seat once
    for rows in by_run.values():
        assert len(rows) == 2 and len({r["play_seed"] for r in rows}) == 1
        assert sorted(r["alice"] == ENTRANT for r in rows) == [False, True]


def test_the_first_turn_prompt_is_the_projects(played: tuple[EvalLog, Path]) -> None:
    log, _ = played
    assert log.samples is not None
    sample = next(
        s for s in log.samples if s.metadata["seat"] == "alice" and s.metadata["game"] == "kuhn"
    )
    deal = new_deal(kuhn(), sample.metadata["play_seed"])
    assert deal.current_player == 0  # Alice opens a deal of Kuhn poker
    assert sample.messages[1].text == turn_prompt(deal, 0)


def test_the_score_is_the_leaderboards_anchored_score(
    played: tuple[EvalLog, Path], tmp_path: Path
) -> None:
    """The metric equals ``scales_with_flags`` on the deals of the log and the field's runs
    played by the tournament runner, as the release's ``anchored_scales`` table is made."""
    log, _ = played
    assert log.samples is not None
    field = reference_field("gbg-builtin-v1")
    roster = parse_roster({"players": field_players(field)})
    summary = run_tournament(roster, resolve_games(GAMES.split(",")), FIELD_RUNS, tmp_path)
    field_matches = pd.read_parquet(summary.matches_path)
    # the task's field runs are the tournament's, match for match
    plan = plan_of(
        PlanArgs(
            games=tuple(GAMES.split(",")),
            release=None,
            config=None,
            field=field.key,
            runs=1,
            field_runs=FIELD_RUNS,
            protocol="paper",
            rethinks=1,
            rulebook_style="compact",
        ).key()
    )
    ours = plan.field_matches.set_index("match_id")["margin_alice"].sort_index()
    theirs = field_matches.set_index("match_id")["margin_alice"].sort_index()
    assert ours.to_dict() == theirs.to_dict()
    rows = pd.DataFrame([s.store[MATCH_KEY] for s in log.samples])
    table, note = scales_with_flags(
        pd.concat([field_matches, rows], ignore_index=True),
        field,
        np.random.default_rng(0),
        BOOTSTRAP,
        ProvisionalRules(min_pairs=10),
    )
    assert note == ""
    entrant = table[table["model"] == ENTRANT].iloc[0]
    got = metrics(log)
    for name in ("score", "score_low", "score_high", "rating", "rating_low", "rating_high"):
        assert got[name] == pytest.approx(float(entrant[name]), rel=1e-12), name
    for name in ("elo", "elo_low", "elo_high"):
        assert got[name] == pytest.approx(float(entrant[name]), rel=1e-12), name
    assert got["complete_pairs"] == entrant["complete_pairs"] == 6  # 2 games x 3 members x 1
    assert got["ranked"] == 0.0 and entrant["status"] == "provisional"  # fewer than 10 runs
    assert got["mean"] == pytest.approx(
        np.mean([s.scores["deal_chips"].value for s in log.samples if s.scores])
    )
    assert got["fallback_rate"] == 0.0


def test_the_paper_protocol_asks_once_and_plays_the_fallback(tmp_path: Path) -> None:
    calls: list[int] = []
    log = run(scripted(lambda _: "I would rather not say.", calls), tmp_path, games="kuhn", runs=1)
    assert log.status == "success", log.error
    assert log.samples is not None
    moves = [m for s in log.samples for m in s.store[MOVES_KEY] if m["player"] == ENTRANT]
    assert len(calls) == len(moves) > 0  # one answer per move, no rethink
    for move in moves:
        assert move["fallback"] and move["verdict"] == "unparsable" and move["rethinks"] == 0
        # the paper's fallback on a wager: the smallest commitment that stays in the deal
        assert move["action"] == ("check" if "check" in move["legal_actions"] else "call")
    assert metrics(log)["fallback_rate"] == 1.0


def test_the_arena_protocol_rethinks_with_the_feedback_first(tmp_path: Path) -> None:
    calls: list[int] = []
    log = run(
        scripted(lambda _: "no idea", calls), tmp_path, games="kuhn", runs=1, protocol="arena"
    )
    assert log.status == "success", log.error
    assert log.samples is not None
    moves = [m for s in log.samples for m in s.store[MOVES_KEY] if m["player"] == ENTRANT]
    assert len(calls) == 2 * len(moves)
    assert all(m["rethinks"] == 1 and m["calls"] == 2 and m["fallback"] for m in moves)
    feedback = [m.text for s in log.samples for m in s.messages if m.role == "user"]
    assert FEEDBACK["unparsable"] in feedback


def test_a_failed_model_call_is_an_error_of_the_sample(tmp_path: Path) -> None:
    def down(*_: Any) -> ModelOutput:
        raise RuntimeError("the model is down")

    model = get_model("mockllm/model", custom_outputs=down)
    log = run(model, tmp_path, games="kuhn", runs=1)
    assert log.status == "error"
    assert log.error is not None and "the model is down" in log.error.message


def write_release(folder: Path, games: dict[str, str]) -> Path:
    (folder / "tables").mkdir(parents=True)
    frame = pd.DataFrame({"game": list(games), "spec_json": list(games.values())})
    frame.to_parquet(folder / "tables" / "benchmark_games.parquet")
    return folder


def test_a_release_plays_its_benchmark_games_as_it_carries_them(tmp_path: Path) -> None:
    carried = generate(7, GenerationConfig(complexity=3.0))  # not seed 7 of the default config
    release = write_release(tmp_path / "release", {"7": carried.canonical_json()})
    task = genstrat(release=str(release), field_runs=1)
    hashes = {s.metadata["spec_hash"] for s in task.dataset if s.metadata}
    assert hashes == {carried.spec_hash}
    assert len(task.dataset) == 3 * 2 * 2  # members x runs (default 2) x seats
    with pytest.raises(ValueError, match="game '8' is not in the release at"):
        genstrat(release=str(release), games="8")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"games": "nosuchgame"}, "nosuchgame"),
        ({"games": "openspiel:kuhn_poker"}, "is an OpenSpiel game"),
        ({"field": "nope-v1"}, "unknown reference field 'nope-v1'"),
        ({"runs": 0}, "runs must be at least 1"),
        ({"protocol": "loose"}, "unknown protocol 'loose'"),
        ({"rulebook_style": "verbose"}, "unknown rulebook style 'verbose'"),
        ({"games": "kuhn,kuhn"}, "the same game"),
    ],
)
def test_bad_input_is_refused_in_one_line(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        genstrat(**args)
    assert "\n" not in str(caught.value)


def test_the_core_never_imports_inspect() -> None:
    """Inspect is an optional extra: the CLI, the code location, the harness and the other
    adapters load none of it."""
    probe = (
        "import sys, pipelines.cli, pipelines.definitions, arena.games, arena.reference_engines\n"
        "import arena.adapters.common, arena.adapters.gymnasium_env\n"
        "print([m for m in sys.modules if m.startswith('inspect_ai')])"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_docs_run_the_task_in_a_snippet() -> None:
    """docs/ADAPTERS.md shows the task in a Python block, which test_docs_snippets runs."""
    page = (REPO_ROOT / "docs" / "ADAPTERS.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```\s*```text\n", page, flags=re.DOTALL)
    assert any("arena.adapters.inspect_task" in block for block in blocks)


# --- tiktoken's o200k_base for mockllm, offline -------------------------------------------------


def cache_name() -> str:
    return hashlib.sha1(O200K_URL.encode()).hexdigest()


def test_the_encoding_is_seeded_where_tiktoken_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file lands in ``TIKTOKEN_CACHE_DIR`` under tiktoken's name, and tiktoken's own loader
    reads it from there, checking the hash, with every connection refused."""
    from tiktoken.load import load_tiktoken_bpe

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{free_port()}")
    path = seed_token_encoding()
    assert path == tmp_path / "cache" / cache_name()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == O200K_SHA256
    ranks = load_tiktoken_bpe(O200K_URL, expected_hash=O200K_SHA256)
    assert len(ranks) == 199998  # o200k_base's mergeable ranks (special tokens apart)


def test_the_default_cache_is_the_temporary_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path))
    assert seed_token_encoding() == tmp_path / "data-gym-cache" / cache_name()


def test_a_switched_off_cache_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    assert seed_token_encoding() is None
    assert list(tmp_path.iterdir()) == []


def test_a_cached_file_is_not_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    (tmp_path / cache_name()).write_bytes(b"already here")
    assert seed_token_encoding() == tmp_path / cache_name()
    assert (tmp_path / cache_name()).read_bytes() == b"already here"


def test_a_packaged_file_of_another_hash_is_not_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other.tiktoken"
    other.write_bytes(b"not o200k_base")
    monkeypatch.setattr(inspect_task, "packaged_token_encoding", lambda: other)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    assert seed_token_encoding() is None
    assert not (tmp_path / "cache").exists()


def documented_mockllm_command() -> list[str]:
    """The ``inspect eval ... --model mockllm/model`` line of docs/ADAPTERS.md, as words."""
    page = (REPO_ROOT / "docs" / "ADAPTERS.md").read_text()
    [block] = [b for b in re.findall(r"```sh\n(.*?)```", page, re.DOTALL) if "mockllm" in b]
    [line] = [ln for ln in block.splitlines() if ln.startswith("inspect eval") and "mockllm" in ln]
    return shlex.split(line)


@pytest.mark.slow
def test_the_documented_mockllm_command_runs_offline_and_its_log_opens(tmp_path: Path) -> None:
    """The docs' ``mockllm`` command, word for word (from the checkout, as the docs run it),
    with an empty tiktoken cache and every connection refused by the proxy; its log opens in
    ``inspect view`` under headless Chromium (screenshot ``inspect-view-mockllm.png``)."""
    from tests.e2e.chromium import browser

    words = documented_mockllm_command()
    assert words[:2] == ["inspect", "eval"] and "mockllm/model" in words
    cache = tmp_path / "tiktoken"
    refused = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    env = {
        **os.environ,
        "TIKTOKEN_CACHE_DIR": str(cache),
        **{name: refused for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")},
        "NO_PROXY": "",
        "no_proxy": "",
    }
    inspect = str(Path(sys.executable).with_name("inspect"))
    log_dir = tmp_path / "logs"
    command = [inspect, *words[1:], "--log-dir", str(log_dir), "--display", "plain"]
    result = subprocess.run(
        command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    [path] = sorted(log_dir.glob("*.eval"))
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    assert log.eval.model == "mockllm/model"
    assert log.samples is not None and len(log.samples) == 3 * 2  # three members, one run each
    moves = [m for s in log.samples for m in s.store[MOVES_KEY] if m["player"] == ENTRANT]
    assert moves and all(m["fallback"] for m in moves)  # the default reply names no action
    assert all(m["input_tokens"] > 0 for m in moves)  # counted with o200k_base
    assert [p.name for p in cache.iterdir()] == [cache_name()]
    assert metrics(log)["complete_pairs"] == 3
    if CHROMIUM is None:
        raise AssertionError("chromium is not installed: run 'make browser' (it installs it)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    text = "document.body.innerText"
    with (
        inspect_view(log_dir, tmp_path) as url,
        browser(CHROMIUM, tmp_path / "chromium", (1600, 1000)) as page,
    ):
        page.goto(f"{url}/#/logs/{path.name}")
        page.wait_for(f"{text}.includes('genstrat') && {text}.includes('mockllm/model')", "task")
        page.wait_for(f"{text}.includes('SCORE_LOW') || {text}.includes('score_low')", "scores")
        page.screenshot(SHOTS / "inspect-view-mockllm.png")
    assert (SHOTS / "inspect-view-mockllm.png").stat().st_size > 10_000


# --- inspect eval with the local model -----------------------------------------------------------


@pytest.fixture(scope="module")
def local_llm_url() -> str:
    url = os.environ.get(URL_ENV)
    if url:
        return url
    if os.environ.get("CI") == "true":
        pytest.fail(f"{URL_ENV} is not set under CI: the Makefile must start the local LLM server")
    pytest.skip(f"no local LLM server ({URL_ENV} unset); `make pytest` starts one")


@pytest.mark.slow
def test_inspect_eval_plays_the_local_model_offline(local_llm_url: str, tmp_path: Path) -> None:
    """``inspect eval`` on the task file, the local model through ``openai-api``; the usage is
    the server's, and nothing is fetched for tiktoken (its cache holds only the seeded file)."""
    tiktoken_cache = tmp_path / "tiktoken"
    tiktoken_cache.mkdir()
    env = {
        **os.environ,
        "LOCAL_BASE_URL": local_llm_url,
        "LOCAL_API_KEY": "local",  # llama.cpp's server takes any key
        "TIKTOKEN_CACHE_DIR": str(tiktoken_cache),
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": str(REPO_ROOT),  # the checkout's code, from the test's folder
    }
    inspect = str(Path(sys.executable).with_name("inspect"))
    # fmt: off
    command = [
        inspect, "eval", f"{TASK_FILE}@genstrat", "--model", "openai-api/local/smollm2",
        "-T", "games=kuhn", "-T", "runs=1", "-T", f"field_runs={FIELD_RUNS}",
        "-T", f"bootstrap={BOOTSTRAP}",
        "--temperature", "0", "--max-tokens", "24", "--seed", "0", "--max-connections", "1",
        "--log-dir", str(tmp_path / "logs"), "--display", "plain",
    ]
    # fmt: on
    result = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    [path] = sorted((tmp_path / "logs").glob("*.eval"))
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    assert log.eval.model == "openai-api/local/smollm2"
    assert log.samples is not None and len(log.samples) == 3 * 2
    moves = [m for s in log.samples for m in s.store[MOVES_KEY] if m["player"] == ENTRANT]
    assert moves and all(m["calls"] == 1 and m["rethinks"] == 0 for m in moves)
    assert all(m["input_tokens"] > 0 for m in moves)  # the server's usage, not tiktoken's
    assert all(m["action"] in m["legal_actions"] for m in moves)
    got = metrics(log)
    assert 0.0 <= got["score"] <= 100.0 and 0.0 <= got["fallback_rate"] <= 1.0
    assert got["complete_pairs"] == 3
    assert [p.name for p in tiktoken_cache.iterdir()] == [
        hashlib.sha1(O200K_URL.encode()).hexdigest()
    ]
    print(f"local model: {len(moves)} moves, fallback rate {got['fallback_rate']:.2f}, "
          f"score {got['score']:.1f}")  # fmt: skip


# --- inspect view ----------------------------------------------------------------------------


@contextlib.contextmanager
def inspect_view(log_dir: Path, tmp_path: Path) -> Iterator[str]:
    """``inspect view`` on ``log_dir``, on 127.0.0.1 and a free port; its URL."""
    port = free_port()
    inspect = str(Path(sys.executable).with_name("inspect"))
    command = [inspect, "view", "start", "--log-dir", str(log_dir)]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    log = (tmp_path / "view.log").open("w")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path)
    url = f"http://127.0.0.1:{port}"

    def serving() -> bool:
        if process.poll() is not None:
            raise AssertionError("inspect view ended")
        try:
            with urllib.request.urlopen(f"{url}/", timeout=5) as reply:
                return bool(reply.status == 200)
        except OSError:
            return False

    def view_log() -> str:
        return (tmp_path / "view.log").read_text()[-2000:]

    try:
        try:
            until(serving, "inspect view answering", interval_s=0.2)
        except AssertionError as exc:
            raise AssertionError(f"{exc}: {view_log()}") from None
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture
def viewer(played: tuple[EvalLog, Path], tmp_path: Path) -> Iterator[str]:
    """``inspect view`` on the played log's folder; its URL."""
    with inspect_view(played[1], tmp_path) as url:
        yield url


@pytest.mark.slow
def test_the_log_opens_in_inspect_view(
    played: tuple[EvalLog, Path], viewer: str, tmp_path: Path
) -> None:
    from tests.e2e.chromium import browser

    if CHROMIUM is None:
        raise AssertionError("chromium is not installed: run 'make browser' (it installs it)")
    log, log_dir = played
    assert log.samples is not None
    [path] = sorted(log_dir.glob("*.eval"))
    sample = next(s for s in log.samples if s.metadata["game"] == "kuhn")
    SHOTS.mkdir(parents=True, exist_ok=True)
    text = "document.body.innerText"
    with browser(CHROMIUM, tmp_path / "chromium", (1600, 1000)) as page:
        page.goto(f"{viewer}/#/logs/{path.name}")
        page.wait_for(f"{text}.includes('genstrat') && {text}.includes('mockllm/model')", "task")
        page.wait_for(f"{text}.includes({json.dumps(str(sample.input))})", "a sample's input")
        page.wait_for(f"{text}.includes('SCORE_LOW') || {text}.includes('score_low')", "scores")
        page.screenshot(SHOTS / "inspect-view-log.png")
        page.goto(f"{viewer}/#/logs/{path.name}/samples/sample/{sample.id}/1/")
        page.wait_for(f"{text}.includes('Rulebook: kuhn')", "the sample's rulebook")
        page.wait_for(f"{text}.includes(' plays ')", "the moves of the deal")
        page.screenshot(SHOTS / "inspect-view-sample.png")
    assert (SHOTS / "inspect-view-log.png").stat().st_size > 10_000
