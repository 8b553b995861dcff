"""``genstrat tournament run`` against endpoints that never answer usefully (issue 43, item 6):
one answering every request ``429`` with ``Retry-After: 600``, and one that hangs.  The run ends
in bounded time with one line naming the player and the cause, and exit status 75 ("fix and
run again").  The roster's limits (``max_retry_after_s``, ``timeout_s``) bound every wait, and
each run is a real ``python -m pipelines.cli`` process under a timeout of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.doubles.scripted_server import Answer, ScriptedServer
from tests.support import REPO_ROOT

CONCURRENCY = 4
RUNS = 10  # one pair on Kuhn: 20 matches


def run(tmp_path: Path, roster: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """The command, which must end by itself: it is killed, and the test fails, after 60 s."""
    path = tmp_path / "roster.yaml"
    path.write_text(roster)
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "tournament", "run", "--roster", str(path),
         "--games", "kuhn", "--runs", str(RUNS), "--out", str(tmp_path / "out"), "--quiet",
         *extra],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def roster(url: str, limits: str, timeout_s: float = 30) -> str:
    return (
        "players:\n  - {name: bot, kind: builtin, agent: random}\n"
        f"  - {{name: llm, kind: openai, model: m, base_url: '{url}', timeout_s: {timeout_s}}}\n"
        f"providers:\n  'openai@{url}': {{concurrency: {CONCURRENCY}, backoff_base_s: 0.01, "
        f"{limits}}}\n"
    )


def test_always_429_with_retry_after_600_stops_the_player_in_one_line(tmp_path: Path) -> None:
    limited = Answer(429, b'{"error": {"message": "rate limited"}}', {"retry-after": "600"})
    with ScriptedServer(lambda request: limited) as server:
        done = run(tmp_path, roster(server.url, "max_retries: 2, max_retry_after_s: 1"))
        requests = len(server.requests)
    assert done.returncode == 75, done.stderr
    assert requests <= 10 + CONCURRENCY  # the breaker's default threshold, and those in flight
    stopped, *rest = done.stderr.splitlines()
    assert stopped.startswith(
        f"genstrat: player 'llm' stopped: unavailable: 10 consecutive failures at "
        f"{server.url}/chat/completions (the last: HTTP 429: rate limited (after 1 attempts; "
        "Retry-After 600 s is past the cap of 1 s (max_retry_after_s)))"
    )
    assert stopped.endswith(
        "matches not played: run the same command again once the endpoint answers"
    )
    assert all(line.startswith("genstrat: ") for line in rest) and len(rest) <= 1


def test_a_hanging_endpoint_stops_the_player_in_one_line(tmp_path: Path) -> None:
    with ScriptedServer(lambda request: Answer(delay_s=3600)) as server:
        limits = "max_retries: 50, max_retry_after_s: 0.5"
        done = run(tmp_path, roster(server.url, limits, timeout_s=0.5))
        requests = len(server.requests)
    assert done.returncode == 75, done.stderr
    assert requests <= 10 + CONCURRENCY
    stopped = done.stderr.splitlines()[0]
    assert stopped.startswith(
        f"genstrat: player 'llm' stopped: unavailable: 10 consecutive connection failures at "
        f"{server.url}/chat/completions (the last: timed out ("
    )


def test_without_a_breaker_each_request_on_a_hanging_endpoint_ends_within_its_bound(
    tmp_path: Path,
) -> None:
    """20 matches, 50 retries allowed per request: each request gives up at its bound of
    2 x 0.5 + 0.5 s, which leaves room for three attempts of 0.5 s, not 51."""
    with ScriptedServer(lambda request: Answer(delay_s=3600)) as server:
        limits = "max_retries: 50, max_retry_after_s: 0.5"
        done = run(tmp_path, roster(server.url, limits, timeout_s=0.5),
                   "--max-connection-failures", "0")  # fmt: skip
        requests = len(server.requests)
    assert done.returncode == 75, done.stderr
    assert 20 <= requests <= 3 * 20  # each match's one request: at most three attempts
    assert "20/20 matches recorded (20 timeout)" in done.stdout
    assert done.stderr == (
        "genstrat: 20 matches recorded as timeout or error; run the same command with "
        "--retry-failed to play them again\n"
    )
