"""Writes protocol lines (a ready line, answers under guessed ids) to every file descriptor it can
write, then answers normally."""

import json
import os

LINES = [{"ready": True}] + [{"id": f"{n}", "action": "check"} for n in range(1, 4)]
LINES += [{"id": f"{n}-{'0' * 16}", "action": "check"} for n in range(1, 4)]
FORGED = "".join(json.dumps(line) + "\n" for line in LINES).encode()


def act(observation, legal_actions, rng):
    for fd in range(3, 64):
        try:
            os.write(fd, FORGED)
        except OSError:
            pass
    return legal_actions[0]
