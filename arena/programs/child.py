"""The sandboxed side of a strategy program: run by ``arena.programs.sandbox`` inside bubblewrap.

It imports only the standard library (the sandbox shows nothing else: no project code, no
third-party package) and runs as ``python -s -S -P -B /sandbox/child.py REQUEST_FD REPLY_FD
FILTER_FD LIMITS``, with the program at ``/sandbox/program.py`` and a private tmpfs at
``/scratch`` as its working folder.  The operating system does the containing (namespaces,
read-only mounts, no ``/proc``, system-call filters, resource limits: see
``arena.programs.sandbox``); this script is the sandbox's first process (PID 1 of its PID
namespace) and runs none of the program's code itself:

1. it sets the resource limits (CPU seconds, address space, processes, file size, open files,
   no core dumps), imports the standard modules programs commonly import (``PRELOADED``: a
   move's process then finds them loaded instead of importing them for every move; ``typing``
   alone took 5 of a move's 6.6 ms) and compiles the program, then answers
   ``{"ready": true}``;
2. for each move it forks a fresh process from itself, which has never run the program, so
   every move starts from the same clean state: nothing a move changes (module attributes, the
   audit hook's view, signal handlers, timers, open files) reaches the next move, and
   ``/scratch`` is emptied after each move.  The move's process installs a second system-call
   filter (``FILTER_FD``: no fork, no exec, nothing the first process alone needs),
   installs the audit hook and removes the clocks, then runs the program's ``act`` once and
   writes its answer to a pipe of its own (descriptors 0, 1 and 2 and the program's prints
   go nowhere: this process pointed them at /dev/null and a sink before the first fork);
   this process reads at most one line of it, kills the move's process and waits for it (so
   no CPU is spent outside a move, and all of it is counted in the move's), and passes the
   line on, or an error line naming how the move's process ended without one;
3. the audit hook (PEP 578) is a convenience, not a boundary: it turns the most common
   mistakes (a socket, a process, ctypes, writing outside ``/scratch``, a clock) into a
   readable reason, but native code or a bug in the hook gets past it, and then the OS layer
   is what holds.

Protocol (never the program's stdout): the first line on REPLY_FD is ``{"ready": true}`` or
``{"error": "does not compile: ..."}``; then for each line on REQUEST_FD, ``{"id": ...,
"observation": ..., "legal": [...], "seed": int}``, one line on REPLY_FD: ``{"id": <the same>,
"action": ...}`` or ``{"id": <the same>, "error": "..."}`` (the first line of the move's
process, however forged: the host accepts a reply only for the id it asked, an unpredictable
id per request; at most ``MAX_REPLY_BYTES`` + 1 bytes of it when it has no end).
"""

import contextlib
import json
import os
import random
import resource
import signal
import sys
import time
import types

PROGRAM = "/sandbox/program.py"
SCRATCH = "/scratch"
ERROR_CHARS = 16_000  # the host redacts, then keeps far less
MAX_REPLY_BYTES = 64 * 1024  # as the host's bound: one byte more tells it the line is longer

# Standard modules a strategy program commonly imports, loaded once by the first process.
# Pure computation only, none of them a door the audit hook or the filters guard.
PRELOADED = (
    "bisect",
    "collections",
    "copy",
    "dataclasses",
    "enum",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "math",
    "re",
    "statistics",
    "string",
    "typing",
)

# Events refused whatever their arguments.
REFUSED = (
    "socket.",  # any socket operation (prefix)
    "ctypes.",  # native code and raw memory (prefix)
    "os.fork",
    "os.forkpty",
    "os.posix_spawn",
    "os.spawn",
    "os.exec",
    "os.system",
    "os.kill",
    "os.killpg",
    "os.startfile",
    "subprocess.Popen",
    "pty.spawn",
    "sys.setprofile",
    "sys.settrace",
    "sys._current_frames",
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
    "code.__new__",
)
# Events refused when a path among their arguments lies outside the scratch folder.
PATH_EVENTS = (
    "os.rename",
    "os.link",
    "os.symlink",
    "os.truncate",
    "os.remove",
    "os.rmdir",
    "os.mkdir",
    "os.chmod",
    "os.chown",
    "os.chflags",
    "os.lchflags",
    "os.utime",
    "os.setxattr",
    "os.removexattr",
)
CLOCKS = (
    "time",
    "time_ns",
    "monotonic",
    "monotonic_ns",
    "perf_counter",
    "perf_counter_ns",
    "process_time",
    "process_time_ns",
    "thread_time",
    "thread_time_ns",
    "clock_gettime",
    "clock_gettime_ns",
    "sleep",
)


