"""What the sandbox contains, attack by attack (``arena.programs.sandbox``, module docstring).

Each hostile program in ``programs/`` is refused or forfeits with a reason, and the host goes
on; the OS layer alone (namespaces, mounts, seccomp, limits: no audit hook) is tested with a
probe script; no process and no scratch folder outlives a host killed with SIGKILL; nothing a
program returns or raises carries a secret; and a machine without a working bwrap refuses to
run programs with one line naming the cause and the fix.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.programs import sandbox
from arena.programs.sandbox import Limits, Outcome, Program, SandboxUnavailable
from arena.secrets import scrub
from engines.gbg import presets
from tests.waiting import FAIL_SAFE_S, until

PROGRAMS = Path(__file__).with_name("programs")
ROOT = Path(__file__).resolve().parents[3]
OBS: dict[str, object] = {"hand": ["K♠"], "board": []}
LEGAL = ["check", "bet 1"]
CANARY = "genstrat-canary-0c9f1e7d2b5a4c38"


def one_move(
    name: str | Path,
    limits: Limits | None = None,
    observation: dict[str, object] = OBS,
    secrets: tuple[str, ...] = (),
) -> Outcome:
    with Program(PROGRAMS / name, limits, secrets) as program:
        return program.act(observation, LEGAL, seed=1)


def _alive(pid: int, marker: str) -> bool:
    """Whether ``pid`` is a live process (not a zombie) whose command line holds ``marker``."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        command = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z" and marker in command


def _marked(tmp_path: Path, name: str) -> tuple[Path, str]:
    """A copy of program ``name`` with a marker of its own (a last comment line)."""
    marker = f"genstrat-test-{uuid.uuid4().hex}"
    path = tmp_path / name
    path.write_text((PROGRAMS / name).read_text() + f"# {marker}\n")
    return path, marker


def _sandboxed(marker: str) -> list[int]:
    """The live processes (not zombies) whose sandbox holds the program marked ``marker``: any
    process, whatever its parent or command line, whose ``/sandbox/program.py`` has it."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            source = Path(f"/proc/{entry}/root/sandbox/program.py").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in source and state != "Z":
            found.append(int(entry))
    return found


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _cpu(pids: list[int]) -> float:
    """CPU seconds of ``pids``, with the children each has waited for."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / os.sysconf("SC_CLK_TCK")


def _held(pids: list[int]) -> int:
    """Bytes of memory the processes ``pids`` hold: resident pages, the pages of every memfd
    they have open (in memory whether mapped or not), and their scratch tmpfs (once each)."""
    total, files, scratch = 0, set(), set()
    for pid in pids:
        with contextlib.suppress(OSError, StopIteration):
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
            total += 1024 * int(next(x for x in status if x.startswith("VmRSS")).split()[1])
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("/memfd:"):
                        info = os.stat(f"/proc/{pid}/fd/{fd}")
                        if (info.st_dev, info.st_ino) not in files:
                            files.add((info.st_dev, info.st_ino))
                            total += 512 * info.st_blocks
            root = os.stat(f"/proc/{pid}/root{sandbox.SCRATCH}")
            if root.st_dev not in scratch:
                scratch.add(root.st_dev)
                usage = os.statvfs(f"/proc/{pid}/root{sandbox.SCRATCH}")
                total += (usage.f_blocks - usage.f_bfree) * usage.f_frsize
    return total


@pytest.mark.parametrize(
    ("name", "status", "reason"),
    [
        # the hook's state is out of reach; its refusal stands (and the OS would refuse too)
        ("clears_globals.py", "crash", "subprocess.Popen is not allowed"),
        ("moves_files.py", "crash", "escaped: none"),
        ("kills_parent.py", "crash", "os.killpg is not allowed"),
        ("threads.py", "crash", "can't start new thread"),  # seccomp: no clone
        ("huge_reply.py", "crash", "sent a reply longer than 65536 bytes"),
        ("injects.py", "crash", "sent a reply to another request (an injected or stale line)"),
        ("nested_line.py", "crash", "sent garbage"),
        ("partial_line.py", "timeout", "no answer within 1 s"),
    ],
)
def test_hostile_programs_are_refused_or_forfeit_with_a_reason(
    name: str, status: str, reason: str
) -> None:
    outcome = one_move(name, Limits(move_seconds=1.0))
    assert outcome.status == status, outcome.reason
    assert reason in outcome.reason


