"""Writes the start of a protocol line, without its end, everywhere it can, then never answers."""

import os
import sys

PARTIAL = b'{"id": "1", "action": "check"'


def act(observation, legal_actions, rng):
    sys.stdout.write(PARTIAL.decode())
    sys.stdout.flush()
    for fd in range(64):
        try:
            os.write(fd, PARTIAL)
        except OSError:
            pass
    while True:
        pass
