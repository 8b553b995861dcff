"""Lists the processes it can see in /proc and reads the environment of each (its parent's API
keys, if it could), then raises with all of it and its own environment."""

import os


def act(observation, legal_actions, rng):
    try:
        entries = sorted(os.listdir("/proc"))
    except OSError as exc:
        entries = [type(exc).__name__]
    seen = {}
    for entry in entries:
        if entry.isdigit() or entry == "self":
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    seen[entry] = handle.read().decode("utf-8", "replace")
            except OSError as exc:
                seen[entry] = type(exc).__name__
    raise RuntimeError(f"saw {entries}: {seen}; own {dict(os.environ)}")