def test_a_deeply_nested_reply_is_a_forfeit_not_an_error_of_the_host() -> None:
    # JSON parsing or repr in the host hits the recursion limit first, depending on the depth of
    # the host's own stack: either way a forfeit with a reason
    outcome = one_move("nested_action.py")
    assert outcome.status in {"illegal", "crash"} and outcome.reason
    nested: list[object] = []
    for _ in range(100_000):
        nested = [nested]
    assert sandbox._shown(nested) == "a value nested too deeply to show"


def test_the_program_sees_no_other_process_and_no_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GENSTRAT_CANARY", CANARY)  # not a secret-looking name: no redaction
    outcome = one_move("reads_environ.py")
    assert outcome.status == "crash"
    assert outcome.reason == (  # no /proc at all; its own environment is bwrap's and Python's
        "RuntimeError: saw ['FileNotFoundError']: {}; "
        "own {'PYTHONHASHSEED': '0', 'PWD': '/scratch', 'LC_CTYPE': 'C.UTF-8'}"
    )


def test_files_outside_the_scratch_folder_are_untouched() -> None:
    path = PROGRAMS / "moves_files.py"
    before = (path.read_bytes(), path.stat().st_mode, sorted(os.listdir(PROGRAMS)))
    assert one_move("moves_files.py").reason == "RuntimeError: escaped: none"
    assert (path.read_bytes(), path.stat().st_mode, sorted(os.listdir(PROGRAMS))) == before


Accepted = Callable[[], list[bytes]]


@pytest.fixture
def listener() -> Iterator[tuple[int, Accepted]]:
    """A TCP listener on a free loopback port, and a function that takes every connection
    waiting in its queue and returns what each sent.  The kernel completes a loopback
    connection inside the connecting process's ``connect``, so once that process has ended,
    any connection it made is in the queue: nothing is waited for."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)

        def accepted() -> list[bytes]:
            got: list[bytes] = []
            while True:
                try:
                    conn, _ = server.accept()
                except BlockingIOError:
                    return got
                with conn:
                    conn.setblocking(False)
                    try:
                        got.append(conn.recv(100) or b"(connected)")
                    except BlockingIOError:
                        got.append(b"(connected)")

        yield server.getsockname()[1], accepted


def test_no_connection_reaches_the_host_loopback(listener: tuple[int, Accepted]) -> None:
    port, accepted = listener
    outcome = one_move("loopback.py", observation={**OBS, "port": port})
    assert outcome.status == "crash" and "not allowed" in outcome.reason
    assert accepted() == []  # the move's process has ended: nothing it connected is pending
    with socket.create_connection(("127.0.0.1", port)) as own:  # what an escape would leave
        own.sendall(b"escaped")
    assert accepted() == [b"escaped"]


def test_a_600_mib_print_stays_in_the_sandbox(capfd: pytest.CaptureFixture[str]) -> None:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    assert one_move("huge_print.py").status == "ok"
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 64 * 1024
    out, err = capfd.readouterr()
    assert "xxxx" not in out and "xxxx" not in err


def test_after_an_injected_line_the_next_move_is_answered_by_a_fresh_process() -> None:
    with Program(PROGRAMS / "injects.py") as program:
        first = program.act(OBS, LEGAL, seed=1)
        pid = program.pid
        second = program.act(OBS, LEGAL, seed=2)
        assert program.pid != pid
    assert first.status == second.status == "crash"


def test_the_host_survives_signals_and_a_sandbox_closes_without_trace() -> None:
    with Program(PROGRAMS / "kills_parent.py") as program:
        assert program.start() is None
        scratch, pid = program.scratch, program.pid
        assert scratch is not None and os.path.isdir(scratch)  # the tmpfs, seen from the host
        outcome = program.act(OBS, LEGAL, seed=1)
    assert outcome.status == "crash" and pid is not None
    assert not _alive(pid, "/sandbox/child.py") and not os.path.exists(scratch)


def test_a_sandbox_started_by_a_thread_that_has_ended_goes_on() -> None:
    """``--die-with-parent`` follows the thread that started bwrap: the sandbox is started from
    a long-lived launcher thread, so a worker thread's end does not kill it."""
    with Program(PROGRAMS / "good.py") as program:
        worker = threading.Thread(target=program.start)
        worker.start()
        worker.join()
        # the kernel sends a thread's parent-death signals as the thread exits, before its
        # task leaves /proc: once it has, a sandbox tied to it would have been signalled
        task = Path(f"/proc/self/task/{worker.native_id}")
        until(lambda: not task.exists(), "the worker thread's exit")
        pid = program.pid
        outcome = program.act(OBS, LEGAL, seed=1)
        assert program.proc is not None and program.proc.poll() is None  # bwrap lives on
        assert program.pid == pid  # the same sandbox answered, not a restarted one
    assert (outcome.status, outcome.action) == ("ok", "check")


