"""Reads the environment of every process it can see (its parent's API keys, if it could) and
raises with all of it."""

import os


def act(observation, legal_actions, rng):
    seen = {}
    for entry in sorted(os.listdir("/proc")):
        if entry.isdigit() or entry == "self":
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    seen[entry] = handle.read().decode("utf-8", "replace")
            except OSError as exc:
                seen[entry] = type(exc).__name__
    raise RuntimeError(f"saw {sorted(seen)}: {seen}")