def apply_limits(limits: dict, processes: int = 1) -> None:  # type: ignore[type-arg]
    """Resource limits of this process and those it forks (hard = soft, so the program cannot
    raise them).  ``processes``: 2 for the first process (itself and one move's process at a
    time), 1 for a move's (no fork; where the host user is root the kernel does not count,
    and the move's system-call filter is what refuses)."""
    mib = 1024 * 1024
    for name, value in (
        ("RLIMIT_CPU", int(limits["cpu_seconds"])),
        ("RLIMIT_AS", int(limits["memory_mb"]) * mib),
        ("RLIMIT_FSIZE", int(limits["file_mb"]) * mib),
        ("RLIMIT_NOFILE", int(limits["open_files"])),
        ("RLIMIT_NPROC", processes),
        ("RLIMIT_CORE", 0),
    ):
        resource.setrlimit(getattr(resource, name), (value, value))


def filter_installer(program: bytes):  # type: ignore[no-untyped-def]
    """A function that installs the seccomp ``program`` (classic BPF) on the process calling
    it, prepared here so that a move's process needs no import to call it.  ctypes is used
    by this trusted code only: it leaves ``sys.modules`` again, and the audit hook refuses it
    to the program."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    code = ctypes.create_string_buffer(program, len(program))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program) // 8, ctypes.addressof(code))
    address = ctypes.addressof(fprog)
    for name in [m for m in sys.modules if m == "ctypes" or m.startswith(("ctypes.", "_ctypes"))]:
        del sys.modules[name]

    def install() -> None:
        # PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP with SECCOMP_MODE_FILTER
        if prctl(38, 1, 0, 0, 0) != 0 or prctl(22, 2, address, 0, 0) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"the move's system-call filter was refused: {os.strerror(error)}")

    install.keep = (code, fprog)  # type: ignore[attr-defined]  # alive as long as install
    return install


def _install_hook(scratch: str) -> None:
    """The audit hook (module docstring, item 3).  Everything it reads is immutable."""
    refused = frozenset(e for e in REFUSED if not e.endswith("."))
    prefixes = tuple(e for e in REFUSED if e.endswith("."))
    path_events = frozenset(PATH_EVENTS)
    realpath, fsdecode, sep = os.path.realpath, os.fsdecode, os.sep
    writing_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def outside(path: object) -> str | None:
        if isinstance(path, str | bytes | os.PathLike):
            real = realpath(fsdecode(path))
            if real != scratch and not real.startswith(scratch + sep):
                return real
        return None

    def hook(event: str, args: tuple) -> None:  # type: ignore[type-arg]
        if event in refused or event.startswith(prefixes):
            raise PermissionError(f"sandbox: {event} is not allowed")
        if event == "open":
            path, mode, flags = (*args, None, None, None)[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & writing_flags
            )
            real = outside(path) if writing else None
            if real is not None:
                raise PermissionError(f"sandbox: writing {real} is not allowed")
        elif event in path_events:
            for arg in args:
                real = outside(arg)
                if real is not None:
                    raise PermissionError(f"sandbox: {event} on {real} is not allowed")
        elif event == "object.__setattr__" and len(args) > 1 and args[1] == "__code__":
            raise PermissionError("sandbox: replacing a function's code is not allowed")
        elif event == "import" and args and args[0] in ("ctypes", "_ctypes"):
            raise PermissionError(f"sandbox: importing {args[0]} is not allowed")

    sys.addaudithook(hook)


def _no_clocks() -> None:
    def no_clock(*_: object) -> float:
        raise PermissionError("sandbox: clocks are not available to strategy programs")

    for name in CLOCKS:
        setattr(time, name, no_clock)


class _BoundedSink:
    """Where the program's prints go: counted and dropped (nothing reaches the host)."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, text: str) -> int:
        self.size += len(text)
        return len(text)

    def flush(self) -> None:
        pass