def test_the_smallest_limits_still_run_a_program() -> None:
    smallest = Limits(cpu_seconds=1, memory_mb=64, file_mb=1, scratch_mb=1, open_files=16)
    assert one_move("scratch_writer.py", smallest).status == "ok"
    with pytest.raises(ValueError, match=r"Limits\.open_files must be at least 16, not 3"):
        Limits(open_files=3)
    with pytest.raises(ValueError, match=r"Limits\.move_seconds must be positive"):
        Limits(move_seconds=0)


# --- secrets ---------------------------------------------------------------------------------


def test_scrub_redacts_known_secrets_and_credential_shapes() -> None:
    text = (
        f"RuntimeError: {CANARY} sk-proj-abcdefghijklmnop1234 OPENAI_API_KEY=hunter2hunter2 "
        "\nnext line " + "y" * 1000
    )
    clean = scrub(text, (CANARY,))
    assert CANARY not in clean and "abcdefghijklmnop1234" not in clean and "hunter2" not in clean
    assert clean.startswith("RuntimeError: [redacted] [redacted] OPENAI_API_KEY=[redacted] next")
    assert len(clean) <= sandbox.MAX_REASON_CHARS and "\n" not in clean


def test_what_a_program_raises_or_returns_is_redacted(tmp_path: Path) -> None:
    raises = tmp_path / "raises_key.py"
    raises.write_text(
        f"def act(observation, legal_actions, rng):\n    raise RuntimeError('{CANARY}' * 400)\n"
    )
    returns = tmp_path / "returns_key.py"
    returns.write_text(f"def act(observation, legal_actions, rng):\n    return '{CANARY}'\n")
    for path, status in ((raises, "crash"), (returns, "illegal")):
        outcome = one_move(path, secrets=(CANARY,))
        assert outcome.status == status and CANARY not in outcome.reason
        assert "[redacted]" in outcome.reason and len(outcome.reason) <= sandbox.MAX_REASON_CHARS


def test_secret_looking_environment_variables_are_redacted_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", CANARY)
    path = tmp_path / "raises_key.py"
    path.write_text(
        f"def act(observation, legal_actions, rng):\n    raise ValueError('{CANARY}')\n"
    )
    assert one_move(path).reason == "ValueError: [redacted]"


# --- the OS layer alone ----------------------------------------------------------------------

