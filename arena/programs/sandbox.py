"""Strategy programs in a sandbox (paper, Section 8; GameBench 2, Section 2).

A strategy program is a Python file defining ``act(observation: dict, legal_actions: list,
rng) -> action``.  It must be deterministic given its inputs, draw chance only from ``rng``,
read no clock, start no thread or process, and keep no state between moves.  The program is
untrusted: it may be written by a model or submitted by anyone.

What the sandbox guarantees, and how.  The operating system is the boundary: everything below
holds against a program that runs native code.

1. **Isolation by the operating system.**  Each sandbox runs under bubblewrap (``bwrap``) in
   new user, PID, network, IPC, UTS, cgroup and mount namespaces, as uid/gid 65534 inside
   (mapped to the host user running the tournament), with no capabilities and no way to make
   further user namespaces.  Its file system is a read-only view of the interpreter, its
   standard library (the interpreter's own site-packages hidden) and the system's shared
   libraries, the child script and the program file; a minimal read-only ``/dev``; no
   ``/proc`` at all (no ``/proc/self/mem`` to rewrite the process's own memory, no mount table
   or kernel command line to read); and a private tmpfs of ``Limits.scratch_mb`` as
   ``/scratch``, its working folder, the only place it can write.  No home folder, project,
   data folder or Dagster home is visible.  Its network namespace is empty (no route to the
   host, not even to 127.0.0.1).  bwrap starts with an empty environment and gives the
   program only ``PYTHONHASHSEED=0``.  A seccomp filter (``seccomp_filter``) refuses threads,
   sockets, ptrace and ``process_vm_readv``/``writev``, namespaces and mounts, memfds and
   System V and POSIX shared memory and message queues, changing the parent-death signal
   (``prctl(PR_SET_PDEATHSIG)``), and a few kernel interfaces no program needs.
2. **A fresh process for every move.**  The sandbox's first process (``child.py``, PID 1 of
   its namespace) compiles the program but never runs it; each move runs in a process forked
   from it, which adds a second filter (no fork, no exec) and then the audit hook, and ends
   with the move.  So every move starts from the same clean state: nothing a move leaves in
   a module, in builtins, in a signal handler or a timer, or in ``/scratch`` (emptied after
   each move) reaches a later move, and two identical runs, or a run resumed from its
   journal, see the same moves whatever ran before in the process.  A program's state is
   what the protocol carries: the observation.
3. **Bounded resources.**  Resource limits (hard = soft) are set before any of the program's
   code runs: ``cpu_seconds`` of CPU and ``memory_mb`` of address space per process, file
   size, open files, processes, no core.  A move's process exists only during its move, so no
   CPU is spent between moves: all of it is charged to the move (``Outcome.cpu_seconds``,
   read from the host's ``/proc``) and falls within its ``move_seconds``.  With memfds and
   shared memory refused, what a sandbox holds is bounded by ``memory_mb`` (the move's
   address space, which includes the pages it shares with the first process), ``scratch_mb``
   and a few MiB of pipe buffers and of the first process's own pages; the kernel's inodes
   of files in ``/scratch`` (about 1 KiB each: bwrap sets no ``nr_inodes``) are bounded by
   the move's time, and freed with the move.
4. **A protocol the program cannot forge.**  Requests and replies travel over two pipes
   between the host and the first process, never over the program's stdout, which goes
   nowhere (descriptors 1 and 2 are /dev/null).  A move's process writes its answer on a pipe
   of its own, of which the first process passes on one line and at most
   ``MAX_REPLY_BYTES`` + 1 bytes; the host reads at most ``MAX_REPLY_BYTES`` per reply and
   only until the move's deadline: a partial line times out like silence (``timeout``), a
   longer reply is a ``crash`` with the reason.  Each request carries a sequence number and an
   unpredictable id, and a reply is accepted only with that id, so an injected or stale line
   is a ``crash``, never the answer to a later move.
5. **Secrets never leave.**  Whatever a program returns or raises passes through ``scrub``
   (``arena.secrets.scrub`` with the secrets the host knows: those given to
   ``Program``, and the values of the host's secret-looking environment variables; then
   anything shaped like a credential; then a bound of ``MAX_REASON_CHARS`` on one line)
   before it becomes an ``Outcome`` reason, and so before it reaches a message, a table, a
   journal or a log.
6. **Nothing outlives the host.**  bwrap runs with ``--die-with-parent`` (and is started from
   one long-lived thread, since the kernel ties that signal to the thread that started it)
   and starts the first process with the same parent-death signal; that process runs no
   program code, the filter refuses changing the signal anyway, and when it dies, as PID 1,
   the kernel kills every process of its namespace: a move's process cannot outlive it,
   whatever it did to itself.  The scratch folder is a tmpfs of the sandbox's own mount
   namespace: nothing is on the host's disk to be left behind.  ``close`` kills the first
   process and waits until it is gone.

The audit hook of ``child.py`` (PEP 578) is a convenience, not a boundary: it turns the common
mistakes (a socket, a process, ctypes, writing outside ``/scratch``, a clock) into a readable
reason before the OS refuses them, but native code, or a bug in the hook, gets past it, and
then items 1 to 6 are what hold.  The same goes for the clocks removed from ``time``: file
times and ``datetime`` still tell the time, and a program that reads them is not reproducible.
If ``bwrap`` is missing or cannot create namespaces, ``Program`` raises ``SandboxUnavailable``
naming the cause and the fix: there is no weaker fallback.

``Program.act`` returns an ``Outcome``: the action, or why there is none (``crash``,
``illegal``, ``timeout``).  In matches a crash or an illegal action forfeits the match; a
timeout is recorded and left out of the evidence.  ``admit`` is the admission test: the
program loads, returns legal actions over a short test, and its median move takes at most
100 ms of CPU.  CPU, not wall time: the sandbox's CPU for a move (``Outcome.cpu_seconds``) is
what the program costs, and a host busy with other work does not raise it, where it can stretch
a move's wall time many times over and would refuse a good program on a loaded machine.  A
move's wall time is bounded in matches by ``Limits.move_seconds``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import platform
import random
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from arena.secrets import MAX_SCRUBBED_CHARS, environment_secrets, scrub
from engines.gbg.engine import State, new_deal
from engines.gbg.spec import GameSpec

CHILD = Path(__file__).with_name("child.py")
SANDBOX_ID = 65534  # uid and gid inside the sandbox ("nobody")
SCRATCH = "/scratch"
MAX_REPLY_BYTES = 64 * 1024
MAX_REASON_CHARS = MAX_SCRUBBED_CHARS
INSTALL = "install it with `apt-get install bubblewrap`"
CHILD_LIMITS = ("cpu_seconds", "memory_mb", "file_mb", "open_files")  # applied by the child


class SandboxUnavailable(RuntimeError):
    """This machine cannot run the sandbox (no bwrap, or no namespaces): a one-line reason."""


@dataclass(frozen=True)
class Limits:
    """Per-program resource limits: ``cpu_seconds`` and ``memory_mb`` (address space) bound
    each process of the sandbox, and so each move; ``move_seconds`` is a move's wall-clock
    time, ``start_seconds`` the sandbox's; ``file_mb`` bounds a file, ``scratch_mb`` the
    scratch tmpfs, ``open_files`` the descriptors of a process."""

    cpu_seconds: int = 20
    memory_mb: int = 512
    file_mb: int = 8
    move_seconds: float = 2.0
    start_seconds: float = 10.0
    scratch_mb: int = 16
    open_files: int = 64

    def __post_init__(self) -> None:
        least = {"cpu_seconds": 1, "memory_mb": 64, "file_mb": 1, "scratch_mb": 1, "open_files": 16}
        for name, value in least.items():
            if getattr(self, name) < value:
                raise ValueError(
                    f"Limits.{name} must be at least {value}, not {getattr(self, name)}"
                )
        for name in ("move_seconds", "start_seconds"):
            if not getattr(self, name) > 0:
                raise ValueError(f"Limits.{name} must be positive, not {getattr(self, name)}")


@dataclass(frozen=True)
class Outcome:
    """One move of a program: ``action`` when ``status`` is ``ok``, else the reason."""

    status: str  # ok | crash | illegal | timeout
    action: str | None = None
    reason: str = ""
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # the sandbox's CPU from the request to the answer (clock ticks)


# ---------------------------------------------------------------------------------------------
# The system-call filter

# Refused with EPERM to every process of the sandbox: threads, sockets, looking into or
# changing other processes, namespaces and mounts, memory outside the address-space limit
# (memfds, System V and POSIX shared memory and message queues), and kernel interfaces a
# strategy program has no use for.
_REFUSED_SYSCALLS = (
    "clone3", "socket", "socketpair", "ptrace", "process_vm_readv", "process_vm_writev",
    "pidfd_open", "pidfd_getfd", "kcmp", "unshare", "setns", "mount", "umount2", "pivot_root",
    "chroot", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
    "mount_setattr", "keyctl", "add_key", "request_key", "bpf", "perf_event_open",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "personality",
    "memfd_create", "memfd_secret", "shmget", "shmat", "msgget", "msgsnd", "mq_open",
)  # fmt: skip
# Refused to a move's process only: the sandbox's first process is started by bwrap's execve
# and forks the process of each move (``arena/programs/child.py``).
_PROCESS_SYSCALLS = ("fork", "vfork", "clone", "execve", "execveat")
PR_SET_PDEATHSIG = 1  # prctl(PR_SET_PDEATHSIG, ...) is refused: a parent-death signal stays
# System-call numbers (asm/unistd_64.h; asm-generic/unistd.h for aarch64, which has no fork).
_SYSCALLS: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (
        0xC000003E,  # AUDIT_ARCH_X86_64
        dict(fork=57, vfork=58, clone=56, clone3=435, socket=41, socketpair=53, ptrace=101,
             process_vm_readv=310, process_vm_writev=311, pidfd_open=434, pidfd_getfd=438,
             kcmp=312, unshare=272, setns=308, mount=165, umount2=166, pivot_root=155,
             chroot=161, open_tree=428, move_mount=429, fsopen=430, fsconfig=431, fsmount=432,
             fspick=433, mount_setattr=442, keyctl=250, add_key=248, request_key=249, bpf=321,
             perf_event_open=298, userfaultfd=323, io_uring_setup=425, io_uring_enter=426,
             io_uring_register=427, personality=135, memfd_create=319, memfd_secret=447,
             shmget=29, shmat=30, msgget=68, msgsnd=69, mq_open=240, execve=59, execveat=322,
             prctl=157),
    ),
    "aarch64": (
        0xC00000B7,  # AUDIT_ARCH_AARCH64
        dict(clone=220, clone3=435, socket=198, socketpair=199, ptrace=117,
             process_vm_readv=270, process_vm_writev=271, pidfd_open=434, pidfd_getfd=438,
             kcmp=272, unshare=97, setns=268, mount=40, umount2=39, pivot_root=41, chroot=51,
             open_tree=428, move_mount=429, fsopen=430, fsconfig=431, fsmount=432, fspick=433,
             mount_setattr=442, keyctl=219, add_key=217, request_key=218, bpf=280,
             perf_event_open=241, userfaultfd=282, io_uring_setup=425, io_uring_enter=426,
             io_uring_register=427, personality=92, memfd_create=279, memfd_secret=447,
             shmget=194, shmat=196, msgget=186, msgsnd=189, mq_open=180, execve=221,
             execveat=281, prctl=167),
    ),
}  # fmt: skip


def seccomp_filter(machine: str | None = None, *, move: bool = True) -> bytes:
    """The seccomp program (classic BPF, as ``bwrap --seccomp`` and ``prctl`` read it) that
    refuses ``_REFUSED_SYSCALLS`` and ``prctl(PR_SET_PDEATHSIG, ...)`` with EPERM, and with
    ``move`` (the filter a move's process adds to the sandbox's) ``_PROCESS_SYSCALLS`` too.

    1. a system call of another architecture kills the process (no way around the table);
    2. on x86_64, x32 system calls (numbers from 0x40000000) are refused;
    3. each refused number jumps to ``EPERM``; ``prctl`` jumps to a look at its first
       argument; anything else is allowed.

    No well-kept Python package builds seccomp filters (libseccomp's bindings ship with its C
    sources, not on PyPI), and this one is a fixed list: a table and a loop."""
    machine = machine or platform.machine()
    if machine not in _SYSCALLS:
        raise SandboxUnavailable(
            f"the program sandbox has no system-call table for this machine ({machine}); "
            f"it supports {', '.join(_SYSCALLS)}"
        )
    arch, numbers = _SYSCALLS[machine]
    names = _REFUSED_SYSCALLS + (_PROCESS_SYSCALLS if move else ())
    refused = sorted({numbers[name] for name in names if name in numbers})
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JGE|K, RET|K
    allow, kill, eperm = 0x7FFF0000, 0x80000000, 0x00050000 | 1  # SECCOMP_RET_*; EPERM = 1
    checks = [(jge, 0x40000000)] if machine == "x86_64" else []
    checks += [(jeq, n) for n in refused]
    # after the checks: prctl? (1), allow (2), load prctl's option (3), PR_SET_PDEATHSIG? (4),
    # allow (5), EPERM (6)
    body: list[tuple[int, int, int, int]] = [(ld, 0, 0, 0)]  # the system-call number
    for i, (op, k) in enumerate(checks):
        body.append((op, len(checks) - i + 4, 0, k))  # to the EPERM return
    body += [
        (jeq, 1, 0, numbers["prctl"]),
        (ret, 0, 0, allow),
        (ld, 0, 0, 16),  # seccomp_data.args[0], its low half (the option is an int)
        (jeq, 1, 0, PR_SET_PDEATHSIG),
        (ret, 0, 0, allow),
        (ret, 0, 0, eperm),
    ]
    head = [(ld, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, kill)]  # seccomp_data.arch
    return b"".join(struct.pack("=HBBI", *op) for op in head + body)


# ---------------------------------------------------------------------------------------------
# bubblewrap


@functools.cache
def _interpreter_view() -> tuple[str, tuple[str, ...]]:
    """The interpreter's real path and the bwrap arguments that show, read-only, the
    interpreter, its standard library (its site-packages hidden) and the shared libraries."""
    exe = os.path.realpath(sys.executable)
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    args: list[str] = []
    for system in ("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/lib32", "/usr/lib32"):
        if os.path.islink(system):
            args += ["--symlink", os.readlink(system), system]
        elif os.path.isdir(system):
            args += ["--ro-bind", system, system]
    libdir = sysconfig.get_config_var("LIBDIR")
    if sysconfig.get_config_var("Py_ENABLE_SHARED") and libdir:
        args += ["--ro-bind", os.path.realpath(libdir), os.path.realpath(libdir)]
    args += ["--ro-bind", exe, exe, "--ro-bind", stdlib, stdlib]
    site = os.path.join(stdlib, "site-packages")
    if os.path.isdir(site):
        args += ["--tmpfs", site, "--remount-ro", site]
    return exe, tuple(args)


def _sandbox_argv(
    bwrap: str,
    limits: Limits,
    files: dict[str, Path],
    command: list[str],
    seccomp_fd: int,
    info_fd: int,
) -> list[str]:
    """The bwrap command line (module docstring, item 1): ``files`` are shown read-only at
    their keys (``/sandbox/...``), then ``command`` runs with ``/scratch`` as its folder."""
    _, view = _interpreter_view()
    shown = [a for dest, src in files.items() for a in ("--ro-bind", str(src), dest)]
    return [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--uid", str(SANDBOX_ID),
        "--gid", str(SANDBOX_ID),
        "--cap-drop", "ALL",
        "--hostname", "sandbox",
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
        "--clearenv",
        "--setenv", "PYTHONHASHSEED", "0",
        *view,
        *shown,
        "--dev", "/dev",
        "--remount-ro", "/dev",
        "--size", str(limits.scratch_mb * 1024 * 1024),
        "--tmpfs", SCRATCH,
        "--chdir", SCRATCH,
        "--remount-ro", "/",
        "--seccomp", str(seccomp_fd),
        "--info-fd", str(info_fd),
        "--",
        *command,
    ]  # fmt: skip


def _python(*args: str) -> list[str]:
    """The sandbox's Python command: no site, no user site, no script folder on the path, no
    bytecode written, and the environment honoured (bwrap gives it only PYTHONHASHSEED)."""
    exe, _ = _interpreter_view()
    return [exe, "-s", "-S", "-P", "-B", *args]


def _pipe_with(data: bytes) -> int:
    """A pipe's read end holding ``data`` (small: it must fit the pipe's buffer)."""
    read, write = os.pipe()
    try:
        os.write(write, data)
    finally:
        os.close(write)
    return read


@functools.cache
def _probe(bwrap: str) -> str | None:
    """Why ``bwrap`` cannot run the sandbox on this machine (its first error line), or None."""
    seccomp = _pipe_with(seccomp_filter(move=False))
    info_read, info_write = os.pipe()
    argv = _sandbox_argv(
        bwrap, Limits(), {}, _python("-c", "pass"), seccomp_fd=seccomp, info_fd=info_write
    )
    try:
        done = subprocess.run(
            argv,
            env={},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            pass_fds=(seccomp, info_write),
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        for fd in (seccomp, info_read, info_write):
            os.close(fd)
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else f"exit status {done.returncode}"


def bubblewrap() -> str:
    """The path of a ``bwrap`` that can build the sandbox here, or ``SandboxUnavailable``."""
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(
            f"strategy programs run in a bubblewrap sandbox, and bwrap is not installed: {INSTALL}"
        )
    failure = _probe(path)
    if failure is not None:
        raise SandboxUnavailable(
            f"bubblewrap ({path}) cannot create the program sandbox ({failure}): allow user "
            "namespaces (sysctl user.max_user_namespaces > 0 and "
            "kernel.unprivileged_userns_clone=1; in a container, a seccomp profile that permits "
            f"them), or {INSTALL}"
        )
    return path


_LAUNCHER: tuple[int, ThreadPoolExecutor] | None = None
_LAUNCHER_LOCK = threading.Lock()


def _launch(argv: list[str], pass_fds: tuple[int, ...]) -> subprocess.Popen[bytes]:
    """Start ``argv`` from one long-lived thread of this process.

    ``--die-with-parent`` is PR_SET_PDEATHSIG, which the kernel ties to the *thread* that
    started bwrap: a sandbox started from a worker thread (``asyncio.to_thread``) would be
    killed when that thread ends, not when the host does."""
    global _LAUNCHER
    with _LAUNCHER_LOCK:
        if _LAUNCHER is None or _LAUNCHER[0] != os.getpid():  # a new process after a fork
            _LAUNCHER = (os.getpid(), ThreadPoolExecutor(1, "genstrat-sandbox-launcher"))
        pool = _LAUNCHER[1]
    future = pool.submit(
        subprocess.Popen,
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={},
        pass_fds=pass_fds,
    )
    return future.result()


# The most request bytes ``Program.act_many`` sends at once: well under a pipe's 64 KiB, so the
# write never waits on a sandbox busy with the batch's first move.
BATCH_BYTES = 32 * 1024


class _Failure(Exception):
    """The sandbox failed (and was closed): ``status`` (crash or timeout) and ``reason``."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