def _describe(exc: BaseException) -> str:
    try:
        text = f"{type(exc).__name__}: {exc}"
    except BaseException:  # an exception whose str() fails
        text = f"{type(exc).__name__}: (message not printable)"
    return text[:ERROR_CHARS]


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


def _move(request: dict, code: types.CodeType, reply_fd: int, confine) -> None:  # type: ignore[type-arg, no-untyped-def]
    """A move's process: confine itself, run ``act`` once, write one line, end."""
    status = 0
    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))
        confine()
        _install_hook(SCRATCH)
        _no_clocks()
        sys.modules["__main__"] = types.ModuleType("__main__")
        ident = request["id"]
        try:
            namespace: dict[str, object] = {"__name__": "strategy_program"}
            exec(code, namespace)
            act = namespace.get("act")
            if not callable(act):
                raise TypeError("the program defines no act(observation, legal_actions, rng)")
            rng = random.Random(request["seed"])
            action = act(request["observation"], list(request["legal"]), rng)
            text = json.dumps({"id": ident, "action": action})  # not serialisable: an error
        except BaseException as exc:  # the program's failure is reported, not raised
            text = json.dumps({"id": ident, "error": _describe(exc)})
        _write_all(reply_fd, (text + "\n").encode("utf-8"))
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _answer(fd: int) -> bytes:
    """The first line a move's process wrote on ``fd`` (with its end), or what it wrote
    before ending without one (at most ``MAX_REPLY_BYTES`` + 1 bytes)."""
    data = b""
    while b"\n" not in data and len(data) <= MAX_REPLY_BYTES:
        chunk = os.read(fd, MAX_REPLY_BYTES + 1 - len(data))
        if not chunk:
            break
        data += chunk
    end = data.find(b"\n")
    return data[: end + 1] if end >= 0 else data


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _empty(folder: str) -> None:
    """Remove everything in ``folder`` (without recursion: a move may nest folders deeply,
    and take away their permissions)."""
    stack, folders = [folder], []
    while stack:
        current = stack.pop()
        with contextlib.suppress(OSError):  # the tmpfs's root is not this process's
            os.chmod(current, 0o700)
        for entry in os.scandir(current):
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
                folders.append(entry.path)
            else:
                os.unlink(entry.path)
    for path in reversed(folders):
        os.rmdir(path)


def main() -> None:
    request_fd, reply_fd, filter_fd = (int(arg) for arg in sys.argv[1:4])
    apply_limits(json.loads(sys.argv[4]), processes=2)
    for name in PRELOADED:
        __import__(name)
    with os.fdopen(filter_fd, "rb") as filters:
        confine = filter_installer(filters.read())
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # PID 1: signals from inside are then ignored

    def send(data: bytes) -> None:
        _write_all(reply_fd, data)

    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    sys.stdout = sys.stderr = _BoundedSink()
    requests = os.fdopen(request_fd, "rb")
    try:
        with open(PROGRAM, encoding="utf-8") as handle:
            source = handle.read()
        code = compile(source, "program.py", "exec")
    except SyntaxError as exc:
        reason = f"does not compile: {exc.msg} (line {exc.lineno})"
        send((json.dumps({"error": reason}) + "\n").encode())
        return
    except (OSError, ValueError) as exc:  # unreadable, not UTF-8, null bytes
        send((json.dumps({"error": f"does not compile: {_describe(exc)}"}) + "\n").encode())
        return
    os.chdir(SCRATCH)
    send(b'{"ready": true}\n')
    for line in requests:
        request = json.loads(line)
        answer_read, answer_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(answer_read)
            os.close(request_fd)
            os.close(reply_fd)
            _move(request, code, answer_write, confine)
        os.close(answer_write)
        answer = _answer(answer_read)
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(answer_read)
        _empty(SCRATCH)
        if not answer.endswith(b"\n") and len(answer) <= MAX_REPLY_BYTES:
            reason = f"the program's process ended without an answer ({_ended(status)})"
            answer = (json.dumps({"id": request["id"], "error": reason}) + "\n").encode()
        send(answer)


if __name__ == "__main__":
    main()