PROBE = r"""
import ctypes, json, os, socket, sys, threading
sys.path.insert(0, "/sandbox")
from child import apply_limits, filter_installer

apply_limits(json.loads(sys.argv[1]))
port, host_paths = int(sys.argv[2]), json.loads(sys.argv[3])
libc = ctypes.CDLL(None, use_errno=True)
results = {}


def attempt(name, action):
    try:
        results[name] = f"done: {action()!r}"[:300]
    except BaseException as exc:
        results[name] = f"refused: {type(exc).__name__}: {exc}"[:300]


def native(name, *args):
    result = getattr(libc, name)(*args)
    if result == -1:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def fill_scratch():
    written = 0
    for n in range(64):
        with open(f"/scratch/fill{n}", "wb") as handle:
            for _ in range(8):
                handle.write(b"x" * (1 << 20))
                handle.flush()
                written += 1
    return written


def written_mib():
    return sum(os.path.getsize(f"/scratch/{f}") for f in os.listdir("/scratch")) >> 20


def refused_to_every_process(stage):
    attempt(f"{stage}: memfd", lambda: os.memfd_create("hold"))
    attempt(f"{stage}: /proc/self/mem", lambda: os.open("/proc/self/mem", os.O_RDWR))
    attempt(f"{stage}: parent-death signal", lambda: native("prctl", 1, 0, 0, 0, 0))
    attempt(f"{stage}: process_vm_writev",
            lambda: native("process_vm_writev", os.getpid(), None, 0, None, 0, 0))
    attempt(f"{stage}: shmget", lambda: native("shmget", 0, 1 << 20, 0o1600))
    attempt(f"{stage}: msgget", lambda: native("msgget", 0, 0o1600))
    attempt(f"{stage}: thread", lambda: threading.Thread(target=print).start())
    attempt(f"{stage}: unix socket", lambda: socket.socket(socket.AF_UNIX))


# the sandbox's first process: it may fork (one process per move), nothing else
refused_to_every_process("first")
first_fork = fork()
with os.fdopen(int(sys.argv[4]), "rb") as handle:
    filter_installer(handle.read())()  # what a move's process adds before the program runs
refused_to_every_process("move")
attempt("fork", fork)
attempt("exec", lambda: os.posix_spawn(sys.executable, [sys.executable, "-c", ""], {}))
attempt("execve", lambda: os.execv(sys.executable, [sys.executable, "-c", "print('{}')"]))
attempt("socket", lambda: socket.create_connection(("127.0.0.1", port), timeout=1))
attempt("write program", lambda: open("/sandbox/probe.py", "a").write("x"))
attempt("write interpreter", lambda: open(sys.executable, "ab"))
attempt("write root", lambda: open("/escape", "w"))
attempt("write dev", lambda: open("/dev/shm/escape", "w"))
attempt("rename", lambda: os.rename("/sandbox/probe.py", "/sandbox/moved.py"))
attempt("link", lambda: os.link("/sandbox/probe.py", "/sandbox/linked.py"))
attempt("symlink", lambda: os.symlink("/scratch", "/sandbox/link"))
attempt("truncate", lambda: os.truncate("/sandbox/probe.py", 0))
attempt("remove", lambda: os.remove("/sandbox/probe.py"))
attempt("chmod", lambda: os.chmod("/sandbox/probe.py", 0o777))
attempt("mkdir", lambda: os.mkdir("/sandbox/made"))
attempt("fill scratch", fill_scratch)
attempt("kill everyone", lambda: os.kill(-1, 9))
visible = [p for p in host_paths if os.path.exists(p)]
print(json.dumps({"results": results, "proc": os.path.exists("/proc"),
                  "environ": dict(os.environ), "visible": visible, "root": sorted(os.listdir("/")),
                  "scratch_mib": written_mib(), "uid": [os.getuid(), os.getgid()],
                  "first fork": first_fork > 0}))
"""