# ---------------------------------------------------------------------------------------------
# Programs


class Program:
    """A running sandboxed program (start once, ask for many moves, then ``close``).

    ``secrets``: texts that must never appear in a reason (API keys of the tournament's
    players); the values of the host's secret-looking environment variables are added."""

    def __init__(
        self, path: str | Path, limits: Limits | None = None, secrets: tuple[str, ...] = ()
    ) -> None:
        self.path = Path(path).resolve()
        if not self.path.is_file():
            raise ValueError(f"no strategy program at {self.path}")
        self.limits = limits or Limits()
        self.secrets = tuple(dict.fromkeys((*secrets, *environment_secrets())))
        self.bwrap = bubblewrap()
        self.proc: subprocess.Popen[bytes] | None = None
        self.pid: int | None = None  # the sandbox's first process (host PID), last started
        self.dead_reason = ""
        self._pidfd = self._requests = self._replies = -1
        self._buffer = b""
        self._sequence = 0
        self._final_cpu: float | None = None

    @property
    def scratch(self) -> str | None:
        """The scratch folder as the host sees it (``/proc/PID/root/scratch``): it exists only
        while the process runs, since it is a tmpfs of the sandbox's own mount namespace."""
        return None if self.pid is None else f"/proc/{self.pid}/root{SCRATCH}"

    def start(self) -> str | None:
        """Start the sandbox and compile the program; the reason it failed, or None.

        After a timeout, a garbled or forged reply, or the end of the sandbox (which close it)
        the next ``act`` starts it again; a move that raises or ends its own process does
        not."""
        self.close()
        deadline = time.monotonic() + self.limits.start_seconds
        request_read, self._requests = os.pipe()
        self._replies, reply_write = os.pipe()
        info_read, info_write = os.pipe()
        seccomp = _pipe_with(seccomp_filter(move=False))
        move_filter = _pipe_with(seccomp_filter(move=True))
        limits = {k: getattr(self.limits, k) for k in CHILD_LIMITS}
        inherited = (request_read, reply_write, move_filter)
        command = _python("/sandbox/child.py", *map(str, inherited), json.dumps(limits))
        files = {"/sandbox/child.py": CHILD, "/sandbox/program.py": self.path}
        argv = _sandbox_argv(self.bwrap, self.limits, files, command, seccomp, info_write)
        try:
            self.proc = _launch(argv, (*inherited, info_write, seccomp))
        except OSError as exc:
            os.close(info_read)
            self.close()
            self.dead_reason = f"the sandbox did not start: {exc}"
            return self.dead_reason
        finally:
            for fd in (*inherited, info_write, seccomp):
                os.close(fd)
        os.set_blocking(self._requests, False)
        try:
            self.pid, self._pidfd = self._sandbox_pid(info_read, deadline)
            ready = self._reply(deadline, self.limits.start_seconds)
        except _Failure as failure:
            self.dead_reason = failure.reason
            return failure.reason
        finally:
            os.close(info_read)
        if "error" in ready or ready.get("ready") is not True:
            reason = scrub(str(ready.get("error", "did not start")), self.secrets)
            self.close()
            return reason
        return None

    def _sandbox_pid(self, info: int, deadline: float) -> tuple[int, int]:
        """The program's host PID from bwrap's ``--info-fd`` record, and a pidfd on it."""
        data = b""
        try:
            while chunk := self._read_some(info, deadline, 4096 - len(data)):
                data += chunk
        except TimeoutError:
            self._fail("crash", f"the sandbox did not start within {self.limits.start_seconds:g} s")
        try:
            pid = int(json.loads(data)["child-pid"])
            return pid, os.pidfd_open(pid)
        except (ValueError, KeyError, TypeError, OSError):
            self._fail("crash", f"the sandbox did not start: {self._stderr() or 'no reason'}")

    def _read_some(self, fd: int, deadline: float, limit: int) -> bytes:
        """Up to ``limit`` bytes from ``fd`` (b"" at its end), or a timeout at ``deadline``."""
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or limit <= 0:
                raise TimeoutError
            if poller.poll(left * 1000):
                return os.read(fd, limit)

    def _reply(self, deadline: float, allowed: float) -> dict[str, Any]:
        """The next reply line: bounded in bytes (``MAX_REPLY_BYTES``) and in time."""
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_REPLY_BYTES:
                self._fail("crash", f"sent a reply longer than {MAX_REPLY_BYTES} bytes")
            try:
                chunk = self._read_some(
                    self._replies, deadline, MAX_REPLY_BYTES + 1 - len(self._buffer)
                )
            except TimeoutError:
                self._fail("timeout", f"no answer within {allowed:g} s")
            if not chunk:
                self._fail("crash", f"the program's process ended ({self._exit_status()})")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > MAX_REPLY_BYTES:
            self._fail("crash", f"sent a reply longer than {MAX_REPLY_BYTES} bytes")
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, nested past the stack
            data = None
        if not isinstance(data, dict):
            self._fail("crash", "the program's process sent garbage")
        return data

    def _send(self, data: bytes, deadline: float, allowed: float) -> None:
        """Write a request without blocking past ``deadline`` (a program that stops reading
        its requests times out like one that stops answering)."""
        view = memoryview(data)
        poller: select.poll | None = None
        while view:
            try:
                view = view[os.write(self._requests, view) :]
                continue
            except BlockingIOError:
                pass
            except OSError:
                self._fail("crash", f"the program's process ended ({self._exit_status()})")
            if poller is None:
                poller = select.poll()
                poller.register(self._requests, select.POLLOUT)
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail("timeout", f"no answer within {allowed:g} s")
            poller.poll(left * 1000)

    def _fail(self, status: str, reason: str) -> NoReturn:
        reason = scrub(reason, self.secrets)
        self.dead_reason = reason
        self.close()
        raise _Failure(status, reason)

    def _exit_status(self) -> str:
        if self.proc is None:
            return "not running"
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "exit status unknown"
        return f"exit status {code}"

    def _stderr(self) -> str:
        """The first lines bwrap or Python wrote before the program was loaded (bounded)."""
        if self.proc is None or self.proc.stderr is None:
            return ""
        fd = self.proc.stderr.fileno()
        os.set_blocking(fd, False)
        try:
            text = os.read(fd, 4096).decode("utf-8", "replace")
        except (BlockingIOError, OSError):
            return ""
        return " ".join(text.split())

    def _cpu(self) -> tuple[float, float] | None:
        """CPU seconds of the sandbox's first process: its own, and with those of the moves'
        processes it has waited for (None when unknown or not running)."""
        if self.proc is None or self.pid is None:
            return None
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        tick = os.sysconf("SC_CLK_TCK")
        own = int(fields[11]) + int(fields[12])  # utime, stime
        return own / tick, (own + int(fields[13]) + int(fields[14])) / tick  # + cutime, cstime

    def cpu_seconds(self) -> float | None:
        """CPU time the running sandbox has used: its first process and every move so far
        (None when unknown or not running).  No process of the sandbox runs between moves."""
        cpu = self._cpu()
        return None if cpu is None else cpu[1]

    def _live_move_cpu(self) -> float:
        """CPU seconds of a move's process still running (a move that timed out): the host's
        processes whose parent is the sandbox's first process."""
        total = 0
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if int(fields[1]) == self.pid:
                    total += int(fields[11]) + int(fields[12])
        return total / os.sysconf("SC_CLK_TCK")

    def _spent(self, before: float | None) -> float:
        """The sandbox's CPU since ``before`` (0.0 when either end is unknown); after the
        sandbox was closed, up to its end."""
        after = self.cpu_seconds() if self.proc is not None else self._final_cpu
        return 0.0 if before is None or after is None else max(0.0, after - before)

    def act(self, observation: dict[str, Any], legal: list[str], seed: int) -> Outcome:
        """Ask for one move (the sandbox is started on first use).

        The move runs in a process of its own, forked from the sandbox's first process, which
        has never run the program: it starts from a clean state whatever earlier moves did,
        and ends with the move, so its CPU (``Outcome.cpu_seconds``) is all spent within the
        move's ``move_seconds`` and bounded by ``cpu_seconds``.  The first process's own CPU
        grows a little with every move; once it has used half of ``cpu_seconds`` the sandbox
        is replaced by a fresh one before the move, which no program can tell."""
        failed = self._ready()
        if failed is not None:
            return failed
        ident, request = self._request(observation, legal, seed)
        allowed = self.limits.move_seconds
        t0, cpu = time.perf_counter(), self.cpu_seconds()
        deadline = time.monotonic() + allowed
        try:
            self._send(request, deadline, allowed)
            reply = self._reply(deadline, allowed)
        except _Failure as failure:
            elapsed = time.perf_counter() - t0
            return Outcome(failure.status, None, failure.reason, elapsed, self._spent(cpu))
        return self._outcome(reply, ident, legal, time.perf_counter() - t0, self._spent(cpu))

    def act_many(
        self, observation: dict[str, Any], legal: list[str], seeds: Sequence[int]
    ) -> list[Outcome]:
        """``act`` at one observation under each of ``seeds``, in order, with the same outcomes.

        The requests go out together and the sandbox answers them one after the other, each
        in a fresh process, which spares the host a round trip per move (a program's move
        distribution is asked this way, eight seeds per situation:
        ``arena.programs.procedural_reading``).  Each answer has ``move_seconds`` from the one
        before.  A move after which the sandbox was closed (a timeout, a reply to another
        request) is asked again by ``act``, as are the moves after it, in a fresh sandbox as
        they would have been one by one."""
        outcomes: list[Outcome] = []
        if not seeds:
            return outcomes
        failed = self._ready()
        if failed is not None:
            return [failed, *(self.act(observation, legal, seed) for seed in seeds[1:])]
        requests = [self._request(observation, legal, seed) for seed in seeds]
        batch = b"".join(request for _, request in requests)
        if len(batch) > BATCH_BYTES:  # more than the pipe takes while the process works
            return [self.act(observation, legal, seed) for seed in seeds]
        allowed = self.limits.move_seconds
        t0, cpu = time.perf_counter(), self.cpu_seconds()
        deadline = time.monotonic() + allowed
        try:
            self._send(batch, deadline, allowed)
            for ident, _ in requests:
                reply = self._reply(deadline, allowed)
                now, spent = time.perf_counter(), self._spent(cpu)
                outcomes.append(self._outcome(reply, ident, legal, now - t0, spent))
                if self.proc is None:  # closed for a reply to another request
                    break
                t0, cpu, deadline = now, self.cpu_seconds(), time.monotonic() + allowed
        except _Failure as failure:
            # A timeout is the move's own outcome, as in ``act``; a sandbox that ended is
            # asked again, fresh, with the moves after it.
            if failure.status == "timeout":
                elapsed = time.perf_counter() - t0
                outcomes.append(Outcome("timeout", None, failure.reason, elapsed, self._spent(cpu)))
        rest = seeds[len(outcomes) :]
        return outcomes + [self.act(observation, legal, seed) for seed in rest]

    def _ready(self) -> Outcome | None:
        """The sandbox, fresh if its first process has used half its CPU, started if need
        be; else why not."""
        cpu = self._cpu()
        if cpu is not None and cpu[0] > self.limits.cpu_seconds / 2:
            self.close()
        if self.proc is None:
            failure = self.start()
            if failure:
                return Outcome("crash", reason=failure)
        if self.proc is None or self.proc.poll() is not None:
            return Outcome("crash", reason=self.dead_reason or "the program is not running")
        return None

    def _request(
        self, observation: dict[str, Any], legal: list[str], seed: int
    ) -> tuple[str, bytes]:
        """A request line and its id (a sequence number and 8 random bytes, never reused)."""
        self._sequence += 1
        ident = f"{self._sequence}-{os.urandom(8).hex()}"
        request = {"id": ident, "observation": observation, "legal": legal, "seed": seed}
        return ident, (json.dumps(request, ensure_ascii=False) + "\n").encode()

    def _outcome(
        self, reply: dict[str, Any], ident: str, legal: list[str], elapsed: float, cpu: float
    ) -> Outcome:
        """The move a reply gives (a reply to another request closes the sandbox)."""
        if reply.get("id") != ident:
            try:
                self._fail("crash", "sent a reply to another request (an injected or stale line)")
            except _Failure as failure:
                return Outcome(failure.status, None, failure.reason, elapsed, cpu)
        if "error" in reply:
            error = reply["error"]
            text = error if isinstance(error, str) else _shown(error)
            return Outcome("crash", None, scrub(text, self.secrets), elapsed, cpu)
        action = reply.get("action")
        if not isinstance(action, str) or action not in legal:
            reason = scrub(f"returned {_shown(action)}, not one of {legal}", self.secrets)
            return Outcome("illegal", None, reason, elapsed, cpu)
        return Outcome("ok", action, "", elapsed, cpu)

    def close(self) -> None:
        """Kill the sandbox (its first process is PID 1 of its namespace: everything in it dies
        with it) and wait for it; its CPU up to then stays in ``_final_cpu``."""
        final = self.cpu_seconds()
        if final is not None:
            self._final_cpu = final + self._live_move_cpu()
        if self._pidfd >= 0:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            if self.proc.stderr is not None:
                self.proc.stderr.close()
            self.proc = None
        if self._pidfd >= 0:
            gone = select.poll()
            gone.register(self._pidfd, select.POLLIN)
            gone.poll(5000)  # a pidfd is readable once its process has ended
        for fd in (self._pidfd, self._requests, self._replies):
            if fd >= 0:
                os.close(fd)
        self._pidfd = self._requests = self._replies = -1
        self._buffer = b""

    def __enter__(self) -> Program:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _shown(value: object) -> str:
    """``repr(value)`` of a value from a reply, which may be nested too deeply to show."""
    try:
        return repr(value)
    except RecursionError:
        return "a value nested too deeply to show"


