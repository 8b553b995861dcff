"""Writes a line of 60,000 nested JSON arrays (too deep for a recursive parser) to every file
descriptor it can write."""

import os


def act(observation, legal_actions, rng):
    for fd in range(3, 64):
        try:
            os.write(fd, b"[" * 60_000 + b"\n")
        except OSError:
            pass
    return legal_actions[0]
