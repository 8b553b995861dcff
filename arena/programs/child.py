"""The sandboxed side of a strategy program: run by ``arena.programs.sandbox`` as a script.

Protocol: one JSON object per line on stdin, ``{"observation": ..., "legal": [...],
"seed": int}``; one JSON object per line on the protocol stream (the process's original stdout,
duplicated before the program can touch it): ``{"action": ...}`` or ``{"error": "..."}``.

Before the program is loaded this process installs an audit hook (PEP 578) that refuses
sockets, new processes (fork, exec, spawn, subprocess, os.system), native code loading
(ctypes), and opening files for writing outside the scratch folder; it replaces the clock
functions with ones that raise; and it sends the program's own prints to a bounded sink.  The
host adds resource limits (CPU time, memory, file size), a wall-time limit per move, and, where
the system allows, an empty network namespace.  Each move runs the program's source in a fresh
namespace, so no state survives from one move to the next.
"""

import json
import os
import random
import sys
import time

BLOCKED_EVENTS = {
    "socket.connect",
    "socket.bind",
    "socket.__new__",
    "socket.getaddrinfo",
    "socket.sendto",
    "os.fork",
    "os.forkpty",
    "os.posix_spawn",
    "os.spawn",
    "os.exec",
    "os.system",
    "os.kill",
    "subprocess.Popen",
    "pty.spawn",
    "ctypes.dlopen",
    "ctypes.dlsym",
    "_posixsubprocess.fork_exec",
    "os.startfile",
    "sys.setprofile",
    "sys.settrace",
}


class _BoundedSink:
    """Where the program's prints go: counted and dropped (nothing reaches the host)."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, text: str) -> int:
        self.size += len(text)
        return len(text)

    def flush(self) -> None:
        pass


def _install(scratch: str) -> None:
    scratch = os.path.realpath(scratch)

    def hook(event: str, args: tuple) -> None:  # type: ignore[type-arg]
        if event in BLOCKED_EVENTS:
            raise PermissionError(f"sandbox: {event} is not allowed")
        if event == "open":
            path, mode, flags = [*args, None, None, None][:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)
            )
            if writing and isinstance(path, str | bytes):
                real = os.path.realpath(os.fsdecode(path))
                if not (real == scratch or real.startswith(scratch + os.sep)):
                    raise PermissionError(f"sandbox: writing {real} is not allowed")

    sys.addaudithook(hook)

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


def main() -> None:
    program_path, scratch = sys.argv[1], sys.argv[2]
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    requests = sys.stdin
    with open(program_path, encoding="utf-8") as handle:
        source = handle.read()
    os.chdir(scratch)
    _install(scratch)
    sink = _BoundedSink()
    sys.stdout = sink
    sys.stderr = sink
    try:
        code = compile(source, program_path, "exec")
    except SyntaxError as exc:
        protocol.write(
            json.dumps({"error": f"does not compile: {exc.msg} (line {exc.lineno})"}) + "\n"
        )
        return
    protocol.write(json.dumps({"ready": True}) + "\n")
    for line in requests:
        request = json.loads(line)
        try:
            namespace: dict[str, object] = {"__name__": "strategy_program"}
            exec(code, namespace)
            act = namespace.get("act")
            if not callable(act):
                raise TypeError("the program defines no act(observation, legal_actions, rng)")
            rng = random.Random(request["seed"])
            action = act(request["observation"], list(request["legal"]), rng)
            reply = {"action": action, "printed": sink.size}
            text = json.dumps(reply)
        except BaseException as exc:  # the program's failure is reported, not raised
            text = json.dumps({"error": f"{type(exc).__name__}: {exc}"[:500]})
        protocol.write(text + "\n")


if __name__ == "__main__":
    main()
