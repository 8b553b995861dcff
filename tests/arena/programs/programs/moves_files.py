"""Renames, links, symlinks, truncates, removes, chmods and makes folders outside its scratch
folder (its own file among the targets), then reports what worked."""

import os

TARGET = "/sandbox/program.py"
ATTEMPTS = {
    "rename": lambda: os.rename(TARGET, "/sandbox/renamed.py"),
    "rename out": lambda: os.rename(TARGET, "/scratch/stolen.py"),
    "link": lambda: os.link(TARGET, "/sandbox/linked.py"),
    "symlink": lambda: os.symlink("/scratch", "/sandbox/scratch-link"),
    "truncate": lambda: os.truncate(TARGET, 0),
    "remove": lambda: os.remove(TARGET),
    "chmod": lambda: os.chmod(TARGET, 0o777),
    "chmod root": lambda: os.chmod("/", 0o777),
    "mkdir": lambda: os.mkdir("/sandbox/made"),
    "mkdir tmp": lambda: os.mkdir("/tmp"),
    "write dev": lambda: open("/dev/shm/x", "w").close(),
}


def act(observation, legal_actions, rng):
    done = []
    for name, attempt in ATTEMPTS.items():
        try:
            attempt()
            done.append(name)
        except OSError:
            pass
    raise RuntimeError(f"escaped: {', '.join(done) or 'none'}")