def program_observation(state: State, seat: int) -> dict[str, Any]:
    """What a program sees: the seat's observation record (no hidden card)."""
    obs = state.observation(seat)
    obs.pop("legal_actions", None)
    return obs


@dataclass(frozen=True)
class Admission:
    """The verdict of an admission test: ``median_move_ms`` is the median CPU time of the
    program's moves (``Outcome.cpu_seconds``: the sandbox's, in clock ticks), ``moves`` how many
    it made."""

    admitted: bool
    reason: str
    median_move_ms: float | None
    moves: int


def admit(
    path: str | Path,
    spec: GameSpec,
    deals: int = 6,
    seed: int = 0,
    max_median_ms: float = 100.0,
    limits: Limits | None = None,
    secrets: tuple[str, ...] = (),
) -> Admission:
    """The admission test: load, play ``deals`` short deals in both seats against uniform
    random play with every move legal, and a median move of at most ``max_median_ms`` of CPU
    (module docstring: the host's load does not count)."""
    rng = random.Random(seed)
    times: list[float] = []
    with Program(path, limits, secrets) as program:
        failure = program.start()
        if failure:
            return Admission(False, f"does not load: {failure}", None, 0)
        for d in range(deals):
            seat = d % 2
            state = new_deal(spec, seed + d)
            while not state.is_terminal():
                legal = list(state.legal_actions())
                if state.current_player != seat:
                    state.apply(rng.choice(legal))
                    continue
                outcome = program.act(program_observation(state, seat), legal, rng.randrange(2**31))
                if outcome.status != "ok" or outcome.action is None:
                    return Admission(
                        False, f"{outcome.status}: {outcome.reason}", median_ms(times), len(times)
                    )
                times.append(outcome.cpu_seconds)
                state.apply(outcome.action)
    return verdict(times, max_median_ms)


def verdict(cpu_seconds: list[float], max_median_ms: float) -> Admission:
    """The verdict on moves that were all legal, from their CPU seconds: admitted when the
    median is at most ``max_median_ms``."""
    median = median_ms(cpu_seconds)
    if median is not None and median > max_median_ms:
        return Admission(
            False,
            f"too slow: median move {median:.1f} ms of CPU > {max_median_ms:g} ms",
            median,
            len(cpu_seconds),
        )
    return Admission(True, "admitted", median, len(cpu_seconds))


def median_ms(times: list[float]) -> float | None:
    """The median of ``times`` (seconds) in milliseconds; None for no time."""
    return 1000.0 * statistics.median(times) if times else None
