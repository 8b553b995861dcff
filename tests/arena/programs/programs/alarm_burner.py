"""Issue 43, item 10: answers at once, with a timer armed whose SIGALRM handler burns CPU: the
burning falls between moves, outside any move's time."""

import signal


def burn(signum, frame):
    while True:
        pass


def act(observation, legal_actions, rng):
    signal.signal(signal.SIGALRM, burn)
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    return legal_actions[0]
