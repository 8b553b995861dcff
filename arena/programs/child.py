"""The sandboxed side of a strategy program: run by ``arena.programs.sandbox`` inside bubblewrap.

It imports only the standard library (the sandbox shows nothing else: no project code, no
third-party package) and runs as ``python -s -S -P -B /sandbox/child.py REQUEST_FD REPLY_FD
LIMITS``, with the program at ``/sandbox/program.py`` and a private tmpfs at ``/scratch`` as its
working folder.  The operating system does the containing (namespaces, read-only mounts, a
system-call filter: see ``arena.programs.sandbox``); this script adds what only the process
itself can do, before any of the program's code runs:

1. resource limits: CPU seconds, address space, processes (this one only: no new process or
   thread, where the host user is not root; the seccomp filter refuses them in any case), file
   size, open files, no core dumps;
2. the program's prints go to a counting sink, and file descriptors 0, 1 and 2 to /dev/null, so
   nothing the program writes there reaches the host;
3. an audit hook (PEP 578), a second layer behind the OS: it refuses sockets, new processes,
   signals, native code (ctypes), new code objects, introspection of the garbage collector, and
   writing, renaming, linking, removing or changing files outside ``/scratch``.  Its state is
   two frozensets and a string held in a closure: nothing the program can clear, and the hook
   function itself is referenced only by the interpreter (the collector's ``get_objects`` and
   ``get_referrers`` that could find it are refused);
4. the clock functions are replaced by ones that raise;
5. this script leaves ``sys.modules`` (``__main__`` becomes an empty module), and each move runs
   the program's code in a fresh namespace dict, so no state survives from one move to the next
   except files in the scratch folder.

Protocol (never the program's stdout): the first line on REPLY_FD is ``{"ready": true}`` or
``{"error": "does not compile: ..."}``; then for each line on REQUEST_FD, ``{"id": ...,
"observation": ..., "legal": [...], "seed": int}``, one line on REPLY_FD: ``{"id": <the same>,
"action": ...}`` or ``{"id": <the same>, "error": "..."}``.  The host accepts a reply only for
the id it asked (an unpredictable id per request), so a line the program writes to the reply
descriptor cannot answer a later move.
"""

import json
import os
import random
import resource
import sys
import time
import types

PROGRAM = "/sandbox/program.py"
SCRATCH = "/scratch"
ERROR_CHARS = 16_000  # the host redacts, then keeps far less

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


def apply_limits(limits: dict) -> None:  # type: ignore[type-arg]
    """Resource limits of this process (hard = soft, so the program cannot raise them)."""
    mib = 1024 * 1024
    for name, value in (
        ("RLIMIT_CPU", int(limits["cpu_seconds"])),
        ("RLIMIT_AS", int(limits["memory_mb"]) * mib),
        ("RLIMIT_FSIZE", int(limits["file_mb"]) * mib),
        ("RLIMIT_NOFILE", int(limits["open_files"])),
        ("RLIMIT_NPROC", 1),  # this process only: no fork, no thread
        ("RLIMIT_CORE", 0),
    ):
        resource.setrlimit(getattr(resource, name), (value, value))


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

    for name in (
        "time",
        "time_ns",
        "monotonic",
        "monotonic_ns",
        "perf_counter",
        "perf_counter_ns",
        "process_time",
        "process_time_ns",
        "sleep",
    ):
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


def main() -> None:
    request_fd, reply_fd = int(sys.argv[1]), int(sys.argv[2])
    apply_limits(json.loads(sys.argv[3]))
    write, dumps, loads = os.write, json.dumps, json.loads

    def send(text: str) -> None:
        data = (text + "\n").encode("utf-8")
        while data:
            data = data[write(reply_fd, data) :]

    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    sink = _BoundedSink()
    sys.stdout = sys.stderr = sink
    requests = os.fdopen(request_fd, "rb")
    try:
        with open(PROGRAM, encoding="utf-8") as handle:
            source = handle.read()
        code = compile(source, "program.py", "exec")
    except SyntaxError as exc:
        send(dumps({"error": f"does not compile: {exc.msg} (line {exc.lineno})"}))
        return
    except (OSError, ValueError) as exc:  # unreadable, not UTF-8, null bytes
        send(dumps({"error": f"does not compile: {_describe(exc)}"}))
        return
    os.chdir(SCRATCH)
    _install_hook(SCRATCH)
    _no_clocks()
    sys.modules["__main__"] = types.ModuleType("__main__")
    send(dumps({"ready": True}))
    for line in requests:
        request = loads(line)
        ident = request["id"]
        try:
            namespace: dict[str, object] = {"__name__": "strategy_program"}
            exec(code, namespace)
            act = namespace.get("act")
            if not callable(act):
                raise TypeError("the program defines no act(observation, legal_actions, rng)")
            rng = random.Random(request["seed"])
            action = act(request["observation"], list(request["legal"]), rng)
            text = dumps({"id": ident, "action": action})  # not serialisable: an error
        except BaseException as exc:  # the program's failure is reported, not raised
            text = dumps({"id": ident, "error": _describe(exc)})
        send(text)


if __name__ == "__main__":
    main()