def test_the_os_layer_alone_contains_a_program_without_the_audit_hook(
    tmp_path: Path, listener: tuple[int, Accepted], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The probe runs in the same sandbox as a program (namespaces, mounts, both system-call
    filters, the child's resource limits) but without the audit hook, with ctypes at hand:
    every attack still fails, the red team's of issue 43 among them (no /proc/self/mem, no
    change of the parent-death signal, no memfd or shared memory past the memory limit)."""
    monkeypatch.setenv("GENSTRAT_CANARY", CANARY)
    port, accepted = listener
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    limits = Limits()
    child_limits = {k: getattr(limits, k) for k in sandbox.CHILD_LIMITS}
    interpreter = Path(sys.executable).resolve()
    home = Path.home()
    host_paths = [str(ROOT), str(tmp_path), "/work", "/home", "/etc", "/tmp", "/var", "/run"]
    host_paths += [os.environ.get("DAGSTER_HOME", "/dagster"), "/proc", "/sys"]
    host_paths += [str(p) for p in home.iterdir() if p not in interpreter.parents]
    seccomp = sandbox._pipe_with(sandbox.seccomp_filter(move=False))
    move_filter = sandbox._pipe_with(sandbox.seccomp_filter(move=True))
    info_read, info_write = os.pipe()
    argv = sandbox._sandbox_argv(
        sandbox.bubblewrap(),
        limits,
        {"/sandbox/child.py": sandbox.CHILD, "/sandbox/probe.py": probe},
        sandbox._python(
            "/sandbox/probe.py",
            json.dumps(child_limits),
            str(port),
            json.dumps(host_paths),
            str(move_filter),
        ),
        seccomp,
        info_write,
    )
    try:
        done = subprocess.run(
            argv,
            env={},
            capture_output=True,
            pass_fds=(seccomp, move_filter, info_write),
            timeout=60,
        )
    finally:
        for fd in (seccomp, move_filter, info_read, info_write):
            os.close(fd)
    assert done.returncode == 0, done.stderr.decode()
    report = json.loads(done.stdout)
    results = report.pop("results")
    escaped = {k: v for k, v in results.items() if not v.startswith("refused")}
    assert escaped == {}  # kill(-1) too: there is no other process to signal
    for name in ("fork", "execve", "first: memfd", "move: memfd", "first: parent-death signal"):
        assert "PermissionError" in results[name], name  # seccomp (EPERM)
    assert "FileNotFoundError" in results["first: /proc/self/mem"]  # no /proc at all
    shown = {"dev", "lib", "lib32", "lib64", "sandbox", "scratch", "usr"}
    assert set(report.pop("root")) <= shown | {interpreter.parts[1]}
    assert limits.scratch_mb - 1 <= report.pop("scratch_mib") <= limits.scratch_mb
    assert report == {
        "proc": False,
        "environ": {"PYTHONHASHSEED": "0", "PWD": "/scratch", "LC_CTYPE": "C.UTF-8"},
        "visible": [],
        "uid": [65534, 65534],
        "first fork": True,  # the first process forks the moves' processes
    }
    assert accepted() == [] and CANARY.encode() not in done.stdout + done.stderr


def test_the_seccomp_filter_has_a_table_per_architecture() -> None:
    for machine in ("x86_64", "aarch64"):
        for move in (False, True):
            program = sandbox.seccomp_filter(machine, move=move)
            assert len(program) % 8 == 0 and len(program) // 8 < 64
    with pytest.raises(SandboxUnavailable, match="no system-call table for this machine"):
        sandbox.seccomp_filter("riscv64")


# --- a killed host ---------------------------------------------------------------------------

HOST = """
import json, sys
from arena.programs.sandbox import Limits, Program

program = Program(sys.argv[1], Limits(move_seconds=600, cpu_seconds=600))
assert program.start() is None
print(json.dumps({"bwrap": program.proc.pid, "program": program.pid,
                  "scratch": program.scratch}), flush=True)
program.act({"hand": [], "board": []}, ["check"], 1)  # the program loops: never returns
"""


def test_a_host_killed_with_sigkill_leaves_no_process_and_no_folder(tmp_path: Path) -> None:
    program, marker = _marked(tmp_path, "loops.py")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)}
    host = subprocess.Popen(
        [sys.executable, "-c", HOST, str(program)], env=env, stdout=subprocess.PIPE, cwd=ROOT
    )
    assert host.stdout is not None
    try:
        started = json.loads(host.stdout.readline())
        assert _alive(started["bwrap"], str(program))
        assert _alive(started["program"], "/sandbox/child.py")
        assert os.path.isdir(started["scratch"])
        until(lambda: len(_sandboxed(marker)) == 2, "the move's process")  # the move is in flight
        in_flight = _sandboxed(marker)
        host.send_signal(signal.SIGKILL)
        host.wait()
        until(
            lambda: (
                not (
                    _alive(started["bwrap"], str(program))
                    or _sandboxed(marker)
                    or os.path.exists(started["scratch"])  # gone with the mount namespace
                )
            ),
            "the sandbox's end",
            fail=False,
        )
        survivors = _sandboxed(marker)
    finally:
        host.kill()
        host.wait()
        host.stdout.close()
        _kill(_sandboxed(marker))  # a failed run leaves none behind either
    assert len(in_flight) == 2  # the sandbox's first process, and the move's
    assert started["program"] in in_flight and survivors == []
    assert not _alive(started["bwrap"], str(program))
    assert not os.path.exists(started["scratch"])
    assert list(temp.iterdir()) == []  # nothing on the host's disk
    leftovers = [
        p
        for p in os.listdir("/proc")
        if p.isdigit() and _alive(int(p), str(program))  # any bwrap of this program
    ]
    assert leftovers == []


HOST_OF_ONE_MOVE = """
import json, sys, time
from arena.programs.sandbox import Program

program = Program(sys.argv[1])
outcome = program.act({"hand": [], "board": []}, ["check"], 1)
print(json.dumps({"status": outcome.status, "reason": outcome.reason}), flush=True)
time.sleep(600)
"""


def test_the_red_team_orphan_neither_blinds_the_hook_nor_outlives_a_killed_host(
    tmp_path: Path,
) -> None:
    """Issue 43, item 2, as run: /proc/self/mem written through a descriptor of /proc/self,
    ctypes loaded past the blinded hook, the parent-death signal cleared, a pause at exit, and
    the host killed with SIGKILL.  No /proc is mounted in the sandbox, and whatever a move
    does, its sandbox's first process (PID 1 of the namespace, which runs no program code)
    dies with bwrap, and every process of the namespace with it."""
    program, marker = _marked(tmp_path, "orphan.py")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    host = subprocess.Popen(
        [sys.executable, "-c", HOST_OF_ONE_MOVE, str(program)],
        env=env,
        stdout=subprocess.PIPE,
        cwd=ROOT,
    )
    assert host.stdout is not None
    try:
        outcome = json.loads(host.stdout.readline())
        assert _sandboxed(marker) != []  # the sandbox is up between moves
        host.send_signal(signal.SIGKILL)
        host.wait()
        until(lambda: not _sandboxed(marker), "the sandbox's end", fail=False)
        survivors = _sandboxed(marker)
    finally:
        host.kill()
        host.wait()
        host.stdout.close()
        _kill(_sandboxed(marker))  # a failed run leaves none behind either
    assert survivors == []
    assert outcome == {
        "status": "crash",
        "reason": "FileNotFoundError: [Errno 2] No such file or directory: '/proc/self'",
    }


# --- memory ----------------------------------------------------------------------------------


def test_memory_mb_bounds_memfds_tmpfs_and_allocations(tmp_path: Path) -> None:
    """Issue 43, item 7: at ``memory_mb: 64`` a program held 472 MiB in memfds.  Memfds (and
    System V and POSIX shared memory) are refused, the scratch tmpfs stops at ``scratch_mb``
    and allocations at the address-space limit: what the sandbox's processes hold, counted
    from the host (resident pages, open memfds, the scratch tmpfs), stays within the limits."""
    program, marker = _marked(tmp_path, "memfd_hog.py")
    limits = Limits(memory_mb=64, scratch_mb=16, move_seconds=FAIL_SAFE_S, cpu_seconds=120)
    outcomes: list[Outcome] = []
    with Program(program, limits) as sandboxed:
        assert sandboxed.start() is None
        first = sandboxed.pid
        mover = threading.Thread(target=lambda: outcomes.append(sandboxed.act(OBS, LEGAL, 1)))
        mover.start()
        found: list[str] = []

        def reported() -> bool:
            for pid in _sandboxed(marker):
                with contextlib.suppress(OSError):
                    found.append(Path(f"/proc/{pid}/root{sandbox.SCRATCH}/held").read_text())
            return any(found)

        try:
            until(reported, "the program's report of what it holds")
            held = _held(_sandboxed(marker))  # all of it is still held: the move goes on
        finally:
            _kill([pid for pid in _sandboxed(marker) if pid != first])  # end the move
            mover.join()
    bound = (limits.memory_mb + limits.scratch_mb + 16) << 20  # the first process's own pages
    assert 0 < held <= bound, f"{held >> 20} MiB held"
    refusals = {"memfd": "PermissionError", "tmpfs": "OSError", "allocations": "MemoryError"}
    assert max(found) == str(refusals)
    [outcome] = outcomes  # the host goes on: the move's end is the move's crash
    assert outcome.status == "crash" and "killed by SIGKILL" in outcome.reason, outcome.reason


# --- no sandbox, no programs -----------------------------------------------------------------


def test_without_bwrap_a_program_is_refused_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SandboxUnavailable) as info:
        Program(PROGRAMS / "good.py")
    message = str(info.value)
    assert "bwrap is not installed" in message and "apt-get install bubblewrap" in message
    assert "\n" not in message


def test_a_bwrap_that_cannot_create_namespaces_is_refused_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the "
        "kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SandboxUnavailable) as info:
        sandbox.admit(PROGRAMS / "good.py", presets.kuhn())
    message = str(info.value)
    assert "cannot create the program sandbox (bwrap: No permissions to creating new" in message
    assert "allow user namespaces" in message and "apt-get install bubblewrap" in message
    assert "\n" not in message


# --- CPU -------------------------------------------------------------------------------------


def test_no_cpu_is_spent_between_moves_and_every_move_is_charged(tmp_path: Path) -> None:
    """Issue 43, item 10: a SIGALRM handler armed by a move burned CPU between moves, where no
    move's time was counted.  A move's process ends with its move: between two moves the
    sandbox spends nothing, and the CPU it spends from the first move to the last is the sum
    of what the moves are charged."""
    program, marker = _marked(tmp_path, "alarm_burner.py")
    with Program(program) as sandboxed:
        assert sandboxed.start() is None
        start = sandboxed.cpu_seconds()
        first = sandboxed.act(OBS, LEGAL, seed=1)
        between_moves = _sandboxed(marker)
        before = _cpu(between_moves)
        # the window: this process spends 0.25 s of CPU; a handler burning at the same
        # priority gets about as much, whatever the host's load (at load 29 on two cores:
        # 0.96 s of a second), where a sleep of a second left it 2/29 of one
        spent = time.process_time() + 0.25
        while time.process_time() < spent:
            pass
        between = _cpu(_sandboxed(marker)) - before
        second = sandboxed.act(OBS, LEGAL, seed=2)
        end = sandboxed.cpu_seconds()
        _kill(_sandboxed(marker))
    assert between_moves == [sandboxed.pid]  # the move's process ended with its move
    assert between <= 0.05, f"{between:.2f} s of CPU between moves"
    assert (first.status, second.status) == ("ok", "ok")
    assert start is not None and end is not None
    tick = 1 / os.sysconf("SC_CLK_TCK")
    assert abs((end - start) - (first.cpu_seconds + second.cpu_seconds)) <= tick
