"""Issue 43, item 7: holds memory past memory_mb in memfds (8 MiB each, the file-size limit, as
many as its descriptors allow), a file in its tmpfs scratch folder and plain allocations, writes
what it got to /scratch/held, then holds it all (the move never ends)."""

import os

CHUNK = b"x" * (1 << 20)


def memfds(kept):
    try:
        for n in range(48):  # 384 MiB, and descriptors left for the rest
            kept.append(os.memfd_create(f"hold{n}"))
            for _ in range(8):
                os.write(kept[-1], CHUNK)
    except OSError as exc:
        return type(exc).__name__
    return "none"


def tmpfs():
    try:
        with open("/scratch/hold", "wb") as handle:
            for _ in range(1024):
                handle.write(CHUNK)
                handle.flush()
    except OSError as exc:
        return type(exc).__name__
    return "none"


def allocations(kept):
    try:
        for _ in range(1024):
            kept.append(bytearray(CHUNK))
    except MemoryError:
        kept.pop()  # room for the report
        return "MemoryError"
    return "none"


def act(observation, legal_actions, rng):
    kept = []
    report = {"memfd": memfds(kept), "tmpfs": tmpfs(), "allocations": allocations(kept)}
    with open("/scratch/held", "w") as handle:
        handle.write(repr(report))
    while True:
        pass
