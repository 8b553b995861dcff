"""Writes a 600 MiB line to its stdout, by print and straight to file descriptors 1 and 2."""

import os

CHUNK = b"x" * (1 << 20)


def act(observation, legal_actions, rng):
    print("x" * (16 << 20), end="")
    for _ in range(300):
        os.write(1, CHUNK)
        os.write(2, CHUNK)
    return legal_actions[0]
